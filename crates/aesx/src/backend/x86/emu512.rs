//! The zmm kernels' generic code run on any AES-NI machine: [`Emu512`], a
//! test-only [`Vector`] with the `vaes512` tier's shape (four blocks per
//! register, 32 registers) whose every method is the 128-bit instruction
//! applied lane by lane, and tests that run each wide kernel body on it
//! against the `aesni` level.
//!
//! Why: the wide kernels are one generic source for ymm and zmm, but the
//! zmm instances take their own paths (product pairs, six-register
//! decryption steps, masked tails of up to four blocks, `REGS >= 32`
//! branches), and a build machine without AVX-512 never runs them. Here
//! those paths run on every machine, so a change to the shared code that
//! breaks only the zmm shape fails CI. What this cannot check is the
//! `Vaes512` impl itself (each method one AVX-512 intrinsic, in
//! `vector.rs`'s table, whose per-method tests run where the CPU has it).

use core::arch::x86_64::*;

use super::gcm_vaes::GcmVector;
use super::vector::Vector;
use crate::backend::kernels::cpu::{self, Aesni};
use crate::backend::kernels::trace::Kernel;

/// Four 128-bit lanes, as a zmm register holds them.
type Z = [__m128i; 4];

/// The emulated width; made from the `aesni` token, which proves every
/// instruction its lanes use.
#[derive(Clone, Copy, Debug)]
pub(super) struct Emu512(Aesni);

impl From<Emu512> for Aesni {
    fn from(e: Emu512) -> Aesni {
        e.0
    }
}

impl Emu512 {
    /// `None` on a CPU without AES-NI.
    pub(super) fn new() -> Option<Emu512> {
        cpu::features().aesni.map(Emu512)
    }

    fn map(self, a: Z, f: impl Fn(Aesni, __m128i) -> __m128i) -> Z {
        core::array::from_fn(|l| f(self.0, a[l]))
    }

    fn map2(self, a: Z, b: Z, f: impl Fn(Aesni, __m128i, __m128i) -> __m128i) -> Z {
        core::array::from_fn(|l| f(self.0, a[l], b[l]))
    }
}

impl Vector for Emu512 {
    type V = Z;
    const BLOCKS: usize = 4;
    const REGS: usize = 32;

