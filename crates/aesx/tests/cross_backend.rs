//! Every available backend against OpenSSL (dense) and against the soft
//! backend (every length): ECB, CBC and CTR over every length
//! up to 8 KiB, unaligned buffers, in place and out of place, all key sizes,
//! CTR counters that cross the 2^64 carry and the 2^128 wrap mid-call, and
//! multi-buffer CBC against one stream per message.

mod common;

use aesx::{cbc_encrypt_many, Aes, Backend, Cbc, CbcJob, Ctr, Ecb};
use common::ossl::Mode;
use common::{key_for, random_bytes as bytes};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Largest message length tested.
const MAX_LEN: usize = 8192;

const KEY_SIZES: [usize; 3] = [16, 24, 32];

fn rng() -> StdRng {
    StdRng::seed_from_u64(0x05ee_dae5_0000_0001)
}

/// Random message bytes: a window at a random offset of one random pool.
/// Tests build without optimisation, where generating every message with
/// the ChaCha RNG would dominate the run time.
struct Pool(Vec<u8>);

impl Pool {
    fn new(rng: &mut StdRng) -> Pool {
        Pool(bytes(rng, 4 * MAX_LEN))
    }

    fn take(&self, rng: &mut StdRng, n: usize) -> Vec<u8> {
        let off = rng.gen_range(0..=self.0.len() - n);
        self.0[off..off + n].to_vec()
    }
}

/// OpenSSL without padding.
fn ossl(mode: Mode, enc: bool, key: &[u8], iv: Option<&[u8]>, data: &[u8]) -> Vec<u8> {
    common::ossl::crypt(mode, enc, key, iv.unwrap_or_default(), false, data)
}

/// The hardware backends (and soft) this machine has.
fn backends() -> Vec<Backend> {
    common::backends()
}

/// Runs `f` on a copy of `data` placed at `offset` in a larger buffer, in
/// place or from a separate (also offset) source; returns the output.
fn run_buf(
    data: &[u8],
    offset: usize,
    in_place: bool,
    f: impl FnOnce(&[u8], &mut [u8]),
) -> Vec<u8> {
    let n = data.len();
    let mut dst = vec![0xa5u8; n + 32];
    if in_place {
        dst[offset..offset + n].copy_from_slice(data);
        // In place: an empty source tells `f` to work on `dst` alone.
        f(&[], &mut dst[offset..offset + n]);
    } else {
        let mut src = vec![0x5au8; n + 32];
        let so = (offset * 5 + 3) % 16;
        src[so..so + n].copy_from_slice(data);
        f(&src[so..so + n], &mut dst[offset..offset + n]);
    }
    // Nothing outside the window may change.
    assert!(dst[..offset].iter().all(|b| *b == 0xa5));
    assert!(dst[offset + n..].iter().all(|b| *b == 0xa5));
    dst[offset..offset + n].to_vec()
}

/// Runs `check(rng, pool, bi, b, i)` for every `i` in `0..=last` on every
/// hardware backend `b` (`bi` its index among all backends), with one RNG
/// and one message pool for the whole test.
fn each_hardware_case(
    last: usize,
    mut check: impl FnMut(&mut StdRng, &Pool, usize, Backend, usize),
) {
    let mut rng = rng();
    let pool = Pool::new(&mut rng);
    for (bi, b) in backends().into_iter().enumerate() {
        if b == Backend::Soft {
            continue;
        }
        for i in 0..=last {
            check(&mut rng, &pool, bi, b, i);
        }
    }
}

