//! AES-CCM: the SP 800-38C and RFC 3610 examples, Wycheproof's
//! `aes_ccm_test.json` (forged tags, bad nonce and tag sizes) on every
//! backend; random differential tests against OpenSSL over every nonce and
//! tag length, AAD and payload lengths across block and batch boundaries,
//! in place on unaligned buffers and out of place; forgeries rejected with
//! zeroed output; limits as typed errors.

mod common;
mod wycheproof;

use aesx::{Ccm, Error};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;
use rand::{Rng, RngCore, SeedableRng};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

/// Key, nonce, aad, payload, ciphertext || tag, tag length.
type Example = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, usize);

fn known_answers() -> Vec<Example> {
    let k38c = h("404142434445464748494a4b4c4d4e4f");
    let mut v = vec![
        // SP 800-38C appendix C, examples 1 to 3.
        (
            k38c.clone(),
            h("10111213141516"),
            h("0001020304050607"),
            h("20212223"),
            h("7162015b 4dac255d"),
            4,
        ),
        (
            k38c.clone(),
            h("1011121314151617"),
            h("000102030405060708090a0b0c0d0e0f"),
            h("202122232425262728292a2b2c2d2e2f"),
            h("d2a1f0e051ea5f62081a7792073d593d 1fc64fbfaccd"),
            6,
        ),
        (
            k38c,
            h("101112131415161718191a1b"),
            h("000102030405060708090a0b0c0d0e0f10111213"),
            h("202122232425262728292a2b2c2d2e2f3031323334353637"),
            h("e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5 484392fbc1b09951"),
            8,
        ),
        // RFC 3610 section 8, packet vector #1.
        (
            h("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"),
            h("00000003020100a0a1a2a3a4a5"),
            h("0001020304050607"),
            h("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e"),
            h("588c979a61c663d2f066d0c2c0f989806d5f6b61dac384 17e8d12cfdf926e0"),
            8,
        ),
    ];
    // SP 800-38C example 4: a 2^16-byte associated data (the 6-byte length
    // encoding, 0xfffe || 32-bit length), bytes 0x00..0xff repeated.
    let aad4: Vec<u8> = (0..65536u32).map(|i| i as u8).collect();
    v.push((
        h("404142434445464748494a4b4c4d4e4f"),
        h("101112131415161718191a1b1c"),
        aad4,
        h("202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"),
        h("69915dad1e84c6376a68c2967e4dab615ae0fd1faec44cc484828529463ccf72 b4ac6bec93e8598e7f0dadbcea5b"),
        14,
    ));
    v
}

#[test]
fn sp800_38c_and_rfc3610_examples() {
    for b in common::backends() {
        for (key, nonce, aad, pt, expect, t) in known_answers() {
            let ccm = Ccm::with_backend(&key, t, b).unwrap();
            assert_eq!(ccm.backend(), b);
            let sealed = ccm.seal(&nonce, &aad, &pt).unwrap();
            assert_eq!(hex::encode(&sealed), hex::encode(&expect), "{b}");
            assert_eq!(ccm.open(&nonce, &aad, &sealed).unwrap(), pt, "{b}");
        }
    }
}

#[test]
fn wycheproof_aes_ccm() {
    let checked = wycheproof::check("aes_ccm_test.json", &common::backends(), |b, c| {
        let tag_len = c.group_bits("tagSize") / 8;
        let (key, iv, aad, msg, ct, tag) = c.aead();
        let ccm = match Ccm::with_backend(&key, tag_len, b) {
            Ok(x) => x,
            Err(e) => {
                assert!(c.invalid(), "{b} tc {}: {e}", c.id());
                assert_eq!(e, Error::InvalidTagLength { len: tag_len });
                return false;
            }
        };
        if !c.invalid() {
            let sealed = ccm.seal(&iv, &aad, &msg).unwrap();
            assert_eq!(&sealed[..msg.len()], &ct[..], "{b} tc {}", c.id());
            assert_eq!(&sealed[msg.len()..], &tag[..], "{b} tc {}", c.id());
        }
        let mut buf = ct.clone();
        let r = ccm.open_in_place_detached(&iv, &aad, &mut buf, &tag);
        if c.invalid() {
            assert!(r.is_err(), "{b} tc {} accepted", c.id());
            if r == Err(Error::AuthenticationFailed) {
                assert!(buf.iter().all(|&x| x == 0), "{b} tc {}", c.id());
            } else {
                assert!(
                    matches!(r, Err(Error::InvalidNonceLength { .. })),
                    "{b} tc {}: {r:?}",
                    c.id()
                );
                assert_eq!(buf, ct, "refused before any work");
            }
        } else {
            r.unwrap();
            assert_eq!(buf, msg, "{b} tc {}", c.id());
        }
        true
    });
    assert!(checked >= 500);
}

