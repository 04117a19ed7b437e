//! The serial MAC and key-wrap kernels (CBC-MAC, CCM, KW's W and W^-1) on
//! the ARMv8 Crypto Extensions.
//!
//! Each is one dependent chain of AESE/AESMC pairs (fused on current cores)
//! and runs at their latency. AESE XORs its key operand first, so the chain
//! carries `t = E(x) ^ k_R` (the state before the final key XOR) and the
//! next input enters as the first AESE's key, `x' ^ k_0 ^ k_R`, computed off
//! the chain: `R` pairs per block and nothing else. CCM's keystream blocks
//! depend only on the counter and run under the MAC chain's latency.

use core::arch::aarch64::*;

use super::ArmAes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::mac::MacKernels;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::Block;

// Each entry records itself for the dispatch test; `self` holds the
// `ArmCrypto` token (FEAT_AES), the SAFETY argument of every call below.
impl MacKernels for ArmAes {
    fn cbc_mac(&self, state: &mut Block, data: &[u8]) {
        trace::hit(Kernel::Armv8CbcMac);
        // SAFETY: `self` holds the `ArmCrypto` token, so FEAT_AES is present.
        unsafe { by_rounds!(self, cbc_mac, state, data) }
    }

    fn ccm_encrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CcmEnc);
        // SAFETY: as above.
        unsafe { by_rounds!(self, ccm_enc, mac, ctr, io) }
    }

    fn ccm_decrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CcmDec);
        // SAFETY: as above.
        unsafe { by_rounds!(self, ccm_dec, mac, ctr, io) }
    }

    fn kw_wrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::Armv8KwWrap);
        // SAFETY: as above.
        unsafe { by_rounds!(self, kw_wrap, a, r) }
    }

    fn kw_unwrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::Armv8KwUnwrap);
        // SAFETY: as above.
        unsafe { by_rounds!(self, kw_unwrap, a, r) }
    }
}

/// One MAC-chain block: `t` (state ^ k_R) absorbs `x` and becomes the next
/// such state.
macro_rules! chain {
    ($key:expr, $r:expr, $t:expr, $x:expr, $first:expr) => {{
        let key = $key;
        let mut s = vaesmcq_u8(vaeseq_u8($t, veorq_u8($x, $first)));
        for rk in &key[1..$r - 1] {
            s = vaesmcq_u8(vaeseq_u8(s, *rk));
        }
        vaeseq_u8(s, key[$r - 1])
    }};
}

/// CBC-MAC over whole blocks of `data`.
///
/// # Safety
/// FEAT_AES.
#[target_feature(enable = "aes")]
unsafe fn cbc_mac<const R: usize>(k: &ArmAes, state: &mut Block, data: &[u8]) {
    let key = &k.enc;
    let first = veorq_u8(key[0], key[R]);
    // SAFETY: `state` is 16 readable bytes.
    let mut t = veorq_u8(unsafe { vld1q_u8(state.as_ptr()) }, key[R]);
    for x in data.chunks_exact(16) {
        // SAFETY: `x` is 16 readable bytes.
        let x = unsafe { vld1q_u8(x.as_ptr()) };
        t = chain!(key, R, t, x, first);
    }
    // SAFETY: `state` is 16 writable bytes.
    unsafe { vst1q_u8(state.as_mut_ptr(), veorq_u8(t, key[R])) };
}

/// CCM encryption of whole blocks.
///
/// # Safety
/// FEAT_AES.
#[target_feature(enable = "aes")]
unsafe fn ccm_enc<const R: usize>(k: &ArmAes, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
    // SAFETY: same features as this function.
    unsafe { ccm::<R, false>(k, mac, ctr, io) }
}

/// CCM decryption of whole blocks.
///
/// # Safety
/// FEAT_AES.
#[target_feature(enable = "aes")]
unsafe fn ccm_dec<const R: usize>(k: &ArmAes, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
    // SAFETY: same features as this function.
    unsafe { ccm::<R, true>(k, mac, ctr, io) }
}

