//! AES-GCM: NIST CAVP (encrypt and decrypt, FAIL records included) and
//! Wycheproof (GCM and GMAC) on every available backend; random differential
//! tests against OpenSSL (IV, AAD, plaintext and tag lengths, in place, out
//! of place, unaligned, streamed in pieces); forgeries rejected with zeroed
//! output; limits as typed errors.

mod common;
mod wycheproof;

use aesx::hazmat::GcmDecryptorHazmat;
use aesx::{Backend, Error, Gcm};
use common::Record;
use openssl::symm::{decrypt_aead, encrypt_aead, Cipher};
use rand::{Rng, RngCore, SeedableRng};

/// The records of `vectors/nist/GCM/<name>`.
fn nist(name: &str) -> Vec<Record> {
    common::read_rsp(&common::vectors_dir().join("nist/GCM").join(name))
}

/// The record's key on `b`, with the tag length its header gives.
fn nist_gcm(r: &Record, b: Backend) -> Gcm {
    let tag_bits: usize = r.headers["TAGLEN"].parse().unwrap();
    Gcm::with_backend(&r.hex("KEY"), b)
        .unwrap()
        .with_tag_len(tag_bits / 8)
        .unwrap()
}

/// Every record on every backend (kept as a function so a slow backend can
/// be sampled if one is ever added).
fn stride(_b: Backend) -> usize {
    1
}

#[test]
fn nist_encrypt_ext_iv() {
    for bits in [128, 192, 256] {
        let recs = nist(&format!("gcmEncryptExtIV{bits}.rsp"));
        assert!(recs.len() > 7000);
        for b in common::backends() {
            let mut n = 0;
            for r in recs.iter().step_by(stride(b)) {
                let gcm = nist_gcm(r, b);
                let (iv, pt, aad) = (r.hex("IV"), r.hex("PT"), r.hex("AAD"));
                let (ct, tag) = (r.hex("CT"), r.hex("TAG"));
                let mut out = vec![0u8; pt.len()];
                let t = gcm.seal_to_detached(&iv, &aad, &pt, &mut out).unwrap();
                assert_eq!(out, ct, "{b} {bits} line {}", r.line);
                assert_eq!(t.as_bytes(), &tag[..], "{b} {bits} line {}", r.line);
                let mut back = ct.clone();
                gcm.open_in_place_detached(&iv, &aad, &mut back, &tag)
                    .unwrap();
                assert_eq!(back, pt);
                n += 1;
            }
            assert!(n > 500);
        }
    }
}

#[test]
fn nist_decrypt_with_fail_records() {
    for bits in [128, 192, 256] {
        let recs = nist(&format!("gcmDecrypt{bits}.rsp"));
        assert!(recs.iter().filter(|r| r.fail).count() > 1000);
        for b in common::backends() {
            for r in recs.iter().step_by(stride(b)) {
                let gcm = nist_gcm(r, b);
                let (iv, ct, aad, tag) = (r.hex("IV"), r.hex("CT"), r.hex("AAD"), r.hex("TAG"));
                let mut out = vec![0xa5u8; ct.len()];
                let res = gcm.open_to_detached(&iv, &aad, &ct, &tag, &mut out);
                if r.fail {
                    assert_eq!(res, Err(Error::AuthenticationFailed));
                    assert!(out.iter().all(|&x| x == 0), "output not zeroed");
                } else {
                    res.unwrap();
                    assert_eq!(out, r.hex("PT"));
                }
            }
        }
    }
}

#[test]
fn wycheproof_aes_gcm() {
    let checked = wycheproof::check("aes_gcm_test.json", &common::backends(), |b, c| {
        let tag_len = c.group_bits("tagSize") / 8;
        let valid = !c.invalid();
        let (key, iv, aad, msg, ct, tag) = c.aead();
        let gcm = match Gcm::with_backend(&key, b).and_then(|g| g.with_tag_len(tag_len)) {
            Ok(g) => g,
            Err(_) => {
                assert!(!valid, "tc {}", c.id());
                return false;
            }
        };
        if iv.is_empty() {
            assert!(!valid);
            assert_eq!(gcm.seal(&iv, &aad, &msg), Err(Error::EmptyNonce));
            return false;
        }
        if valid {
            let sealed = gcm.seal(&iv, &aad, &msg).unwrap();
            assert_eq!(&sealed[..msg.len()], &ct[..], "{b} tc {}", c.id());
            assert_eq!(&sealed[msg.len()..], &tag[..], "{b} tc {}", c.id());
        }
        let mut buf = ct.clone();
        let r = gcm.open_in_place_detached(&iv, &aad, &mut buf, &tag);
        if valid {
            r.unwrap();
            assert_eq!(buf, msg);
        } else {
            assert!(r.is_err(), "{b} tc {} accepted", c.id());
            assert!(buf.iter().all(|&x| x == 0) || r != Err(Error::AuthenticationFailed));
        }
        true
    });
    assert!(checked >= 300);
}

