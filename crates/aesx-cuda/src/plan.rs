//! Host-side arithmetic that decides what each launch and each chunk does:
//! launch geometry, counters per chunk (with the 2^128 and 2^32 wraps),
//! XTS sectors per chunk, the levels of the GHASH tree. None of it touches
//! the GPU, so all of it is tested on any machine.

use aesx::Error;

/// Blocks that one thread carries in its bitslice registers.
pub const BLOCKS_PER_THREAD: u64 = 32;
/// Blocks per warp (lane l takes blocks l, l + 32, ...).
pub const BLOCKS_PER_WARP: u64 = 32 * BLOCKS_PER_THREAD;
/// Threads per CTA for the AES kernels (4 warps: the bitsliced state needs
/// most of the register file, so larger CTAs would not raise occupancy).
pub const AES_THREADS_PER_CTA: u32 = 128;
/// GHASH elements folded by one thread (`AESX_GHASH_RUN` in ghash.cu).
pub const GHASH_RUN: u64 = 32;
/// Threads per CTA for the GHASH kernel.
pub const GHASH_THREADS_PER_CTA: u32 = 256;

/// The 16-byte blocks in `len` bytes, which must be whole blocks (the
/// kernels load and store whole blocks).
pub(crate) fn whole_blocks(len: usize) -> Result<u64, Error> {
    if !len.is_multiple_of(16) {
        return Err(Error::NotBlockAligned { len });
    }
    Ok((len / 16) as u64)
}

/// Grid and CTA size of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    /// CTAs in the grid (x dimension).
    pub grid: u32,
    /// Threads per CTA.
    pub block: u32,
}

/// Launch geometry for an AES kernel over `nblocks` blocks (at least one
/// CTA, so that a launch is well-formed even for zero blocks).
pub fn aes_launch_dims(nblocks: u64) -> Result<LaunchDims, Error> {
    let warps = nblocks.div_ceil(BLOCKS_PER_WARP).max(1);
    let threads = warps * 32;
    let grid = threads.div_ceil(u64::from(AES_THREADS_PER_CTA));
    let grid = u32::try_from(grid).map_err(|_| Error::MessageTooLong)?;
    if grid > i32::MAX as u32 {
        return Err(Error::MessageTooLong);
    }
    Ok(LaunchDims {
        grid,
        block: AES_THREADS_PER_CTA,
    })
}

/// Launch geometry for the GHASH kernel over `nruns` runs.
pub fn ghash_launch_dims(nruns: u64) -> Result<LaunchDims, Error> {
    let grid = nruns.max(1).div_ceil(u64::from(GHASH_THREADS_PER_CTA));
    let grid = u32::try_from(grid).map_err(|_| Error::MessageTooLong)?;
    Ok(LaunchDims {
        grid,
        block: GHASH_THREADS_PER_CTA,
    })
}

/// The counter block `blocks` blocks after `counter`, as a 128-bit
/// big-endian integer modulo 2^128 (SP 800-38A's standard increment).
pub fn ctr128_add(counter: &[u8; 16], blocks: u128) -> [u8; 16] {
    u128::from_be_bytes(*counter)
        .wrapping_add(blocks)
        .to_be_bytes()
}

/// GCM's inc32 applied `blocks` times: only the last four bytes count, as a
/// big-endian integer modulo 2^32.
pub fn ctr32_add(counter: &[u8; 16], blocks: u64) -> [u8; 16] {
    let mut out = *counter;
    let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
    out[12..].copy_from_slice(&low.wrapping_add(blocks as u32).to_be_bytes());
    out
}

/// A counter block as the kernels' (hi, lo) pair of 64-bit halves.
pub fn counter_halves(counter: &[u8; 16]) -> (u64, u64) {
    let v = u128::from_be_bytes(*counter);
    ((v >> 64) as u64, v as u64)
}

/// A 16-byte block as the kernels' (lo, hi) little-endian 64-bit words (the
/// layout of a uint4 in device memory).
pub fn block_le_halves(block: &[u8; 16]) -> (u64, u64) {
    u128_halves(u128::from_le_bytes(*block))
}