/// CCM over whole blocks: the CBC-MAC of the plaintext in `mac`, the CTR
/// keystream of `ctr` XORed into the data; `ctr`'s low 64 bits count (they
/// never wrap in CCM).
///
/// # Safety
/// FEAT_AES.
#[inline]
#[target_feature(enable = "aes")]
unsafe fn ccm<const R: usize, const DEC: bool>(
    k: &ArmAes,
    mac: &mut Block,
    ctr: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let key = &k.enc;
    let first = veorq_u8(key[0], key[R]);
    // SAFETY: `ctr` is 16 readable bytes.
    let hi = unsafe { vld1_u8(ctr.as_ptr()) };
    let mut lo = u64::from_be_bytes([
        ctr[8], ctr[9], ctr[10], ctr[11], ctr[12], ctr[13], ctr[14], ctr[15],
    ]);
    // SAFETY: `mac` is 16 readable bytes.
    let mut t = veorq_u8(unsafe { vld1q_u8(mac.as_ptr()) }, key[R]);
    for i in 0..n {
        let mut ks = vcombine_u8(hi, vcreate_u8(lo.swap_bytes()));
        lo = lo.wrapping_add(1);
        for rk in &key[..R - 1] {
            ks = vaesmcq_u8(vaeseq_u8(ks, *rk));
        }
        ks = veorq_u8(vaeseq_u8(ks, key[R - 1]), key[R]);
        // SAFETY: block i < n lies inside the input; it is read before
        // block i of the output is written.
        let x = unsafe { vld1q_u8(src.add(16 * i)) };
        let y = veorq_u8(x, ks);
        // SAFETY: block i of the output.
        unsafe { vst1q_u8(dst.add(16 * i), y) };
        let p = if DEC { y } else { x };
        t = chain!(key, R, t, p, first);
    }
    // SAFETY: `mac` is 16 writable bytes.
    unsafe { vst1q_u8(mac.as_mut_ptr(), veorq_u8(t, key[R])) };
    ctr[8..].copy_from_slice(&lo.to_be_bytes());
}

/// KW's step counter `t` as 8 big-endian bytes in the low half.
#[inline]
#[target_feature(enable = "aes")]
fn step(t: u64) -> uint8x16_t {
    vcombine_u8(vcreate_u8(t.swap_bytes()), vcreate_u8(0))
}

/// W: 6n steps `B = E(A || R_i); A = MSB64(B) ^ t; R_i = LSB64(B)`.
///
/// # Safety
/// FEAT_AES.
#[target_feature(enable = "aes")]
unsafe fn kw_wrap<const R: usize>(k: &ArmAes, a_io: &mut [u8; 8], r: &mut [u8]) {
    let key = &k.enc;
    let n = r.len() / 8;
    let p = r.as_mut_ptr();
    // SAFETY: `a_io` is 8 readable bytes.
    let mut a = unsafe { vld1_u8(a_io.as_ptr()) };
    let mut t = 0u64;
    for _ in 0..6 {
        for i in 0..n {
            t += 1;
            // SAFETY: semiblock i < n lies inside `r`.
            let mut b = vcombine_u8(a, unsafe { vld1_u8(p.add(8 * i)) });
            for rk in &key[..R - 1] {
                b = vaesmcq_u8(vaeseq_u8(b, *rk));
            }
            b = veorq_u8(vaeseq_u8(b, key[R - 1]), veorq_u8(key[R], step(t)));
            // SAFETY: semiblock i < n lies inside `r`.
            unsafe { vst1_u8(p.add(8 * i), vget_high_u8(b)) };
            a = vget_low_u8(b);
        }
    }
    // SAFETY: `a_io` is 8 writable bytes.
    unsafe { vst1_u8(a_io.as_mut_ptr(), a) };
}

/// W^-1: the steps of W in reverse, `B = D((A ^ t) || R_i)`, on the keys
/// of the equivalent inverse cipher.
///
/// # Safety
/// FEAT_AES.
#[target_feature(enable = "aes")]
unsafe fn kw_unwrap<const R: usize>(k: &ArmAes, a_io: &mut [u8; 8], r: &mut [u8]) {
    let dk = &k.dec;
    let n = r.len() / 8;
    let p = r.as_mut_ptr();
    let mut t = 6 * n as u64;
    // SAFETY: `a_io` is 8 readable bytes.
    let mut a = vcombine_u8(unsafe { vld1_u8(a_io.as_ptr()) }, vcreate_u8(0));
    for _ in 0..6 {
        for i in (0..n).rev() {
            // SAFETY: semiblock i < n lies inside `r`.
            let ri = unsafe { vld1_u8(p.add(8 * i)) };
            let mut b = vcombine_u8(vget_low_u8(veorq_u8(a, step(t))), ri);
            t -= 1;
            for rk in &dk[..R - 1] {
                b = vaesimcq_u8(vaesdq_u8(b, *rk));
            }
            b = veorq_u8(vaesdq_u8(b, dk[R - 1]), dk[R]);
            // SAFETY: semiblock i < n lies inside `r`.
            unsafe { vst1_u8(p.add(8 * i), vget_high_u8(b)) };
            a = b;
        }
    }
    // SAFETY: `a_io` is 8 writable bytes.
    unsafe { vst1_u8(a_io.as_mut_ptr(), vget_low_u8(a)) };
}
