//! XTS (IEEE 1619, SP 800-38E) bulk kernels and the two-key XTS engine.
//!
//! An XTS key is two AES keys: K1 encrypts the data, K2 encrypts the tweak.
//! The kernels here run on the *data* key over whole blocks and start from an
//! already encrypted tweak `T`; block `j` is processed as
//! `C_j = E_K1(P_j ^ T x^j) ^ T x^j` in GF(2^128) with the IEEE 1619 reduction
//! polynomial `x^128 + x^7 + x^2 + x + 1` and the little-endian bit order of
//! the standard (byte 0 holds the coefficients of x^0..x^7). The tweak is
//! advanced past the processed blocks so that a caller can continue (the
//! modes use this for ciphertext stealing).
//!
//! The sector kernels process many consecutive data units of one size, as a
//! disk driver does: one tweak encryption (with K2) per sector, batched so a
//! parallel backend is fed many sector numbers at once.

use zeroize::Zeroize;

use super::inout::InOut;
use super::BlockKernels;
use crate::key::{Block, BLOCK_LEN};

/// Blocks per batch in the generic kernels (2 KiB of data, 2 KiB of tweaks).
const BATCH: usize = 128;

/// Sector tweaks encrypted per call of the tweak key's `encrypt_blocks`.
const SECTOR_BATCH: usize = 32;

/// Multiplies a tweak by x in GF(2^128), IEEE 1619 bit order, without a
/// branch on the (secret) top bit.
#[inline(always)]
pub(crate) fn mul_x(t: u128) -> u128 {
    let carry = t >> 127;
    (t << 1) ^ (0u128.wrapping_sub(carry) & 0x87)
}

/// `t * x^k` in GF(2^128), IEEE 1619 bit order, for `k < 128`: the tweak
/// of block `k` from the tweak of block 0 without `k` doublings. The bits
/// shifted past bit 127 (`hi`, fewer than `k`) fold back times
/// `x^7 + x^2 + x + 1` (0x87); what that product pushes past bit 127 again
/// (at most 7 bits) folds once more. Shifts by the public `k` only.
/// (For the x86 stealing path; the other backends double tweak by tweak.)
#[cfg(any(target_arch = "x86_64", test))]
pub(crate) fn mul_x_pow(t: u128, k: u32) -> u128 {
    debug_assert!(k < 128);
    if k == 0 {
        return t;
    }
    let lo = t << k;
    let hi = t >> (128 - k);
    let fold = |v: u128| v ^ (v << 1) ^ (v << 2) ^ (v << 7);
    let over = (hi >> 127) ^ (hi >> 126) ^ (hi >> 121);
    lo ^ fold(hi) ^ fold(over)
}

/// Bytes of a data unit of `len` bytes (not a multiple of 16, at least 17)
/// before its stolen pair: the whole blocks but the last.
pub(crate) fn stealing_head(len: usize) -> usize {
    len - BLOCK_LEN - len % BLOCK_LEN
}

/// XTS over whole blocks with the data key.
pub(crate) trait XtsKernels: BlockKernels + Sized {
    /// XTS-encrypts whole blocks starting from the encrypted tweak `tweak`,
    /// which on return is the tweak of the block after the last one.
    fn xts_encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        xts_generic(tweak, io, |b| self.encrypt_blocks(InOut::in_place(b)));
    }

    /// XTS-decrypts whole blocks; `tweak` advances as in `xts_encrypt`.
    fn xts_decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        xts_generic(tweak, io, |b| self.decrypt_blocks(InOut::in_place(b)));
    }

    /// XTS-encrypts one data unit whose length is not a multiple of 16 (at
    /// least 17 bytes), ciphertext stealing included, from the encrypted
    /// tweak `T_0` in `tweak` (unspecified on return). Blocks `0..m-1` as
    /// usual; then, with `CC = E(P_{m-1})` under `T_{m-1}`,
    /// `C_m = CC[..partial]` and `C_{m-1} = E(P_m || CC[partial..])` under
    /// `T_m`. Backends override this to keep the stolen pair in registers.
    fn xts_encrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        let head_len = stealing_head(io.len());
        let (head, tail) = io.split_at(head_len);
        self.xts_encrypt(tweak, head);
        let partial = tail.len() - BLOCK_LEN;
        let (mut last_whole, mut last_part) = tail.split_at(BLOCK_LEN);
        let mut cc = last_whole.read_block(0);
        let mut pm: Block = [0; BLOCK_LEN];
        last_part.read_into(&mut pm[..partial]);
        self.xts_encrypt(tweak, InOut::in_place(&mut cc));
        pm[partial..].copy_from_slice(&cc[partial..]);
        self.xts_encrypt(tweak, InOut::in_place(&mut pm));
        last_part.write_from(&cc[..partial]);
        last_whole.write_from(&pm);
        cc.zeroize();
        pm.zeroize();
    }

    /// XTS-decrypts one data unit with ciphertext stealing, as
    /// [`Self::xts_encrypt_stealing`]: `C_{m-1}` was made under `T_m`, so
    /// `PP = D(C_{m-1})` under `T_m`, `P_m = PP[..partial]` and
    /// `P_{m-1} = D(C_m || PP[partial..])` under `T_{m-1}`.
    fn xts_decrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        let head_len = stealing_head(io.len());
        let (head, tail) = io.split_at(head_len);
        self.xts_decrypt(tweak, head);
        let partial = tail.len() - BLOCK_LEN;
        let mut t_next = mul_x(u128::from_le_bytes(*tweak)).to_le_bytes();
        let (mut last_whole, mut last_part) = tail.split_at(BLOCK_LEN);
        let mut pp = last_whole.read_block(0);
        let mut cc: Block = [0; BLOCK_LEN];
        last_part.read_into(&mut cc[..partial]);
        self.xts_decrypt(&mut t_next, InOut::in_place(&mut pp));
        cc[partial..].copy_from_slice(&pp[partial..]);
        self.xts_decrypt(tweak, InOut::in_place(&mut cc));
        last_part.write_from(&pp[..partial]);
        last_whole.write_from(&cc);
        pp.zeroize();
        cc.zeroize();
        t_next.zeroize();
    }

    /// Encrypts consecutive data units of `sector_size` bytes (a non-zero
    /// multiple of 16 that divides `io.len()`), the first numbered `first`.
    /// The sector numbers must not pass 2^128 - 1 (checked by the mode).
    fn xts_encrypt_sectors(
        &self,
        tweak_key: &Self,
        sector_size: usize,
        first: u128,
        io: InOut<'_>,
    ) {
        sectors_generic(tweak_key, sector_size, first, io, |t, part| {
            self.xts_encrypt(t, part)
        });
    }

    /// Decrypts consecutive data units, as `xts_encrypt_sectors`.
    fn xts_decrypt_sectors(
        &self,
        tweak_key: &Self,
        sector_size: usize,
        first: u128,
        io: InOut<'_>,
    ) {
        sectors_generic(tweak_key, sector_size, first, io, |t, part| {
            self.xts_decrypt(t, part)
        });
    }
}

