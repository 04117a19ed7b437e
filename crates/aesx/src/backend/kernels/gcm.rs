//! GCM kernels: GHASH over whole blocks and AES-CTR32 stitched with GHASH.
//!
//! Field representation shared by every backend: a GHASH block (16 bytes in
//! the order of SP 800-38D) is read as a big-endian `u128`. Because GCM puts
//! the coefficient of x^0 in the most significant bit of the first byte, that
//! integer is the bit-reversal of the polynomial; call the reversed variable
//! y. In y the field modulus x^128 + x^7 + x^2 + x + 1 becomes
//! g'(y) = y^128 + y^127 + y^126 + y^121 + 1, and a carry-less product of two
//! reversed 128-bit values is the reversed product times y^127 (mod g').
//! Backends therefore keep the powers of H premultiplied by y ("H·y") and
//! reduce each 256-bit product by y^128 Montgomery-style, which needs only
//! two 64x64 carry-less multiplications by the constant y^63 + y^62 + y^57
//! (0xc2 << 56) and no bit shifts of the data. Reduction is linear, so sums of
//! several products (block i times H^(n-i)) are reduced once: aggregated
//! reduction.
//!
//! Counter blocks follow SP 800-38D's inc32: only the last 32 bits (big
//! endian) count, modulo 2^32; the first 96 bits never change.

use zeroize::Zeroize;

use super::inout::InOut;
use super::BlockKernels;
use crate::key::{Block, BLOCK_LEN};

/// Blocks per batch in the generic kernels (1 KiB on the stack).
const BATCH: usize = 64;

/// Adds `n` to the 32-bit big-endian counter in the last four bytes of
/// `ctr`, modulo 2^32 (SP 800-38D inc32 applied `n` times).
#[inline]
pub(crate) fn inc32(ctr: &mut Block, n: u32) {
    let c = u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]).wrapping_add(n);
    ctr[12..].copy_from_slice(&c.to_be_bytes());
}

/// Blocks from counter block `ctr` to the next whose 32-bit counter is a
/// multiple of `align` (a power of two), zero if `ctr`'s is one: kernels
/// that derive a step's counter blocks from its first by XOR start their
/// steps there.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn blocks_to_aligned(ctr: &Block, align: usize) -> usize {
    debug_assert!(align.is_power_of_two() && align <= 1 << 16);
    let c = u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]);
    c.wrapping_neg() as usize & (align - 1)
}

/// GHASH and the CTR32+GHASH pass of GCM, over whole blocks.
///
/// `acc` is the GHASH state Y in the byte order of SP 800-38D. Every kernel
/// ignores a trailing partial block (modes never pass one).
pub(crate) trait GcmKernels: BlockKernels {
    /// The hash key H = E_K(0^128) and its powers, in the backend's layout.
    /// Zeroized on drop by the type itself.
    type HKey: Clone;

    /// Computes H and its powers for this AES key.
    fn ghash_key(&self) -> Self::HKey;

    /// `acc = (...((acc ^ X1)·H ^ X2)·H ... ^ Xn)·H` over the blocks of `data`.
    fn ghash_update(&self, hk: &Self::HKey, acc: &mut Block, data: &[u8]);

    /// XORs the keystream of the counter blocks `ctr`, inc32(ctr), ... into
    /// whole blocks; `ctr` advances by the number of blocks (mod 2^32).
    fn ctr32_apply(&self, ctr: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut ks = [0u8; BATCH * BLOCK_LEN];
        let mut done = 0;
        while done < n {
            let m = (n - done).min(BATCH);
            for c in ks[..m * BLOCK_LEN].chunks_exact_mut(BLOCK_LEN) {
                c.copy_from_slice(ctr);
                inc32(ctr, 1);
            }
            self.encrypt_blocks(InOut::in_place(&mut ks[..m * BLOCK_LEN]));
            let (_, rest) = io.reborrow().split_at(done * BLOCK_LEN);
            let (mut part, _) = rest.split_at(m * BLOCK_LEN);
            part.xor_from(&ks[..m * BLOCK_LEN]);
            done += m;
        }
        ks[..].zeroize();
    }

    /// Encrypts whole blocks (CTR32 from `ctr`) and hashes the ciphertext
    /// into `acc`.
    fn gcm_encrypt(&self, hk: &Self::HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        gcm_batches::<Self, true>(self, hk, ctr, acc, io);
    }

    /// Hashes whole ciphertext blocks into `acc` and decrypts them (CTR32
    /// from `ctr`).
    fn gcm_decrypt(&self, hk: &Self::HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        gcm_batches::<Self, false>(self, hk, ctr, acc, io);
    }

    /// The integer sum of `data` read as little-endian 64-bit words (the
    /// last zero-padded): the raw material of ESP's one's-complement
    /// checksum. Backends with wider vectors override it with the same code
    /// compiled for them.
    fn word_sum(&self, data: &[u8]) -> u128 {
        word_sum(data)
    }

    /// A whole message in one call: GHASH of `aad`, CTR32 from inc32(`j0`)
    /// over `io` (any length; a partial last block is zero-padded for
    /// GHASH) stitched with GHASH of the ciphertext, the length block, and
    /// the full tag E_K(J0) ^ S. Lengths are the caller's to check.
    fn gcm_oneshot(
        &self,
        hk: &Self::HKey,
        encrypt: bool,
        j0: &Block,
        aad: &[u8],
        io: InOut<'_>,
    ) -> Block {
        oneshot_generic(self, hk, encrypt, j0, aad, io)
    }
}