fn openssl_cipher(key_len: usize) -> &'static CipherRef {
    match key_len {
        16 => Cipher::aes_128_ccm(),
        24 => Cipher::aes_192_ccm(),
        _ => Cipher::aes_256_ccm(),
    }
}

/// OpenSSL's CCM in the order its documentation gives: nonce and tag
/// lengths before the key, then the payload length, the AAD, the payload.
fn openssl_ctx(
    key: &[u8],
    nonce: &[u8],
    tag: Option<&[u8]>,
    tag_len: usize,
    len: usize,
) -> CipherCtx {
    let mut c = CipherCtx::new().unwrap();
    let cipher = openssl_cipher(key.len());
    if tag.is_some() {
        c.decrypt_init(Some(cipher), None, None).unwrap();
    } else {
        c.encrypt_init(Some(cipher), None, None).unwrap();
    }
    c.set_iv_length(nonce.len()).unwrap();
    match tag {
        Some(t) => c.set_tag(t).unwrap(),
        None => c.set_tag_length(tag_len).unwrap(),
    }
    if tag.is_some() {
        c.decrypt_init(None, Some(key), Some(nonce)).unwrap();
    } else {
        c.encrypt_init(None, Some(key), Some(nonce)).unwrap();
    }
    c.set_data_len(len).unwrap();
    c
}

fn openssl_seal(
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    tag_len: usize,
) -> (Vec<u8>, Vec<u8>) {
    let mut c = openssl_ctx(key, nonce, None, tag_len, pt.len());
    if !aad.is_empty() {
        c.cipher_update(aad, None).unwrap();
    }
    let mut ct = vec![0u8; pt.len() + 16];
    let n = c.cipher_update(pt, Some(&mut ct)).unwrap();
    let m = c.cipher_final(&mut ct[n..]).unwrap();
    ct.truncate(n + m);
    let mut tag = vec![0u8; tag_len];
    c.tag(&mut tag).unwrap();
    (ct, tag)
}

fn openssl_open(
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    sealed: &[u8],
    tag_len: usize,
) -> Option<Vec<u8>> {
    let (ct, tag) = sealed.split_at(sealed.len() - tag_len);
    let mut c = openssl_ctx(key, nonce, Some(tag), tag_len, ct.len());
    if !aad.is_empty() {
        c.cipher_update(aad, None).unwrap();
    }
    let mut pt = vec![0u8; ct.len() + 16];
    let n = c.cipher_update(ct, Some(&mut pt)).ok()?;
    pt.truncate(n);
    Some(pt)
}

/// Lengths around the one-block, the batch (128 blocks) and the typical
/// kernel-width boundaries.
fn interesting_len(rng: &mut impl Rng) -> usize {
    match rng.gen_range(0..4) {
        0 => rng.gen_range(0..=300),
        1 => {
            let base = [16usize, 64, 128, 256, 2048, 4096][rng.gen_range(0..6)];
            (base + rng.gen_range(0..=32)).saturating_sub(16)
        }
        _ => rng.gen_range(0..=48),
    }
}

