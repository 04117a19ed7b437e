//! XTS-AES: NIST CAVP (both tweak forms), Wycheproof, random differential
//! tests against OpenSSL (every data-unit length from 16 to 4096 bytes, so
//! every ciphertext-stealing case), multi-sector buffers against per-sector
//! OpenSSL, in place / out of place / unaligned, and every error path; all on
//! every backend this machine has.

mod common;

use std::fs;
use std::path::PathBuf;

use aesx::{Aes, Backend, Error, Schedule, Xts};
use common::random_bytes;
use openssl::symm::{Cipher, Crypter, Mode};
use rand::{Rng, RngCore, SeedableRng};

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

fn backends() -> Vec<Backend> {
    common::backends()
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).unwrap()
}

fn ossl_cipher(key_len: usize) -> Cipher {
    match key_len {
        32 => Cipher::aes_128_xts(),
        64 => Cipher::aes_256_xts(),
        _ => unreachable!(),
    }
}

/// One data unit through OpenSSL.
fn ossl(encrypt: bool, key: &[u8], tweak: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mode = if encrypt {
        Mode::Encrypt
    } else {
        Mode::Decrypt
    };
    let mut c = Crypter::new(ossl_cipher(key.len()), mode, key, Some(tweak)).unwrap();
    let mut out = vec![0u8; data.len() + 32];
    let mut n = c.update(data, &mut out).unwrap();
    n += c.finalize(&mut out[n..]).unwrap();
    out.truncate(n);
    out
}

fn mul_x(t: &mut [u8; 16]) {
    let v = u128::from_le_bytes(*t);
    *t = ((v << 1) ^ if v >> 127 == 1 { 0x87 } else { 0 }).to_le_bytes();
}

/// A straightforward reference (IEEE 1619 section 5.3) on `aesx::Aes` single
/// blocks, for the cases OpenSSL will not do (equal key halves).
fn reference(encrypt: bool, key: &[u8], tweak: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let half = key.len() / 2;
    let k1 = Aes::with_backend(&key[..half], Backend::Soft).unwrap();
    let k2 = Aes::with_backend(&key[half..], Backend::Soft).unwrap();
    let mut t = *tweak;
    k2.encrypt_block(&mut t);
    let one = |t: &[u8; 16], b: &[u8]| -> [u8; 16] {
        let mut x = [0u8; 16];
        for i in 0..16 {
            x[i] = b[i] ^ t[i];
        }
        if encrypt {
            k1.encrypt_block(&mut x);
        } else {
            k1.decrypt_block(&mut x);
        }
        for i in 0..16 {
            x[i] ^= t[i];
        }
        x
    };
    let m = data.len() / 16;
    let r = data.len() % 16;
    let mut out = vec![0u8; data.len()];
    let plain = if r == 0 { m } else { m - 1 };
    for j in 0..plain {
        out[16 * j..16 * j + 16].copy_from_slice(&one(&t, &data[16 * j..16 * j + 16]));
        mul_x(&mut t);
    }
    if r != 0 {
        let (t1, mut t2) = (t, t);
        mul_x(&mut t2);
        let (first, second) = if encrypt { (t1, t2) } else { (t2, t1) };
        let base = 16 * (m - 1);
        let cc = one(&first, &data[base..base + 16]);
        let mut pp = [0u8; 16];
        pp[..r].copy_from_slice(&data[base + 16..]);
        pp[r..].copy_from_slice(&cc[r..]);
        out[base + 16..].copy_from_slice(&cc[..r]);
        out[base..base + 16].copy_from_slice(&one(&second, &pp));
    }
    out
}

// ---------------------------------------------------------------- NIST CAVP

struct NistRecord {
    encrypt: bool,
    bits: usize,
    key: Vec<u8>,
    tweak: [u8; 16],
    pt: Vec<u8>,
    ct: Vec<u8>,
}

impl NistRecord {
    fn from(r: &common::Record) -> NistRecord {
        assert!(r.fields.contains_key("COUNT"), "line {}: no COUNT", r.line);
        let tweak = match (r.fields.get("I"), r.fields.get("DATAUNITSEQNUMBER")) {
            (Some(_), None) => r.block("I"),
            (None, Some(n)) => Xts::sector_tweak(n.parse::<u128>().unwrap()),
            _ => panic!("line {}: record without a tweak", r.line),
        };
        NistRecord {
            encrypt: r.section == "ENCRYPT",
            bits: r.number("DATAUNITLEN") as usize,
            key: r.hex("KEY"),
            tweak,
            pt: r.hex("PT"),
            ct: r.hex("CT"),
        }
    }
}

