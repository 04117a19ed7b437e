//! XAES-256-GCM (c2sp.org/XAES-256-GCM): the worked examples and the
//! 10,000-iteration accumulated test from `vectors/c2sp/xaes-256-gcm.txt`
//! on every available backend (the 1,000,000-iteration one is `#[ignore]`d:
//! run it with `cargo test --release -p aesx --test xaes -- --ignored`);
//! random differential tests against the construction rebuilt from
//! OpenSSL's AES-256-ECB and AES-256-GCM; API errors.

mod common;

use aesx::{Backend, Error, Xaes256Gcm};
use openssl::hash::{Hasher, MessageDigest};
use openssl::symm::{encrypt_aead, Cipher};
use rand::{Rng, RngCore, SeedableRng};

/// The file's fields: hex, or ASCII in double quotes.
fn field(text: &str, block: usize, name: &str) -> Vec<u8> {
    let rec = text
        .split("\n\n")
        .filter(|r| r.lines().any(|l| l.starts_with("K:")))
        .nth(block)
        .unwrap();
    let line = rec
        .lines()
        .find(|l| l.starts_with(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no {name}"));
    let v = line[name.len() + 1..].trim();
    match v.strip_prefix('"') {
        Some(s) => s.trim_end_matches('"').as_bytes().to_vec(),
        None => hex::decode(v).unwrap(),
    }
}

fn c2sp() -> String {
    std::fs::read_to_string(common::vectors_dir().join("c2sp/xaes-256-gcm.txt")).unwrap()
}

#[test]
fn worked_examples() {
    let text = c2sp();
    for i in 0..2 {
        let key = field(&text, i, "K");
        let nonce = field(&text, i, "N");
        let pt = field(&text, i, "Plaintext");
        let aad = field(&text, i, "AAD");
        let ct = field(&text, i, "Ciphertext");
        assert_eq!(reference_seal(&key, &nonce, &aad, &pt), ct, "reference");
        for b in common::backends() {
            let x = Xaes256Gcm::with_backend(&key, b).unwrap();
            assert_eq!(x.seal(&nonce, &aad, &pt).unwrap(), ct, "{b} example {i}");
            assert_eq!(x.open(&nonce, &aad, &ct).unwrap(), pt);
            let mut buf = pt.clone();
            let tag = x.seal_in_place_detached(&nonce, &aad, &mut buf).unwrap();
            assert_eq!(&buf[..], &ct[..pt.len()]);
            assert_eq!(tag.as_bytes(), &ct[pt.len()..]);
            x.open_in_place_detached(&nonce, &aad, &mut buf, tag.as_bytes())
                .unwrap();
            assert_eq!(buf, pt);
        }
    }
}

fn expected_accumulated(text: &str, iterations: usize) -> Vec<u8> {
    let key = format!("iterations {iterations}:");
    let line = text.lines().find(|l| l.starts_with(&key)).unwrap();
    hex::decode(line[key.len()..].trim()).unwrap()
}

/// The accumulated randomized test: SHAKE-128 (empty input) as the RNG,
/// every sealed message absorbed by a second SHAKE-128; each message is
/// also opened again.
fn accumulated(b: Backend, iterations: usize) -> Vec<u8> {
    let mut rng = Hasher::new(MessageDigest::shake_128()).unwrap();
    let mut acc = Hasher::new(MessageDigest::shake_128()).unwrap();
    let mut read = |n: usize| {
        let mut v = vec![0u8; n];
        if n > 0 {
            rng.squeeze_xof(&mut v).unwrap();
        }
        v
    };
    for _ in 0..iterations {
        let key = read(32);
        let nonce = read(24);
        let n = read(1)[0] as usize;
        let pt = read(n);
        let m = read(1)[0] as usize;
        let aad = read(m);
        let x = Xaes256Gcm::with_backend(&key, b).unwrap();
        let ct = x.seal(&nonce, &aad, &pt).unwrap();
        acc.update(&ct).unwrap();
        assert_eq!(x.open(&nonce, &aad, &ct).unwrap(), pt);
    }
    let mut out = vec![0u8; 32];
    acc.finish_xof(&mut out).unwrap();
    out
}

#[test]
fn accumulated_10000() {
    let text = c2sp();
    let want = expected_accumulated(&text, 10_000);
    for b in common::backends() {
        assert_eq!(accumulated(b, 10_000), want, "{b}");
    }
}

#[test]
#[ignore = "1,000,000 iterations: run in release mode with --ignored"]
fn accumulated_1000000() {
    let text = c2sp();
    let want = expected_accumulated(&text, 1_000_000);
    assert_eq!(accumulated(common::backend(), 1_000_000), want);
}

/// XAES-256-GCM rebuilt from the specification with OpenSSL's AES and GCM.
fn reference_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    let ecb = |b: &[u8]| {
        let mut c = openssl::symm::Crypter::new(
            Cipher::aes_256_ecb(),
            openssl::symm::Mode::Encrypt,
            key,
            None,
        )
        .unwrap();
        c.pad(false);
        let mut out = vec![0u8; b.len() + 16];
        let n = c.update(b, &mut out).unwrap();
        out.truncate(n);
        out
    };
    let l = ecb(&[0u8; 16]);
    let msb = l[0] >> 7;
    let mut k1 = u128::from_be_bytes(l.try_into().unwrap()) << 1;
    if msb == 1 {
        k1 ^= 0x87;
    }
    let k1 = k1.to_be_bytes();
    let mut m = Vec::new();
    for i in 1..=2u8 {
        let mut block = vec![0, i, b'X', 0];
        block.extend_from_slice(&nonce[..12]);
        for (x, k) in block.iter_mut().zip(&k1) {
            *x ^= k;
        }
        m.extend(block);
    }
    let kx = ecb(&m);
    let mut tag = [0u8; 16];
    let mut ct = encrypt_aead(
        Cipher::aes_256_gcm(),
        &kx,
        Some(&nonce[12..]),
        aad,
        pt,
        &mut tag,
    )
    .unwrap();
    ct.extend_from_slice(&tag);
    ct
}

#[test]
fn random_differential_vs_openssl() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xAE5_256);
    let mut lens: Vec<usize> = (0..=300).collect();
    for base in [512, 1024, 2048, 4096, 8192, 16384] {
        lens.extend([base - 17, base - 1, base, base + 1, base + 17]);
    }
    for b in common::backends() {
        for &len in &lens {
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let mut nonce = [0u8; 24];
            rng.fill_bytes(&mut nonce);
            let mut aad = vec![0u8; rng.gen_range(0..100)];
            rng.fill_bytes(&mut aad);
            let off = rng.gen_range(0..16);
            let mut store = vec![0u8; len + off];
            rng.fill_bytes(&mut store);
            let pt = &store[off..];
            let want = reference_seal(&key, &nonce, &aad, pt);
            let x = Xaes256Gcm::with_backend(&key, b).unwrap();
            assert_eq!(x.seal(&nonce, &aad, pt).unwrap(), want, "{b} {len}");
            let mut buf = pt.to_vec();
            let tag = x.seal_in_place_detached(&nonce, &aad, &mut buf).unwrap();
            assert_eq!(&buf[..], &want[..len]);
            assert_eq!(tag.as_bytes(), &want[len..]);
            let mut bad = want.clone();
            let bit = rng.gen_range(0..bad.len() * 8);
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(x.open(&nonce, &aad, &bad), Err(Error::AuthenticationFailed));
            let (bct, btag) = bad.split_at_mut(len);
            assert_eq!(
                x.open_in_place_detached(&nonce, &aad, bct, btag),
                Err(Error::AuthenticationFailed)
            );
            assert!(bct.iter().all(|&v| v == 0));
        }
    }
}