#[test]
fn random_against_openssl() {
    common::random_rounds(0xcc3, 600, |rng, b, round| {
        let key_len = [16, 24, 32][round % 3];
        let tag_len = 4 + 2 * (round / 3 % 7);
        let nonce_len = 7 + round % 7;
        let mut key = vec![0u8; key_len];
        let mut nonce = vec![0u8; nonce_len];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut nonce);
        let mut aad = vec![0u8; interesting_len(rng)];
        let mut pt = vec![0u8; interesting_len(rng)];
        rng.fill_bytes(&mut aad);
        rng.fill_bytes(&mut pt);

        let (ct, tag) = openssl_seal(&key, &nonce, &aad, &pt, tag_len);
        let ccm = Ccm::with_backend(&key, tag_len, b).unwrap();

        // Out of place (Vec).
        let sealed = ccm.seal(&nonce, &aad, &pt).unwrap();
        assert_eq!(&sealed[..pt.len()], &ct[..], "{b} round {round}");
        assert_eq!(&sealed[pt.len()..], &tag[..], "{b} round {round}");
        assert_eq!(ccm.open(&nonce, &aad, &sealed).unwrap(), pt);

        // In place, at an unaligned offset.
        let off = rng.gen_range(0..16);
        let mut store = vec![0u8; off + pt.len()];
        store[off..].copy_from_slice(&pt);
        let t = ccm
            .seal_in_place_detached(&nonce, &aad, &mut store[off..])
            .unwrap();
        assert_eq!(&store[off..], &ct[..]);
        assert_eq!(t.as_bytes(), &tag[..]);
        ccm.open_in_place_detached(&nonce, &aad, &mut store[off..], &tag)
            .unwrap();
        assert_eq!(&store[off..], &pt[..]);

        // OpenSSL opens ours.
        let back = openssl_open(&key, &nonce, &aad, &sealed, tag_len).unwrap();
        assert_eq!(back, pt);

        // A flipped bit anywhere is refused and nothing is released.
        if !sealed.is_empty() {
            let mut forged = sealed.clone();
            let i = rng.gen_range(0..forged.len());
            forged[i] ^= 1 << rng.gen_range(0..8);
            assert_eq!(
                ccm.open(&nonce, &aad, &forged),
                Err(Error::AuthenticationFailed)
            );
            let (c, tg) = forged.split_at_mut(pt.len());
            let r = ccm.open_in_place_detached(&nonce, &aad, c, tg);
            assert_eq!(r, Err(Error::AuthenticationFailed));
            assert!(c.iter().all(|&x| x == 0));
        }
    });
}

#[test]
fn wrong_aad_or_nonce_fails() {
    let ccm = Ccm::with_backend(&[1u8; 16], 16, common::backend()).unwrap();
    let sealed = ccm.seal(&[2u8; 12], b"aad", b"payload").unwrap();
    assert!(ccm.open(&[2u8; 12], b"aaD", &sealed).is_err());
    assert!(ccm.open(&[2u8; 12], b"", &sealed).is_err());
    assert!(ccm.open(&[3u8; 12], b"aad", &sealed).is_err());
    // The same bytes under a shorter nonce are a different message.
    assert!(ccm.open(&[2u8; 11], b"aad", &sealed).is_err());
}

#[test]
fn limits_are_typed_errors() {
    let b = common::backend();
    for t in [0, 1, 2, 3, 5, 7, 15, 17, 32] {
        assert_eq!(
            Ccm::with_backend(&[0u8; 16], t, b).unwrap_err(),
            Error::InvalidTagLength { len: t }
        );
    }
    assert_eq!(
        Ccm::with_backend(&[0u8; 15], 16, b).unwrap_err(),
        Error::InvalidKeyLength { len: 15 }
    );
    let ccm = Ccm::with_backend(&[0u8; 32], 8, b).unwrap();
    for n in [0, 1, 6, 14, 16, 24] {
        assert_eq!(
            ccm.seal(&vec![0u8; n], b"", b"x").unwrap_err(),
            Error::InvalidNonceLength {
                min: 7,
                max: 13,
                got: n
            }
        );
    }
    // A 13-byte nonce leaves 2 bytes of length: 65535 bytes at most.
    let big = vec![0u8; 65536];
    assert_eq!(
        ccm.seal(&[0u8; 13], b"", &big).unwrap_err(),
        Error::MessageTooLong
    );
    let ok = ccm.seal(&[0u8; 13], b"", &big[..65535]).unwrap();
    assert_eq!(ccm.open(&[0u8; 13], b"", &ok).unwrap().len(), 65535);
    // A 12-byte nonce takes it.
    assert!(ccm.seal(&[0u8; 12], b"", &big).is_ok());
    // Short input and wrong tag lengths on open.
    assert!(ccm.open(&[0u8; 12], b"", &[0u8; 7]).is_err());
    let mut buf = [0u8; 4];
    assert_eq!(
        ccm.open_in_place_detached(&[0u8; 12], b"", &mut buf, &[0u8; 16]),
        Err(Error::InvalidTagLength { len: 16 })
    );
}

