//! IPsec ESP (RFC 4106): AArch64cryptolib's SL_functional_tests.rsp through
//! the ESP path with its CS checksums, on every available backend; ESP
//! against plain GCM; forged ICVs; argument checks.

mod common;

use aesx::ones_complement_checksum;
use aesx::{Backend, Error, Esp, Gcm};
use rand::{Rng, RngCore, SeedableRng};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).unwrap()
}

struct Sl {
    key: Vec<u8>,
    iv: Vec<u8>,
    pt: Vec<u8>,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
    cs: Option<Vec<u8>>,
}

impl Sl {
    /// Takes each hex field at the length its bracketed header gives (in
    /// bits): five records carry one hex digit more than `PTlen` says, and
    /// the header is the authority (vectors/SOURCES.md).
    fn from(r: &common::Record) -> Sl {
        let get = |name: &str, len: &str| {
            let bits: usize = r.headers[len].parse().unwrap();
            h(&r.fields[name][..bits / 4])
        };
        Sl {
            key: get("KEY", "KEYLEN"),
            iv: get("IV", "IVLEN"),
            pt: get("PT", "PTLEN"),
            aad: get("AAD", "AADLEN"),
            ct: get("CT", "PTLEN"),
            tag: get("TAG", "TAGLEN"),
            cs: r.fields.get("CS").map(|v| h(v)),
        }
    }
}

#[test]
fn sl_functional_tests_through_esp() {
    let path = common::vectors_dir().join("aarch64cryptolib/SL_functional_tests.rsp");
    let recs: Vec<Sl> = common::read_rsp(&path).iter().map(Sl::from).collect();
    assert_eq!(recs.len(), 46);
    let mut via_esp = 0;
    let mut checksums = 0;
    for b in common::backends() {
        for r in &recs {
            let cs =
                r.cs.as_ref()
                    .map(|c| u64::from_le_bytes(c[..8].try_into().unwrap()));
            if let Some(c) = cs {
                assert_eq!(ones_complement_checksum(&r.pt), c);
            }
            if matches!(r.aad.len(), 8 | 12) {
                // ESP: salt = first 4 bytes of the IV, ESP IV = last 8.
                let esp = Esp::with_backend(&r.key, &r.iv[..4], r.tag.len(), b).unwrap();
                let mut buf = r.pt.clone();
                let (tag, sum) = esp
                    .seal_in_place_with_checksum(&r.iv[4..], &r.aad, &mut buf)
                    .unwrap();
                assert_eq!(buf, r.ct, "{b}");
                assert_eq!(tag.as_bytes(), &r.tag[..], "{b}");
                let sum2 = esp
                    .open_in_place(&r.iv[4..], &r.aad, &mut buf, &r.tag)
                    .unwrap();
                assert_eq!(buf, r.pt);
                assert_eq!(sum, sum2);
                if let Some(c) = cs {
                    assert_eq!(sum2, c, "{b} CS");
                    checksums += 1;
                }
                via_esp += 1;
            } else {
                // AAD lengths ESP does not allow: plain GCM and the checksum.
                let gcm = Gcm::with_backend(&r.key, b).unwrap();
                let sealed = gcm.seal(&r.iv, &r.aad, &r.pt).unwrap();
                assert_eq!(&sealed[..r.pt.len()], &r.ct[..]);
                assert_eq!(&sealed[r.pt.len()..], &r.tag[..]);
            }
        }
    }
    let nb = common::backends().len();
    assert_eq!(via_esp, 41 * nb);
    assert!(checksums >= 37 * nb, "{checksums}");
}

