//! AES-GCM-SIV (RFC 8452): Wycheproof (its "RFC 8452" entries are the
//! Appendix C vectors, counter-wrap cases included) on every available
//! backend; random differential tests against OpenSSL's AES-GCM-SIV (lengths
//! 0..=300 and around kernel batch sizes, in place and out of place,
//! unaligned); forgeries rejected with zeroed output; opening under every
//! core schedule; API errors.

mod common;
mod wycheproof;

use aesx::{Error, GcmSiv, Schedule};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;
use rand::{Rng, RngCore, SeedableRng};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn wycheproof_aes_gcm_siv() {
    let checked = wycheproof::check("aes_gcm_siv_test.json", &common::backends(), |b, c| {
        let id = c.id();
        let valid = !c.invalid();
        let (key, iv, aad, msg, ct, tag) = c.aead();
        let siv = GcmSiv::with_backend(&key, b).unwrap();
        assert_eq!(siv.backend(), b);
        if valid {
            let sealed = siv.seal(&iv, &aad, &msg).unwrap();
            assert_eq!(&sealed[..msg.len()], &ct[..], "{b} tc {id}");
            assert_eq!(&sealed[msg.len()..], &tag[..], "{b} tc {id}");
            let mut buf = msg.clone();
            let t2 = siv.seal_in_place_detached(&iv, &aad, &mut buf).unwrap();
            assert_eq!((buf, t2.as_bytes()), (ct.clone(), &tag[..]), "{b} tc {id}");
        }
        let mut buf = ct.clone();
        let r = siv.open_in_place_detached(&iv, &aad, &mut buf, &tag);
        let mut joined = ct.clone();
        joined.extend_from_slice(&tag);
        let r2 = siv.open(&iv, &aad, &joined);
        if valid {
            r.unwrap();
            assert_eq!(buf, msg, "{b} tc {id}");
            assert_eq!(r2.unwrap(), msg, "{b} tc {id}");
        } else {
            assert_eq!(r, Err(Error::AuthenticationFailed), "{b} tc {id}");
            assert_eq!(r2, Err(Error::AuthenticationFailed), "{b} tc {id}");
            assert!(buf.iter().all(|&x| x == 0), "{b} tc {id}: output kept");
        }
        true
    });
    assert!(checked >= 202, "only {checked} cases");
}

/// RFC 8452 Appendix C.1, one vector with a partial block and AAD, checked
/// on its own so a failure names the construction, not a file.
#[test]
fn rfc8452_c1_with_aad() {
    let key = h("01000000000000000000000000000000");
    let nonce = h("030000000000000000000000");
    let aad = h("01");
    let pt = h("0200000000000000");
    let want = h("1e6daba35669f4273b0a1a2560969cdf790d99759abd1508");
    for b in common::backends() {
        let siv = GcmSiv::with_backend(&key, b).unwrap();
        assert_eq!(siv.seal(&nonce, &aad, &pt).unwrap(), want, "{b}");
    }
}

fn ossl(key_len: usize) -> openssl::cipher::Cipher {
    let name = if key_len == 16 {
        "AES-128-GCM-SIV"
    } else {
        "AES-256-GCM-SIV"
    };
    Cipher::fetch(None, name, None).unwrap()
}

fn ossl_seal(c: &CipherRef, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    let mut ctx = CipherCtx::new().unwrap();
    ctx.encrypt_init(Some(c), Some(key), Some(nonce)).unwrap();
    ctx.cipher_update(aad, None).unwrap();
    let mut out = vec![0u8; pt.len() + 16];
    let n = ctx.cipher_update(pt, Some(&mut out)).unwrap();
    let m = ctx.cipher_final(&mut out[n..]).unwrap();
    assert_eq!(n + m, pt.len());
    ctx.tag(&mut out[pt.len()..]).unwrap();
    out
}

/// Lengths 0..=300, then around 64-block and larger kernel batches.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    for base in [512, 1024, 2048, 4096, 8192, 16384] {
        v.extend(base - 17..=base + 17);
    }
    v.push(100_000);
    v
}

