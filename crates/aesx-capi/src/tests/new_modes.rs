//! GCM-SIV, XAES-256-GCM, CCM, key wrap and CMAC through the ABI, against
//! the library's own calls, on every backend.

use core::ffi::c_int;
use core::ptr::{null, null_mut};

use aesx::{Backend, Ccm, Cmac, GcmSiv, KeyWrap, Xaes256Gcm};

use crate::*;

fn backends() -> Vec<(Backend, c_int)> {
    Backend::available()
        .iter()
        .map(|b| (b, keys::id_of(b)))
        .collect()
}

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn aead(alg: c_int, key: &[u8], tag_len: usize, backend: c_int) -> *mut AesxAead {
    let mut a = null_mut();
    // SAFETY: valid pointers for their lengths.
    let rc = unsafe { aesx_aead_new(alg, key.as_ptr(), key.len(), tag_len, backend, &mut a) };
    assert_eq!(rc, AESX_OK);
    a
}

/// The library's ciphertext || tag for one algorithm.
type Seal = Box<dyn Fn(&[u8], &[u8], &[u8]) -> Vec<u8>>;

#[test]
fn aeads_equal_the_library_every_way() {
    for (b, id) in backends() {
        let k32 = data(32, 1);
        let cases: Vec<(c_int, usize, usize, Seal)> = vec![
            (AESX_AEAD_GCM_SIV, 12, 16, {
                let l = GcmSiv::with_backend(&k32, b).unwrap();
                Box::new(move |n, a, p| l.seal(n, a, p).unwrap())
            }),
            (AESX_AEAD_XAES_256_GCM, 24, 16, {
                let l = Xaes256Gcm::with_backend(&k32, b).unwrap();
                Box::new(move |n, a, p| l.seal(n, a, p).unwrap())
            }),
            (AESX_AEAD_CCM, 11, 10, {
                let l = Ccm::with_backend(&k32, 10, b).unwrap();
                Box::new(move |n, a, p| l.seal(n, a, p).unwrap())
            }),
        ];
        for (alg, nlen, tl, seal) in cases {
            let a = aead(alg, &k32, tl, id);
            // SAFETY: a live handle.
            unsafe {
                assert_eq!(aesx_aead_backend(a), id);
                assert_eq!(aesx_aead_tag_len(a), tl as c_int);
            }
            let (nonce, aad) = (data(nlen, 7), data(13, 9));
            for len in [0, 1, 15, 16, 17, 100, 4096, 5000] {
                let pt = data(len, 3);
                let want = seal(&nonce, &aad, &pt);
                let (mut ct, mut tag) = (vec![0u8; len], vec![0u8; tl]);
                let mut out = vec![0u8; len + tl + 5];
                let mut n = 0usize;
                // SAFETY: every pointer valid for its length.
                unsafe {
                    let (np, ap, al) = (nonce.as_ptr(), aad.as_ptr(), aad.len());
                    // The calls below differ only in their buffers.
                    let seal = |i: *const u8, o: *mut u8, t: *mut u8| {
                        aesx_aead_seal(a, np, nlen, ap, al, i, o, len, t, tl)
                    };
                    let open = |i: *const u8, o: *mut u8, t: *const u8| {
                        aesx_aead_open(a, np, nlen, ap, al, i, o, len, t, tl)
                    };
                    let seal_append = |i: *const u8, il, o: *mut u8, ol, n: &mut usize| {
                        aesx_aead_seal_append(a, np, nlen, ap, al, i, il, o, ol, n)
                    };
                    let open_append = |i: *const u8, il, o: *mut u8, ol, n: &mut usize| {
                        aesx_aead_open_append(a, np, nlen, ap, al, i, il, o, ol, n)
                    };
                    let rc = seal(pt.as_ptr(), ct.as_mut_ptr(), tag.as_mut_ptr());
                    assert_eq!(rc, AESX_OK);
                    assert_eq!([ct.clone(), tag.clone()].concat(), want);
                    // In place, detached.
                    let mut buf = pt.clone();
                    let p = buf.as_mut_ptr();
                    let rc = seal(p, p, tag.as_mut_ptr());
                    assert_eq!((rc, &buf[..]), (AESX_OK, &want[..len]));
                    let rc = open(p, p, tag.as_ptr());
                    assert_eq!((rc, &buf[..]), (AESX_OK, &pt[..]));
                    // Appended, out of place and in place.
                    let rc = seal_append(pt.as_ptr(), len, out.as_mut_ptr(), out.len(), &mut n);
                    assert_eq!((rc, &out[..n]), (AESX_OK, &want[..]));
                    let mut back = vec![0u8; len];
                    let rc = open_append(out.as_ptr(), n, back.as_mut_ptr(), len, &mut n);
                    assert_eq!((rc, n, &back[..]), (AESX_OK, len, &pt[..]));
                    let mut buf = [pt.clone(), vec![0; tl]].concat();
                    let p = buf.as_mut_ptr();
                    let rc = seal_append(p, len, p, len + tl, &mut n);
                    assert_eq!((rc, &buf[..]), (AESX_OK, &want[..]));
                    // A forged tag: AUTH_FAILED and nothing released.
                    buf[len] ^= 1;
                    let mut sink = vec![0xaa; len + 3];
                    let (bp, sl) = (buf.as_ptr(), sink.len());
                    let rc = open_append(bp, len + tl, sink.as_mut_ptr(), sl, &mut n);
                    assert_eq!(rc, AESX_ERR_AUTH_FAILED);
                    assert!(sink.iter().all(|&x| x == 0));
                    let rc = open_append(p, len + tl, p, len + tl, &mut n);
                    assert_eq!(rc, AESX_ERR_AUTH_FAILED);
                    assert!(buf.iter().all(|&x| x == 0));
                }
            }
            // SAFETY: the handle from aesx_aead_new, freed once.
            unsafe { aesx_aead_free(a) };
        }
    }
}

