//! CFB128, CFB8 and OFB through the ABI against the library's streaming
//! types, on every backend: in place and out of place, lengths around the
//! block size, a stream continued through the `iv` array, and the
//! argument errors.

use core::ffi::c_int;
use core::ptr::{null, null_mut};

use aesx::{Backend, Cfb, Cfb8, Ofb};

use crate::*;

type Call = unsafe extern "C" fn(*const AesxKey, *mut u8, *const u8, *mut u8, usize) -> c_int;

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(29).wrapping_add(seed))
        .collect()
}

/// The library's answer for call `i` of the five.
fn library(i: usize, key: &[u8], iv: &[u8], b: Backend, src: &[u8]) -> Vec<u8> {
    match i {
        0 => Cfb::with_backend(key, iv, b).unwrap().encrypt_vec(src),
        1 => Cfb::with_backend(key, iv, b).unwrap().decrypt_vec(src),
        2 => Cfb8::with_backend(key, iv, b).unwrap().encrypt_vec(src),
        3 => Cfb8::with_backend(key, iv, b).unwrap().decrypt_vec(src),
        _ => Ofb::with_backend(key, iv, b)
            .unwrap()
            .apply_keystream_vec(src),
    }
}

const CALLS: [Call; 5] = [
    aesx_cfb_encrypt,
    aesx_cfb_decrypt,
    aesx_cfb8_encrypt,
    aesx_cfb8_decrypt,
    aesx_ofb_xor,
];

#[test]
fn feedback_calls_equal_the_library() {
    for b in Backend::available().iter() {
        let id = keys::id_of(b);
        for klen in [16, 24, 32] {
            let kb = data(klen, 3);
            let mut k = null_mut();
            // SAFETY: valid pointers for their lengths.
            let rc = unsafe { aesx_key_new(kb.as_ptr(), klen, id, &mut k) };
            assert_eq!(rc, AESX_OK);
            for (i, call) in CALLS.iter().enumerate() {
                for n in [0, 1, 15, 16, 17, 31, 32, 33, 100, 1024, 1025, 4096] {
                    let src = data(n, 11);
                    let iv0 = data(16, 5);
                    let want = library(i, &kb, &iv0, b, &src);
                    // Out of place.
                    let mut iv = iv0.clone();
                    let mut out = vec![0u8; n];
                    // SAFETY: valid buffers of their lengths.
                    let rc = unsafe { call(k, iv.as_mut_ptr(), src.as_ptr(), out.as_mut_ptr(), n) };
                    assert_eq!(rc, AESX_OK);
                    assert_eq!(out, want, "{b:?} call {i} len {n}");
                    // In place.
                    let mut iv = iv0.clone();
                    let mut buf = src.clone();
                    let p = buf.as_mut_ptr();
                    // SAFETY: in == out, valid for n bytes.
                    let rc = unsafe { call(k, iv.as_mut_ptr(), p, p, n) };
                    assert_eq!(rc, AESX_OK);
                    assert_eq!(buf, want, "{b:?} call {i} len {n} in place");
                    // Continued: the first 32 bytes, then the rest with the
                    // IV the first call left.
                    if n >= 32 {
                        let mut iv = iv0.clone();
                        let mut out = vec![0u8; n];
                        // SAFETY: valid buffers of their lengths.
                        unsafe {
                            assert_eq!(
                                call(k, iv.as_mut_ptr(), src.as_ptr(), out.as_mut_ptr(), 32),
                                AESX_OK
                            );
                            let rest = out[32..].as_mut_ptr();
                            assert_eq!(
                                call(k, iv.as_mut_ptr(), src[32..].as_ptr(), rest, n - 32),
                                AESX_OK
                            );
                        }
                        assert_eq!(out, want, "{b:?} call {i} len {n} continued");
                    }
                }
            }
            // SAFETY: a live handle, freed once.
            unsafe { aesx_key_free(k) };
        }
    }
}

#[test]
fn feedback_argument_errors() {
    let kb = [1u8; 16];
    let mut k = null_mut();
    // SAFETY: valid pointers for their lengths.
    let rc = unsafe { aesx_key_new(kb.as_ptr(), 16, 0, &mut k) };
    assert_eq!(rc, AESX_OK);
    let mut buf = [0u8; 48];
    let mut iv = [0u8; 16];
    for call in CALLS {
        // SAFETY: each call gets NULLs or valid buffers; the checks come
        // before any access.
        unsafe {
            assert_eq!(
                call(null(), iv.as_mut_ptr(), buf.as_ptr(), buf.as_mut_ptr(), 16),
                AESX_ERR_NULL_POINTER
            );
            assert_eq!(
                call(k, null_mut(), buf.as_ptr(), buf.as_mut_ptr(), 16),
                AESX_ERR_NULL_POINTER
            );
            assert_eq!(
                call(k, iv.as_mut_ptr(), null(), buf.as_mut_ptr(), 16),
                AESX_ERR_NULL_POINTER
            );
            // Partial overlap of input and output.
            let p = buf.as_mut_ptr();
            assert_eq!(call(k, iv.as_mut_ptr(), p, p.add(1), 16), AESX_ERR_OVERLAP);
            // The output over the IV.
            let ivp = buf.as_mut_ptr().add(32);
            assert_eq!(
                call(k, ivp, buf.as_ptr(), buf.as_mut_ptr().add(24), 16),
                AESX_ERR_OVERLAP
            );
            // Empty data is fine.
            assert_eq!(call(k, iv.as_mut_ptr(), null(), null_mut(), 0), AESX_OK);
        }
    }
    // SAFETY: a live handle, freed once.
    unsafe { aesx_key_free(k) };
}