#[test]
fn ecb_all_lengths() {
    each_hardware_case(MAX_LEN / 16, |rng, pool, bi, b, blocks| {
        let len = blocks * 16;
        let key = key_for(rng, blocks + bi);
        let data = pool.take(rng, len);
        let off = (blocks * 7 + bi) % 16;
        let ecb = Ecb::with_backend(&key, b).unwrap();
        let want = ossl(Mode::Ecb, true, &key, None, &data);
        let ct = run_buf(&data, off, blocks % 2 == 0, |s, d| {
            if s.is_empty() && !d.is_empty() {
                ecb.encrypt_in_place(d).unwrap()
            } else {
                ecb.aes().encrypt_blocks_to(s, d).unwrap()
            }
        });
        assert_eq!(ct, want, "{b} ECB enc len {len} key {}", key.len());
        let pt = run_buf(&ct, off ^ 5, blocks % 3 == 0, |s, d| {
            if s.is_empty() && !d.is_empty() {
                ecb.decrypt_in_place(d).unwrap()
            } else {
                ecb.aes().decrypt_blocks_to(s, d).unwrap()
            }
        });
        assert_eq!(pt, data, "{b} ECB dec len {len}");
        {
            let soft = Ecb::with_backend(&key, Backend::Soft).unwrap();
            let mut s = data.clone();
            soft.encrypt_in_place(&mut s).unwrap();
            assert_eq!(s, ct, "{b} vs soft ECB len {len}");
        }
    });
}

/// One CBC direction from `iv` over `d` (in place when `s` is empty, as
/// [`run_buf`] passes it) in two chained pieces cut at `cut`, so the IV
/// hand-over is tested; the chaining value afterwards must be `last`, the
/// last ciphertext block (none for an empty message).
fn cbc_two_pieces(
    cbc: &Cbc,
    encrypt: bool,
    iv: [u8; 16],
    cut: usize,
    last: &[u8],
    s: &[u8],
    d: &mut [u8],
) {
    let in_place = s.is_empty() && !d.is_empty();
    let mut chain = iv;
    let (a, z) = d.split_at_mut(cut);
    for (from, piece) in [(0..cut, a), (cut..s.len(), z)] {
        match (in_place, encrypt) {
            (true, true) => cbc.encrypt_chained(&mut chain, piece),
            (true, false) => cbc.decrypt_chained(&mut chain, piece),
            (false, true) => cbc.encrypt_chained_to(&mut chain, &s[from], piece),
            (false, false) => cbc.decrypt_chained_to(&mut chain, &s[from], piece),
        }
        .unwrap();
    }
    if !last.is_empty() {
        let dir = if encrypt { "enc" } else { "dec" };
        assert_eq!(
            chain[..],
            *last,
            "{} CBC {dir} chain out",
            cbc.aes().backend()
        );
    }
}

#[test]
fn cbc_all_lengths() {
    each_hardware_case(MAX_LEN / 16, |rng, pool, bi, b, blocks| {
        let len = blocks * 16;
        let key = key_for(rng, blocks + bi + 1);
        let iv: [u8; 16] = rng.gen();
        let data = pool.take(rng, len);
        let off = (blocks * 3 + bi + 1) % 16;
        let cbc = Cbc::with_backend(&key, b).unwrap();
        let want = ossl(Mode::Cbc, true, &key, Some(&iv), &data);
        // Encrypt in two chained pieces, so the IV hand-over is tested.
        let cut = 16 * (blocks / 3);
        let last = &want[len.saturating_sub(16)..];
        let ct = run_buf(&data, off, blocks % 2 == 1, |s, d| {
            cbc_two_pieces(&cbc, true, iv, cut, last, s, d)
        });
        assert_eq!(ct, want, "{b} CBC enc len {len} key {}", key.len());
        let pt = run_buf(&ct, off ^ 9, blocks % 4 < 2, |s, d| {
            cbc_two_pieces(&cbc, false, iv, 16 * (blocks / 2), last, s, d)
        });
        assert_eq!(pt, data, "{b} CBC dec len {len}");
        assert_eq!(pt, ossl(Mode::Cbc, false, &key, Some(&iv), &ct));
        {
            let soft = Cbc::with_backend(&key, Backend::Soft).unwrap();
            let mut s = data.clone();
            soft.encrypt_in_place(&iv, &mut s).unwrap();
            assert_eq!(s, ct, "{b} vs soft CBC enc len {len}");
            soft.decrypt_in_place(&iv, &mut s).unwrap();
            assert_eq!(s, data, "{b} vs soft CBC dec len {len}");
        }
    });
}

