//! AES-192-GCM-SIV as OpenSSL and pyca take it (RFC 8452's derivation with
//! a 24-byte message-encryption key): pyca's 46 vectors
//! (`vectors/pyca/aes-192-gcm-siv.txt`, from `cryptography-vectors`) on
//! every backend, sealing and opening, in place and out of place, and a
//! differential check against OpenSSL's `AES-192-GCM-SIV` where the linked
//! OpenSSL has it (3.2 and later).

mod common;

use aesx::GcmSiv;

#[test]
fn pyca_vectors() {
    let path = common::vectors_dir().join("pyca/aes-192-gcm-siv.txt");
    let recs = common::read_rsp(&path);
    assert_eq!(recs.len(), 46);
    let mut checked = 0;
    for b in common::backends() {
        for r in &recs {
            let key = r.hex("KEY");
            assert_eq!(key.len(), 24);
            let (nonce, pt) = (r.hex("IV"), r.hex("PLAINTEXT"));
            let aad = r
                .fields
                .get("AAD")
                .map(|_| r.hex("AAD"))
                .unwrap_or_default();
            let (ct, tag) = (r.hex("CIPHERTEXT"), r.hex("TAG"));
            let siv = GcmSiv::with_backend(&key, b).unwrap();
            assert_eq!(siv.key_size(), aesx::KeySize::Aes192);
            let mut want = ct.clone();
            want.extend_from_slice(&tag);
            let ctx = format!("{b:?} line {}", r.line);
            assert_eq!(siv.seal(&nonce, &aad, &pt).unwrap(), want, "{ctx}");
            let mut buf = pt.clone();
            let t = siv.seal_in_place_detached(&nonce, &aad, &mut buf).unwrap();
            assert_eq!((&buf, t.as_bytes()), (&ct, &tag[..]), "{ctx} in place");
            assert_eq!(siv.open(&nonce, &aad, &want).unwrap(), pt, "{ctx}");
            let mut out = vec![0u8; ct.len()];
            siv.open_to_detached(&nonce, &aad, &ct, &tag, &mut out)
                .unwrap();
            assert_eq!(out, pt, "{ctx} out of place");
            let mut bad = want.clone();
            *bad.last_mut().unwrap() ^= 1;
            assert!(siv.open(&nonce, &aad, &bad).is_err(), "{ctx} forged");
            checked += 1;
        }
    }
    assert!(checked >= 46);
}

#[test]
fn agrees_with_openssl_when_it_has_the_cipher() {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;
    let Ok(cipher) = Cipher::fetch(None, "AES-192-GCM-SIV", None) else {
        // The vendored OpenSSL predates GCM-SIV (3.2); the pyca vectors
        // above are the reference then.
        return;
    };
    let key: Vec<u8> = (0..24).collect();
    let nonce = [9u8; 12];
    for len in [0usize, 1, 16, 17, 64, 255, 1000] {
        let pt: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let aad = b"associated";
        let mut c = CipherCtx::new().unwrap();
        c.encrypt_init(Some(&cipher), Some(&key), Some(&nonce))
            .unwrap();
        c.cipher_update(aad, None).unwrap();
        let mut ct = vec![0u8; len + 16];
        let n = c.cipher_update(&pt, Some(&mut ct)).unwrap();
        let m = c.cipher_final(&mut ct[n..]).unwrap();
        ct.truncate(n + m);
        let mut tag = [0u8; 16];
        c.tag(&mut tag).unwrap();
        ct.extend_from_slice(&tag);
        for b in common::backends() {
            let siv = GcmSiv::with_backend(&key, b).unwrap();
            assert_eq!(siv.seal(&nonce, aad, &pt).unwrap(), ct, "{b:?} {len}");
        }
    }
}

/// `AesGcmSiv<Aes192>` through `aead`'s traits against RustCrypto's
/// `aes_gcm_siv::AesGcmSiv<aes::Aes192>`.
#[test]
fn rustcrypto_aes192_gcm_siv_matches_aes_gcm_siv() {
    use aesx::aead::{Aead, KeyInit};
    let key = [6u8; 24];
    let nonce = [5u8; 12];
    let ours = aesx::AesGcmSiv::<aesx::Aes192>::new(&key.into());
    let theirs = aes_gcm_siv::AesGcmSiv::<aes::Aes192>::new(&key.into());
    for len in [0usize, 1, 16, 17, 255] {
        let pt: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        let want = aes_gcm_siv::aead::Aead::encrypt(&theirs, &nonce.into(), pt.as_slice()).unwrap();
        let got = ours.encrypt(&nonce.into(), pt.as_slice()).unwrap();
        assert_eq!(got, want, "len {len}");
        assert_eq!(ours.decrypt(&nonce.into(), got.as_slice()).unwrap(), pt);
    }
}