fn run_nist(variant: &str) {
    let mut total = 0;
    let mut skipped = 0;
    for file in ["XTSGenAES128.rsp", "XTSGenAES256.rsp"] {
        let path = vectors().join("nist/XTS").join(variant).join(file);
        let records: Vec<NistRecord> = common::read_rsp(&path)
            .iter()
            .map(NistRecord::from)
            .collect();
        assert_eq!(records.len(), 1000, "{}", path.display());
        for backend in backends() {
            for r in &records {
                if r.bits % 8 != 0 {
                    continue;
                }
                assert_eq!(r.bits, r.pt.len() * 8);
                let xts = Xts::with_backend(&r.key, backend).unwrap();
                let mut buf = r.pt.clone();
                if r.encrypt {
                    xts.encrypt(&r.tweak, &mut buf).unwrap();
                    assert_eq!(buf, r.ct, "{backend} {file} encrypt");
                }
                let mut buf = r.ct.clone();
                xts.decrypt(&r.tweak, &mut buf).unwrap();
                assert_eq!(buf, r.pt, "{backend} {file} decrypt");
            }
        }
        total += records.len();
        skipped += records.iter().filter(|r| r.bits % 8 != 0).count();
    }
    // 130-bit (AES-128 file), 140- and 250-bit (AES-256 file) data units are
    // not whole bytes: the byte-oriented API cannot express them. 200
    // records of each (100 encrypt, 100 decrypt).
    assert_eq!(total, 2000);
    assert_eq!(skipped, 600, "non-byte data units skipped");
    println!(
        "{variant}: {} checked, {skipped} non-byte data units skipped",
        total - skipped
    );
}

#[test]
fn nist_tweak_128hexstr() {
    run_nist("tweak-128hexstr");
}

#[test]
fn nist_tweak_dataunitseqno() {
    run_nist("tweak-dataunitseqno");
}

// --------------------------------------------------------------- Wycheproof

#[test]
fn wycheproof() {
    let text = fs::read_to_string(vectors().join("wycheproof/aes_xts_test.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    let mut refused_192 = 0;
    for backend in backends() {
        checked = 0;
        refused_192 = 0;
        for group in doc["testGroups"].as_array().unwrap() {
            for t in group["tests"].as_array().unwrap() {
                let key = h(t["key"].as_str().unwrap());
                let iv = h(t["iv"].as_str().unwrap());
                let msg = h(t["msg"].as_str().unwrap());
                let ct = h(t["ct"].as_str().unwrap());
                assert_eq!(t["result"], "valid");
                if key.len() == 48 {
                    // XTS-AES-192 is not in IEEE 1619; aesx refuses it.
                    assert_eq!(
                        Xts::with_backend(&key, backend).unwrap_err(),
                        Error::InvalidKeyLength { len: 48 }
                    );
                    refused_192 += 1;
                    continue;
                }
                // Shorter IVs are the low bytes of the 16-byte tweak (the
                // little-endian data-unit number of IEEE 1619).
                assert!(iv.len() <= 16);
                let mut tweak = [0u8; 16];
                tweak[..iv.len()].copy_from_slice(&iv);
                let xts = Xts::with_backend(&key, backend).unwrap();
                let mut buf = msg.clone();
                xts.encrypt(&tweak, &mut buf).unwrap();
                assert_eq!(buf, ct, "{backend} tcId {}", t["tcId"]);
                xts.decrypt(&tweak, &mut buf).unwrap();
                assert_eq!(buf, msg, "{backend} tcId {}", t["tcId"]);
                checked += 1;
            }
        }
    }
    assert_eq!(checked + refused_192, 123);
    assert_eq!(refused_192, 41);
}

// ------------------------------------------------------------- differential

/// Every data-unit length from 16 to 4096 bytes against OpenSSL, on every
/// backend (so every ciphertext-stealing case).
#[test]
fn differential_every_length() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5854_5331);
    for backend in backends() {
        for key_len in [32usize, 64] {
            for len in 16..=4096usize {
                let key = random_bytes(&mut rng, key_len);
                let tweak: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
                let pt = random_bytes(&mut rng, len);
                let want = ossl(true, &key, &tweak, &pt);
                let xts = Xts::with_backend(&key, backend).unwrap();
                let mut buf = pt.clone();
                xts.encrypt(&tweak, &mut buf).unwrap();
                assert_eq!(buf, want, "{backend} key {key_len} len {len} encrypt");
                xts.decrypt(&tweak, &mut buf).unwrap();
                assert_eq!(buf, pt, "{backend} key {key_len} len {len} decrypt");
            }
        }
    }
}