/// A counter block near an edge: random, just below the 2^64 carry of the
/// low half, or just below the 2^128 wrap.
fn ctr_iv(rng: &mut StdRng, i: usize) -> [u8; 16] {
    let back: u128 = rng.gen_range(1..=40);
    let v: u128 = match i % 4 {
        0 => rng.gen(),
        1 => ((rng.gen::<u64>() as u128) << 64) | (u64::MAX as u128 + 1 - back),
        2 => 0u128.wrapping_sub(back),
        _ => (1u128 << 64) - 3 + ((i as u128 % 7) << 64),
    };
    v.to_be_bytes()
}

#[test]
fn ctr_every_length() {
    each_hardware_case(MAX_LEN, |rng, pool, bi, b, len| {
        let key = key_for(rng, len + bi);
        let iv = ctr_iv(rng, len);
        let data = pool.take(rng, len);
        let want = ossl(Mode::Ctr, true, &key, Some(&iv), &data);
        let off = (len + bi) % 16;
        // Two or three pieces of random length through the streaming API.
        let c1 = rng.gen_range(0..=len);
        let c2 = rng.gen_range(c1..=len);
        let got = run_buf(&data, off, len % 2 == 0, |s, d| {
            let mut ctr = Ctr::with_backend(&key, &iv, b).unwrap();
            if s.is_empty() && !d.is_empty() {
                let (a, rest) = d.split_at_mut(c1);
                let (m, z) = rest.split_at_mut(c2 - c1);
                ctr.apply_keystream(a);
                ctr.apply_keystream(m);
                ctr.apply_keystream(z);
            } else {
                let (a, rest) = d.split_at_mut(c1);
                let (m, z) = rest.split_at_mut(c2 - c1);
                ctr.apply_keystream_to(&s[..c1], a).unwrap();
                ctr.apply_keystream_to(&s[c1..c2], m).unwrap();
                ctr.apply_keystream_to(&s[c2..], z).unwrap();
            }
            assert_eq!(ctr.position(), len as u128);
        });
        assert_eq!(
            got,
            want,
            "{b} CTR len {len} iv {iv:02x?} key {}",
            key.len()
        );
        {
            let mut s = data.clone();
            Ctr::with_backend(&key, &iv, Backend::Soft)
                .unwrap()
                .apply_keystream(&mut s);
            assert_eq!(s, got, "{b} vs soft CTR len {len}");
        }
    });
}

#[test]
fn ctr_counter_edges_long() {
    // Whole calls that start a few blocks before the carry and the wrap, at
    // lengths that put the crossing in every position of a batch.
    let mut rng = rng();
    for b in backends() {
        for &ks in &KEY_SIZES {
            let key = bytes(&mut rng, ks);
            for start in [(1u128 << 64) - 3, 0u128.wrapping_sub(3), u64::MAX as u128] {
                for back in 0..40u128 {
                    let iv = start.wrapping_sub(back).to_be_bytes();
                    let len = 16 * (back as usize + 5) + (back as usize % 3) * 7;
                    let data = bytes(&mut rng, len);
                    let mut got = data.clone();
                    Ctr::with_backend(&key, &iv, b)
                        .unwrap()
                        .apply_keystream(&mut got);
                    assert_eq!(
                        got,
                        ossl(Mode::Ctr, true, &key, Some(&iv), &data),
                        "{b} {start:x}-{back}"
                    );
                }
            }
        }
    }
}