#[test]
fn debug_shows_no_key() {
    let ccm = Ccm::with_backend(&[0xabu8; 16], 8, common::backend()).unwrap();
    let s = format!("{ccm:?}");
    assert!(!s.contains("ab") && !s.contains("171"), "{s}");
}

// NIST CAVP CCM vectors (every key size, tag and nonce length), pass and
// fail files, through the `aead` traits on `Aes128Ccm<M, N>` and friends,
// with `aead`'s own test harness (the `.blb` files are RustCrypto's, see
// vectors/SOURCES.md).
mod cavp_through_aead_traits {
    use aesx::aead::consts::{U10, U11, U12, U13, U14, U16, U4, U6, U7, U8, U9};
    use aesx::{Aes128Ccm, Aes192Ccm, Aes256Ccm};

    aead::new_pass_test!(cavp_ccm_aes128_4_7_pass, "cavp_ccm_aes128_4_7_pass", Aes128Ccm<U4, U7>);
    aead::new_fail_test!(cavp_ccm_aes128_4_7_fail, "cavp_ccm_aes128_4_7_fail", Aes128Ccm<U4, U7>);
    aead::new_pass_test!(cavp_ccm_aes128_4_13_pass, "cavp_ccm_aes128_4_13_pass", Aes128Ccm<U4, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_4_13_fail, "cavp_ccm_aes128_4_13_fail", Aes128Ccm<U4, U13>);
    aead::new_pass_test!(cavp_ccm_aes128_6_13_pass, "cavp_ccm_aes128_6_13_pass", Aes128Ccm<U6, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_6_13_fail, "cavp_ccm_aes128_6_13_fail", Aes128Ccm<U6, U13>);
    aead::new_pass_test!(cavp_ccm_aes128_8_13_pass, "cavp_ccm_aes128_8_13_pass", Aes128Ccm<U8, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_8_13_fail, "cavp_ccm_aes128_8_13_fail", Aes128Ccm<U8, U13>);
    aead::new_pass_test!(cavp_ccm_aes128_10_13_pass, "cavp_ccm_aes128_10_13_pass", Aes128Ccm<U10, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_10_13_fail, "cavp_ccm_aes128_10_13_fail", Aes128Ccm<U10, U13>);
    aead::new_pass_test!(cavp_ccm_aes128_12_13_pass, "cavp_ccm_aes128_12_13_pass", Aes128Ccm<U12, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_12_13_fail, "cavp_ccm_aes128_12_13_fail", Aes128Ccm<U12, U13>);
    aead::new_pass_test!(cavp_ccm_aes128_14_13_pass, "cavp_ccm_aes128_14_13_pass", Aes128Ccm<U14, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_14_13_fail, "cavp_ccm_aes128_14_13_fail", Aes128Ccm<U14, U13>);
    aead::new_pass_test!(cavp_ccm_aes128_16_7_pass, "cavp_ccm_aes128_16_7_pass", Aes128Ccm<U16, U7>);
    aead::new_fail_test!(cavp_ccm_aes128_16_7_fail, "cavp_ccm_aes128_16_7_fail", Aes128Ccm<U16, U7>);
    aead::new_pass_test!(cavp_ccm_aes128_16_8_pass, "cavp_ccm_aes128_16_8_pass", Aes128Ccm<U16, U8>);
    aead::new_fail_test!(cavp_ccm_aes128_16_8_fail, "cavp_ccm_aes128_16_8_fail", Aes128Ccm<U16, U8>);
    aead::new_pass_test!(cavp_ccm_aes128_16_9_pass, "cavp_ccm_aes128_16_9_pass", Aes128Ccm<U16, U9>);
    aead::new_fail_test!(cavp_ccm_aes128_16_9_fail, "cavp_ccm_aes128_16_9_fail", Aes128Ccm<U16, U9>);
    aead::new_pass_test!(cavp_ccm_aes128_16_10_pass, "cavp_ccm_aes128_16_10_pass", Aes128Ccm<U16, U10>);
    aead::new_fail_test!(cavp_ccm_aes128_16_10_fail, "cavp_ccm_aes128_16_10_fail", Aes128Ccm<U16, U10>);
    aead::new_pass_test!(cavp_ccm_aes128_16_11_pass, "cavp_ccm_aes128_16_11_pass", Aes128Ccm<U16, U11>);
    aead::new_fail_test!(cavp_ccm_aes128_16_11_fail, "cavp_ccm_aes128_16_11_fail", Aes128Ccm<U16, U11>);
    aead::new_pass_test!(cavp_ccm_aes128_16_12_pass, "cavp_ccm_aes128_16_12_pass", Aes128Ccm<U16, U12>);
    aead::new_fail_test!(cavp_ccm_aes128_16_12_fail, "cavp_ccm_aes128_16_12_fail", Aes128Ccm<U16, U12>);
    aead::new_pass_test!(cavp_ccm_aes128_16_13_pass, "cavp_ccm_aes128_16_13_pass", Aes128Ccm<U16, U13>);
    aead::new_fail_test!(cavp_ccm_aes128_16_13_fail, "cavp_ccm_aes128_16_13_fail", Aes128Ccm<U16, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_4_7_pass, "cavp_ccm_aes192_4_7_pass", Aes192Ccm<U4, U7>);
    aead::new_fail_test!(cavp_ccm_aes192_4_7_fail, "cavp_ccm_aes192_4_7_fail", Aes192Ccm<U4, U7>);
    aead::new_pass_test!(cavp_ccm_aes192_4_13_pass, "cavp_ccm_aes192_4_13_pass", Aes192Ccm<U4, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_4_13_fail, "cavp_ccm_aes192_4_13_fail", Aes192Ccm<U4, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_6_13_pass, "cavp_ccm_aes192_6_13_pass", Aes192Ccm<U6, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_6_13_fail, "cavp_ccm_aes192_6_13_fail", Aes192Ccm<U6, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_8_13_pass, "cavp_ccm_aes192_8_13_pass", Aes192Ccm<U8, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_8_13_fail, "cavp_ccm_aes192_8_13_fail", Aes192Ccm<U8, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_10_13_pass, "cavp_ccm_aes192_10_13_pass", Aes192Ccm<U10, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_10_13_fail, "cavp_ccm_aes192_10_13_fail", Aes192Ccm<U10, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_12_13_pass, "cavp_ccm_aes192_12_13_pass", Aes192Ccm<U12, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_12_13_fail, "cavp_ccm_aes192_12_13_fail", Aes192Ccm<U12, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_14_13_pass, "cavp_ccm_aes192_14_13_pass", Aes192Ccm<U14, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_14_13_fail, "cavp_ccm_aes192_14_13_fail", Aes192Ccm<U14, U13>);
    aead::new_pass_test!(cavp_ccm_aes192_16_7_pass, "cavp_ccm_aes192_16_7_pass", Aes192Ccm<U16, U7>);
    aead::new_fail_test!(cavp_ccm_aes192_16_7_fail, "cavp_ccm_aes192_16_7_fail", Aes192Ccm<U16, U7>);
    aead::new_pass_test!(cavp_ccm_aes192_16_8_pass, "cavp_ccm_aes192_16_8_pass", Aes192Ccm<U16, U8>);
    aead::new_fail_test!(cavp_ccm_aes192_16_8_fail, "cavp_ccm_aes192_16_8_fail", Aes192Ccm<U16, U8>);
    aead::new_pass_test!(cavp_ccm_aes192_16_9_pass, "cavp_ccm_aes192_16_9_pass", Aes192Ccm<U16, U9>);
    aead::new_fail_test!(cavp_ccm_aes192_16_9_fail, "cavp_ccm_aes192_16_9_fail", Aes192Ccm<U16, U9>);
    aead::new_pass_test!(cavp_ccm_aes192_16_10_pass, "cavp_ccm_aes192_16_10_pass", Aes192Ccm<U16, U10>);
    aead::new_fail_test!(cavp_ccm_aes192_16_10_fail, "cavp_ccm_aes192_16_10_fail", Aes192Ccm<U16, U10>);
    aead::new_pass_test!(cavp_ccm_aes192_16_11_pass, "cavp_ccm_aes192_16_11_pass", Aes192Ccm<U16, U11>);
    aead::new_fail_test!(cavp_ccm_aes192_16_11_fail, "cavp_ccm_aes192_16_11_fail", Aes192Ccm<U16, U11>);
    aead::new_pass_test!(cavp_ccm_aes192_16_12_pass, "cavp_ccm_aes192_16_12_pass", Aes192Ccm<U16, U12>);
    aead::new_fail_test!(cavp_ccm_aes192_16_12_fail, "cavp_ccm_aes192_16_12_fail", Aes192Ccm<U16, U12>);
    aead::new_pass_test!(cavp_ccm_aes192_16_13_pass, "cavp_ccm_aes192_16_13_pass", Aes192Ccm<U16, U13>);
    aead::new_fail_test!(cavp_ccm_aes192_16_13_fail, "cavp_ccm_aes192_16_13_fail", Aes192Ccm<U16, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_4_7_pass, "cavp_ccm_aes256_4_7_pass", Aes256Ccm<U4, U7>);
    aead::new_fail_test!(cavp_ccm_aes256_4_7_fail, "cavp_ccm_aes256_4_7_fail", Aes256Ccm<U4, U7>);
    aead::new_pass_test!(cavp_ccm_aes256_4_13_pass, "cavp_ccm_aes256_4_13_pass", Aes256Ccm<U4, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_4_13_fail, "cavp_ccm_aes256_4_13_fail", Aes256Ccm<U4, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_6_13_pass, "cavp_ccm_aes256_6_13_pass", Aes256Ccm<U6, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_6_13_fail, "cavp_ccm_aes256_6_13_fail", Aes256Ccm<U6, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_8_13_pass, "cavp_ccm_aes256_8_13_pass", Aes256Ccm<U8, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_8_13_fail, "cavp_ccm_aes256_8_13_fail", Aes256Ccm<U8, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_10_13_pass, "cavp_ccm_aes256_10_13_pass", Aes256Ccm<U10, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_10_13_fail, "cavp_ccm_aes256_10_13_fail", Aes256Ccm<U10, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_12_13_pass, "cavp_ccm_aes256_12_13_pass", Aes256Ccm<U12, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_12_13_fail, "cavp_ccm_aes256_12_13_fail", Aes256Ccm<U12, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_14_13_pass, "cavp_ccm_aes256_14_13_pass", Aes256Ccm<U14, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_14_13_fail, "cavp_ccm_aes256_14_13_fail", Aes256Ccm<U14, U13>);
    aead::new_pass_test!(cavp_ccm_aes256_16_7_pass, "cavp_ccm_aes256_16_7_pass", Aes256Ccm<U16, U7>);
    aead::new_fail_test!(cavp_ccm_aes256_16_7_fail, "cavp_ccm_aes256_16_7_fail", Aes256Ccm<U16, U7>);
    aead::new_pass_test!(cavp_ccm_aes256_16_8_pass, "cavp_ccm_aes256_16_8_pass", Aes256Ccm<U16, U8>);
    aead::new_fail_test!(cavp_ccm_aes256_16_8_fail, "cavp_ccm_aes256_16_8_fail", Aes256Ccm<U16, U8>);
    aead::new_pass_test!(cavp_ccm_aes256_16_9_pass, "cavp_ccm_aes256_16_9_pass", Aes256Ccm<U16, U9>);
    aead::new_fail_test!(cavp_ccm_aes256_16_9_fail, "cavp_ccm_aes256_16_9_fail", Aes256Ccm<U16, U9>);
    aead::new_pass_test!(cavp_ccm_aes256_16_10_pass, "cavp_ccm_aes256_16_10_pass", Aes256Ccm<U16, U10>);
    aead::new_fail_test!(cavp_ccm_aes256_16_10_fail, "cavp_ccm_aes256_16_10_fail", Aes256Ccm<U16, U10>);
    aead::new_pass_test!(cavp_ccm_aes256_16_11_pass, "cavp_ccm_aes256_16_11_pass", Aes256Ccm<U16, U11>);
    aead::new_fail_test!(cavp_ccm_aes256_16_11_fail, "cavp_ccm_aes256_16_11_fail", Aes256Ccm<U16, U11>);
    aead::new_pass_test!(cavp_ccm_aes256_16_12_pass, "cavp_ccm_aes256_16_12_pass", Aes256Ccm<U16, U12>);
    aead::new_fail_test!(cavp_ccm_aes256_16_12_fail, "cavp_ccm_aes256_16_12_fail", Aes256Ccm<U16, U12>);
    aead::new_pass_test!(cavp_ccm_aes256_16_13_pass, "cavp_ccm_aes256_16_13_pass", Aes256Ccm<U16, U13>);
    aead::new_fail_test!(cavp_ccm_aes256_16_13_fail, "cavp_ccm_aes256_16_13_fail", Aes256Ccm<U16, U13>);
}