/// A 128-bit kernel argument (a sector number, a field element) as the
/// (lo, hi) pair of 64-bit words the kernels take it in.
pub(crate) fn u128_halves(v: u128) -> (u64, u64) {
    (v as u64, (v >> 64) as u64)
}

/// One piece of a host buffer processed by one round trip to the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Index of the chunk, from 0.
    pub index: usize,
    /// Byte offset in the whole buffer.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

/// Splits `len` bytes into chunks of `chunk_len` bytes (the last shorter).
/// `chunk_len` must be a non-zero multiple of 16 so that every chunk but the
/// last is whole blocks and counters and tweaks advance by whole blocks.
pub fn split_chunks(len: usize, chunk_len: usize) -> Result<Vec<Chunk>, Error> {
    if chunk_len == 0 || !chunk_len.is_multiple_of(16) {
        return Err(Error::NotBlockAligned { len: chunk_len });
    }
    Ok((0..len.div_ceil(chunk_len))
        .map(|index| {
            let offset = index * chunk_len;
            Chunk {
                index,
                offset,
                len: chunk_len.min(len - offset),
            }
        })
        .collect())
}

/// The CTR counter at the start of a chunk.
pub fn chunk_counter(counter: &[u8; 16], chunk: &Chunk, ctr32: bool) -> [u8; 16] {
    let blocks = (chunk.offset / 16) as u64;
    if ctr32 {
        ctr32_add(counter, blocks)
    } else {
        ctr128_add(counter, u128::from(blocks))
    }
}

/// Chunk size for XTS: the largest multiple of the sector size not above
/// `target` (at least one sector), so no sector straddles two chunks.
pub fn xts_chunk_len(target: usize, sector_size: usize) -> usize {
    (target / sector_size).max(1) * sector_size
}

/// The first sector number of a chunk (sector numbers wrap modulo 2^128).
pub fn chunk_first_sector(first_sector: u128, chunk: &Chunk, sector_size: usize) -> u128 {
    first_sector.wrapping_add((chunk.offset / sector_size) as u128)
}

/// Checks an XTS sector request: sector size a multiple of 16 between 16
/// bytes and 2^24 bytes (IEEE 1619's 2^20 blocks), data whole sectors.
pub fn check_sectors(len: usize, sector_size: usize) -> Result<(), Error> {
    // The CPU's rules, in its order and with its errors (aesx::Xts).
    if sector_size == 0 || !sector_size.is_multiple_of(16) || sector_size > (1 << 24) {
        return Err(Error::InvalidSectorSize { size: sector_size });
    }
    if !len.is_multiple_of(sector_size) {
        return Err(Error::PartialSector { len, sector_size });
    }
    Ok(())
}

/// Checks that the `len / sector_size` sectors numbered from `first` do not
/// pass sector 2^128 - 1 ([`Error::CounterOverflow`], as aesx::Xts); after
/// [`check_sectors`].
pub fn check_sector_numbers(first: u128, len: usize, sector_size: usize) -> Result<(), Error> {
    let count = len.checked_div(sector_size).unwrap_or(0) as u128;
    if count > 0 && first.checked_add(count - 1).is_none() {
        return Err(Error::CounterOverflow);
    }
    Ok(())
}

/// One launch of the GHASH kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhashLevel {
    /// Elements read (level 0: blocks of the data, the last maybe partial).
    pub elements: u64,
    /// Runs, i.e. threads and output elements.
    pub runs: u64,
    /// Virtual zero elements in front, so that every run is full.
    pub pad: u64,
    /// 0 for the data itself, then 1, 2, ...
    pub level: u32,
}

/// The kernel parameter of the GHASH kernels with a table of powers
/// (`aesx_ghash_pows` in ghash.cu): entry q is `base^(GHASH_RUN - 1 - q)`,
/// each as the four little-endian words of its normal representation.
pub fn ghash_pows(base: u128) -> [u32; 4 * GHASH_RUN as usize] {
    let mut words = [0u32; 4 * GHASH_RUN as usize];
    let mut p = 1u128;
    for q in (0..GHASH_RUN as usize).rev() {
        for (k, w) in words[4 * q..4 * q + 4].iter_mut().enumerate() {
            *w = (p >> (32 * k)) as u32;
        }
        p = crate::gf::mul(p, base);
    }
    words
}

