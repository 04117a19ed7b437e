//! ECB and CBC against OpenSSL on every backend, without padding and with
//! PKCS#7: encryption of any message, decryption of any ciphertext. Every
//! bad padding is refused the same way (`Error::BadPadding`, output zeroed)
//! exactly when OpenSSL refuses it too.
#![no_main]

use aesx::{Cbc, Ecb, Error, Padding};
use aesx_fuzz::{backends, ossl, Bytes, Mode2};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((sel, key, mut b)) = Bytes::with_aes_key(data) else {
        return;
    };
    let iv: [u8; 16] = b.array();
    let cbc = sel & 0x80 != 0;
    let mode = if cbc { Mode2::Cbc } else { Mode2::Ecb };
    let ivo = cbc.then_some(&iv[..]);
    let msg = b.rest();
    let aligned = msg.len() % 16 == 0;

    let want_none = aligned.then(|| ossl(mode, true, &key, ivo, false, msg).unwrap());
    let want_pad = ossl(mode, true, &key, ivo, true, msg).unwrap();
    // `msg` read as a ciphertext.
    let dec_none = aligned.then(|| ossl(mode, false, &key, ivo, false, msg).unwrap());
    let dec_pad = ossl(mode, false, &key, ivo, true, msg);

    for backend in backends() {
        let enc = |p: Padding| -> aesx::Result<Vec<u8>> {
            if cbc {
                Cbc::with_backend(&key, backend)?.encrypt_vec(&iv, msg, p)
            } else {
                Ecb::with_backend(&key, backend)?.encrypt_vec(msg, p)
            }
        };
        let dec_into = |p: Padding, out: &mut [u8]| -> aesx::Result<usize> {
            if cbc {
                Cbc::with_backend(&key, backend)?.decrypt(&iv, msg, out, p)
            } else {
                Ecb::with_backend(&key, backend)?.decrypt(msg, out, p)
            }
        };
        match &want_none {
            Some(w) => assert_eq!(&enc(Padding::None).unwrap(), w, "{backend:?} {mode:?}"),
            None => assert_eq!(
                enc(Padding::None),
                Err(Error::NotBlockAligned { len: msg.len() })
            ),
        }
        let padded = enc(Padding::Pkcs7).unwrap();
        assert_eq!(padded, want_pad, "{backend:?} {mode:?} PKCS#7");

        let mut out = vec![0xa5u8; msg.len()];
        match (&dec_none, dec_into(Padding::None, &mut out)) {
            (Some(w), Ok(n)) => assert_eq!(&out[..n], &w[..]),
            (None, Err(Error::NotBlockAligned { .. })) => {}
            (w, r) => panic!("{backend:?} {mode:?} no padding: {r:?} vs OpenSSL {w:?}"),
        }
        let mut out = vec![0xa5u8; msg.len()];
        match (&dec_pad, dec_into(Padding::Pkcs7, &mut out)) {
            (Some(w), Ok(n)) => assert_eq!(&out[..n], &w[..], "{backend:?} unpadded"),
            (None, Err(Error::BadPadding)) => {
                assert!(out.iter().all(|&x| x == 0), "bad padding: output zeroed");
            }
            (None, Err(Error::NotBlockAligned { .. })) => assert!(!aligned),
            (w, r) => panic!("{backend:?} {mode:?} PKCS#7: {r:?} vs OpenSSL {w:?}"),
        }
        // And the round trip.
        let mut back = vec![0u8; padded.len()];
        let n = if cbc {
            Cbc::with_backend(&key, backend).unwrap().decrypt(
                &iv,
                &padded,
                &mut back,
                Padding::Pkcs7,
            )
        } else {
            Ecb::with_backend(&key, backend)
                .unwrap()
                .decrypt(&padded, &mut back, Padding::Pkcs7)
        }
        .unwrap();
        assert_eq!(&back[..n], msg);
    }
});