    fn zero(self) -> Z {
        [self.0.zero(); 4]
    }
    unsafe fn load(self, p: *const u8) -> Z {
        // SAFETY: the caller passes 64 readable bytes.
        core::array::from_fn(|l| unsafe { self.0.load(p.add(16 * l)) })
    }
    unsafe fn store(self, p: *mut u8, v: Z) {
        for (l, x) in v.into_iter().enumerate() {
            // SAFETY: the caller passes 64 writable bytes.
            unsafe { self.0.store(p.add(16 * l), x) }
        }
    }
    unsafe fn load_bytes(self, p: *const u8, len: usize) -> Z {
        let mut buf = [0u8; 64];
        // SAFETY: the caller passes `len` readable bytes; `buf` is a local.
        unsafe { core::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), len.min(64)) };
        // SAFETY: `buf` holds 64 bytes.
        unsafe { self.load(buf.as_ptr()) }
    }
    unsafe fn store_bytes(self, p: *mut u8, v: Z, len: usize) {
        let mut buf = [0u8; 64];
        // SAFETY: `buf` holds 64 bytes.
        unsafe { self.store(buf.as_mut_ptr(), v) };
        // SAFETY: the caller passes `len` writable bytes.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), p, len.min(64)) };
    }
    unsafe fn gather(self, p: &[*mut u8], off: usize) -> Z {
        // SAFETY: the caller passes 16 readable bytes at each `p[l] + off`.
        core::array::from_fn(|l| unsafe { self.0.load(p[l].add(off)) })
    }
    unsafe fn scatter(self, p: &[*mut u8], off: usize, v: Z) {
        for (l, x) in v.into_iter().enumerate() {
            // SAFETY: the caller passes 16 writable bytes at each `p[l] + off`.
            unsafe { self.0.store(p[l].add(off), x) }
        }
    }
    fn broadcast(self, k: __m128i) -> Z {
        [k; 4]
    }
    fn zext(self, x: __m128i) -> Z {
        let z = self.0.zero();
        [x, z, z, z]
    }
    fn set_u64x2(self, hi: u64, lo: u64) -> Z {
        [self.0.set_u64x2(hi, lo); 4]
    }
    fn lane_index(self) -> Z {
        core::array::from_fn(|l| self.0.set_u64x2(0, l as u64))
    }
    fn low_block(self, v: Z) -> __m128i {
        v[0]
    }
    fn block(self, v: Z, i: usize) -> __m128i {
        v[i]
    }
    fn xor_lanes(self, v: Z) -> __m128i {
        v.into_iter().fold(self.0.zero(), |a, x| self.0.xor(a, x))
    }
    fn shift_in(self, cur: Z, prev: Z) -> Z {
        [prev[3], cur[0], cur[1], cur[2]]
    }
    fn xor(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::xor)
    }
    fn xor3(self, a: Z, b: Z, c: Z) -> Z {
        self.xor(self.xor(a, b), c)
    }
    fn and(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::and)
    }
    fn or(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::or)
    }
    fn aesenc(self, b: Z, k: Z) -> Z {
        self.map2(b, k, Aesni::aesenc)
    }
    fn aesenclast(self, b: Z, k: Z) -> Z {
        self.map2(b, k, Aesni::aesenclast)
    }
    fn aesdec(self, b: Z, k: Z) -> Z {
        self.map2(b, k, Aesni::aesdec)
    }
    fn aesdeclast(self, b: Z, k: Z) -> Z {
        self.map2(b, k, Aesni::aesdeclast)
    }
    fn shuffle_bytes(self, v: Z, idx: Z) -> Z {
        self.map2(v, idx, Aesni::shuffle_bytes)
    }
    fn shuffle32<const IMM: i32>(self, v: Z) -> Z {
        self.map(v, Aesni::shuffle32::<IMM>)
    }
    fn unpacklo64(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::unpacklo64)
    }
    fn unpackhi64(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::unpackhi64)
    }
    fn alignr<const N: i32>(self, hi: Z, lo: Z) -> Z {
        self.map2(hi, lo, Aesni::alignr::<N>)
    }
    fn add32(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::add32)
    }
    fn add64(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::add64)
    }
    fn sub64(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::sub64)
    }
    fn bslli<const N: i32>(self, v: Z) -> Z {
        self.map(v, Aesni::bslli::<N>)
    }
    fn bsrli<const N: i32>(self, v: Z) -> Z {
        self.map(v, Aesni::bsrli::<N>)
    }
    fn sll64(self, v: Z, n: __m128i) -> Z {
        self.map(v, |x, v| x.sll64(v, n))
    }
    fn srl64(self, v: Z, n: __m128i) -> Z {
        self.map(v, |x, v| x.srl64(v, n))
    }
    fn sllv64(self, v: Z, n: Z) -> Z {
        self.map2(v, n, Aesni::sllv64)
    }
    fn srlv64(self, v: Z, n: Z) -> Z {
        self.map2(v, n, Aesni::srlv64)
    }
    fn clmul<const IMM: i32>(self, a: Z, b: Z) -> Z {
        self.map2(a, b, Aesni::clmul::<IMM>)
    }
    // The barriers only shape the schedule; the emulation needs none.
    fn order<const N: usize>(self, _b: &mut [Z; N]) {}
    fn order_acc<const N: usize>(self, _b: &mut [Z; N], _acc: &mut [Z; 3]) {}
}

impl GcmVector for Emu512 {
    const KERNELS: (Kernel, Kernel) = (Kernel::Vaes512GcmEnc, Kernel::Vaes512GcmDec);

    fn keep_bytes(self, v: Z, len: usize) -> Z {
        let mut buf = [0u8; 64];
        // SAFETY: `buf` holds 64 bytes.
        unsafe { self.store(buf.as_mut_ptr(), v) };
        buf[len.min(64)..].fill(0);
        // SAFETY: `buf` holds 64 bytes.
        unsafe { self.load(buf.as_ptr()) }
    }
}

