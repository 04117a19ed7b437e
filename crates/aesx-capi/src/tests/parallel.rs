//! The `_threads` calls against the one-thread calls, on every backend,
//! at lengths that split (the library's own tests cover every split).

use core::ffi::c_int;
use core::ptr::null_mut;

use aesx::Backend;

use crate::*;

fn backends() -> Vec<c_int> {
    Backend::available().iter().map(keys::id_of).collect()
}

/// Deterministic bytes (xorshift64).
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s as u8
        })
        .collect()
}

#[test]
fn the_constants_are_the_librarys() {
    assert_eq!(AESX_MIN_SEGMENT, aesx::parallel::MIN_SEGMENT);
    assert_eq!(AESX_MAX_THREADS as usize, aesx::parallel::MAX_THREADS);
}

#[test]
fn gcm_ctr_and_xts_threads_give_the_one_thread_bytes() {
    // Two and a half segments plus a partial block: splits on 2 threads.
    let len = 2 * AESX_MIN_SEGMENT + AESX_MIN_SEGMENT / 2 + 7;
    let msg = bytes(len, 1);
    let (iv, aad) = (bytes(16, 2), bytes(21, 3));
    for b in backends() {
        let mut k = null_mut();
        let mut x = null_mut();
        let kb = bytes(32, 4);
        let xb = bytes(64, 5);
        // SAFETY: every pointer is valid for the length passed with it; the
        // in-place calls pass one buffer as both sides, as the ABI allows.
        unsafe {
            assert_eq!(aesx_key_new(kb.as_ptr(), 32, b, &mut k), AESX_OK);
            assert_eq!(aesx_xts_key_new(xb.as_ptr(), 64, b, &mut x), AESX_OK);
            let (mut want, mut tag1) = (vec![0u8; len], [0u8; 16]);
            let rc = aesx_gcm_seal(
                k,
                iv.as_ptr(),
                12,
                aad.as_ptr(),
                aad.len(),
                msg.as_ptr(),
                want.as_mut_ptr(),
                len,
                tag1.as_mut_ptr(),
                16,
            );
            assert_eq!(rc, AESX_OK);
            for t in [0u32, 1, 2, 3] {
                let (mut got, mut tag) = (msg.clone(), [0u8; 16]);
                let rc = aesx_gcm_seal_threads(
                    k,
                    iv.as_ptr(),
                    12,
                    aad.as_ptr(),
                    aad.len(),
                    got.as_ptr(),
                    got.as_mut_ptr(),
                    len,
                    tag.as_mut_ptr(),
                    16,
                    t,
                );
                assert_eq!(
                    (rc, got == want, tag),
                    (AESX_OK, true, tag1),
                    "backend {b} threads {t}"
                );
                let mut pt = vec![0u8; len];
                let rc = aesx_gcm_open_threads(
                    k,
                    iv.as_ptr(),
                    12,
                    aad.as_ptr(),
                    aad.len(),
                    want.as_ptr(),
                    pt.as_mut_ptr(),
                    len,
                    tag.as_ptr(),
                    16,
                    t,
                );
                assert_eq!((rc, pt == msg), (AESX_OK, true), "backend {b} threads {t}");
                // A changed tag: refused, and nothing released.
                tag[3] ^= 1;
                let rc = aesx_gcm_open_threads(
                    k,
                    iv.as_ptr(),
                    12,
                    aad.as_ptr(),
                    aad.len(),
                    want.as_ptr(),
                    pt.as_mut_ptr(),
                    len,
                    tag.as_ptr(),
                    16,
                    t,
                );
                assert_eq!(rc, AESX_ERR_AUTH_FAILED);
                assert!(pt.iter().all(|&v| v == 0), "backend {b} threads {t}");
            }

            let mut ctr1 = vec![0u8; len];
            let rc = aesx_ctr_xor(k, iv.as_ptr(), 5, msg.as_ptr(), ctr1.as_mut_ptr(), len);
            assert_eq!(rc, AESX_OK);
            let mut ctr2 = msg.clone();
            let rc =
                aesx_ctr_xor_threads(k, iv.as_ptr(), 5, ctr2.as_ptr(), ctr2.as_mut_ptr(), len, 3);
            assert_eq!((rc, ctr2 == ctr1), (AESX_OK, true), "backend {b}");

            let whole = len - len % 512;
            let mut xts1 = vec![0u8; whole];
            let rc = aesx_xts_encrypt_sectors(x, 512, 77, msg.as_ptr(), xts1.as_mut_ptr(), whole);
            assert_eq!(rc, AESX_OK);
            let mut xts2 = vec![0u8; whole];
            let rc = aesx_xts_encrypt_sectors_threads(
                x,
                512,
                77,
                msg.as_ptr(),
                xts2.as_mut_ptr(),
                whole,
                2,
            );
            assert_eq!((rc, xts2 == xts1), (AESX_OK, true), "backend {b}");
            let rc = aesx_xts_decrypt_sectors_threads(
                x,
                512,
                77,
                xts2.as_ptr(),
                xts2.as_mut_ptr(),
                whole,
                4,
            );
            assert_eq!(
                (rc, xts2[..] == msg[..whole]),
                (AESX_OK, true),
                "backend {b}"
            );
            let rc = aesx_xts_encrypt_sectors_threads(
                x,
                500,
                77,
                msg.as_ptr(),
                xts2.as_mut_ptr(),
                1000,
                2,
            );
            assert_eq!(rc, AESX_ERR_SECTOR_SIZE);
            aesx_key_free(k);
            aesx_xts_key_free(x);
        }
    }
}
