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

use super::rounds::{xor, Dir, Enc};
use super::ArmAes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::mac::MacKernels;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::{Block, KeySize};

// Each entry records itself for the dispatch test.
impl MacKernels for ArmAes {
    fn cbc_mac(&self, state: &mut Block, data: &[u8]) {
        trace::hit(Kernel::Armv8CbcMac);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => cbc_mac::<10>(self, state, data),
                KeySize::Aes192 => cbc_mac::<12>(self, state, data),
                KeySize::Aes256 => cbc_mac::<14>(self, state, data),
            }
        }
    }

    fn ccm_encrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CcmEnc);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => ccm::<10, false>(self, mac, ctr, io),
                KeySize::Aes192 => ccm::<12, false>(self, mac, ctr, io),
                KeySize::Aes256 => ccm::<14, false>(self, mac, ctr, io),
            }
        }
    }

    fn ccm_decrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CcmDec);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => ccm::<10, true>(self, mac, ctr, io),
                KeySize::Aes192 => ccm::<12, true>(self, mac, ctr, io),
                KeySize::Aes256 => ccm::<14, true>(self, mac, ctr, io),
            }
        }
    }

    fn kw_wrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::Armv8KwWrap);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => kw_wrap::<10>(self, a, r),
                KeySize::Aes192 => kw_wrap::<12>(self, a, r),
                KeySize::Aes256 => kw_wrap::<14>(self, a, r),
            }
        }
    }

    fn kw_unwrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::Armv8KwUnwrap);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => kw_unwrap::<10>(self, a, r),
                KeySize::Aes192 => kw_unwrap::<12>(self, a, r),
                KeySize::Aes256 => kw_unwrap::<14>(self, a, r),
            }
        }
    }
}

/// One MAC-chain block: `t` (state ^ k_R) absorbs `x` (entering with
/// `first` = k_0 ^ k_R as the first AESE's key operand) and becomes the
/// next such state: R-1 fused pairs and one AESE.
#[inline(always)]
fn chain<const R: usize>(
    k: &ArmAes,
    t: uint8x16_t,
    x: uint8x16_t,
    first: uint8x16_t,
) -> uint8x16_t {
    let key = &k.enc;
    let mut s = Enc::round(k.crypto, t, xor(x, first));
    for rk in &key[1..R - 1] {
        s = Enc::round(k.crypto, s, *rk);
    }
    Enc::last(k.crypto, s, key[R - 1])
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
        t = chain::<R>(k, t, x, first);
    }
    // SAFETY: `state` is 16 writable bytes.
    unsafe { vst1q_u8(state.as_mut_ptr(), veorq_u8(t, key[R])) };
}

/// CCM over whole blocks: the CBC-MAC of the plaintext in `mac`, the CTR
/// keystream of `ctr` XORed into the data; `ctr`'s low 64 bits count (they
/// never wrap in CCM).
///
/// # Safety
/// FEAT_AES.
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
        t = chain::<R>(k, t, p, first);
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
