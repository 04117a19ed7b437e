//! AES-CMAC: the SP 800-38B (RFC 4493) examples, Wycheproof's
//! `aes_cmac_test.json` on every backend, and random differential tests
//! against OpenSSL's CMAC with the message streamed in random pieces.

mod common;
mod wycheproof;

use aesx::{Cmac, Error};
use openssl::pkey::PKey;
use openssl::sign::Signer;
use openssl::symm::Cipher;
use rand::{Rng, RngCore, SeedableRng};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

#[test]
fn sp800_38b_examples() {
    // The SP 800-38A message and keys; tags for message lengths 0, 16, 40
    // and 64 bytes under each key.
    let msg = h(common::SP800_38A_PT);
    let tags = [
        [
            "bb1d6929e95937287fa37d129b756746",
            "070a16b46b4d4144f79bdd9dd04a287c",
            "dfa66747de9ae63030ca32611497c827",
            "51f0bebf7e3b9d92fc49741779363cfe",
        ],
        [
            "d17ddf46adaacde531cac483de7a9367",
            "9e99a7bf31e710900662f65e617c5184",
            "8a1de5be2eb31aad089a82e6ee908b0e",
            "a1d5df0eed790f794d77589659f39a11",
        ],
        [
            "028962f61b7bf89efc6b551f4667d983",
            "28a7023f452e8f82bd4bf28d8c37c35c",
            "aaf3d8f1de5640c232f5b169b9c911e6",
            "e1992190549f6ed5696a2c056c315410",
        ],
    ];
    for b in common::backends() {
        for (key, tags) in common::SP800_38A_KEYS.into_iter().zip(tags) {
            let cmac = Cmac::with_backend(&h(key), b).unwrap();
            assert_eq!(cmac.backend(), b);
            for (len, tag) in [0, 16, 40, 64].into_iter().zip(tags) {
                assert_eq!(hex::encode(cmac.mac(&msg[..len])), tag, "{b} {len}");
                cmac.verify(&msg[..len], &h(tag)).unwrap();
            }
        }
    }
}

#[test]
fn wycheproof_aes_cmac() {
    let checked = wycheproof::check("aes_cmac_test.json", &common::backends(), |b, c| {
        let (key, msg, tag) = (c.hex("key"), c.hex("msg"), c.hex("tag"));
        let cmac = match Cmac::with_backend(&key, b) {
            Ok(x) => x,
            Err(e) => {
                assert!(c.invalid(), "{b} tc {}", c.id());
                assert_eq!(e, Error::InvalidKeyLength { len: key.len() });
                return false;
            }
        };
        let r = cmac.verify(&msg, &tag);
        if c.invalid() {
            assert_eq!(r, Err(Error::AuthenticationFailed), "{b} tc {}", c.id());
        } else {
            r.unwrap();
            let full = cmac.mac(&msg);
            assert_eq!(&full[..tag.len()], &tag[..], "{b} tc {}", c.id());
        }
        true
    });
    assert!(checked >= 300);
}

fn openssl_cmac(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let cipher = match key.len() {
        16 => Cipher::aes_128_cbc(),
        24 => Cipher::aes_192_cbc(),
        _ => Cipher::aes_256_cbc(),
    };
    let pkey = PKey::cmac(&cipher, key).unwrap();
    let mut s = Signer::new_without_digest(&pkey).unwrap();
    s.update(msg).unwrap();
    s.sign_to_vec().unwrap()
}

