//! The XTS kernels (tweaks and sectors) emulated on the CPU (see
//! `emulated_kernels.rs`), against the reference, OpenSSL and the NIST files.

mod common;
mod emulate;

use aesx_cuda::plan;
use common::*;
use emulate::*;
fn xts_launch(
    key: &[u8],
    first_sector: u128,
    sector: usize,
    data: &[u8],
    decrypt: bool,
) -> Vec<u8> {
    xts_launch_as(key, first_sector, sector, data, decrypt, false)
}

/// As [`xts_launch`], with input and output in one buffer when `in_place`.
fn xts_launch_as(
    key: &[u8],
    first_sector: u128,
    sector: usize,
    data: &[u8],
    decrypt: bool,
    in_place: bool,
) -> Vec<u8> {
    let half = key.len() / 2;
    let blocks = data.len() as u64 / 16;
    let sectors = data.len() as u64 / sector as u64;
    run(&Launch {
        kernel: match (decrypt, in_place) {
            (false, false) => "xts_encrypt",
            (true, false) => "xts_decrypt",
            (false, true) => "xts_encrypt_in_place",
            (true, true) => "xts_decrypt_in_place",
        },
        key: &key[..half],
        key2: Some(&key[half..]),
        p: [
            first_sector as u64,
            (first_sector >> 64) as u64,
            sector as u64 / 16,
            0,
            0,
            0,
        ],
        dims: plan::aes_launch_dims(blocks).unwrap(),
        dims2: plan::aes_launch_dims(sectors).unwrap(),
        data,
    })
}

#[test]
fn xts_sectors_match_reference_and_openssl() {
    let Some(mut rng) = emulated_rng(5) else {
        return;
    };
    let cases: [(usize, usize); 9] = [
        (16, 1),
        (16, 3000),
        (32, 700),
        (48, 101),
        (512, 40),
        (528, 33),
        (4096, 9),
        (16 * 1024, 3),
        (65536, 1),
    ];
    let firsts = [0u128, 7, u64::MAX as u128 - 2, u128::MAX - 1];
    for (i, &(sector, count)) in cases.iter().enumerate() {
        for klen in [32, 64] {
            let key = random(&mut rng, klen);
            let data = random(&mut rng, sector * count);
            let first = firsts[i % firsts.len()];
            let want = xts_reference(&key, first, sector, &data, false);
            let got = xts_launch(&key, first, sector, &data, false);
            assert_eq!(got, want, "xts enc sector {sector} x {count}");
            assert_eq!(
                xts_launch(&key, first, sector, &want, true),
                data,
                "xts dec"
            );
            // In place, as the host API runs it (the kernels park each
            // block's tweak in its output block during the cipher).
            assert_eq!(
                xts_launch_as(&key, first, sector, &data, false, true),
                want,
                "xts enc in place"
            );
            assert_eq!(
                xts_launch_as(&key, first, sector, &want, true, true),
                data,
                "xts dec in place"
            );
            // The reference against OpenSSL, on the first sector.
            let tweak = first.to_le_bytes();
            assert_eq!(
                openssl_xts(&key, &tweak, &data[..sector], false),
                want[..sector]
            );
        }
    }
}

#[test]
fn nist_xts_files() {
    if harness().is_none() {
        return;
    }
    let mut checked = 0;
    for f in ["XTSGenAES128.rsp", "XTSGenAES256.rsp"] {
        let path = vectors_dir().join("nist/XTS/tweak-dataunitseqno").join(f);
        let text = std::fs::read_to_string(path).unwrap();
        let mut decrypt = false;
        for rec in rsp_records(&text) {
            if rec.iter().any(|(k, _)| k == "DECRYPT") {
                decrypt = true;
            }
            if rec.iter().any(|(k, _)| k == "ENCRYPT") {
                decrypt = false;
            }
            let Some(bits) = field(&rec, "DataUnitLen") else {
                continue;
            };
            let bits: usize = bits.parse().unwrap();
            if !bits.is_multiple_of(128) {
                continue; // ciphertext stealing: not part of the sector API
            }
            let key = hexfield(&rec, "Key");
            let seq: u128 = field(&rec, "DataUnitSeqNumber").unwrap().parse().unwrap();
            let pt = hexfield(&rec, "PT");
            let ct = hexfield(&rec, "CT");
            if decrypt {
                assert_eq!(xts_launch(&key, seq, bits / 8, &ct, true), pt);
            } else {
                assert_eq!(xts_launch(&key, seq, bits / 8, &pt, false), ct);
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} XTS vectors");
}