#[test]
fn aead_arguments_are_refused_before_writing() {
    let k = [5u8; 16];
    let mut a = null_mut();
    // SAFETY: valid pointers for their lengths throughout.
    unsafe {
        for (alg, tl, want) in [
            (0, 16, AESX_ERR_INVALID_ARGUMENT),
            (AESX_AEAD_GCM_SIV, 12, AESX_ERR_TAG_LENGTH),
            (AESX_AEAD_XAES_256_GCM, 16, AESX_ERR_KEY_LENGTH),
            (AESX_AEAD_CCM, 5, AESX_ERR_TAG_LENGTH),
            (AESX_AEAD_CCM, 18, AESX_ERR_TAG_LENGTH),
        ] {
            assert_eq!(aesx_aead_new(alg, k.as_ptr(), 16, tl, 0, &mut a), want);
            assert!(a.is_null());
        }
        assert_eq!(
            aesx_aead_new(AESX_AEAD_GCM_SIV, k.as_ptr(), 20, 16, 0, &mut a),
            AESX_ERR_KEY_LENGTH
        );
        let a = aead(AESX_AEAD_CCM, &k, 8, AESX_BACKEND_AUTO);
        let (pt, mut out, mut tag) = ([1u8; 40], [0xaau8; 40], [0xaau8; 16]);
        let seal = |nlen: usize, len: usize, tl: usize, out: &mut [u8], tag: &mut [u8]| {
            aesx_aead_seal(
                a,
                [0u8; 14].as_ptr(),
                nlen,
                null(),
                0,
                pt.as_ptr(),
                out.as_mut_ptr(),
                len,
                tag.as_mut_ptr(),
                tl,
            )
        };
        assert_eq!(seal(6, 40, 8, &mut out, &mut tag), AESX_ERR_IV_LENGTH);
        assert_eq!(seal(14, 40, 8, &mut out, &mut tag), AESX_ERR_IV_LENGTH);
        assert_eq!(seal(13, 40, 16, &mut out, &mut tag), AESX_ERR_TAG_LENGTH);
        assert!(out.iter().chain(&tag).all(|&x| x == 0xaa));
        assert_eq!(seal(13, 40, 8, &mut out, &mut tag), AESX_OK);
        let rc = aesx_aead_seal(
            a,
            [0u8; 13].as_ptr(),
            13,
            null(),
            0,
            pt.as_ptr(),
            out.as_mut_ptr().add(1),
            39,
            out.as_mut_ptr(),
            8,
        );
        assert_eq!(rc, AESX_ERR_OVERLAP);
        assert_eq!(aesx_aead_tag_len(null()), AESX_ERR_NULL_POINTER);
        aesx_aead_free(a);
        aesx_aead_free(null_mut());
    }
}