#[test]
fn api_errors() {
    let x = Xaes256Gcm::with_backend(&[1u8; 32], common::backend()).unwrap();
    common::aead_checks::assert_length_errors!(
        Xaes256Gcm,
        keys: [0, 16, 24, 31, 33],
        x,
        nonce: 24,
        bad: [0, 12, 16, 23, 25, 32]
    );
    assert_eq!(
        x.open_in_place_detached(&[0u8; 24], b"", &mut [0u8; 3], &[0u8; 12]),
        Err(Error::InvalidTagLength { len: 12 })
    );
    assert_eq!(
        x.open(&[0u8; 24], b"", &[0u8; 15]),
        Err(Error::AuthenticationFailed)
    );
    assert!(!format!("{x:?}").contains("01"));
}

/// `Xaes256Gcm` under `aead` 0.6's traits (24-byte nonces) agrees with the
/// inherent API and the worked example; forgeries zero the output.
#[test]
fn rustcrypto_traits() {
    use aesx::aead::{Aead, AeadCore, AeadInOut, KeyInit};
    let text = c2sp();
    let key: [u8; 32] = field(&text, 1, "K").try_into().unwrap();
    let nonce: [u8; 24] = field(&text, 1, "N").try_into().unwrap();
    let (pt, aad, ct) = (
        field(&text, 1, "Plaintext"),
        field(&text, 1, "AAD"),
        field(&text, 1, "Ciphertext"),
    );
    let x = <Xaes256Gcm as KeyInit>::new(&key.into());
    assert_eq!(
        <Xaes256Gcm as AeadCore>::TAG_POSITION,
        aead::TagPosition::Postfix
    );
    let got = x
        .encrypt(
            &nonce.into(),
            aead::Payload {
                msg: &pt,
                aad: &aad,
            },
        )
        .unwrap();
    assert_eq!(got, ct);
    let mut buf = ct[..pt.len()].to_vec();
    let tag: aead::Tag<Xaes256Gcm> = ct[pt.len()..].try_into().unwrap();
    x.decrypt_inout_detached(&nonce.into(), &aad, buf.as_mut_slice().into(), &tag)
        .unwrap();
    assert_eq!(buf, pt);
    let mut bad = tag;
    bad[15] ^= 0x40;
    let mut buf = ct[..pt.len()].to_vec();
    assert!(x
        .decrypt_inout_detached(&nonce.into(), &aad, buf.as_mut_slice().into(), &bad)
        .is_err());
    assert!(buf.iter().all(|&v| v == 0));
}