#[test]
fn random_differential_vs_openssl() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5117_8452);
    for b in common::backends() {
        for (i, len) in lengths().into_iter().enumerate() {
            let key_len = if i % 2 == 0 { 16 } else { 32 };
            let mut key = vec![0u8; key_len];
            rng.fill_bytes(&mut key);
            let mut nonce = [0u8; 12];
            rng.fill_bytes(&mut nonce);
            let aad_len = match i % 4 {
                0 => 0,
                1 => rng.gen_range(0..40),
                _ => rng.gen_range(0..300),
            };
            let mut aad = vec![0u8; aad_len];
            rng.fill_bytes(&mut aad);
            // An odd offset makes both buffers unaligned.
            let off = rng.gen_range(0..16);
            let mut pt_store = vec![0u8; len + off];
            rng.fill_bytes(&mut pt_store);
            let pt = &pt_store[off..];
            let want = ossl_seal(&ossl(key_len), &key, &nonce, &aad, pt);
            let siv = GcmSiv::with_backend(&key, b).unwrap();
            assert_eq!(
                siv.seal(&nonce, &aad, pt).unwrap(),
                want,
                "{b} len {len} aad {aad_len}"
            );
            let mut store = vec![0u8; len + off + 1];
            let buf = &mut store[off + 1..];
            buf.copy_from_slice(pt);
            let tag = siv.seal_in_place_detached(&nonce, &aad, buf).unwrap();
            assert_eq!(&buf[..], &want[..len], "{b} len {len} in place");
            assert_eq!(tag.as_bytes(), &want[len..]);
            siv.open_in_place_detached(&nonce, &aad, buf, &want[len..])
                .unwrap();
            assert_eq!(&buf[..], pt, "{b} len {len}");
            assert_eq!(siv.open(&nonce, &aad, &want).unwrap(), pt);
            // Out of place, both ways, into the (unaligned) buffer.
            let tag = siv.seal_to_detached(&nonce, &aad, pt, buf).unwrap();
            assert_eq!((&buf[..], tag.as_bytes()), (&want[..len], &want[len..]));
            let mut back = vec![0u8; len];
            siv.open_to_detached(&nonce, &aad, buf, tag.as_bytes(), &mut back)
                .unwrap();
            assert_eq!(&back[..], pt, "{b} len {len} out of place");
            // One flipped bit anywhere (ciphertext, tag or AAD) is refused
            // and releases nothing.
            let mut bad = want.clone();
            let bit = rng.gen_range(0..bad.len() * 8);
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(
                siv.open(&nonce, &aad, &bad),
                Err(Error::AuthenticationFailed)
            );
            let (bct, btag) = bad.split_at_mut(len);
            let mut out = vec![0x77u8; len];
            let r = siv.open_to_detached(&nonce, &aad, bct, btag, &mut out);
            assert_eq!(r, Err(Error::AuthenticationFailed));
            assert!(out.iter().all(|&x| x == 0));
            let r = siv.open_in_place_detached(&nonce, &aad, bct, btag);
            assert_eq!(r, Err(Error::AuthenticationFailed));
            assert!(bct.iter().all(|&x| x == 0));
            if !aad.is_empty() {
                aad[0] ^= 0x80;
                assert_eq!(
                    siv.open(&nonce, &aad, &want),
                    Err(Error::AuthenticationFailed)
                );
            }
        }
    }
}

/// Opening under every core schedule (forced: CPUID picks one per machine)
/// on every backend, against OpenSSL's sealing: the long open multiplies
/// the plaintext by Karatsuba under `zen` and `generic` (xmm and ymm) and
/// schoolbook under `intel`, so one machine checks both. Lengths around
/// the open loop's groups (8 registers: 128 bytes on xmm, 256 on ymm, 512
/// on zmm) and past several of them, both key sizes, with and without AAD.
#[test]
fn open_under_every_schedule() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5117_5c4e);
    let lens = [
        127usize, 128, 129, 255, 256, 257, 383, 511, 512, 513, 1023, 1024, 1025, 1500, 4113, 16384,
        20000,
    ];
    for schedule in Schedule::ALL {
        Schedule::force(Some(schedule));
        for b in common::backends() {
            for key_len in [16usize, 32] {
                for len in lens {
                    let mut key = vec![0u8; key_len];
                    rng.fill_bytes(&mut key);
                    let mut nonce = [0u8; 12];
                    rng.fill_bytes(&mut nonce);
                    let mut aad = vec![0u8; rng.gen_range(0..100)];
                    rng.fill_bytes(&mut aad);
                    let mut pt = vec![0u8; len];
                    rng.fill_bytes(&mut pt);
                    let sealed = ossl_seal(&ossl(key_len), &key, &nonce, &aad, &pt);
                    let siv = GcmSiv::with_backend(&key, b).unwrap();
                    let what = format!("{schedule} {b} key {key_len} len {len}");
                    assert_eq!(siv.open(&nonce, &aad, &sealed).unwrap(), pt, "{what}");
                    let mut bad = sealed.clone();
                    bad[rng.gen_range(0..len)] ^= 1;
                    assert_eq!(
                        siv.open(&nonce, &aad, &bad),
                        Err(Error::AuthenticationFailed),
                        "{what} forged"
                    );
                }
            }
        }
    }
    Schedule::force(None);
}

/// All backends give the same bytes as the soft one (long messages too).
#[test]
fn backends_agree() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut data = vec![0u8; 70_000];
    rng.fill_bytes(&mut data);
    for key_len in [16, 32] {
        let key = &data[..key_len];
        let soft = GcmSiv::with_backend(key, aesx::Backend::Soft).unwrap();
        for len in [
            0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4097, 70_000,
        ] {
            let want = soft.seal(&data[..12], &data[..33], &data[..len]).unwrap();
            for b in common::backends() {
                let siv = GcmSiv::with_backend(key, b).unwrap();
                assert_eq!(
                    siv.seal(&data[..12], &data[..33], &data[..len]).unwrap(),
                    want,
                    "{b} {len}"
                );
            }
        }
    }
}