#[cfg(feature = "std")]
mod tests {
    //! Each wide kernel body on [`Emu512`] against the `aesni` level's
    //! kernel (itself checked against the soft backend elsewhere), under
    //! every forced schedule, in place and out of place, at the lengths
    //! and counters where the zmm paths branch.

    use super::*;
    use crate::backend::kernels::gcm::GcmKernels;
    use crate::backend::kernels::inout::InOut;
    use crate::backend::kernels::xts::XtsKernels;
    use crate::backend::kernels::BlockKernels;
    use crate::backend::schedule::Schedule;
    use crate::backend::x86::key::{Level, X86Aes};
    use crate::backend::x86::{cbc_multi, gcm, gcm_vaes, polyval, siv, vaes, xts_vaes};
    use crate::key::{Block, KeySize, RoundKeys};
    use crate::test_bytes::xorshift_bytes as bytes;

    /// The emulated width and an `aesni` key of `len` bytes, or `None`
    /// without AES-NI.
    fn keyed(len: usize, seed: u64) -> Option<(Emu512, X86Aes)> {
        let (emu, level) = (Emu512::new()?, Level::detect(0)?);
        let rk = RoundKeys::expand(&bytes(seed, len)).unwrap();
        Some((emu, X86Aes::new(level, &rk)))
    }

    /// The zmm-shaped emulation keeps the contract of the real widths:
    /// every method against the 128-bit instruction on each lane (the
    /// checks `vector.rs` runs on xmm, ymm and zmm).
    #[test]
    fn emulated_zmm_methods_match_the_128_bit_instructions() {
        match Emu512::new() {
            Some(t) => crate::backend::x86::vector::tests::check(t),
            None => eprintln!("skipped: no AES-NI on this CPU"),
        }
    }

    /// Runs `f` under each schedule forced, then the detected one again.
    fn each_schedule(mut f: impl FnMut()) {
        for s in Schedule::ALL {
            Schedule::force(Some(s));
            f();
        }
        Schedule::force(None);
    }

    /// Block counts around the zmm steps (8 and 6 registers of 4 blocks,
    /// a 4-register tail) and a few long runs.
    fn block_counts() -> Vec<usize> {
        let mut v: Vec<usize> = (0..=72).collect();
        v.extend([95, 96, 97, 127, 128, 129, 200, 257]);
        v
    }

