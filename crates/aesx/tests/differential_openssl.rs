//! Random differential test against OpenSSL (the `openssl` crate, vendored):
//! ECB and CBC (no padding and PKCS#7) and CTR, all key sizes, lengths from
//! 0 to 4096 bytes clustered around block boundaries, in place and out of
//! place, on unaligned buffers and in random pieces, on every available
//! backend, in both directions.

mod common;

use aesx::{Backend, Cbc, Ctr, Ecb, Padding};
use common::ossl::{crypt as ossl, Mode as M};
use common::random_bytes;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

/// Every length up to 64, then block multiples and their neighbours up to
/// 4096.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=64).collect();
    for m in [
        5, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256,
    ] {
        v.extend([16 * m - 1, 16 * m, 16 * m + 1]);
    }
    v.retain(|&n| n <= 4096);
    v.sort_unstable();
    v.dedup();
    v
}

/// A copy of `data` at a random misalignment inside a larger buffer;
/// returns the buffer and the offset.
fn unaligned(rng: &mut StdRng, data: &[u8]) -> (Vec<u8>, usize) {
    let off = rng.gen_range(1..16);
    let mut buf = vec![0u8; data.len() + off];
    buf[off..].copy_from_slice(data);
    (buf, off)
}

/// Splits `len` whole blocks (or bytes, for CTR) into random pieces.
fn random_cuts(rng: &mut StdRng, len: usize, unit: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut at = 0;
    while at < len {
        let step = unit * rng.gen_range(1..=4usize.max(len / unit / 3 + 1));
        at = (at + step).min(len);
        cuts.push(at);
    }
    cuts
}

fn check_ecb(rng: &mut StdRng, b: Backend, key: &[u8], pt: &[u8], what: &str) {
    let ecb = Ecb::with_backend(key, b).unwrap();
    for pad in [false, true] {
        if !pad && !pt.len().is_multiple_of(16) {
            assert!(ecb.encrypt_vec(pt, Padding::None).is_err(), "{what}");
            continue;
        }
        let padding = if pad { Padding::Pkcs7 } else { Padding::None };
        let want = ossl(M::Ecb, true, key, &[], pad, pt);
        // Out of place, both buffers misaligned.
        let (src, so) = unaligned(rng, pt);
        let mut dst = vec![0u8; want.len() + 3];
        let n = ecb.encrypt(&src[so..], &mut dst[3..], padding).unwrap();
        assert_eq!(&dst[3..3 + n], &want[..], "{what} pad {pad}: encrypt");
        if !pad {
            let (mut buf, bo) = unaligned(rng, pt);
            ecb.encrypt_in_place(&mut buf[bo..]).unwrap();
            assert_eq!(&buf[bo..], &want[..], "{what}: encrypt in place");
        }
        // Decrypt in place (no padding) or out of place (padding).
        let (mut buf, bo) = unaligned(rng, &want);
        if pad {
            let mut out = vec![0u8; want.len() + 1];
            let n = ecb.decrypt(&buf[bo..], &mut out[1..], padding).unwrap();
            assert_eq!(&out[1..1 + n], pt, "{what}: decrypt padded");
        } else {
            ecb.decrypt_in_place(&mut buf[bo..]).unwrap();
            assert_eq!(&buf[bo..], pt, "{what}: decrypt in place");
        }
        assert_eq!(ossl(M::Ecb, false, key, &[], pad, &want), pt);
    }
}

