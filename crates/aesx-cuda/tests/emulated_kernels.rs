//! The CUDA kernels, compiled as C++ and run thread by thread on the CPU
//! (tests/emulate/harness.cpp), against aesx's soft backend, OpenSSL and the
//! NIST vectors. This checks the bitsliced circuits, the thread layout, the
//! counter, tweak and GHASH arithmetic of the very sources that NVRTC
//! compiles, on machines with no GPU. Skips (with a message) when no C++
//! compiler is installed. XTS: `emulated_xts.rs`; GCM: `emulated_gcm.rs`.

mod common;
mod emulate;

use aesx::{Cbc, Ctr};
use aesx_cuda::plan;
use common::*;
use emulate::*;
use rand::Rng;
/// The four-block plaintext of every SP 800-38A appendix F example.
const SP800_38A_PLAINTEXT: &str = concat!(
    "6bc1bee22e409f96e93d7e117393172a",
    "ae2d8a571e03ac9c9eb76fac45af8e51",
    "30c81c46a35ce411e5fbc1191a0a52ef",
    "f69f2445df4f9b17ad2b417be66c3710"
);

/// SP 800-38A appendix F per key (AES-128, -192, -256): the key, the F.1
/// ECB and the F.5 CTR ciphertexts of [`SP800_38A_PLAINTEXT`].
const SP800_38A_F1_F5: [(&str, &str, &str); 3] = [
    (
        "2b7e151628aed2a6abf7158809cf4f3c",
        "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    ),
    (
        "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
        "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eefef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
        "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050",
    ),
    (
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
        "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
    ),
];

/// Block counts around the thread (32), warp (1024) and CTA (4096) sizes.
const BLOCK_COUNTS: [usize; 10] = [1, 2, 31, 32, 33, 1023, 1024, 1025, 4097, 5000];

#[test]
fn ecb_matches_soft_backend() {
    let Some(mut rng) = emulated_rng(1) else {
        return;
    };
    per_random_key(&mut rng, BLOCK_COUNTS, |rng, key, n| {
        let data = random(rng, 16 * n);
        let mut want = data.clone();
        soft(key).encrypt_blocks(&mut want).unwrap();
        assert_eq!(
            aes_launch("ecb_encrypt", key, [0; 6], &data),
            want,
            "enc {} {n}",
            key.len()
        );
        assert_eq!(aes_launch("ecb_encrypt_in_place", key, [0; 6], &data), want);
        assert_eq!(
            aes_launch("ecb_decrypt", key, [0; 6], &want),
            data,
            "dec {} {n}",
            key.len()
        );
    });
}

#[test]
fn sp800_38a_f1_ecb() {
    if harness().is_none() {
        return;
    }
    let pt = hex::decode(SP800_38A_PLAINTEXT).unwrap();
    for (key, ct, _) in SP800_38A_F1_F5 {
        let key = hex::decode(key).unwrap();
        let ct = hex::decode(ct).unwrap();
        assert_eq!(aes_launch("ecb_encrypt", &key, [0; 6], &pt), ct);
        assert_eq!(aes_launch("ecb_decrypt", &key, [0; 6], &ct), pt);
    }
}

#[test]
fn ctr_matches_soft_backend_including_wrap() {
    let Some(mut rng) = emulated_rng(2) else {
        return;
    };
    let mut near_wrap = [0xffu8; 16];
    near_wrap[15] = 0xf0;
    let mut lo_wrap = [0x12u8; 16];
    lo_wrap[8..].copy_from_slice(&[0xff; 8]);
    lo_wrap[15] = 0xfe;
    for klen in [16, 24, 32] {
        for (i, &n) in BLOCK_COUNTS.iter().enumerate() {
            for extra in [0usize, 1, 15] {
                let len = 16 * n - if extra > 0 { 16 - extra } else { 0 };
                let key = random(&mut rng, klen);
                let data = random(&mut rng, len);
                let iv: [u8; 16] = match i % 3 {
                    0 => near_wrap,
                    1 => lo_wrap,
                    _ => rng.gen(),
                };
                let mut want = data.clone();
                Ctr::with_backend(&key, &iv, aesx::Backend::Soft)
                    .unwrap()
                    .apply_keystream(&mut want);
                let p = ctr_params(&iv, false);
                assert_eq!(aes_launch("ctr", &key, p, &data), want, "ctr {klen} {len}");
                assert_eq!(aes_launch("ctr_in_place", &key, p, &data), want);
            }
        }
    }
}

#[test]
fn ctr32_wraps_only_the_low_word() {
    let Some(mut rng) = emulated_rng(3) else {
        return;
    };
    let key = random(&mut rng, 16);
    let mut j = [0x5au8; 16];
    j[12..].copy_from_slice(&0xffff_ffe0u32.to_be_bytes());
    let data = random(&mut rng, 16 * 100 + 7);
    let aes = soft(&key);
    let mut want = data.clone();
    for (b, chunk) in want.chunks_mut(16).enumerate() {
        let mut ks = plan::ctr32_add(&j, b as u64);
        aes.encrypt_block(&mut ks);
        for (d, k) in chunk.iter_mut().zip(ks) {
            *d ^= k;
        }
    }
    assert_eq!(aes_launch("ctr", &key, ctr_params(&j, true), &data), want);
}

#[test]
fn ttable_comparison_kernel_matches_soft_backend() {
    let Some(mut rng) = emulated_rng(7) else {
        return;
    };
    for klen in [16, 24, 32] {
        for len in [0usize, 5, 16, 16 * 300 + 9] {
            let key = random(&mut rng, klen);
            let mut iv = [0xffu8; 16];
            iv[15] = 0xfd;
            let data = random(&mut rng, len);
            let mut want = data.clone();
            Ctr::with_backend(&key, &iv, aesx::Backend::Soft)
                .unwrap()
                .apply_keystream(&mut want);
            let got = aes_launch("ttable_ctr", &key, ctr_params(&iv, false), &data);
            assert_eq!(got, want, "t-table {klen} {len}");
        }
    }
}

#[test]
fn sp800_38a_f5_ctr() {
    if harness().is_none() {
        return;
    }
    let pt = hex::decode(SP800_38A_PLAINTEXT).unwrap();
    let iv: [u8; 16] = hex::decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        .unwrap()
        .try_into()
        .unwrap();
    for (key, _, ct) in SP800_38A_F1_F5 {
        let key = hex::decode(key).unwrap();
        assert_eq!(
            hex::encode(aes_launch("ctr", &key, ctr_params(&iv, false), &pt)),
            ct
        );
    }
}

#[test]
fn nist_ctr_files() {
    if harness().is_none() {
        return;
    }
    for f in ["aes-128-ctr.txt", "aes-192-ctr.txt", "aes-256-ctr.txt"] {
        let text = std::fs::read_to_string(vectors_dir().join("nist/CTR").join(f)).unwrap();
        let recs = rsp_records(&text);
        assert!(!recs.is_empty());
        for rec in recs {
            let key = hexfield(&rec, "KEY");
            let iv: [u8; 16] = hexfield(&rec, "IV").try_into().unwrap();
            let pt = hexfield(&rec, "PLAINTEXT");
            let ct = hexfield(&rec, "CIPHERTEXT");
            assert_eq!(
                aes_launch("ctr", &key, ctr_params(&iv, false), &pt),
                ct,
                "{f}"
            );
        }
    }
}

#[test]
fn cbc_decrypt_matches_soft_backend() {
    let Some(mut rng) = emulated_rng(4) else {
        return;
    };
    per_random_key(&mut rng, BLOCK_COUNTS, |rng, key, n| {
        let iv: [u8; 16] = rng.gen();
        let ct = random(rng, 16 * n);
        let mut want = ct.clone();
        let mut chain = iv;
        Cbc::with_backend(key, aesx::Backend::Soft)
            .unwrap()
            .decrypt_chained(&mut chain, &mut want)
            .unwrap();
        let (lo, hi) = plan::block_le_halves(&iv);
        let got = aes_launch("cbc_decrypt", key, [lo, hi, 0, 0, 0, 0], &ct);
        assert_eq!(got, want, "cbc {} {n}", key.len());
    });
}