/// The generic XTS loop: tweaks for a batch are computed serially (a shift
/// and a conditional XOR each), the data is whitened, the whole batch goes
/// through the block kernel in one call, and is whitened again.
fn xts_generic(tweak: &mut Block, mut io: InOut<'_>, mut cipher: impl FnMut(&mut [u8])) {
    let n = io.blocks();
    let mut t = u128::from_le_bytes(*tweak);
    let mut buf = [0u8; BATCH * BLOCK_LEN];
    let mut tw = [0u8; BATCH * BLOCK_LEN];
    let mut done = 0;
    while done < n {
        let m = (n - done).min(BATCH);
        for j in 0..m {
            let tb = t.to_le_bytes();
            let b = io.read_block(done + j);
            let (bo, to) = (
                &mut buf[j * BLOCK_LEN..(j + 1) * BLOCK_LEN],
                &mut tw[j * BLOCK_LEN..(j + 1) * BLOCK_LEN],
            );
            for i in 0..BLOCK_LEN {
                bo[i] = b[i] ^ tb[i];
                to[i] = tb[i];
            }
            t = mul_x(t);
        }
        cipher(&mut buf[..m * BLOCK_LEN]);
        for j in 0..m {
            let mut out = [0u8; BLOCK_LEN];
            for (i, o) in out.iter_mut().enumerate() {
                *o = buf[j * BLOCK_LEN + i] ^ tw[j * BLOCK_LEN + i];
            }
            io.write_block(done + j, &out);
        }
        done += m;
    }
    *tweak = t.to_le_bytes();
    // The whitening values are K2-encrypted tweaks: keep them off the stack.
    buf.zeroize();
    tw.zeroize();
}

/// The generic sector loop: sector numbers are encoded little-endian
/// (IEEE 1619's DataUnitSeqNumber) and encrypted with the tweak key
/// `SECTOR_BATCH` at a time; each sector then runs through the data kernel.
pub(crate) fn sectors_generic<K: BlockKernels>(
    tweak_key: &K,
    sector_size: usize,
    first: u128,
    mut io: InOut<'_>,
    mut unit: impl FnMut(&mut Block, InOut<'_>),
) {
    let count = io.len() / sector_size;
    let mut tweaks = [0u8; SECTOR_BATCH * BLOCK_LEN];
    let mut done = 0;
    while done < count {
        let m = (count - done).min(SECTOR_BATCH);
        for j in 0..m {
            let sector = first.wrapping_add((done + j) as u128);
            tweaks[j * BLOCK_LEN..(j + 1) * BLOCK_LEN].copy_from_slice(&sector.to_le_bytes());
        }
        tweak_key.encrypt_blocks(InOut::in_place(&mut tweaks[..m * BLOCK_LEN]));
        for j in 0..m {
            let mut t: Block = [0; BLOCK_LEN];
            t.copy_from_slice(&tweaks[j * BLOCK_LEN..(j + 1) * BLOCK_LEN]);
            let (_, rest) = io.reborrow().split_at((done + j) * sector_size);
            let (part, _) = rest.split_at(sector_size);
            unit(&mut t, part);
            t.zeroize();
        }
        done += m;
    }
    tweaks.zeroize();
}

/// The two expanded keys of an XTS key, on one backend.
#[derive(Clone)]
pub(crate) struct XtsKeys<K> {
    pub(crate) data: K,
    pub(crate) tweak: K,
}

#[cfg(test)]
mod tests {
    use super::{mul_x, mul_x_pow};

    #[test]
    fn mul_x_pow_is_repeated_doubling() {
        let mut seed = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        for _ in 0..20 {
            seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) ^ (seed >> 61);
            for t in [seed, u128::MAX, 1 << 127, 1, 0x87 << 120] {
                let mut d = t;
                for k in 0..128 {
                    assert_eq!(mul_x_pow(t, k), d, "t {t:#x} k {k}");
                    d = mul_x(d);
                }
            }
        }
    }

    #[test]
    fn mul_x_reduces_with_0x87() {
        assert_eq!(mul_x(1), 2);
        assert_eq!(mul_x(1 << 127), 0x87);
        assert_eq!(mul_x((1 << 127) | 1), 0x85);
    }
}