#[test]
fn wycheproof_aes_gmac() {
    wycheproof::check("aes_gmac_test.json", &common::backends(), |b, c| {
        let tag_len = c.group_bits("tagSize") / 8;
        let valid = !c.invalid();
        let (key, iv, msg, tag) = (c.hex("key"), c.hex("iv"), c.hex("msg"), c.hex("tag"));
        let gcm = Gcm::with_backend(&key, b)
            .unwrap()
            .with_tag_len(tag_len)
            .unwrap();
        // GMAC is GCM with the message as AAD and no plaintext.
        let r = gcm.open_in_place_detached(&iv, &msg, &mut [], &tag);
        assert_eq!(r.is_ok(), valid, "{b} tc {}", c.id());
        if valid {
            let t2 = gcm.seal_in_place_detached(&iv, &msg, &mut []).unwrap();
            assert_eq!(t2.as_bytes(), &tag[..]);
        }
        true
    });
}

fn ossl_cipher(key_len: usize) -> Cipher {
    match key_len {
        16 => Cipher::aes_128_gcm(),
        24 => Cipher::aes_192_gcm(),
        _ => Cipher::aes_256_gcm(),
    }
}

const TAG_LENS: [usize; 7] = [16, 15, 14, 13, 12, 8, 4];

/// Random messages against OpenSSL: every key size and tag length, IVs of
/// 1..=64 bytes, AAD of 0..=300 bytes, plaintext of 0..=4096 bytes, in place
/// and out of place from unaligned buffers.
#[test]
fn differential_vs_openssl() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6763_6d5f_6469_6666);
    for b in common::backends() {
        let iters = 400;
        for i in 0..iters {
            let key_len = [16, 24, 32][i % 3];
            let tag_len = TAG_LENS[i % TAG_LENS.len()];
            let mut key = vec![0u8; key_len];
            rng.fill_bytes(&mut key);
            let iv_len = if i % 2 == 0 {
                12
            } else {
                rng.gen_range(1..=64)
            };
            let aad_len = rng.gen_range(0..=300);
            let pt_len = rng.gen_range(0..=4096);
            let mut iv = vec![0u8; iv_len];
            let mut aad = vec![0u8; aad_len];
            let mut pt = vec![0u8; pt_len];
            rng.fill_bytes(&mut iv);
            rng.fill_bytes(&mut aad);
            rng.fill_bytes(&mut pt);

            let mut otag = vec![0u8; tag_len];
            let oct =
                encrypt_aead(ossl_cipher(key_len), &key, Some(&iv), &aad, &pt, &mut otag).unwrap();
            let gcm = Gcm::with_backend(&key, b)
                .unwrap()
                .with_tag_len(tag_len)
                .unwrap();

            // Out of place, from an unaligned source into an unaligned output.
            let off = i % 16;
            let mut src = vec![0u8; pt_len + off];
            src[off..].copy_from_slice(&pt);
            let mut dst = vec![0u8; pt_len + 1 + off];
            let tag = gcm
                .seal_to_detached(&iv, &aad, &src[off..], &mut dst[1 + off..])
                .unwrap();
            assert_eq!(&dst[1 + off..], &oct[..], "{b} iter {i}");
            assert_eq!(tag.as_bytes(), &otag[..], "{b} iter {i}");

            // In place, tag appended.
            let sealed = gcm.seal(&iv, &aad, &pt).unwrap();
            assert_eq!(&sealed[..pt_len], &oct[..]);
            assert_eq!(&sealed[pt_len..], &otag[..]);
            let mut buf = sealed.clone();
            let opened = gcm.open_in_place(&iv, &aad, &mut buf).unwrap();
            assert_eq!(opened, &pt[..]);

            // OpenSSL opens ours (it checks truncated tags too).
            let back = decrypt_aead(
                ossl_cipher(key_len),
                &key,
                Some(&iv),
                &aad,
                &sealed[..pt_len],
                &sealed[pt_len..],
            )
            .unwrap();
            assert_eq!(back, pt);

            // Streamed in random pieces, both directions.
            let mut enc = gcm.encryptor(&iv).unwrap();
            let cut = rng.gen_range(0..=aad_len);
            enc.aad(&aad[..cut]).unwrap();
            enc.aad(&aad[cut..]).unwrap();
            let mut s = pt.clone();
            let mut pos = 0;
            while pos < s.len() {
                let n = rng.gen_range(1..=(s.len() - pos).min(100));
                enc.encrypt_in_place(&mut s[pos..pos + n]).unwrap();
                pos += n;
            }
            assert_eq!(s, oct);
            assert_eq!(enc.finish().as_bytes(), &otag[..]);
            let mut dec = GcmDecryptorHazmat::new(&gcm, &iv).unwrap();
            dec.aad(&aad).unwrap();
            let mut out = vec![0u8; pt_len];
            let mut pos = 0;
            while pos < s.len() {
                let n = rng.gen_range(1..=(s.len() - pos).min(300));
                dec.decrypt_to(&s[pos..pos + n], &mut out[pos..pos + n])
                    .unwrap();
                pos += n;
            }
            assert_eq!(out, pt);
            dec.finish(&otag).unwrap();
        }
    }
}