    /// `f(io)` on `data` out of place and in place; both outputs.
    fn both_ways(data: &[u8], mut f: impl FnMut(InOut<'_>)) -> (Vec<u8>, Vec<u8>) {
        let mut out = vec![0u8; data.len()];
        f(InOut::new(data, &mut out).unwrap());
        let mut inplace = data.to_vec();
        f(InOut::in_place(&mut inplace));
        (out, inplace)
    }

    #[test]
    fn gcm_stream_on_the_zmm_shape() {
        for klen in [16, 24, 32] {
            let Some((emu, k)) = keyed(klen, 1) else {
                return;
            };
            let hk = k.ghash_key();
            let data = bytes(2, 257 * 16);
            let acc0: Block = bytes(3, 16).try_into().unwrap();
            each_schedule(|| {
                for low in [0u32, 1, 5, 0xe0, 0xf3, 0xff, 0xffff_fff0, 0xffff_ffff] {
                    let mut ctr0: Block = bytes(4, 16).try_into().unwrap();
                    ctr0[12..].copy_from_slice(&low.to_be_bytes());
                    for n in block_counts() {
                        let msg = &data[..16 * n];
                        let what = format!("AES-{} low {low:#x} blocks {n}", 8 * klen);
                        for enc in [true, false] {
                            let (mut wc, mut wa) = (ctr0, acc0);
                            let (want, _) = both_ways(msg, |io| {
                                (wc, wa) = (ctr0, acc0);
                                if enc {
                                    k.gcm_encrypt(&hk, &mut wc, &mut wa, io)
                                } else {
                                    k.gcm_decrypt(&hk, &mut wc, &mut wa, io)
                                }
                            });
                            let mut state = Vec::new();
                            let (out, inplace) = both_ways(msg, |io| {
                                let (mut c, mut a) = (ctr0, acc0);
                                // SAFETY: the emulation needs only AES-NI;
                                // the key, powers and `io` are well formed.
                                unsafe {
                                    if enc {
                                        gcm_vaes::gcm_crypt_body::<Emu512, true>(
                                            emu, &k, &hk, &mut c, &mut a, io,
                                        )
                                    } else {
                                        gcm_vaes::gcm_crypt_body::<Emu512, false>(
                                            emu, &k, &hk, &mut c, &mut a, io,
                                        )
                                    }
                                }
                                state.push((c, a));
                            });
                            assert_eq!(out, want, "enc {enc}, {what}");
                            assert_eq!(inplace, want, "enc {enc} in place, {what}");
                            assert!(state.iter().all(|s| *s == (wc, wa)), "state, {what}");
                        }
                    }
                }
            });
        }
    }

    #[test]
    fn gcm_oneshot_and_ghash_on_the_zmm_shape() {
        for klen in [16, 24, 32] {
            let Some((emu, k)) = keyed(klen, 5) else {
                return;
            };
            let hk = k.ghash_key();
            let data = bytes(6, 5000);
            let aad_all = bytes(7, 700);
            let j0: Block = bytes(8, 16).try_into().unwrap();
            let mut lens: Vec<usize> = (0..=260).collect();
            lens.extend([383, 384, 385, 511, 512, 513, 1000, 1536, 4099]);
            each_schedule(|| {
                for alen in [0, 1, 16, 17, 100, 128, 129, 255, 256, 600] {
                    let aad = &aad_all[..alen];
                    for &len in &lens {
                        let msg = &data[..len];
                        let what = format!("AES-{} aad {alen} len {len}", 8 * klen);
                        for enc in [true, false] {
                            let mut want_tag = [0u8; 16];
                            let (want, _) = both_ways(msg, |io| {
                                want_tag = k.gcm_oneshot(&hk, enc, &j0, aad, io)
                            });
                            let mut tags = Vec::new();
                            let (out, inplace) = both_ways(msg, |io| {
                                // SAFETY: as in `gcm_stream_on_the_zmm_shape`.
                                tags.push(unsafe {
                                    if enc {
                                        gcm_vaes::gcm_oneshot_body::<Emu512, true>(
                                            emu, &k, &hk, &j0, aad, io,
                                        )
                                    } else {
                                        gcm_vaes::gcm_oneshot_body::<Emu512, false>(
                                            emu, &k, &hk, &j0, aad, io,
                                        )
                                    }
                                });
                            });
                            assert_eq!(out, want, "enc {enc}, {what}");
                            assert_eq!(inplace, want, "enc {enc} in place, {what}");
                            assert!(tags.iter().all(|t| *t == want_tag), "tag, {what}");
                        }
                    }
                }
                // GHASH alone (AAD, GMAC) at every length to 4 KiB + 3.
                let acc0: Block = bytes(9, 16).try_into().unwrap();
                for len in (0..=600).chain([1023, 1024, 1025, 2048, 4099]) {
                    let (mut want, mut got) = (acc0, acc0);
                    k.ghash_update(&hk, &mut want, &data[..len]);
                    // SAFETY: as in `gcm_stream_on_the_zmm_shape`.
                    unsafe {
                        gcm_vaes::ghash_update_body::<Emu512>(emu, &k, &hk, &mut got, &data[..len])
                    };
                    assert_eq!(got, want, "ghash AES-{} len {len}", 8 * klen);
                }
            });
        }
    }

    #[test]
    fn xts_on_the_zmm_shape() {
        for klen in [16, 32] {
            let Some((emu, k)) = keyed(klen, 10) else {
                return;
            };
            let (_, tk) = keyed(klen, 11).unwrap();
            let data = bytes(12, 257 * 16);
            let t0: Block = bytes(13, 16).try_into().unwrap();
            each_schedule(|| {
                for n in block_counts() {
                    let msg = &data[..16 * n];
                    for enc in [true, false] {
                        let what = format!("AES-{} enc {enc} blocks {n}", 8 * klen);
                        let mut wt = t0;
                        let (want, _) = both_ways(msg, |io| {
                            wt = t0;
                            if enc {
                                k.xts_encrypt(&mut wt, io)
                            } else {
                                k.xts_decrypt(&mut wt, io)
                            }
                        });
                        let mut tweaks = Vec::new();
                        let (out, inplace) = both_ways(msg, |io| {
                            let mut t = t0;
                            // SAFETY: the emulation needs only AES-NI.
                            unsafe {
                                if enc {
                                    xts_vaes::xts::<Emu512, true>(emu, &k, &mut t, io)
                                } else {
                                    xts_vaes::xts::<Emu512, false>(emu, &k, &mut t, io)
                                }
                            }
                            tweaks.push(t);
                        });
                        assert_eq!(out, want, "{what}");
                        assert_eq!(inplace, want, "in place, {what}");
                        assert!(tweaks.iter().all(|t| *t == wt), "tweak, {what}");
                    }
                }
                for (size, count) in [(16, 40), (32, 37), (512, 9), (4096, 3)] {
                    let msg = &bytes(14, size * count)[..];
                    let first = u128::MAX - 100;
                    for enc in [true, false] {
                        let what = format!("AES-{} enc {enc} sectors of {size}", 8 * klen);
                        let (want, _) = both_ways(msg, |io| {
                            if enc {
                                k.xts_encrypt_sectors(&tk, size, first, io)
                            } else {
                                k.xts_decrypt_sectors(&tk, size, first, io)
                            }
                        });
                        let (out, inplace) = both_ways(msg, |io| {
                            // SAFETY: the emulation needs only AES-NI; the
                            // size divides the length; one key size.
                            unsafe {
                                if enc {
                                    xts_vaes::sectors::<Emu512, true>(emu, &k, &tk, size, first, io)
                                } else {
                                    xts_vaes::sectors::<Emu512, false>(
                                        emu, &k, &tk, size, first, io,
                                    )
                                }
                            }
                        });
                        assert_eq!(out, want, "{what}");
                        assert_eq!(inplace, want, "in place, {what}");
                    }
                }
            });
        }
    }

    #[test]
    fn ecb_cbc_ctr_on_the_zmm_shape() {
        for klen in [16, 24, 32] {
            let Some((emu, k)) = keyed(klen, 15) else {
                return;
            };
            let data = bytes(16, 257 * 16);
            let iv0: Block = bytes(17, 16).try_into().unwrap();
            for n in block_counts() {
                let msg = &data[..16 * n];
                let what = format!("AES-{} blocks {n}", 8 * klen);
                let (want, _) = both_ways(msg, |io| k.encrypt_blocks(io));
                // SAFETY: the emulation needs only AES-NI; `io` is whole
                // blocks (also below).
                let got = both_ways(msg, |io| unsafe { vaes::encrypt_blocks(emu, &k, io) });
                assert_eq!(got, (want.clone(), want), "ecb enc, {what}");
                let (want, _) = both_ways(msg, |io| k.decrypt_blocks(io));
                // SAFETY: as above.
                let got = both_ways(msg, |io| unsafe { vaes::decrypt_blocks(emu, &k, io) });
                assert_eq!(got, (want.clone(), want), "ecb dec, {what}");

                let mut wiv = iv0;
                let (want, _) = both_ways(msg, |io| {
                    wiv = iv0;
                    k.cbc_decrypt(&mut wiv, io)
                });
                let mut ivs = Vec::new();
                let got = both_ways(msg, |io| {
                    let mut iv = iv0;
                    // SAFETY: as above.
                    unsafe { vaes::cbc_decrypt(emu, &k, &mut iv, io) };
                    ivs.push(iv);
                });
                assert_eq!(got, (want.clone(), want), "cbc dec, {what}");
                assert!(ivs.iter().all(|iv| *iv == wiv), "cbc iv, {what}");

                for low in [0u64, 0xf1, 0xffff_ffff_ffff_fff0, u64::MAX] {
                    let mut c0 = iv0;
                    c0[8..].copy_from_slice(&low.to_be_bytes());
                    if low == u64::MAX {
                        c0[..8].fill(0xff);
                    }
                    let mut wc = c0;
                    let (want, _) = both_ways(msg, |io| {
                        wc = c0;
                        k.ctr_apply(&mut wc, io)
                    });
                    let mut ctrs = Vec::new();
                    let got = both_ways(msg, |io| {
                        let mut c = c0;
                        // SAFETY: as above.
                        unsafe { vaes::ctr_apply(emu, &k, &mut c, io) };
                        ctrs.push(c);
                    });
                    assert_eq!(got, (want.clone(), want), "ctr low {low:#x}, {what}");
                    assert!(ctrs.iter().all(|c| *c == wc), "ctr state, {what}");
                }
            }
        }
    }

    /// The GCM-SIV one-shot on [`Emu512`] with the `vaes512` level's
    /// group of four registers (`siv::gcm_siv`).
    fn siv_emu(
        emu: Emu512,
        k: &X86Aes,
        nonce: &[u8; 12],
        aad: &[u8],
        io: InOut<'_>,
        open: Option<&Block>,
    ) -> Block {
        // SAFETY: the emulation needs only AES-NI; the key is AES-128 or
        // AES-256, as the one-shot's round count.
        unsafe {
            match k.size {
                KeySize::Aes128 => siv::oneshot::<Emu512, 10, 4>(emu, &k.enc, nonce, aad, io, open),
                _ => siv::oneshot::<Emu512, 14, 4>(emu, &k.enc, nonce, aad, io, open),
            }
        }
    }

    #[test]
    fn gcm_siv_polyval_checksum_on_the_zmm_shape() {
        for (klen, size) in [(16, KeySize::Aes128), (32, KeySize::Aes256)] {
            let Some((emu, k)) = keyed(klen, 18) else {
                return;
            };
            let data = bytes(19, 3000);
            let aad_all = bytes(20, 300);
            let nonce: [u8; 12] = bytes(21, 12).try_into().unwrap();
            let mut lens: Vec<usize> = (0..=200).collect();
            lens.extend([255, 256, 257, 511, 512, 513, 1024, 2999]);
            each_schedule(|| {
                for alen in [0, 1, 16, 17, 64, 65, 255] {
                    let aad = &aad_all[..alen];
                    for &len in &lens {
                        let msg = &data[..len];
                        let what = format!("AES-{} aad {alen} len {len}", 8 * klen);
                        let mut want_tag = [0u8; 16];
                        let (want, _) = both_ways(msg, |io| {
                            want_tag = siv::gcm_siv(&k, size, &nonce, aad, io, None).unwrap()
                        });
                        let mut tags = Vec::new();
                        let got =
                            both_ways(msg, |io| tags.push(siv_emu(emu, &k, &nonce, aad, io, None)));
                        assert_eq!(got, (want.clone(), want.clone()), "seal, {what}");
                        assert!(tags.iter().all(|t| *t == want_tag), "seal tag, {what}");
                        // Opening the ciphertext gives the message back
                        // and the same tag.
                        let mut tags = Vec::new();
                        let got = both_ways(&want, |io| {
                            tags.push(siv_emu(emu, &k, &nonce, aad, io, Some(&want_tag)))
                        });
                        assert_eq!(got, (msg.to_vec(), msg.to_vec()), "open, {what}");
                        assert!(tags.iter().all(|t| *t == want_tag), "open tag, {what}");
                    }
                }
            });
            // The counter mode alone, from a counter about to wrap.
            let mut c0: Block = bytes(22, 16).try_into().unwrap();
            c0[..4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
            for len in (0..=300).chain([1000, 2999]) {
                let (want, _) = both_ways(&data[..len], |io| siv::ctr32le(&k, &c0, io));
                // SAFETY: the emulation needs only AES-NI.
                let got = both_ways(&data[..len], |io| unsafe {
                    match size {
                        KeySize::Aes128 => siv::ctr_from::<Emu512, 10>(emu, &k.enc, &c0, io),
                        _ => siv::ctr_from::<Emu512, 14>(emu, &k.enc, &c0, io),
                    }
                });
                assert_eq!(
                    got,
                    (want.clone(), want),
                    "ctr32le AES-{} len {len}",
                    8 * klen
                );
            }
        }
        // POLYVAL alone, every key size of table.
        let Some((emu, _)) = keyed(16, 23) else {
            return;
        };
        let h: Block = bytes(24, 16).try_into().unwrap();
        let data = bytes(25, 200 * 16);
        for blocks in [1, 3, 4, 7, 8, 15, 16, 17, 100, 200] {
            let key = polyval::X86PolyvalKey::new(Level::detect(0).unwrap(), &h, blocks);
            for n in 1..=blocks {
                let acc0: Block = bytes(26, 16).try_into().unwrap();
                let (mut want, mut got) = (acc0, acc0);
                key.update(&mut want, &data[..16 * n]);
                // SAFETY: the emulation needs only AES-NI; `n` whole blocks.
                unsafe { polyval::update::<Emu512, 4>(emu, &key, &mut got, data.as_ptr(), n) };
                assert_eq!(got, want, "polyval key of {blocks} blocks, {n} blocks");
            }
        }
        // The ESP checksum's word sums.
        for len in (0..=300).chain([1000, 4096, 4099]) {
            let d = &data[..len.min(data.len())];
            // SAFETY: the emulation needs only AES-NI (SSE2 here).
            let got = unsafe { gcm::word_sum_wide::<Emu512>(emu, d) };
            assert_eq!(
                got,
                crate::backend::kernels::gcm::word_sum(d),
                "word sum len {len}"
            );
        }
    }

    #[test]
    fn many_cbc_on_the_zmm_shape() {
        let steps = 9;
        for klen in [16, 24, 32] {
            let Some((emu, _)) = keyed(klen, 27) else {
                return;
            };
            for groups in [4, 8] {
                let lanes = 4 * groups;
                let keys: Vec<X86Aes> = (0..lanes as u64)
                    .map(|l| keyed(klen, 100 + l).unwrap().1)
                    .collect();
                let ivs: Vec<Block> = (0..lanes as u64)
                    .map(|l| bytes(200 + l, 16).try_into().unwrap())
                    .collect();
                let mut msgs: Vec<Vec<u8>> = (0..lanes as u64)
                    .map(|l| bytes(300 + l, 16 * steps))
                    .collect();
                let want: Vec<(Vec<u8>, Block)> = (0..lanes)
                    .map(|l| {
                        let (mut m, mut iv) = (msgs[l].clone(), ivs[l]);
                        keys[l].cbc_encrypt(&mut iv, InOut::in_place(&mut m));
                        (m, iv)
                    })
                    .collect();
                let rounds = keys[0].size.rounds();
                let mut lk = cbc_multi::LaneKeys::new(rounds + 1, lanes);
                let x = emu.0;
                let mut st = cbc_multi::Lanes {
                    iv: [x.zero(); 32],
                    ptr: [core::ptr::null_mut(); 32],
                };
                for l in 0..lanes {
                    lk.set(l, &keys[l].enc[..=rounds]);
                    // SAFETY: `ivs[l]` is 16 readable bytes.
                    st.iv[l] = unsafe { x.load(ivs[l].as_ptr()) };
                    st.ptr[l] = msgs[l].as_mut_ptr();
                }
                // SAFETY: the emulation needs only AES-NI; every lane's
                // pointer holds `steps` blocks.
                unsafe {
                    match (rounds, groups) {
                        (10, 4) => cbc_multi::mb_wide::<Emu512, 10, 4>(emu, &lk, &mut st, steps),
                        (12, 4) => cbc_multi::mb_wide::<Emu512, 12, 4>(emu, &lk, &mut st, steps),
                        (14, 4) => cbc_multi::mb_wide::<Emu512, 14, 4>(emu, &lk, &mut st, steps),
                        (10, _) => cbc_multi::mb_wide::<Emu512, 10, 8>(emu, &lk, &mut st, steps),
                        (12, _) => cbc_multi::mb_wide::<Emu512, 12, 8>(emu, &lk, &mut st, steps),
                        _ => cbc_multi::mb_wide::<Emu512, 14, 8>(emu, &lk, &mut st, steps),
                    }
                }
                for l in 0..lanes {
                    let mut iv = [0u8; 16];
                    // SAFETY: `iv` is 16 writable bytes.
                    unsafe { x.store(iv.as_mut_ptr(), st.iv[l]) };
                    let what = format!("AES-{} {lanes} lanes, lane {l}", 8 * klen);
                    assert_eq!((&msgs[l], iv), (&want[l].0, want[l].1), "{what}");
                }
            }
        }
    }
}