/// The generic [`GcmKernels::gcm_encrypt`] (`ENCRYPT`) and `gcm_decrypt`:
/// a batch at a time through a stack buffer; GHASH always takes the
/// ciphertext, so it runs after CTR32 when encrypting and before it when
/// decrypting.
#[inline(always)]
fn gcm_batches<K: GcmKernels + ?Sized, const ENCRYPT: bool>(
    k: &K,
    hk: &K::HKey,
    ctr: &mut Block,
    acc: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    let mut buf = [0u8; BATCH * BLOCK_LEN];
    let mut done = 0;
    while done < n {
        let m = (n - done).min(BATCH);
        let chunk = &mut buf[..m * BLOCK_LEN];
        let (_, rest) = io.reborrow().split_at(done * BLOCK_LEN);
        let (mut part, _) = rest.split_at(m * BLOCK_LEN);
        part.read_into(chunk);
        if !ENCRYPT {
            k.ghash_update(hk, acc, chunk);
        }
        k.ctr32_apply(ctr, InOut::in_place(chunk));
        part.write_from(chunk);
        if ENCRYPT {
            k.ghash_update(hk, acc, chunk);
        }
        done += m;
    }
    buf[..].zeroize();
}

/// Portable [`GcmKernels::word_sum`]: the 32-bit halves of the words are
/// added in eight 64-bit lanes (no carries to track, and the loop
/// vectorises); parts of at most 2^20 words keep the lanes from overflowing.
#[inline(always)]
pub(crate) fn word_sum(data: &[u8]) -> u128 {
    let whole = data.len() - data.len() % 8;
    let mut total = 0u128;
    for part in data[..whole].chunks(8 << 20) {
        let mut lo = [0u64; 8];
        let mut hi = [0u64; 8];
        let mut rows = part.chunks_exact(64);
        for row in &mut rows {
            for i in 0..8 {
                let mut a = [0u8; 8];
                a.copy_from_slice(&row[8 * i..8 * i + 8]);
                let w = u64::from_le_bytes(a);
                lo[i] += w & 0xffff_ffff;
                hi[i] += w >> 32;
            }
        }
        for (i, wb) in rows.remainder().chunks_exact(8).enumerate() {
            let mut a = [0u8; 8];
            a.copy_from_slice(wb);
            let w = u64::from_le_bytes(a);
            lo[i] += w & 0xffff_ffff;
            hi[i] += w >> 32;
        }
        for i in 0..8 {
            total += lo[i] as u128 + ((hi[i] as u128) << 32);
        }
    }
    if whole < data.len() {
        let mut a = [0u8; 8];
        a[..data.len() - whole].copy_from_slice(&data[whole..]);
        total += u64::from_le_bytes(a) as u128;
    }
    total
}

/// [`GcmKernels::gcm_oneshot`] composed from the other kernels.
pub(crate) fn oneshot_generic<K: GcmKernels + ?Sized>(
    k: &K,
    hk: &K::HKey,
    encrypt: bool,
    j0: &Block,
    aad: &[u8],
    io: InOut<'_>,
) -> Block {
    let mut acc = [0u8; BLOCK_LEN];
    let whole = aad.len() - aad.len() % BLOCK_LEN;
    k.ghash_update(hk, &mut acc, &aad[..whole]);
    if whole < aad.len() {
        let mut last = [0u8; BLOCK_LEN];
        last[..aad.len() - whole].copy_from_slice(&aad[whole..]);
        k.ghash_update(hk, &mut acc, &last);
    }
    let len = io.len();
    let mut ctr = *j0;
    inc32(&mut ctr, 1);
    let (blocks, mut tail) = io.split_blocks();
    if encrypt {
        k.gcm_encrypt(hk, &mut ctr, &mut acc, blocks);
    } else {
        k.gcm_decrypt(hk, &mut ctr, &mut acc, blocks);
    }
    if !tail.is_empty() {
        let n = tail.len();
        let mut ks = ctr;
        k.encrypt_blocks(InOut::in_place(&mut ks));
        let mut b = [0u8; BLOCK_LEN];
        tail.read_into(&mut b[..n]);
        let mut c = [0u8; BLOCK_LEN];
        for i in 0..n {
            c[i] = b[i] ^ ks[i];
        }
        tail.write_from(&c[..n]);
        // GHASH takes the ciphertext: the output when encrypting, the input
        // when decrypting.
        let ct = if encrypt { c } else { b };
        let mut padded = [0u8; BLOCK_LEN];
        padded[..n].copy_from_slice(&ct[..n]);
        k.ghash_update(hk, &mut acc, &padded);
        ks[..].zeroize();
        b[..].zeroize();
        c[..].zeroize();
    }
    let mut lens = [0u8; BLOCK_LEN];
    lens[..8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
    lens[8..].copy_from_slice(&(len as u64 * 8).to_be_bytes());
    k.ghash_update(hk, &mut acc, &lens);
    let mut tag = *j0;
    k.encrypt_blocks(InOut::in_place(&mut tag));
    for (t, a) in tag.iter_mut().zip(&acc) {
        *t ^= a;
    }
    tag
}

/// An AES key together with its GHASH key, in one backend's layout.
#[derive(Clone)]
pub(crate) struct GcmKey<K: GcmKernels> {
    pub(crate) aes: K,
    pub(crate) h: K::HKey,
}

impl<K: GcmKernels> GcmKey<K> {
    pub(crate) fn new(aes: K) -> Self {
        let h = aes.ghash_key();
        GcmKey { aes, h }
    }
}
