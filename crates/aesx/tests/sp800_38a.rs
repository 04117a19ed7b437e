//! FIPS 197 appendix C and SP 800-38A appendix F known answers, every
//! available backend, in place and out of place, whole and in pieces.

mod common;

use aesx::{Aes, Cbc, Ctr, Ecb, Padding};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

const PT: &str = common::SP800_38A_PT;
const K128: &str = common::SP800_38A_KEYS[0];
const K192: &str = common::SP800_38A_KEYS[1];
const K256: &str = common::SP800_38A_KEYS[2];
const IV: &str = "000102030405060708090a0b0c0d0e0f";
const CTR0: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

struct Case {
    key: &'static str,
    ecb: &'static str,
    cbc: &'static str,
    ctr: &'static str,
}

const CASES: [Case; 3] = [
    Case {
        key: K128,
        ecb: "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
        cbc: "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        ctr: "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    },
    Case {
        key: K192,
        ecb: "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eefef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
        cbc: "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd",
        ctr: "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",
    },
    Case {
        key: K256,
        ecb: "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
        cbc: "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
        ctr: "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
    },
];

#[test]
fn fips197_appendix_c() {
    let pt = h("00112233445566778899aabbccddeeff");
    // The appendix's keys are the bytes 00 01 02 ... of each key length.
    let cases = [
        (16, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (24, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (32, "8ea2b7ca516745bfeafc49904b496089"),
    ];
    for backend in common::backends() {
        for (key_len, c) in cases {
            let key: Vec<u8> = (0..key_len).collect();
            let aes = Aes::with_backend(&key, backend).unwrap();
            let mut b: [u8; 16] = pt.clone().try_into().unwrap();
            aes.encrypt_block(&mut b);
            assert_eq!(b.to_vec(), h(c), "{backend} encrypt");
            aes.decrypt_block(&mut b);
            assert_eq!(b.to_vec(), pt, "{backend} decrypt");
        }
    }
}

#[test]
fn sp800_38a_ecb_cbc_ctr() {
    let pt = h(PT);
    for backend in common::backends() {
        for case in &CASES {
            let key = h(case.key);
            // ECB
            let ecb = Ecb::with_backend(&key, backend).unwrap();
            let ct = ecb.encrypt_vec(&pt, Padding::None).unwrap();
            assert_eq!(ct, h(case.ecb), "{backend} ecb");
            assert_eq!(ecb.decrypt_vec(&ct, Padding::None).unwrap(), pt);
            // CBC, one shot and chained block by block
            let cbc = Cbc::with_backend(&key, backend).unwrap();
            let ct = cbc.encrypt_vec(&h(IV), &pt, Padding::None).unwrap();
            assert_eq!(ct, h(case.cbc), "{backend} cbc");
            assert_eq!(cbc.decrypt_vec(&h(IV), &ct, Padding::None).unwrap(), pt);
            let mut iv: [u8; 16] = h(IV).try_into().unwrap();
            let mut buf = pt.clone();
            for chunk in buf.chunks_mut(16) {
                cbc.encrypt_chained(&mut iv, chunk).unwrap();
            }
            assert_eq!(buf, h(case.cbc));
            // CTR, one shot and in odd pieces
            let mut buf = pt.clone();
            Ctr::with_backend(&key, &h(CTR0), backend)
                .unwrap()
                .apply_keystream(&mut buf);
            assert_eq!(buf, h(case.ctr), "{backend} ctr");
            let mut buf = pt.clone();
            let mut ctr = Ctr::with_backend(&key, &h(CTR0), backend).unwrap();
            let mut rest: &mut [u8] = &mut buf;
            for step in [1usize, 15, 3, 17, 0, 28] {
                let (a, b) = rest.split_at_mut(step.min(rest.len()));
                ctr.apply_keystream(a);
                rest = b;
            }
            assert!(rest.is_empty());
            assert_eq!(buf, h(case.ctr), "{backend} ctr pieces");
            // seek to every offset
            for off in 0..pt.len() {
                let mut ctr = Ctr::with_backend(&key, &h(CTR0), backend).unwrap();
                ctr.seek(off as u128);
                let mut tail = pt[off..].to_vec();
                ctr.apply_keystream(&mut tail);
                assert_eq!(tail, h(case.ctr)[off..], "{backend} seek {off}");
            }
        }
    }
}
