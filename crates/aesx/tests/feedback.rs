//! CFB128, CFB8 and OFB: NIST's CAVP files (vectors/nist/CFB, OFB) and a
//! random differential test against OpenSSL on every available backend (or
//! the one `AESX_BACKEND` names), all key sizes, lengths around block and
//! chunk boundaries, in place and out of place, in one call and in random
//! pieces, in both directions.

mod common;

use aesx::{Backend, Cfb, Cfb8, Ofb};
use common::ossl::evp;
use common::{backends, parse_rsp, random_bytes, vector_files};
use openssl::cipher::Cipher;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy, Debug)]
enum M {
    Cfb,
    Cfb8,
    Ofb,
}

impl M {
    fn ossl_name(self, key: &[u8]) -> String {
        let bits = key.len() * 8;
        match self {
            M::Cfb => format!("AES-{bits}-CFB"),
            M::Cfb8 => format!("AES-{bits}-CFB8"),
            M::Ofb => format!("AES-{bits}-OFB"),
        }
    }
}

/// One of the three modes, keyed, as a stream.
enum S {
    Cfb(Cfb),
    Cfb8(Cfb8),
    Ofb(Ofb),
}

impl S {
    fn new(m: M, key: &[u8], iv: &[u8], b: Backend) -> S {
        match m {
            M::Cfb => S::Cfb(Cfb::with_backend(key, iv, b).unwrap()),
            M::Cfb8 => S::Cfb8(Cfb8::with_backend(key, iv, b).unwrap()),
            M::Ofb => S::Ofb(Ofb::with_backend(key, iv, b).unwrap()),
        }
    }

    fn in_place(&mut self, enc: bool, buf: &mut [u8]) {
        match (self, enc) {
            (S::Cfb(c), true) => c.encrypt(buf),
            (S::Cfb(c), false) => c.decrypt(buf),
            (S::Cfb8(c), true) => c.encrypt(buf),
            (S::Cfb8(c), false) => c.decrypt(buf),
            (S::Ofb(o), _) => o.apply_keystream(buf),
        }
    }

    fn to(&mut self, enc: bool, src: &[u8], dst: &mut [u8]) {
        match (self, enc) {
            (S::Cfb(c), true) => c.encrypt_to(src, dst),
            (S::Cfb(c), false) => c.decrypt_to(src, dst),
            (S::Cfb8(c), true) => c.encrypt_to(src, dst),
            (S::Cfb8(c), false) => c.decrypt_to(src, dst),
            (S::Ofb(o), _) => o.apply_keystream_to(src, dst),
        }
        .unwrap()
    }
}

fn ossl(m: M, enc: bool, key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let cipher = Cipher::fetch(None, &m.ossl_name(key), None).unwrap();
    let mut c = evp(&cipher, key, Some(iv), enc);
    let mut out = vec![0u8; data.len() + 16];
    let n = c.cipher_update(data, Some(&mut out)).unwrap();
    let k = c.cipher_final(&mut out[n..]).unwrap();
    out.truncate(n + k);
    out
}

/// Every length to 80, then around block multiples and the 64-block chunk
/// the wide decryption works in.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=80).collect();
    for m in [8, 15, 16, 17, 63, 64, 65, 128, 129, 200] {
        v.extend([16 * m - 1, 16 * m, 16 * m + 1]);
    }
    v
}

fn cuts(rng: &mut StdRng, len: usize) -> Vec<usize> {
    let mut c = vec![0];
    let mut at = 0;
    while at < len {
        at = (at + rng.gen_range(1..=40usize.max(len / 3))).min(len);
        c.push(at);
    }
    c
}