/// Every core schedule (forced: CPUID picks one per machine) on every
/// backend, against OpenSSL, at lengths around the eight-block batches of
/// the AES-NI kernel and its tails. The schedules differ in instruction
/// order only, so a test running beside this one under a forced schedule
/// still sees correct output.
#[test]
fn every_schedule_matches_openssl() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5343_4845);
    let lens = [16usize, 127, 128, 129, 143, 255, 256, 257, 1500, 4096, 4099];
    for schedule in Schedule::ALL {
        Schedule::force(Some(schedule));
        for backend in backends() {
            for key_len in [32usize, 64] {
                for len in lens {
                    let key = random_bytes(&mut rng, key_len);
                    let tweak: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
                    let pt = random_bytes(&mut rng, len);
                    let want = ossl(true, &key, &tweak, &pt);
                    let xts = Xts::with_backend(&key, backend).unwrap();
                    let mut buf = pt.clone();
                    xts.encrypt(&tweak, &mut buf).unwrap();
                    let what = format!("{schedule} {backend} key {key_len} len {len}");
                    assert_eq!(buf, want, "{what} encrypt");
                    xts.decrypt(&tweak, &mut buf).unwrap();
                    assert_eq!(buf, pt, "{what} decrypt");
                }
            }
        }
    }
    Schedule::force(None);
}

/// Decrypting random data (not produced by encryption) matches OpenSSL too,
/// so a decrypt kernel cannot hide behind a matching encrypt bug.
#[test]
fn differential_decrypt_random() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xdec);
    for backend in backends() {
        for key_len in [32usize, 64] {
            for &len in &[
                16usize, 17, 31, 32, 63, 64, 65, 255, 256, 257, 511, 512, 4095, 4096,
            ] {
                let key = random_bytes(&mut rng, key_len);
                let tweak: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
                let ct = random_bytes(&mut rng, len);
                let xts = Xts::with_backend(&key, backend).unwrap();
                let mut buf = ct.clone();
                xts.decrypt(&tweak, &mut buf).unwrap();
                assert_eq!(buf, ossl(false, &key, &tweak, &ct), "{backend} {len}");
            }
        }
    }
}

/// Buffers of many consecutive sectors against OpenSSL called per sector
/// with the sector number as the IV.
#[test]
fn sectors_against_openssl_per_sector() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5ec7);
    let shapes: &[(usize, usize)] = &[
        (16, 1),
        (16, 33),
        (32, 70),
        (48, 5),
        (208, 40),
        (512, 1),
        (512, 8),
        (512, 65),
        (528, 3),
        (4096, 1),
        (4096, 9),
        (65536, 2),
    ];
    for backend in backends() {
        for key_len in [32usize, 64] {
            for &(size, count) in shapes {
                let mut key = vec![0u8; key_len];
                rng.fill_bytes(&mut key);
                let first: u128 = match rng.gen_range(0..3) {
                    0 => rng.gen::<u64>() as u128,
                    1 => rng.gen::<u128>() >> 1,
                    _ => 0,
                };
                let mut pt = vec![0u8; size * count];
                rng.fill_bytes(&mut pt);
                let mut want = Vec::new();
                for (j, sector) in pt.chunks(size).enumerate() {
                    let tweak = (first + j as u128).to_le_bytes();
                    want.extend(ossl(true, &key, &tweak, sector));
                }
                let xts = Xts::with_backend(&key, backend).unwrap();
                let mut buf = pt.clone();
                xts.encrypt_sectors(size, first, &mut buf).unwrap();
                assert_eq!(buf, want, "{backend} {key_len} {size}x{count}");
                // Any sector of the image decrypts alone with its number.
                let j = rng.gen_range(0..count);
                let mut one = buf[j * size..(j + 1) * size].to_vec();
                xts.decrypt_sector(first + j as u128, &mut one).unwrap();
                assert_eq!(one, &pt[j * size..(j + 1) * size]);
                xts.decrypt_sectors(size, first, &mut buf).unwrap();
                assert_eq!(buf, pt, "{backend} {key_len} {size}x{count} decrypt");
                // Out of place gives the same bytes.
                let mut out = vec![0u8; pt.len()];
                xts.encrypt_sectors_to(size, first, &pt, &mut out).unwrap();
                assert_eq!(out, want);
                let mut back = vec![0u8; pt.len()];
                xts.decrypt_sectors_to(size, first, &out, &mut back)
                    .unwrap();
                assert_eq!(back, pt);
            }
        }
    }
}