fn kek(key: &[u8], backend: c_int) -> *mut AesxKeywrap {
    let mut k = null_mut();
    // SAFETY: valid pointers for their lengths.
    let rc = unsafe { aesx_keywrap_new(key.as_ptr(), key.len(), backend, &mut k) };
    assert_eq!(rc, AESX_OK);
    k
}

#[test]
fn key_wrap_equals_the_library_and_releases_nothing() {
    for (b, id) in backends() {
        let key = data(24, 11);
        let lib = KeyWrap::with_backend(&key, b).unwrap();
        let k = kek(&key, id);
        // SAFETY: a live handle; every pointer valid for its length.
        unsafe {
            assert_eq!(aesx_keywrap_backend(k), id);
            for (variant, len) in [
                (AESX_KW, 16),
                (AESX_KW, 40),
                (AESX_KWP, 1),
                (AESX_KWP, 9),
                (AESX_KWP, 64),
            ] {
                let msg = data(len, 2);
                let want = if variant == AESX_KW {
                    lib.wrap(&msg)
                } else {
                    lib.wrap_pad(&msg)
                }
                .unwrap();
                let mut out = vec![0u8; want.len() + 8];
                let mut n = 0;
                // Out of place, from `i` into all of `o`.
                let wrap_to = |i: &[u8], o: &mut [u8], n: &mut usize| {
                    aesx_key_wrap(k, variant, i.as_ptr(), i.len(), o.as_mut_ptr(), o.len(), n)
                };
                let unwrap_to = |i: &[u8], o: &mut [u8], n: &mut usize| {
                    aesx_key_unwrap(k, variant, i.as_ptr(), i.len(), o.as_mut_ptr(), o.len(), n)
                };
                let rc = wrap_to(&msg, &mut out, &mut n);
                assert_eq!((rc, &out[..n]), (AESX_OK, &want[..]));
                // In place: the buffer holds the key and room for the result.
                let mut buf = [msg.clone(), vec![0; want.len() - len]].concat();
                let p = buf.as_mut_ptr();
                let rc = aesx_key_wrap(k, variant, p, len, p, buf.len(), &mut n);
                assert_eq!((rc, &buf[..]), (AESX_OK, &want[..]));
                let rc = aesx_key_unwrap(k, variant, p, n, p, n, &mut n);
                assert_eq!((rc, &buf[..n]), (AESX_OK, &msg[..]));
                let mut back = vec![0u8; want.len()];
                let rc = unwrap_to(&want, &mut back, &mut n);
                assert_eq!((rc, &back[..n]), (AESX_OK, &msg[..]));
                let mut bad = want.clone();
                bad[3] ^= 0x40;
                back.fill(0xaa);
                let rc = unwrap_to(&bad, &mut back, &mut n);
                assert_eq!(rc, AESX_ERR_AUTH_FAILED);
                assert!(back.iter().all(|&x| x == 0));
                let rc = wrap_to(&msg, &mut out[..want.len() - 1], &mut n);
                assert_eq!(rc, AESX_ERR_OUTPUT_TOO_SMALL);
            }
            let mut out = [0u8; 64];
            let x = [0u8; 20];
            let wrap = |v: c_int, len: usize, out: &mut [u8]| {
                aesx_key_wrap(k, v, x.as_ptr(), len, out.as_mut_ptr(), 64, null_mut())
            };
            assert_eq!(wrap(AESX_KW, 8, &mut out), AESX_ERR_WRAP_LENGTH);
            assert_eq!(wrap(AESX_KW, 20, &mut out), AESX_ERR_WRAP_LENGTH);
            assert_eq!(wrap(AESX_KWP, 0, &mut out), AESX_ERR_WRAP_LENGTH);
            assert_eq!(wrap(3, 16, &mut out), AESX_ERR_INVALID_ARGUMENT);
            assert!(out.iter().all(|&x| x == 0));
            let rc = aesx_key_unwrap(k, AESX_KW, x.as_ptr(), 16, out.as_mut_ptr(), 64, null_mut());
            assert_eq!(rc, AESX_ERR_WRAP_LENGTH);
            aesx_keywrap_free(k);
        }
    }
}

