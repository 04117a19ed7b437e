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

use core::arch::x86_64::*;

use super::X86Aes;
use crate::backend::inout::InOut;
use crate::backend::mac_kernels::MacKernels;
use crate::backend::trace::{self, Kernel};
use crate::key::Block;

// Every level's token includes AES-NI and SSE4.1 (`Level::aesni`), the
// features these kernels enable: the SAFETY argument for each call below.
impl MacKernels for X86Aes {
    fn cbc_mac(&self, state: &mut Block, data: &[u8]) {
        trace::hit(Kernel::AesniCbcMac);
        // SAFETY: the key's level proves AES-NI and SSE4.1 (see above).
        unsafe { by_rounds!(self, cbc_mac(&self.enc, state, data)) }
    }

    fn ccm_encrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::AesniCcmEnc);
        // SAFETY: as in `cbc_mac`.
        unsafe { by_rounds!(self, ccm::<false>(&self.enc, mac, ctr, io)) }
    }

    fn ccm_decrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::AesniCcmDec);
        // SAFETY: as in `cbc_mac`.
        unsafe { by_rounds!(self, ccm::<true>(&self.enc, mac, ctr, io)) }
    }

    fn kw_wrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::AesniKwWrap);
        // SAFETY: as in `cbc_mac`.
        unsafe { by_rounds!(self, kw_wrap(&self.enc, a, r)) }
    }

    fn kw_unwrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        trace::hit(Kernel::AesniKwUnwrap);
        // SAFETY: as in `cbc_mac`.
        unsafe { by_rounds!(self, kw_unwrap(&self.dec, a, r)) }
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
    let rk = *keys;
    let n = data.len() / 16;
    if n == 0 {
        return;
    }
    let p = data.as_ptr();
    let last_k0 = _mm_xor_si128(rk[R], rk[0]);
    // SAFETY: `state` is 16 bytes; block 0 lies inside `data`.
    let mut s = unsafe {
        _mm_xor_si128(
            _mm_xor_si128(_mm_loadu_si128(state.as_ptr().cast()), rk[0]),
            _mm_loadu_si128(p.cast()),
        )
    };
    for i in 1..n {
        for key in &rk[1..R] {
            s = _mm_aesenc_si128(s, *key);
        }
        // SAFETY: block i < n lies inside `data`.
        let x = unsafe { _mm_loadu_si128(p.add(16 * i).cast()) };
        s = _mm_aesenclast_si128(s, _mm_xor_si128(x, last_k0));
    }
    for key in &rk[1..R] {
        s = _mm_aesenc_si128(s, *key);
    }
    s = _mm_aesenclast_si128(s, rk[R]);
    // SAFETY: `state` is 16 writable bytes.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), s) };
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
    let rk = *keys;
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bswap = bswap128();
    let one = _mm_set_epi64x(0, 1);
    let last_k0 = _mm_xor_si128(rk[R], rk[0]);
    // SAFETY: `ctr` is 16 readable bytes.
    let mut c = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(ctr.as_ptr().cast()) }, bswap);
    // One block of keystream, then the data block through it: returns
    // (plaintext, output).
    let mut block = |i: usize| {
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
    // SAFETY: `mac` is 16 readable bytes.
    let mut s = unsafe { _mm_loadu_si128(mac.as_ptr().cast()) };
    s = _mm_xor_si128(_mm_xor_si128(s, rk[0]), block(0));
    for i in 1..n {
        for key in &rk[1..R] {
            s = _mm_aesenc_si128(s, *key);
        }
        let p = block(i);
        s = _mm_aesenclast_si128(s, _mm_xor_si128(p, last_k0));
    }
    for key in &rk[1..R] {
        s = _mm_aesenc_si128(s, *key);
    }
    s = _mm_aesenclast_si128(s, rk[R]);
    // SAFETY: `mac` and `ctr` are 16 writable bytes.
    unsafe {
        _mm_storeu_si128(mac.as_mut_ptr().cast(), s);
        _mm_storeu_si128(ctr.as_mut_ptr().cast(), _mm_shuffle_epi8(c, bswap));
    }
}