#[test]
fn api_errors() {
    let siv = GcmSiv::with_backend(&[1u8; 32], common::backend()).unwrap();
    common::aead_checks::assert_length_errors!(
        GcmSiv,
        keys: [0, 15, 23, 33],
        siv,
        nonce: 12,
        bad: [0, 8, 11, 13, 16, 24]
    );
    let nonce = [0u8; 12];
    for t in [0, 12, 15, 17] {
        assert_eq!(
            siv.open_in_place_detached(&nonce, b"", &mut [0u8; 3], &vec![0u8; t]),
            Err(Error::InvalidTagLength { len: t })
        );
    }
    for short in 0..16 {
        assert_eq!(
            siv.open(&nonce, b"", &vec![0u8; short]),
            Err(Error::AuthenticationFailed)
        );
    }
    // Out of place: the tag length is checked before the buffer lengths.
    assert_eq!(
        siv.open_to_detached(&nonce, b"", &[0u8; 3], &[0u8; 15], &mut [0u8; 4]),
        Err(Error::InvalidTagLength { len: 15 })
    );
    assert_eq!(
        siv.open_to_detached(&nonce, b"", &[0u8; 3], &[0u8; 16], &mut [0u8; 4]),
        Err(Error::LengthMismatch {
            input: 3,
            output: 4
        })
    );
    assert_eq!(
        siv.seal_to_detached(&nonce, b"", &[0u8; 3], &mut [0u8; 4]),
        Err(Error::LengthMismatch {
            input: 3,
            output: 4
        })
    );
    assert_eq!(GcmSiv::TAG_LEN, 16);
    assert_eq!(GcmSiv::NONCE_LEN, 12);
    assert_eq!(GcmSiv::MAX_LEN, 1 << 36);
    let dbg = format!("{siv:?}");
    assert!(dbg.contains("GcmSiv") && !dbg.contains("01, 01"));
}

/// A repeated nonce leaks only equality: equal inputs give equal outputs,
/// and any difference changes the whole ciphertext (the tag is the IV).
#[test]
fn nonce_reuse_is_deterministic_and_diffuse() {
    let siv = GcmSiv::with_backend(&[9u8; 16], common::backend()).unwrap();
    let n = [3u8; 12];
    let a = siv.seal(&n, b"", &[0u8; 64]).unwrap();
    assert_eq!(a, siv.seal(&n, b"", &[0u8; 64]).unwrap());
    let mut p = [0u8; 64];
    p[63] = 1;
    let b = siv.seal(&n, b"", &p).unwrap();
    assert!(a[..16].iter().zip(&b[..16]).any(|(x, y)| x != y));
}

/// The `aead` 0.6 types against RustCrypto's `aes-gcm-siv` (the types they
/// replace): `Aead`, in place, out of place through `InOutBuf`, forgery.
#[test]
fn rustcrypto_traits_match_aes_gcm_siv() {
    use aesx::aead::{Aead, KeyInit};
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    for len in [0usize, 1, 16, 17, 64, 255, 1000] {
        let mut pt = vec![0u8; len];
        rng.fill_bytes(&mut pt);
        let aad = b"associated";
        let nonce = [5u8; 12];
        let k16 = [3u8; 16];
        let k32 = [4u8; 32];
        let ours = aesx::Aes128GcmSiv::new(&k16.into());
        let theirs = aes_gcm_siv::Aes128GcmSiv::new(&k16.into());
        let want = aes_gcm_siv::aead::Aead::encrypt(
            &theirs,
            &nonce.into(),
            aes_gcm_siv::aead::Payload { msg: &pt, aad },
        )
        .unwrap();
        let got = ours
            .encrypt(&nonce.into(), aead::Payload { msg: &pt, aad })
            .unwrap();
        assert_eq!(got, want, "128 len {len}");
        assert_eq!(
            ours.decrypt(&nonce.into(), aead::Payload { msg: &got, aad })
                .unwrap(),
            pt
        );
        let ours = aesx::Aes256GcmSiv::new(&k32.into());
        let theirs = aes_gcm_siv::Aes256GcmSiv::new(&k32.into());
        let want = aes_gcm_siv::aead::Aead::encrypt(&theirs, &nonce.into(), pt.as_slice()).unwrap();
        assert_eq!(ours.encrypt(&nonce.into(), pt.as_slice()).unwrap(), want);
        // Out of place through InOutBuf.
        common::aead_checks::inout_round_trip(&ours, &nonce.into(), b"", &pt, &want);
        for b in common::backends() {
            let k = aesx::Aes128GcmSiv::with_backend(&k16, b).unwrap();
            assert_eq!(k.backend(), b);
            let inherent = GcmSiv::with_backend(&k16, b).unwrap();
            assert_eq!(
                k.encrypt(&nonce.into(), pt.as_slice()).unwrap(),
                inherent.seal(&nonce, b"", &pt).unwrap()
            );
        }
    }
    assert!(format!("{:?}", aesx::Aes128GcmSiv::new(&[1u8; 16].into())).contains("backend"));
}
