//! The serial MAC and key-wrap kernels (CBC-MAC, CCM, KW's W and W^-1) on
//! AES-NI, used by every x86 level: each is one dependent chain of AES
//! rounds on one 128-bit lane, which a wider register cannot shorten.
//!
//! Each chain is `R` dependent AES instructions per block and as little
//! else as possible: the next input and the first round key are folded into
//! the key of the last round (`aesenclast(s, k_R ^ k_0 ^ x) = E(s) ^ k_0 ^ x`,
//! the next block's state after its first AddRoundKey), computed off the
//! chain. CCM's keystream blocks depend only on the counter, so the
//! out-of-order core runs them ahead and under the MAC chain's latency.
//!
//! Where the cycles go. The bound is the chain's latency: `R` AES ops of
//! three cycles each per block on Intel Golden Cove (four on Zen 4/5), so
//! 120 cycles per 64 bytes of AES-128 against ECB's 20 on the same core:
//! 1/6 of the tier's ECB rate (1/8 on Zen). CCM adds per block the CTR
//! work (10 AES ops, a byte swap, an add, two XOR) on ports the chain
//! leaves idle nine cycles in ten, so it runs at the chain's rate too; KW's
//! W is one chain of six AES per 8-byte half-block. Measured on Zen 3
//! (3.21 GHz: chain bound 1.28 GB/s for AES-128, 0.917 for AES-256), 16 KiB
//! and 1 MiB on 2026-11-29, every x86 tier: CMAC and CBC encryption
//! 1.28-1.29 and 0.917-0.920 GB/s, CCM encryption 1.28 and 0.914-0.918
//! (1.00 of the bound). Measurements: docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use super::aesni::{aes_round, chain};
use super::key::X86Aes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::mac::MacKernels;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::{Block, KeySize};

// Every level's token includes AES-NI and SSE4.1 (`Level::aesni`), the
// features these kernels enable: the SAFETY argument for each call below.
impl MacKernels for X86Aes {
    fn cbc_mac(&self, state: &mut Block, data: &[u8]) {
        trace::hit(Kernel::AesniCbcMac);
        // SAFETY: every level's token proves AES-NI and SSE4.1.
        unsafe {
            match self.size {
                KeySize::Aes128 => cbc_mac::<10>(&self.enc, state, data),
                KeySize::Aes192 => cbc_mac::<12>(&self.enc, state, data),
                KeySize::Aes256 => cbc_mac::<14>(&self.enc, state, data),
            }
        }
    }

    fn ccm_encrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::AesniCcmEnc);
        // SAFETY: every level's token proves AES-NI and SSE4.1.
        unsafe {
            match self.size {
                KeySize::Aes128 => ccm::<10, false>(&self.enc, mac, ctr, io),
                KeySize::Aes192 => ccm::<12, false>(&self.enc, mac, ctr, io),
                KeySize::Aes256 => ccm::<14, false>(&self.enc, mac, ctr, io),
            }
        }
    }

    fn ccm_decrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::AesniCcmDec);
        // SAFETY: every level's token proves AES-NI and SSE4.1.
        unsafe {
            match self.size {
                KeySize::Aes128 => ccm::<10, true>(&self.enc, mac, ctr, io),
                KeySize::Aes192 => ccm::<12, true>(&self.enc, mac, ctr, io),
                KeySize::Aes256 => ccm::<14, true>(&self.enc, mac, ctr, io),
            }
        }
    }

    fn kw_wrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::AesniKwWrap);
        // SAFETY: every level's token proves AES-NI and SSE4.1.
        unsafe {
            match self.size {
                KeySize::Aes128 => kw::<10, false>(&self.enc, a, r),
                KeySize::Aes192 => kw::<12, false>(&self.enc, a, r),
                KeySize::Aes256 => kw::<14, false>(&self.enc, a, r),
            }
        }
    }

    fn kw_unwrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::AesniKwUnwrap);
        // SAFETY: every level's token proves AES-NI and SSE4.1.
        unsafe {
            match self.size {
                KeySize::Aes128 => kw::<10, true>(&self.dec, a, r),
                KeySize::Aes192 => kw::<12, true>(&self.dec, a, r),
                KeySize::Aes256 => kw::<14, true>(&self.dec, a, r),
            }
        }
    }
}

/// Reverses the 16 bytes: big-endian counter block <-> little-endian lanes.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn bswap128() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// KW's step counter `t` as 8 big-endian bytes in the low lane.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn step(t: u64) -> __m128i {
    _mm_set_epi64x(0, t.swap_bytes() as i64)
}

/// CBC-MAC over whole blocks of `data`.
///
/// # Safety
/// AES-NI and SSE4.1.
#[target_feature(enable = "aes,sse4.1")]
unsafe fn cbc_mac<const R: usize>(keys: &[__m128i; 15], state: &mut Block, data: &[u8]) {
    let n = data.len() / 16;
    if n == 0 {
        return;
    }
    // SAFETY: `state` is 16 readable and writable bytes; block i < n of
    // `data` is 16 readable bytes.
    unsafe {
        let s0 = _mm_loadu_si128(state.as_ptr().cast());
        let x = |i: usize| _mm_loadu_si128(data.as_ptr().add(16 * i).cast());
        let s = chain::<R>(keys, s0, n, x, |_, _| {});
        _mm_storeu_si128(state.as_mut_ptr().cast(), s);
    }
}