/// The `aead` types agree with RustCrypto's `ccm` crate (over the `aes`
/// crate) for every tag and nonce size, in place and out of place, on every
/// backend; forged messages are refused with the output zeroed.
#[test]
fn aead_types_match_rustcrypto_ccm() {
    use aesx::aead::consts::{U10, U12, U13, U16, U4, U7, U8};
    use aesx::aead::{Aead, KeyInit};

    fn check<M, N>(b: aesx::Backend, rng: &mut impl RngCore)
    where
        M: aesx::CcmTagSize + ccm::TagSize,
        N: aesx::CcmNonceSize + ccm::NonceSize,
    {
        let mut key = [0u8; 16];
        rng.fill_bytes(&mut key);
        let ours = aesx::Aes128Ccm::<M, N>::with_backend(&key, b).unwrap();
        let theirs = ccm::Ccm::<aes::Aes128, M, N>::new(&key.into());
        let mut nonce = aesx::aead::array::Array::<u8, N>::default();
        rng.fill_bytes(&mut nonce);
        for len in [0usize, 1, 15, 16, 17, 64, 100, 1000] {
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let aad = &pt[..len / 3];
            let payload = || aesx::aead::Payload { msg: &pt, aad };
            let want = theirs.encrypt(&nonce, payload()).unwrap();
            assert_eq!(ours.encrypt(&nonce, payload()).unwrap(), want, "{b} {len}");

            // Out of place through InOutBuf.
            common::aead_checks::inout_round_trip(&ours, &nonce, aad, &pt, &want);
            assert!(theirs
                .decrypt(
                    &nonce,
                    aesx::aead::Payload {
                        msg: &want,
                        aad: b"x"
                    }
                )
                .is_err());
        }
    }

    let mut rng = rand::rngs::StdRng::seed_from_u64(0xaead);
    for b in common::backends() {
        check::<U4, U7>(b, &mut rng);
        check::<U8, U8>(b, &mut rng);
        check::<U10, U12>(b, &mut rng);
        check::<U16, U13>(b, &mut rng);
        check::<U12, U10>(b, &mut rng);
    }
}

#[test]
fn aead_refuses_messages_too_long_for_the_nonce() {
    use aesx::aead::consts::{U13, U16};
    use aesx::aead::{AeadInOut, KeyInit};
    let c = aesx::Aes256Ccm::<U16, U13>::new(&[7u8; 32].into());
    let nonce = [1u8; 13].into();
    let mut ok = vec![0u8; 65535];
    assert!(c
        .encrypt_inout_detached(&nonce, b"", ok.as_mut_slice().into())
        .is_ok());
    let mut big = vec![0u8; 65536];
    assert!(c
        .encrypt_inout_detached(&nonce, b"", big.as_mut_slice().into())
        .is_err());
    assert!(big.iter().all(|&x| x == 0), "nothing encrypted");
    assert_eq!(
        aesx::Aes128Ccm::<U16, U13>::with_backend(&[0u8; 32], common::backend()).unwrap_err(),
        Error::InvalidKeyLength { len: 32 }
    );
}