fn check_cbc(rng: &mut StdRng, b: Backend, key: &[u8], iv: &[u8; 16], pt: &[u8], what: &str) {
    let cbc = Cbc::with_backend(key, b).unwrap();
    for pad in [false, true] {
        if !pad && !pt.len().is_multiple_of(16) {
            assert!(cbc.encrypt_vec(iv, pt, Padding::None).is_err(), "{what}");
            assert!(cbc.decrypt_vec(iv, pt, Padding::None).is_err(), "{what}");
            continue;
        }
        let padding = if pad { Padding::Pkcs7 } else { Padding::None };
        let want = ossl(M::Cbc, true, key, iv, pad, pt);
        let (src, so) = unaligned(rng, pt);
        let mut dst = vec![0u8; want.len() + 5];
        let n = cbc.encrypt(iv, &src[so..], &mut dst[5..], padding).unwrap();
        assert_eq!(&dst[5..5 + n], &want[..], "{what} pad {pad}: encrypt");
        let got = cbc.decrypt_vec(iv, &want, padding).unwrap();
        assert_eq!(got, pt, "{what} pad {pad}: decrypt");
        if !pad {
            // Chained, in place, in random whole-block pieces.
            let (mut buf, bo) = unaligned(rng, pt);
            let mut chain = *iv;
            let cuts = random_cuts(rng, pt.len(), 16);
            for w in cuts.windows(2) {
                cbc.encrypt_chained(&mut chain, &mut buf[bo + w[0]..bo + w[1]])
                    .unwrap();
            }
            assert_eq!(&buf[bo..], &want[..], "{what}: chained encrypt");
            let mut chain = *iv;
            let mut out = vec![0u8; pt.len()];
            for w in cuts.windows(2) {
                cbc.decrypt_chained_to(&mut chain, &want[w[0]..w[1]], &mut out[w[0]..w[1]])
                    .unwrap();
            }
            assert_eq!(out, pt, "{what}: chained decrypt");
        }
        assert_eq!(ossl(M::Cbc, false, key, iv, pad, &want), pt);
    }
}

fn check_ctr(rng: &mut StdRng, b: Backend, key: &[u8], iv: &[u8; 16], pt: &[u8], what: &str) {
    let want = ossl(M::Ctr, true, key, iv, false, pt);
    // One call, out of place, misaligned.
    let (src, so) = unaligned(rng, pt);
    let mut dst = vec![0u8; pt.len() + 7];
    Ctr::with_backend(key, iv, b)
        .unwrap()
        .apply_keystream_to(&src[so..], &mut dst[7..])
        .unwrap();
    assert_eq!(&dst[7..], &want[..], "{what}: one call");
    // In place, in random byte pieces.
    let mut ctr = Ctr::with_backend(key, iv, b).unwrap();
    let (mut buf, bo) = unaligned(rng, &want);
    for w in random_cuts(rng, pt.len(), 1).windows(2) {
        ctr.apply_keystream(&mut buf[bo + w[0]..bo + w[1]]);
    }
    assert_eq!(&buf[bo..], pt, "{what}: pieces");
}

#[test]
fn differential_against_openssl() {
    let mut rng = StdRng::seed_from_u64(0x0ae5_2026);
    let lens = lengths();
    for b in common::backends() {
        for key_len in [16, 24, 32] {
            for (i, &len) in lens.iter().enumerate() {
                let key = random_bytes(&mut rng, key_len);
                let mut iv = [0u8; 16];
                rng.fill_bytes(&mut iv);
                // Every fourth case starts the counter just below 2^128 so
                // that CTR wraps within the message (OpenSSL increments the
                // whole 16-byte block, as aesx does).
                if i % 4 == 0 {
                    let below = rng.gen_range(0..=(len as u128 / 16).max(1));
                    iv = (u128::MAX - below).to_be_bytes();
                }
                let pt = random_bytes(&mut rng, len);
                let what = format!("{b} key {} len {len}", key_len * 8);
                check_ecb(&mut rng, b, &key, &pt, &format!("ECB {what}"));
                check_cbc(&mut rng, b, &key, &iv, &pt, &format!("CBC {what}"));
                check_ctr(&mut rng, b, &key, &iv, &pt, &format!("CTR {what}"));
            }
        }
    }
}

#[test]
fn lengths_cover_the_boundaries() {
    let l = lengths();
    for n in [0, 1, 15, 16, 17, 4095, 4096] {
        assert!(l.contains(&n));
    }
    assert_eq!(*l.last().unwrap(), 4096);
}