/// Each message's GHASH key holds only the powers of H its length needs
/// (AAD blocks + text blocks + 1): every length 0..=600 and the lengths
/// around the 16- and 32-block groups of the wide kernels, with AAD lengths
/// around the same boundaries, seal and open exactly as the reference.
#[test]
fn per_message_powers_every_length() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0905_7E55);
    let aads = [0usize, 1, 15, 16, 17, 100, 255, 256, 257, 511, 512, 513];
    let mut cases: Vec<(usize, usize)> = (0..=600).map(|n| (n, aads[n % aads.len()])).collect();
    for blocks in [15usize, 16, 17, 31, 32, 33, 63, 64, 65] {
        for len in [16 * blocks - 1, 16 * blocks, 16 * blocks + 1] {
            for &a in &aads {
                cases.push((len, a));
            }
        }
    }
    for b in common::backends() {
        for &(len, alen) in &cases {
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let mut nonce = [0u8; 24];
            rng.fill_bytes(&mut nonce);
            let mut aad = vec![0u8; alen];
            rng.fill_bytes(&mut aad);
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let want = reference_seal(&key, &nonce, &aad, &pt);
            let x = Xaes256Gcm::with_backend(&key, b).unwrap();
            assert_eq!(x.seal(&nonce, &aad, &pt).unwrap(), want, "{b} {len} {alen}");
            assert_eq!(x.open(&nonce, &aad, &want).unwrap(), pt, "{b} {len} {alen}");
            let (ct, tag) = want.split_at(len);
            let mut buf = ct.to_vec();
            x.open_in_place_detached(&nonce, &aad, &mut buf, tag)
                .unwrap();
            assert_eq!(buf, pt, "{b} {len} {alen}");
        }
    }
}