#[test]
fn cmac_one_shot_and_streaming_equal_the_library() {
    for (b, id) in backends() {
        let key = data(32, 21);
        let lib = Cmac::with_backend(&key, b).unwrap();
        let mut k = null_mut();
        // SAFETY: valid pointers for their lengths; live handles throughout.
        unsafe {
            assert_eq!(aesx_cmac_key_new(key.as_ptr(), 32, id, &mut k), AESX_OK);
            assert_eq!(aesx_cmac_key_backend(k), id);
            let mut ctx = null_mut();
            assert_eq!(aesx_cmac_ctx_new(k, &mut ctx), AESX_OK);
            // The context holds its own reference to the key.
            aesx_cmac_key_free(k);
            for len in [0, 1, 15, 16, 17, 32, 33, 1000] {
                let msg = data(len, 4);
                let want = lib.mac(&msg);
                let (mut one, mut tag) = ([0u8; 16], [0u8; 16]);
                let mut k2 = null_mut();
                assert_eq!(aesx_cmac_key_new(key.as_ptr(), 32, id, &mut k2), AESX_OK);
                assert_eq!(aesx_cmac(k2, msg.as_ptr(), len, one.as_mut_ptr()), AESX_OK);
                assert_eq!(one, want);
                assert_eq!(
                    aesx_cmac_verify(k2, msg.as_ptr(), len, want.as_ptr(), 8),
                    AESX_OK
                );
                let mut bad = want;
                bad[15] ^= 1;
                assert_eq!(
                    aesx_cmac_verify(k2, msg.as_ptr(), len, bad.as_ptr(), 16),
                    AESX_ERR_AUTH_FAILED
                );
                assert_eq!(
                    aesx_cmac_verify(k2, msg.as_ptr(), len, bad.as_ptr(), 17),
                    AESX_ERR_TAG_LENGTH
                );
                aesx_cmac_key_free(k2);
                // In uneven pieces; a copy forks the message.
                let (a, rest) = msg.split_at(len / 3);
                assert_eq!(aesx_cmac_update(ctx, a.as_ptr(), a.len()), AESX_OK);
                let mut fork = null_mut();
                assert_eq!(aesx_cmac_ctx_copy(ctx, &mut fork), AESX_OK);
                assert_eq!(aesx_cmac_update(ctx, rest.as_ptr(), rest.len()), AESX_OK);
                assert_eq!(aesx_cmac_final(ctx, tag.as_mut_ptr()), AESX_OK);
                assert_eq!(tag, want);
                // final started the context over.
                assert_eq!(aesx_cmac_update(ctx, msg.as_ptr(), len), AESX_OK);
                assert_eq!(aesx_cmac_final_verify(ctx, want.as_ptr(), 16), AESX_OK);
                assert_eq!(
                    aesx_cmac_final_verify(ctx, want.as_ptr(), 16),
                    if len == 0 {
                        AESX_OK
                    } else {
                        AESX_ERR_AUTH_FAILED
                    }
                );
                assert_eq!(aesx_cmac_update(fork, b"x".as_ptr(), 1), AESX_OK);
                assert_eq!(aesx_cmac_final(fork, tag.as_mut_ptr()), AESX_OK);
                assert_eq!(tag, lib.mac(&[a, b"x"].concat()));
                aesx_cmac_ctx_free(fork);
            }
            assert_eq!(aesx_cmac_final(ctx, null_mut()), AESX_ERR_NULL_POINTER);
            assert_eq!(
                aesx_cmac_update(null_mut(), null(), 0),
                AESX_ERR_NULL_POINTER
            );
            aesx_cmac_ctx_free(ctx);
            aesx_cmac_ctx_free(null_mut());
        }
    }
}