/// CCM over whole blocks: the CBC-MAC of the plaintext in `mac`, the CTR
/// keystream of `ctr` (advanced; its low 64 bits never wrap in CCM) XORed
/// into the data. `DEC`: the input is ciphertext.
///
/// # Safety
/// AES-NI and SSE4.1.
#[target_feature(enable = "aes,sse4.1")]
unsafe fn ccm<const R: usize, const DEC: bool>(
    keys: &[__m128i; 15],
    mac: &mut Block,
    ctr: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let rk = *keys;
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bswap = bswap128();
    let one = _mm_set_epi64x(0, 1);
    // SAFETY: `ctr` is 16 readable bytes.
    let mut c = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(ctr.as_ptr().cast()) }, bswap);
    // One block of keystream, then the data block through it: the
    // plaintext, the MAC chain's input. The out-of-order core runs the
    // keystream ahead of the chain.
    let block = |i: usize| {
        let mut k = _mm_xor_si128(_mm_shuffle_epi8(c, bswap), rk[0]);
        c = _mm_add_epi64(c, one);
        for key in &rk[1..R] {
            k = _mm_aesenc_si128(k, *key);
        }
        k = _mm_aesenclast_si128(k, rk[R]);
        // SAFETY: block i < n lies inside the input; it is read before
        // block i of the output is written.
        let x = unsafe { _mm_loadu_si128(src.add(16 * i).cast()) };
        let y = _mm_xor_si128(x, k);
        // SAFETY: block i of the output.
        unsafe { _mm_storeu_si128(dst.add(16 * i).cast(), y) };
        if DEC {
            y
        } else {
            x
        }
    };
    // SAFETY: `mac` and `ctr` are 16 readable and writable bytes; AES-NI
    // and SSE4.1 as this function enables.
    unsafe {
        let s0 = _mm_loadu_si128(mac.as_ptr().cast());
        let s = chain::<R>(keys, s0, n, block, |_, _| {});
        _mm_storeu_si128(mac.as_mut_ptr().cast(), s);
        _mm_storeu_si128(ctr.as_mut_ptr().cast(), _mm_shuffle_epi8(c, bswap));
    }
}

/// W (`DEC` false): 6n steps `B = E(A || R_i); A = MSB64(B) ^ t;
/// R_i = LSB64(B)`, t counting up from 1. W^-1 (`DEC`, on the keys of the
/// equivalent inverse cipher): the steps in reverse, `B = D((A ^ t) || R_i)`,
/// t counting down from 6n.
///
/// The register `a` holds A ^ k_0 in its low lane (W^-1: A ^ t ^ k_0): the
/// last round's key carries `t ^ k_0` for the low lane (W^-1: the next
/// step's t), so the next step's first AddRoundKey is done, and the chain
/// is the rounds plus one UNPCKLQDQ.
///
/// # Safety
/// AES-NI and SSE4.1.
#[target_feature(enable = "aes,sse4.1")]
unsafe fn kw<const R: usize, const DEC: bool>(
    keys: &[__m128i; 15],
    a_io: &mut [u8; 8],
    r: &mut [u8],
) {
    let rk = *keys;
    let n = r.len() / 8;
    let p = r.as_mut_ptr();
    let k0_lo = _mm_move_epi64(rk[0]);
    let k0_hi = _mm_unpackhi_epi64(rk[0], rk[0]);
    let last = _mm_xor_si128(rk[R], k0_lo);
    let mut t = if DEC { 6 * n as u64 } else { 0 };
    // SAFETY: `a_io` is 8 readable bytes.
    let a0 = unsafe { _mm_loadl_epi64(a_io.as_ptr().cast()) };
    let mut a = _mm_xor_si128(if DEC { _mm_xor_si128(a0, step(t)) } else { a0 }, k0_lo);
    for _ in 0..6 {
        for j in 0..n {
            let i = if DEC { n - 1 - j } else { j };
            // W: this step's t; W^-1: the next step's (0 after the last).
            t = if DEC { t - 1 } else { t + 1 };
            // SAFETY: semiblock i < n lies inside `r`.
            let ri = unsafe { _mm_loadl_epi64(p.add(8 * i).cast()) };
            let mut b = _mm_unpacklo_epi64(a, _mm_xor_si128(ri, k0_hi));
            for key in &rk[1..R] {
                b = aes_round(DEC, false, b, *key);
            }
            b = aes_round(DEC, true, b, _mm_xor_si128(last, step(t)));
            // SAFETY: semiblock i < n lies inside `r`; the high lane is the
            // new R_i.
            unsafe { _mm_storeh_pd(p.add(8 * i).cast(), _mm_castsi128_pd(b)) };
            a = b;
        }
    }
    // SAFETY: `a_io` is 8 writable bytes.
    unsafe { _mm_storel_epi64(a_io.as_mut_ptr().cast(), _mm_xor_si128(a, k0_lo)) };
}