/// W: 6n steps `B = E(A || R_i); A = MSB64(B) ^ t; R_i = LSB64(B)`.
///
/// The register `a` holds A ^ k_0 in its low lane: the last round's key
/// carries `t ^ k_0` for the low lane, so the next step's first
/// AddRoundKey is done, and the chain is the rounds plus one UNPCKLQDQ.
///
/// # Safety
/// AES-NI and SSE4.1.
#[target_feature(enable = "aes,sse4.1")]
unsafe fn kw_wrap<const R: usize>(keys: &[__m128i; 15], a_out: &mut [u8; 8], r: &mut [u8]) {
    let rk = *keys;
    let n = r.len() / 8;
    let p = r.as_mut_ptr();
    let k0_lo = _mm_move_epi64(rk[0]);
    let k0_hi = _mm_unpackhi_epi64(rk[0], rk[0]);
    let last = _mm_xor_si128(rk[R], k0_lo);
    // SAFETY: `a_out` is 8 readable bytes.
    let mut a = _mm_xor_si128(unsafe { _mm_loadl_epi64(a_out.as_ptr().cast()) }, k0_lo);
    let mut t = 0u64;
    for _ in 0..6 {
        for i in 0..n {
            t += 1;
            // SAFETY: semiblock i < n lies inside `r`.
            let ri = unsafe { _mm_loadl_epi64(p.add(8 * i).cast()) };
            let mut b = _mm_unpacklo_epi64(a, _mm_xor_si128(ri, k0_hi));
            for key in &rk[1..R] {
                b = _mm_aesenc_si128(b, *key);
            }
            b = _mm_aesenclast_si128(b, _mm_xor_si128(last, step(t)));
            // SAFETY: semiblock i < n lies inside `r`; the high lane is the
            // new R_i.
            unsafe { _mm_storeh_pd(p.add(8 * i).cast(), _mm_castsi128_pd(b)) };
            a = b;
        }
    }
    // SAFETY: `a_out` is 8 writable bytes.
    unsafe { _mm_storel_epi64(a_out.as_mut_ptr().cast(), _mm_xor_si128(a, k0_lo)) };
}

/// W^-1: the steps of W in reverse, `B = D((A ^ t) || R_i)`, on the keys
/// of the equivalent inverse cipher; `a` holds A ^ t ^ dk_0 in its low lane
/// (the next step's `t` and first key folded into AESDECLAST's key).
///
/// # Safety
/// AES-NI and SSE4.1.
#[target_feature(enable = "aes,sse4.1")]
unsafe fn kw_unwrap<const R: usize>(dk: &[__m128i; 15], a_io: &mut [u8; 8], r: &mut [u8]) {
    let dk = *dk;
    let n = r.len() / 8;
    let p = r.as_mut_ptr();
    let k0_lo = _mm_move_epi64(dk[0]);
    let k0_hi = _mm_unpackhi_epi64(dk[0], dk[0]);
    let last = _mm_xor_si128(dk[R], k0_lo);
    let mut t = 6 * n as u64;
    // SAFETY: `a_io` is 8 readable bytes.
    let a0 = unsafe { _mm_loadl_epi64(a_io.as_ptr().cast()) };
    let mut a = _mm_xor_si128(_mm_xor_si128(a0, step(t)), k0_lo);
    for _ in 0..6 {
        for i in (0..n).rev() {
            t -= 1;
            // SAFETY: semiblock i < n lies inside `r`.
            let ri = unsafe { _mm_loadl_epi64(p.add(8 * i).cast()) };
            let mut b = _mm_unpacklo_epi64(a, _mm_xor_si128(ri, k0_hi));
            for key in &dk[1..R] {
                b = _mm_aesdec_si128(b, *key);
            }
            // t is now the next step's (0 after the last step).
            b = _mm_aesdeclast_si128(b, _mm_xor_si128(last, step(t)));
            // SAFETY: semiblock i < n lies inside `r`.
            unsafe { _mm_storeh_pd(p.add(8 * i).cast(), _mm_castsi128_pd(b)) };
            a = b;
        }
    }
    // SAFETY: `a_io` is 8 writable bytes.
    unsafe { _mm_storel_epi64(a_io.as_mut_ptr().cast(), _mm_xor_si128(a, k0_lo)) };
}