#[test]
fn feedback_modes_agree_with_openssl() {
    let mut rng = StdRng::seed_from_u64(0x0cfb_00fb);
    for b in backends() {
        for m in [M::Cfb, M::Cfb8, M::Ofb] {
            for (i, len) in lengths().into_iter().enumerate() {
                let key = random_bytes(&mut rng, [16, 24, 32][i % 3]);
                let iv = random_bytes(&mut rng, 16);
                let pt = random_bytes(&mut rng, len);
                let ct = ossl(m, true, &key, &iv, &pt);
                assert_eq!(ossl(m, false, &key, &iv, &ct), pt);
                for (enc, src, want) in [(true, &pt, &ct), (false, &ct, &pt)] {
                    let ctx = format!("{b:?} {m:?} key {} len {len} enc {enc}", key.len());
                    // One call, out of place.
                    let mut out = vec![0u8; len];
                    S::new(m, &key, &iv, b).to(enc, src, &mut out);
                    assert_eq!(&out, want, "{ctx}: out of place");
                    // One call, in place.
                    let mut buf = src.clone();
                    S::new(m, &key, &iv, b).in_place(enc, &mut buf);
                    assert_eq!(&buf, want, "{ctx}: in place");
                    // Random pieces, alternating in place and out of place.
                    let c = cuts(&mut rng, len);
                    let mut s = S::new(m, &key, &iv, b);
                    let mut out = src.clone();
                    for (j, w) in c.windows(2).enumerate() {
                        if j % 2 == 0 {
                            s.in_place(enc, &mut out[w[0]..w[1]]);
                        } else {
                            let piece = src[w[0]..w[1]].to_vec();
                            s.to(enc, &piece, &mut out[w[0]..w[1]]);
                        }
                    }
                    assert_eq!(&out, want, "{ctx}: pieces {c:?}");
                }
            }
        }
    }
}

#[test]
fn nist_cavp_files() {
    let mut seen = 0;
    for (dir, prefix, m) in [
        ("nist/CFB", "CFB128", M::Cfb),
        ("nist/CFB", "CFB8", M::Cfb8),
        ("nist/OFB", "OFB", M::Ofb),
    ] {
        let files = vector_files(dir, |n| n.starts_with(prefix) && n.ends_with(".rsp"));
        assert_eq!(files.len(), 15, "{dir}/{prefix}*");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            // Sections decide the direction: records after [DECRYPT] start
            // from the ciphertext.
            let dec_at = text.find("[DECRYPT]").unwrap();
            let enc_recs = parse_rsp(&text[..dec_at]);
            let dec_recs = parse_rsp(&text[dec_at..]);
            assert!(!enc_recs.is_empty() && !dec_recs.is_empty());
            for b in backends() {
                for (enc, recs) in [(true, &enc_recs), (false, &dec_recs)] {
                    for r in recs.iter() {
                        let (key, iv) = (r.hex("KEY"), r.hex("IV"));
                        let (pt, ct) = (r.hex("PLAINTEXT"), r.hex("CIPHERTEXT"));
                        let (src, want) = if enc { (&pt, &ct) } else { (&ct, &pt) };
                        let mut out = src.clone();
                        S::new(m, &key, &iv, b).in_place(enc, &mut out);
                        assert_eq!(&out, want, "{} {b:?} enc {enc}", f.display());
                        seen += 1;
                    }
                }
            }
        }
    }
    assert!(seen > 0);
}

#[test]
fn bad_iv_is_an_error_not_a_panic() {
    let key = [7u8; 16];
    for n in [0, 8, 15, 17, 32] {
        let iv = vec![0u8; n];
        for e in [
            Cfb::new(&key, &iv).err(),
            Cfb8::new(&key, &iv).err(),
            Ofb::new(&key, &iv).err(),
        ] {
            let e = e.expect("a bad IV is refused");
            assert!(e.to_string().contains("IV"), "{e}");
        }
    }
    assert!(Cfb::new(&[0u8; 20], &[0u8; 16]).is_err());
    let mut c = Cfb::new(&key, &[0u8; 16]).unwrap();
    assert!(c.encrypt_to(&[0u8; 5], &mut [0u8; 4]).is_err());
    let mut o = Ofb::new(&key, &[0u8; 16]).unwrap();
    assert!(o.apply_keystream_to(&[0u8; 5], &mut [0u8; 6]).is_err());
}

/// SP 800-38A Appendix F.3.13 (CFB128-AES128.Encrypt) and F.4.1
/// (OFB-AES128.Encrypt), first block, as the RFC-style reference.
#[test]
fn sp800_38a_first_blocks() {
    let key = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
    let iv = hex::decode("000102030405060708090a0b0c0d0e0f").unwrap();
    let pt = hex::decode("6bc1bee22e409f96e93d7e117393172a").unwrap();
    let mut c = Cfb::new(&key, &iv).unwrap();
    assert_eq!(
        hex::encode(c.encrypt_vec(&pt)),
        "3b3fd92eb72dad20333449f8e83cfb4a"
    );
    let mut o = Ofb::new(&key, &iv).unwrap();
    assert_eq!(
        hex::encode(o.apply_keystream_vec(&pt)),
        "3b3fd92eb72dad20333449f8e83cfb4a"
    );
    let mut c8 = Cfb8::new(&key, &iv).unwrap();
    assert_eq!(hex::encode(c8.encrypt_vec(&pt[..2])), "3b79");
}