/// A message streamed with the split at every offset gives the same bytes.
#[test]
fn stream_split_at_every_offset() {
    let key = [0x5au8; 16];
    let iv = [0x33u8; 12];
    let aad: Vec<u8> = (0..37u8).collect();
    let pt: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
    for b in common::backends() {
        let gcm = Gcm::with_backend(&key, b).unwrap();
        let whole = gcm.seal(&iv, &aad, &pt).unwrap();
        let step = 1;
        for cut in (0..=pt.len()).step_by(step) {
            let mut enc = gcm.encryptor(&iv).unwrap();
            enc.aad(&aad[..cut % aad.len()]).unwrap();
            enc.aad(&aad[cut % aad.len()..]).unwrap();
            let mut s = pt.clone();
            let (a, c) = s.split_at_mut(cut);
            enc.encrypt_in_place(a).unwrap();
            enc.encrypt_in_place(c).unwrap();
            assert_eq!(&s[..], &whole[..pt.len()], "{b} cut {cut}");
            assert_eq!(enc.finish().as_bytes(), &whole[pt.len()..]);
        }
    }
}

/// Every backend agrees with soft on long messages (the wide kernels'
/// main loops and tails) and across the 32-bit counter wrap.
#[test]
fn cross_backend_long_messages() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let soft_key = [0x11u8; 32];
    let mut pt = vec![0u8; 5000];
    rng.fill_bytes(&mut pt);
    let soft = Gcm::with_backend(&soft_key, Backend::Soft).unwrap();
    // IVs whose J0 lands near the counter wrap are in Wycheproof; here a
    // long non-96-bit IV and a plain one.
    for iv in [vec![0xffu8; 12], vec![0x42u8; 20]] {
        for len in [
            0, 1, 15, 16, 17, 127, 128, 129, 255, 256, 257, 511, 1024, 1500, 4095, 5000,
        ] {
            let want = soft.seal(&iv, b"aad", &pt[..len]).unwrap();
            for b in common::backends() {
                let g = Gcm::with_backend(&soft_key, b).unwrap();
                assert_eq!(
                    g.seal(&iv, b"aad", &pt[..len]).unwrap(),
                    want,
                    "{b} len {len}"
                );
                assert_eq!(g.open(&iv, b"aad", &want).unwrap(), &pt[..len]);
            }
        }
    }
}

/// Long AAD (the wide GHASH loops and their masked tails) agrees with soft,
/// one-shot and streamed.
#[test]
fn cross_backend_long_aad() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let mut aad = vec![0u8; 4100];
    rng.fill_bytes(&mut aad);
    let pt = b"payload of a few bytes, not whole blocks";
    let soft = Gcm::with_backend(&[0x22u8; 16], Backend::Soft).unwrap();
    for alen in [0, 15, 16, 255, 256, 257, 511, 512, 513, 1500, 4097] {
        let want = soft.seal(&[1u8; 12], &aad[..alen], pt).unwrap();
        for b in common::backends() {
            let g = Gcm::with_backend(&[0x22u8; 16], b).unwrap();
            assert_eq!(
                g.seal(&[1u8; 12], &aad[..alen], pt).unwrap(),
                want,
                "{b} aad {alen}"
            );
            let mut enc = g.encryptor(&[1u8; 12]).unwrap();
            enc.aad(&aad[..alen / 3]).unwrap();
            enc.aad(&aad[alen / 3..alen]).unwrap();
            let mut s = pt.to_vec();
            enc.encrypt_in_place(&mut s).unwrap();
            assert_eq!(&s[..], &want[..pt.len()]);
            assert_eq!(enc.finish().as_bytes(), &want[pt.len()..]);
        }
    }
}

