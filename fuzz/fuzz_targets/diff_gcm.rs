//! AES-GCM against OpenSSL on every backend: any key size, IV length
//! (OpenSSL takes 1 to 128 bytes; ours any non-empty one), AAD, message and
//! tag length. Then forgeries: one flipped bit anywhere in nonce, AAD,
//! ciphertext or tag is refused with the output zeroed, by us and by OpenSSL;
//! and the incremental encryptor, cut anywhere, gives the same bytes.
#![no_main]

use aesx::{Error, Gcm};
use aesx_fuzz::{backends, Bytes};
use libfuzzer_sys::fuzz_target;
use openssl::symm::{decrypt_aead, encrypt_aead, Cipher};

const TAG_LENS: [usize; 7] = [16, 15, 14, 13, 12, 8, 4];

fn ossl_cipher(key_len: usize) -> Cipher {
    match key_len {
        16 => Cipher::aes_128_gcm(),
        24 => Cipher::aes_192_gcm(),
        _ => Cipher::aes_256_gcm(),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((_, key, mut b)) = Bytes::with_aes_key(data) else {
        return;
    };
    let tag_sel = b.u8();
    // Mostly allowed lengths; sometimes any length 0..=17, which must be
    // refused unless allowed.
    let tag_len = if tag_sel & 0x80 == 0 {
        TAG_LENS[tag_sel as usize % TAG_LENS.len()]
    } else {
        tag_sel as usize % 18
    };
    let iv = b.short().to_vec();
    let aad = b.short().to_vec();
    let forge = b.u16();
    let cut = b.u16();
    let pt = b.rest();

    let mut first: Option<Vec<u8>> = None;
    for backend in backends() {
        let g = Gcm::with_backend(&key, backend).unwrap();
        let g = match g.with_tag_len(tag_len) {
            Ok(g) => g,
            Err(e) => {
                assert!(!TAG_LENS.contains(&tag_len));
                assert_eq!(e, Error::InvalidTagLength { len: tag_len });
                return;
            }
        };
        assert!(TAG_LENS.contains(&tag_len), "tag length {tag_len} accepted");
        if iv.is_empty() {
            assert_eq!(g.seal(&iv, &aad, pt), Err(Error::EmptyNonce));
            assert!(g.open(&iv, &aad, &[0u8; 16][..tag_len]).is_err());
            return;
        }
        let sealed = g.seal(&iv, &aad, pt).unwrap();
        assert_eq!(sealed.len(), pt.len() + tag_len);
        let (ct, tag) = sealed.split_at(pt.len());

        // Every backend gives the same bytes; OpenSSL too (once).
        match &first {
            Some(f) => assert_eq!(&sealed, f, "{backend:?} differs from the first backend"),
            None => {
                if iv.len() <= 128 {
                    let mut full = [0u8; 16];
                    let c = ossl_cipher(key.len());
                    let oct = encrypt_aead(c, &key, Some(&iv), &aad, pt, &mut full).unwrap();
                    assert_eq!(ct, &oct[..], "ciphertext vs OpenSSL");
                    assert_eq!(tag, &full[..tag_len], "tag vs OpenSSL (truncated)");
                    let back = decrypt_aead(c, &key, Some(&iv), &aad, ct, tag).unwrap();
                    assert_eq!(back, pt);
                }
                first = Some(sealed.clone());
            }
        }

        // Opens, in place and out of place.
        assert_eq!(g.open(&iv, &aad, &sealed).unwrap(), pt);
        let mut buf = sealed.clone();
        assert_eq!(g.open_in_place(&iv, &aad, &mut buf).unwrap(), pt);

        // Incremental encryption cut at any point.
        let at = cut as usize % (pt.len() + 1);
        let mut enc = g.encryptor(&iv).unwrap();
        let split = cut as usize % (aad.len() + 1);
        enc.aad(&aad[..split]).unwrap();
        enc.aad(&aad[split..]).unwrap();
        let mut inc = pt.to_vec();
        let (x, y) = inc.split_at_mut(at);
        enc.encrypt_in_place(x).unwrap();
        enc.encrypt_in_place(y).unwrap();
        assert_eq!(inc, ct);
        assert_eq!(enc.finish().as_bytes(), tag);

        // One flipped bit anywhere: refused, output zeroed.
        let total = (iv.len() + aad.len() + sealed.len()) * 8;
        let bit = forge as usize % total;
        let (mut fiv, mut faad, mut fsealed) = (iv.clone(), aad.clone(), sealed.clone());
        let byte = bit / 8;
        let mask = 1u8 << (bit % 8);
        if byte < iv.len() {
            fiv[byte] ^= mask;
        } else if byte < iv.len() + aad.len() {
            faad[byte - iv.len()] ^= mask;
        } else {
            fsealed[byte - iv.len() - aad.len()] ^= mask;
        }
        let mut out = vec![0xa5u8; pt.len()];
        assert_eq!(
            g.open_to(&fiv, &faad, &fsealed, &mut out),
            Err(Error::AuthenticationFailed)
        );
        assert!(out.iter().all(|&x| x == 0), "forged: output zeroed");
        let mut inplace = fsealed.clone();
        assert!(g.open_in_place(&fiv, &faad, &mut inplace).is_err());
        assert!(inplace.iter().all(|&x| x == 0), "forged: buffer zeroed");
        if fiv.len() <= 128 {
            let (fct, ftag) = fsealed.split_at(pt.len());
            assert!(
                decrypt_aead(ossl_cipher(key.len()), &key, Some(&fiv), &faad, fct, ftag).is_err(),
                "OpenSSL accepted the forgery too?"
            );
        }
        // A tag of the wrong length is refused, not compared short.
        let mut body = ct.to_vec();
        assert!(g
            .open_in_place_detached(&iv, &aad, &mut body, &tag[..tag_len - 1])
            .is_err());
    }
});