/// Tweaks from sector numbers are the 128-bit little-endian encoding.
#[test]
fn sector_tweak_is_little_endian() {
    let t = Xts::sector_tweak(0x0102);
    assert_eq!(&t[..3], &[0x02, 0x01, 0x00]);
    assert!(t[3..].iter().all(|&b| b == 0));
}

/// In place, out of place and unaligned buffers all give the same bytes.
#[test]
fn in_place_out_of_place_unaligned() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for backend in backends() {
        let mut key = [0u8; 64];
        rng.fill_bytes(&mut key);
        let xts = Xts::with_backend(&key, backend).unwrap();
        for &len in &[16usize, 20, 48, 255, 256, 257, 1000, 4100] {
            let mut tweak = [0u8; 16];
            rng.fill_bytes(&mut tweak);
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let mut inplace = pt.clone();
            xts.encrypt(&tweak, &mut inplace).unwrap();
            assert_eq!(inplace, reference(true, &key, &tweak, &pt));
            for (so, d_off) in [(1usize, 3usize), (5, 0), (0, 7), (15, 9)] {
                let mut src = vec![0u8; len + so];
                src[so..].copy_from_slice(&pt);
                let mut dst = vec![0u8; len + d_off];
                xts.encrypt_to(&tweak, &src[so..], &mut dst[d_off..])
                    .unwrap();
                assert_eq!(&dst[d_off..], &inplace[..], "{backend} {len} {so} {d_off}");
                let mut back = vec![0u8; len + so];
                xts.decrypt_to(&tweak, &dst[d_off..], &mut back[so..])
                    .unwrap();
                assert_eq!(&back[so..], &pt[..]);
                // Unaligned in place.
                xts.encrypt(&tweak, &mut src[so..]).unwrap();
                assert_eq!(&src[so..], &inplace[..]);
                xts.decrypt(&tweak, &mut src[so..]).unwrap();
                assert_eq!(&src[so..], &pt[..]);
            }
        }
    }
}

/// The same sectors, split across several calls, give the same bytes.
#[test]
fn sectors_split_across_calls() {
    for backend in backends() {
        let key: Vec<u8> = (0..32u8).collect();
        let xts = Xts::with_backend(&key, backend).unwrap();
        let pt: Vec<u8> = (0..512 * 40).map(|i| (i * 7) as u8).collect();
        let mut whole = pt.clone();
        xts.encrypt_sectors(512, 100, &mut whole).unwrap();
        let mut parts = pt.clone();
        let (a, b) = parts.split_at_mut(512 * 13);
        xts.encrypt_sectors(512, 100, a).unwrap();
        xts.encrypt_sectors(512, 113, b).unwrap();
        assert_eq!(parts, whole);
    }
}

// ------------------------------------------------------------------ errors

#[test]
fn equal_halves_refused_for_encryption_only() {
    for backend in backends() {
        for half in [16usize, 32] {
            let mut key = vec![0x3cu8; 2 * half];
            key[0] = 9;
            key[half] = 9;
            let xts = Xts::with_backend(&key, backend).unwrap();
            let mut buf = vec![1u8; 100];
            assert_eq!(
                xts.encrypt(&[0; 16], &mut buf),
                Err(Error::XtsEqualKeyHalves)
            );
            assert_eq!(buf, vec![1u8; 100], "nothing written on refusal");
            assert_eq!(
                xts.encrypt_sectors(16, 0, &mut buf[..96]),
                Err(Error::XtsEqualKeyHalves)
            );
            assert_eq!(
                xts.encrypt_sector(3, &mut buf),
                Err(Error::XtsEqualKeyHalves)
            );
            let mut out = vec![0u8; 100];
            assert_eq!(
                xts.encrypt_to(&[0; 16], &buf, &mut out),
                Err(Error::XtsEqualKeyHalves)
            );
            // Decryption is allowed (documented) and correct.
            let want = reference(false, &key, &[0; 16], &buf);
            xts.decrypt(&[0; 16], &mut buf).unwrap();
            assert_eq!(buf, want);
            // Halves differing in their last byte are fine.
            key[2 * half - 1] ^= 1;
            let xts = Xts::with_backend(&key, backend).unwrap();
            xts.encrypt(&[0; 16], &mut buf).unwrap();
        }
    }
}