/// Forged tags, flipped bits and truncated inputs are refused; nothing
/// decrypted is left in the output.
#[test]
fn forgeries_rejected_and_output_zeroed() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    for b in common::backends() {
        for tag_len in TAG_LENS {
            let gcm = Gcm::with_backend(&[3u8; 24], b)
                .unwrap()
                .with_tag_len(tag_len)
                .unwrap();
            let iv = [9u8; 12];
            let mut pt = vec![0u8; 200];
            rng.fill_bytes(&mut pt);
            let sealed = gcm.seal(&iv, b"hdr", &pt).unwrap();
            // Flip each byte position in turn (sampled).
            for pos in (0..sealed.len()).step_by(13).chain([sealed.len() - 1]) {
                let mut f = sealed.clone();
                f[pos] ^= 0x80;
                let mut out = vec![0xeeu8; pt.len()];
                assert_eq!(
                    gcm.open_to(&iv, b"hdr", &f, &mut out),
                    Err(Error::AuthenticationFailed)
                );
                assert!(out.iter().all(|&x| x == 0));
                let mut inplace = f.clone();
                assert!(gcm.open_in_place(&iv, b"hdr", &mut inplace).is_err());
                assert!(inplace.iter().all(|&x| x == 0));
            }
            // Wrong AAD or nonce.
            assert!(gcm.open(&iv, b"hdX", &sealed).is_err());
            assert!(gcm.open(&[8u8; 12], b"hdr", &sealed).is_err());
            // Truncated: every shorter length fails.
            for cut in [0, 1, tag_len - 1, tag_len, sealed.len() - 1] {
                let mut out = vec![0xeeu8; sealed.len()];
                assert!(gcm.open_to(&iv, b"hdr", &sealed[..cut], &mut out).is_err());
                assert!(out.iter().all(|&x| x == 0), "tag_len {tag_len} cut {cut}");
            }
            // A detached tag of the wrong length is refused up front.
            let mut buf = sealed[..pt.len()].to_vec();
            let short = &sealed[pt.len()..sealed.len() - 1];
            assert_eq!(
                gcm.open_in_place_detached(&iv, b"hdr", &mut buf, short),
                Err(Error::InvalidTagLength { len: tag_len - 1 })
            );
        }
    }
}

#[test]
fn limits_are_typed_errors() {
    let gcm = Gcm::with_backend(&[1u8; 16], common::backend()).unwrap();
    assert_eq!(gcm.seal(&[], b"", b"x"), Err(Error::EmptyNonce));
    for bad in [0, 1, 3, 5, 9, 11, 17, 32] {
        assert_eq!(
            Gcm::with_backend(&[1u8; 16], common::backend())
                .unwrap()
                .with_tag_len(bad)
                .unwrap_err(),
            Error::InvalidTagLength { len: bad }
        );
    }
    assert_eq!(
        Gcm::new(&[1u8; 15]).unwrap_err(),
        Error::InvalidKeyLength { len: 15 }
    );
    // AAD after data is out of order.
    let mut enc = gcm.encryptor(&[0u8; 12]).unwrap();
    enc.encrypt_in_place(&mut [0u8; 3]).unwrap();
    assert_eq!(enc.aad(b"late"), Err(Error::InvalidState));
    // Output too small for the appended tag.
    let mut out = [0u8; 19];
    assert!(matches!(
        gcm.seal_to(&[0u8; 12], b"", &[0u8; 4], &mut out),
        Err(Error::OutputTooSmall {
            needed: 20,
            got: 19
        })
    ));
    // Mismatched out-of-place lengths.
    assert!(matches!(
        gcm.seal_to_detached(&[0u8; 12], b"", &[0u8; 4], &mut [0u8; 5]),
        Err(Error::LengthMismatch { .. })
    ));
}