#[test]
fn esp_equals_gcm_with_salted_nonce() {
    common::random_rounds(4106, 40, |rng, b, i| {
        let key_len = [16, 24, 32][i % 3];
        let tag_len = [8, 12, 16][i % 3];
        let mut key = vec![0u8; key_len];
        let mut salt = [0u8; 4];
        let mut iv = [0u8; 8];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut salt);
        rng.fill_bytes(&mut iv);
        let aad_len = if i % 2 == 0 { 8 } else { 12 };
        let mut aad = vec![0u8; aad_len];
        rng.fill_bytes(&mut aad);
        let len = if b == Backend::Soft {
            rng.gen_range(0..300)
        } else {
            rng.gen_range(0..9000)
        };
        let mut pt = vec![0u8; len];
        rng.fill_bytes(&mut pt);

        let esp = Esp::with_backend(&key, &salt, tag_len, b).unwrap();
        let gcm = Gcm::with_backend(&key, b)
            .unwrap()
            .with_tag_len(tag_len)
            .unwrap();
        let nonce: Vec<u8> = salt.iter().chain(iv.iter()).copied().collect();
        let want = gcm.seal(&nonce, &aad, &pt).unwrap();

        let mut buf = pt.clone();
        let (tag, sum) = esp
            .seal_in_place_with_checksum(&iv, &aad, &mut buf)
            .unwrap();
        assert_eq!(&buf[..], &want[..len]);
        assert_eq!(tag.as_bytes(), &want[len..]);
        assert_eq!(sum, ones_complement_checksum(&pt));
        let mut buf2 = pt.clone();
        assert_eq!(esp.seal_in_place(&iv, &aad, &mut buf2).unwrap(), tag);
        assert_eq!(buf2, buf);

        assert_eq!(
            esp.open_in_place(&iv, &aad, &mut buf, tag.as_bytes())
                .unwrap(),
            sum
        );
        assert_eq!(buf, pt);

        // A forged ICV: refused, packet zeroed.
        let mut bad = tag.as_bytes().to_vec();
        bad[i % tag_len] ^= 1;
        let mut f = want[..len].to_vec();
        assert_eq!(
            esp.open_in_place(&iv, &aad, &mut f, &bad),
            Err(Error::AuthenticationFailed)
        );
        assert!(f.iter().all(|&x| x == 0));
    });
}

/// Packets longer than the one-shot size take the chunked path: same bytes,
/// same checksum.
#[test]
fn esp_long_packets_chunked() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(65535);
    for b in common::backends() {
        let lens: &[usize] = if b == Backend::Soft {
            &[16385]
        } else {
            &[16383, 16384, 16385, 40000, 65535]
        };
        for &len in lens {
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let esp = Esp::with_backend(&[7u8; 32], &[9, 9, 9, 9], 16, b).unwrap();
            let gcm = Gcm::with_backend(&[7u8; 32], b).unwrap();
            let want = gcm
                .seal(&[9, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8], &[0u8; 12], &pt)
                .unwrap();
            let mut buf = pt.clone();
            let (tag, sum) = esp
                .seal_in_place_with_checksum(&[1, 2, 3, 4, 5, 6, 7, 8], &[0u8; 12], &mut buf)
                .unwrap();
            assert_eq!(&buf[..], &want[..len], "{b} {len}");
            assert_eq!(tag.as_bytes(), &want[len..]);
            assert_eq!(sum, ones_complement_checksum(&pt));
            let got = esp
                .open_in_place(
                    &[1, 2, 3, 4, 5, 6, 7, 8],
                    &[0u8; 12],
                    &mut buf,
                    tag.as_bytes(),
                )
                .unwrap();
            assert_eq!(got, sum);
            assert_eq!(buf, pt);
        }
    }
}

#[test]
fn esp_argument_checks() {
    let k = [0u8; 16];
    assert_eq!(
        Esp::new(&k, &[0; 4], 13).unwrap_err(),
        Error::InvalidTagLength { len: 13 }
    );
    assert!(Esp::new(&k, &[0; 3], 16).is_err());
    let esp = Esp::from_keying_material(&[5u8; 20], 12).unwrap();
    assert_eq!(esp.tag_len(), 12);
    let mut buf = [0u8; 10];
    assert_eq!(
        esp.seal_in_place(&[0; 8], &[0; 9], &mut buf).unwrap_err(),
        Error::InvalidAadLength { len: 9 }
    );
    assert!(matches!(
        esp.seal_in_place(&[0; 7], &[0; 8], &mut buf),
        Err(Error::InvalidIvLength {
            expected: 8,
            got: 7
        })
    ));
    assert_eq!(
        esp.open_in_place(&[0; 8], &[0; 8], &mut buf, &[0; 16]),
        Err(Error::InvalidTagLength { len: 16 })
    );
}