#[test]
fn random_streaming_against_openssl() {
    common::random_rounds(0x38b, 400, |rng, b, round| {
        let key = common::key_for(rng, round);
        let len = match round % 4 {
            0 => rng.gen_range(0..=300),
            1 => 16 * rng.gen_range(0..=20),
            2 => rng.gen_range(0..=5000),
            _ => rng.gen_range(0..=40),
        };
        let msg = common::random_bytes(rng, len);
        let want = openssl_cmac(&key, &msg);
        let cmac = Cmac::with_backend(&key, b).unwrap();
        assert_eq!(cmac.mac(&msg).to_vec(), want, "{b} len {len}");

        // The same message in random pieces (empty ones included).
        let mut hs = cmac.hasher();
        let mut rest = &msg[..];
        while !rest.is_empty() {
            let n = match rng.gen_range(0..4) {
                0 => 0,
                1 => 16,
                _ => rng.gen_range(1..=rest.len().min(70)),
            }
            .min(rest.len());
            hs.update(&rest[..n]);
            rest = &rest[n..];
        }
        let copy = hs.clone();
        assert_eq!(hs.finalize().to_vec(), want, "{b} len {len} streamed");

        // Truncated tags verify on their own length; a wrong byte fails.
        let t = rng.gen_range(1..=16);
        copy.verify(&want[..t]).unwrap();
        let mut bad = want[..t].to_vec();
        bad[rng.gen_range(0..t)] ^= 1;
        assert_eq!(cmac.verify(&msg, &bad), Err(Error::AuthenticationFailed));
    });
}

#[test]
fn tag_lengths_are_checked() {
    let cmac = Cmac::with_backend(&[1u8; 16], common::backend()).unwrap();
    let tag = cmac.mac(b"x");
    assert_eq!(
        cmac.verify(b"x", &[]),
        Err(Error::InvalidTagLength { len: 0 })
    );
    let mut long = tag.to_vec();
    long.push(0);
    assert_eq!(
        cmac.verify(b"x", &long),
        Err(Error::InvalidTagLength { len: 17 })
    );
    assert_eq!(cmac.hasher().verify(&tag), Err(Error::AuthenticationFailed));
    for len in [0, 8, 15, 33] {
        assert_eq!(
            Cmac::new(&vec![0u8; len]).unwrap_err(),
            Error::InvalidKeyLength { len }
        );
    }
}

/// RustCrypto's `cmac` crate runs over aesx's block cipher (`cipher` 0.5's
/// traits on `aesx::Aes128`/`Aes256`) and gives our tags.
#[test]
fn rustcrypto_cmac_over_aesx_block_cipher() {
    use cmac::{KeyInit, Mac};
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xb10c);
    for len in [0usize, 1, 16, 17, 100, 4096] {
        let mut msg = vec![0u8; len];
        rng.fill_bytes(&mut msg);
        let mut k = [0u8; 32];
        rng.fill_bytes(&mut k);

        let mut m = <cmac::Cmac<aesx::Aes128> as KeyInit>::new_from_slice(&k[..16]).unwrap();
        m.update(&msg);
        let want = Cmac::new(&k[..16]).unwrap().mac(&msg);
        assert_eq!(m.finalize().into_bytes().as_slice(), &want[..]);

        let mut m = <cmac::Cmac<aesx::Aes256> as KeyInit>::new_from_slice(&k).unwrap();
        m.update(&msg);
        m.verify_slice(&Cmac::new(&k).unwrap().mac(&msg)).unwrap();
    }
}

/// A hasher that owns its key (`into_hasher`, for holders that cannot keep a
/// borrow) gives the same tags as the borrowing one, across clones.
#[test]
fn owned_hasher_matches_borrowed() {
    let key = h(common::SP800_38A_KEYS[0]);
    let msg: Vec<u8> = (0..100u8).collect();
    for b in common::backends() {
        let cmac = Cmac::with_backend(&key, b).unwrap();
        let want = cmac.mac(&msg);
        let mut owned = cmac.clone().into_hasher();
        drop(cmac);
        owned.update(&msg[..37]);
        let mut copy = owned.clone();
        owned.update(&msg[37..]);
        copy.update(&msg[37..]);
        assert_eq!(owned.finalize(), want, "{b}");
        assert!(copy.verify(&want[..8]).is_ok(), "{b}");
    }
}