#[test]
fn ctr_last_byte_carry_at_every_offset() {
    // The bulk loops add to the counter block's last byte while it does not
    // carry inside a step (up to 32 blocks on zmm) and byte-swap a counter
    // register where it does: every start of that byte, over several steps.
    let mut rng = rng();
    for b in backends() {
        for &ks in &KEY_SIZES {
            let key = bytes(&mut rng, ks);
            for last in 0x90u128..=0xff {
                let iv = ((rng.gen::<u128>() & !0xff) | last).to_be_bytes();
                let data = bytes(&mut rng, 16 * 150 + (last as usize % 16));
                let mut got = data.clone();
                Ctr::with_backend(&key, &iv, b)
                    .unwrap()
                    .apply_keystream(&mut got);
                assert_eq!(
                    got,
                    ossl(Mode::Ctr, true, &key, Some(&iv), &data),
                    "{b} key {ks} last byte {last:#x}"
                );
            }
        }
    }
}

#[test]
fn multi_buffer_cbc_matches_single_stream() {
    let mut rng = rng();
    let all = backends();
    for round in 0..40 {
        // Every fifth round: one key size and many jobs, so that a single
        // kernel class has enough messages for the widest lane layout.
        let one_size = round % 5 == 1;
        let njobs = if one_size {
            rng.gen_range(24..=70)
        } else {
            rng.gen_range(0..=40)
        };
        // Keys of every size, on random backends (soft included), shared
        // by several jobs.
        let keys: Vec<(Vec<u8>, Aes)> = (0..5)
            .map(|i| {
                let k = key_for(&mut rng, if one_size { 0 } else { i + round });
                let b = if round % 4 == 0 {
                    all[rng.gen_range(0..all.len())]
                } else {
                    Backend::fastest()
                };
                let aes = Aes::with_backend(&k, b).unwrap();
                (k, aes)
            })
            .collect();
        let mut specs = Vec::new();
        for _ in 0..njobs {
            let ki = rng.gen_range(0..keys.len());
            let blocks = match rng.gen_range(0..4) {
                0 => 0,
                1 => rng.gen_range(1..4),
                2 => 94, // a 1500-byte packet, padded
                _ => rng.gen_range(1..300),
            };
            let iv: [u8; 16] = rng.gen();
            specs.push((ki, iv, bytes(&mut rng, 16 * blocks)));
        }
        let mut bufs: Vec<Vec<u8>> = specs.iter().map(|s| s.2.clone()).collect();
        let mut jobs: Vec<CbcJob> = bufs
            .iter_mut()
            .zip(specs.iter())
            .map(|(d, s)| CbcJob {
                key: &keys[s.0].1,
                iv: s.1,
                data: d.as_mut_slice(),
            })
            .collect();
        cbc_encrypt_many(&mut jobs).unwrap();
        let ivs: Vec<[u8; 16]> = jobs.iter().map(|j| j.iv).collect();
        drop(jobs);
        for (i, (ki, iv, pt)) in specs.iter().enumerate() {
            let want = ossl(Mode::Cbc, true, &keys[*ki].0, Some(iv), pt);
            assert_eq!(
                bufs[i],
                want,
                "round {round} job {i} ({})",
                keys[*ki].1.backend()
            );
            let mut chain = *iv;
            let mut single = pt.clone();
            Cbc::from(keys[*ki].1.clone())
                .encrypt_chained(&mut chain, &mut single)
                .unwrap();
            assert_eq!(bufs[i], single);
            assert_eq!(ivs[i], chain, "round {round} job {i}: chaining value");
        }
    }
}

#[test]
fn multi_buffer_cbc_rejects_partial_blocks_untouched() {
    let aes = Aes::with_backend(&[7u8; 16], common::backend()).unwrap();
    let mut a = vec![1u8; 32];
    let mut b = vec![2u8; 33];
    let mut jobs = [&mut a, &mut b].map(|data| CbcJob {
        key: &aes,
        iv: [0; 16],
        data,
    });
    assert_eq!(
        cbc_encrypt_many(&mut jobs).unwrap_err(),
        aesx::Error::NotBlockAligned { len: 33 }
    );
    assert_eq!(jobs[0].iv, [0; 16]);
    assert_eq!(a, vec![1u8; 32]);
    assert_eq!(b, vec![2u8; 33]);
}