/// The launches that fold `elements` GCM blocks down to at most
/// [`GHASH_RUN`] elements, which the host finishes with Horner's rule in
/// base H. Each level is launched with base H^runs (see ghash.cu).
pub fn ghash_levels(elements: u64) -> Vec<GhashLevel> {
    let mut levels = Vec::new();
    let mut n = elements;
    let mut level = 0;
    while n > GHASH_RUN {
        let runs = n.div_ceil(GHASH_RUN);
        levels.push(GhashLevel {
            elements: n,
            runs,
            pad: runs * GHASH_RUN - n,
            level,
        });
        n = runs;
        level += 1;
    }
    levels
}

/// Host model of what the GHASH kernel computes for one level, on elements
/// in normal form, given the launch base (H^runs): the reference the GPU and
/// the emulator are checked against, and the proof that the tree equals
/// Horner's rule.
pub fn ghash_level_reference(input: &[u128], level: &GhashLevel, base: u128) -> Vec<u128> {
    (0..level.runs)
        .map(|t| {
            let mut acc = 0u128;
            for q in 0..GHASH_RUN {
                let v = q * level.runs + t;
                if v >= level.pad {
                    acc = crate::gf::mul(acc, base) ^ input[(v - level.pad) as usize];
                }
            }
            acc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf;

    #[test]
    fn launch_dims_cover_every_block() {
        for n in [0u64, 1, 31, 32, 1023, 1024, 1025, 4096, 4097, 1 << 26] {
            let d = aes_launch_dims(n).unwrap();
            let threads = u64::from(d.grid) * u64::from(d.block);
            assert!(threads * BLOCKS_PER_THREAD >= n, "n = {n}");
            assert!(d.grid >= 1);
            // No more than one CTA beyond what is needed.
            assert!((u64::from(d.grid) - 1) * u64::from(d.block) * BLOCKS_PER_THREAD < n.max(1));
        }
    }

    #[test]
    fn ctr128_wraps_modulo_2_128() {
        let top = [0xff; 16];
        assert_eq!(ctr128_add(&top, 1), [0; 16]);
        assert_eq!(ctr128_add(&top, 3)[15], 2);
        let mut c = [0u8; 16];
        c[7] = 0x01;
        c[8..].copy_from_slice(&[0xff; 8]);
        let d = ctr128_add(&c, 1);
        assert_eq!(d[7], 0x02);
        assert_eq!(&d[8..], &[0; 8]);
    }

    #[test]
    fn ctr32_leaves_the_first_twelve_bytes() {
        let mut c = [0xab; 16];
        c[12..].copy_from_slice(&[0xff, 0xff, 0xff, 0xfe]);
        let d = ctr32_add(&c, 3);
        assert_eq!(&d[..12], &[0xab; 12]);
        assert_eq!(&d[12..], &[0, 0, 0, 1]);
    }

    #[test]
    fn chunks_partition_the_buffer() {
        for (len, chunk) in [
            (0usize, 16usize),
            (1, 16),
            (17, 16),
            (100_000, 4096),
            (8192, 4096),
        ] {
            let chunks = split_chunks(len, chunk).unwrap();
            let mut next = 0;
            for (i, c) in chunks.iter().enumerate() {
                assert_eq!(c.index, i);
                assert_eq!(c.offset, next);
                assert!(c.len > 0 && c.len <= chunk);
                next += c.len;
            }
            assert_eq!(next, len);
        }
        assert!(split_chunks(10, 24).is_err());
        assert!(split_chunks(10, 0).is_err());
    }

    #[test]
    fn chunk_counters_continue_the_stream() {
        let start = [0xff; 16];
        let chunks = split_chunks(5 * 64, 64).unwrap();
        for c in &chunks {
            let want = ctr128_add(&start, (c.offset / 16) as u128);
            assert_eq!(chunk_counter(&start, c, false), want);
        }
        // Chunk 2 starts 8 blocks on: 0xff..ff + 8 wraps to 7.
        assert_eq!(chunk_counter(&start, &chunks[2], false)[15], 7);
        let mut j0 = [0x11; 16];
        j0[12..].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
        let c = chunk_counter(&j0, &chunks[4], true);
        assert_eq!(&c[..12], &[0x11; 12]);
        assert_eq!(&c[12..], &0x0000_0000u32.to_be_bytes());
    }

    #[test]
    fn xts_chunks_hold_whole_sectors() {
        assert_eq!(xts_chunk_len(1 << 20, 4096), 1 << 20);
        assert_eq!(xts_chunk_len(1 << 20, 3 * 4096), 85 * 3 * 4096);
        assert_eq!(xts_chunk_len(100, 4096), 4096);
        let len = 10 * 512;
        let chunks = split_chunks(len, xts_chunk_len(3 * 512, 512)).unwrap();
        let firsts: Vec<u128> = chunks
            .iter()
            .map(|c| chunk_first_sector(u128::MAX - 3, c, 512))
            .collect();
        assert_eq!(firsts, vec![u128::MAX - 3, u128::MAX, 2, 5]);
    }

    #[test]
    fn sector_checks() {
        assert!(check_sectors(4096, 512).is_ok());
        assert!(check_sectors(0, 512).is_ok());
        assert!(matches!(
            check_sectors(4096, 0),
            Err(Error::InvalidSectorSize { .. })
        ));
        assert!(matches!(
            check_sectors(4096, 24),
            Err(Error::InvalidSectorSize { .. })
        ));
        assert_eq!(
            check_sectors(1000, 512),
            Err(Error::PartialSector {
                len: 1000,
                sector_size: 512
            })
        );
        assert_eq!(
            check_sectors(1 << 25, 1 << 25),
            Err(Error::InvalidSectorSize { size: 1 << 25 })
        );
        assert!(check_sectors(1 << 24, 1 << 24).is_ok());
        // The sector size is checked before the length, as on the CPU.
        assert_eq!(
            check_sectors(1000, 24),
            Err(Error::InvalidSectorSize { size: 24 })
        );
    }

    #[test]
    fn sector_numbers_stop_at_the_last() {
        assert!(check_sector_numbers(u128::MAX, 512, 512).is_ok());
        assert!(check_sector_numbers(u128::MAX - 1, 1024, 512).is_ok());
        assert!(check_sector_numbers(u128::MAX, 0, 512).is_ok());
        assert!(check_sector_numbers(u128::MAX, 0, 0).is_ok());
        assert_eq!(
            check_sector_numbers(u128::MAX, 1024, 512),
            Err(Error::CounterOverflow)
        );
        assert_eq!(
            check_sector_numbers(u128::MAX - 1, 1536, 512),
            Err(Error::CounterOverflow)
        );
    }

    #[test]
    fn ghash_pows_are_the_run_powers() {
        let base = 0x0388_dace_60b6_a392_f328_c2b9_71b2_fe78u128;
        let words = ghash_pows(base);
        let entry = |q: usize| {
            (0..4).fold(0u128, |acc, k| {
                acc | (u128::from(words[4 * q + k]) << (32 * k))
            })
        };
        for q in 0..GHASH_RUN as usize {
            assert_eq!(entry(q), gf::pow(base, GHASH_RUN - 1 - q as u64), "q = {q}");
        }
    }

    #[test]
    fn ghash_tree_equals_horner() {
        let h = 0x66e9_4bd4_ef8a_2c3b_884c_fa59_ca34_2b2eu128.reverse_bits();
        for n in [1u64, 2, 31, 32, 33, 64, 65, 1000, 1025, 1057, 40_000] {
            let elems: Vec<u128> = (0..n)
                .map(|i| {
                    (u128::from(i) + 1)
                        .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834)
                        .rotate_left(i as u32 % 128)
                })
                .collect();
            let mut cur = elems.clone();
            for level in ghash_levels(n) {
                assert_eq!(level.elements, cur.len() as u64);
                assert!(level.pad < GHASH_RUN);
                cur = ghash_level_reference(&cur, &level, gf::pow(h, level.runs));
            }
            assert!(cur.len() as u64 <= GHASH_RUN);
            assert_eq!(gf::poly_eval(&cur, h), gf::poly_eval(&elems, h), "n = {n}");
        }
    }
}