#[test]
fn bad_lengths_rejected() {
    for backend in backends() {
        let key = [0x11u8; 16]
            .iter()
            .chain([0x22u8; 16].iter())
            .copied()
            .collect::<Vec<_>>();
        let xts = Xts::with_backend(&key, backend).unwrap();
        for len in 0..16 {
            let mut buf = vec![0u8; len];
            let e = Err(Error::InvalidDataUnitLength { len });
            assert_eq!(xts.encrypt(&[0; 16], &mut buf), e);
            assert_eq!(xts.decrypt(&[0; 16], &mut buf), e);
            assert_eq!(xts.encrypt_sector(0, &mut buf), e);
        }
        // 2^20 blocks is the limit; one byte more is refused.
        let mut big = vec![0u8; (1 << 24) + 1];
        assert_eq!(
            xts.encrypt(&[0; 16], &mut big),
            Err(Error::InvalidDataUnitLength { len: (1 << 24) + 1 })
        );
        // The longest unit itself is accepted (a round trip on the hardware
        // backends only: 16 MiB through the soft placeholder is slow).
        big.truncate(1 << 24);
        if backend != Backend::Soft {
            xts.encrypt(&[0; 16], &mut big).unwrap();
            xts.decrypt(&[0; 16], &mut big).unwrap();
            assert!(big.iter().all(|&b| b == 0));
        }
        let mut out = vec![0u8; 40];
        assert_eq!(
            xts.encrypt_to(&[0; 16], &[0u8; 41], &mut out),
            Err(Error::LengthMismatch {
                input: 41,
                output: 40
            })
        );
    }
    for len in [0usize, 16, 24, 31, 33, 48, 63, 65, 128] {
        assert_eq!(
            Xts::with_backend(&vec![1u8; len], Backend::Soft).unwrap_err(),
            Error::InvalidKeyLength { len }
        );
    }
}

#[test]
fn sector_errors() {
    for backend in backends() {
        let key: Vec<u8> = (0..64u8).collect();
        let xts = Xts::with_backend(&key, backend).unwrap();
        let mut buf = vec![0u8; 4096];
        for size in [0usize, 1, 8, 15, 17, 24, 520, 4095, (1 << 24) + 16] {
            assert_eq!(
                xts.encrypt_sectors(size, 0, &mut buf),
                Err(Error::InvalidSectorSize { size })
            );
            assert_eq!(
                xts.decrypt_sectors(size, 0, &mut buf),
                Err(Error::InvalidSectorSize { size })
            );
        }
        assert_eq!(
            xts.encrypt_sectors(512, 0, &mut buf[..1000]),
            Err(Error::PartialSector {
                len: 1000,
                sector_size: 512
            })
        );
        assert_eq!(
            xts.encrypt_sectors(4096, 0, &mut buf[..512]),
            Err(Error::PartialSector {
                len: 512,
                sector_size: 4096
            })
        );
        // Empty is a no-op; the last sector number is allowed, one past is
        // not.
        xts.encrypt_sectors(512, 5, &mut []).unwrap();
        xts.encrypt_sectors(512, u128::MAX, &mut buf[..512])
            .unwrap();
        assert_eq!(
            xts.encrypt_sectors(512, u128::MAX, &mut buf[..1024]),
            Err(Error::CounterOverflow)
        );
        let mut out = vec![0u8; 1024];
        assert_eq!(
            xts.encrypt_sectors_to(512, 0, &buf[..512], &mut out),
            Err(Error::LengthMismatch {
                input: 512,
                output: 1024
            })
        );
    }
}

#[test]
fn all_backends_agree() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    let mut key = [0u8; 64];
    rng.fill_bytes(&mut key);
    let mut pt = vec![0u8; 16 * 300 + 5];
    rng.fill_bytes(&mut pt);
    let mut results = Vec::new();
    for backend in backends() {
        let xts = Xts::with_backend(&key, backend).unwrap();
        for len in [16usize, 16 * 15, 16 * 16, 16 * 17 + 3, 16 * 300 + 5] {
            let mut buf = pt[..len].to_vec();
            xts.encrypt(&[0xaa; 16], &mut buf).unwrap();
            results.push((backend, len, buf));
        }
    }
    // The reference is always the soft backend, also when AESX_BACKEND
    // restricts the list to another one.
    let soft = Xts::with_backend(&key, Backend::Soft).unwrap();
    for (b, len, r) in &results {
        let mut want = pt[..*len].to_vec();
        soft.encrypt(&[0xaa; 16], &mut want).unwrap();
        assert_eq!(r, &want, "{b} {len}");
    }
}
