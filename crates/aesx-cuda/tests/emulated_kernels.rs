//! The CUDA kernels, compiled as C++ and run thread by thread on the CPU
//! (tests/emulate/harness.cpp), against aesx's soft backend, OpenSSL and the
//! NIST vectors. This checks the bitsliced circuits, the thread layout, the
//! counter, tweak and GHASH arithmetic of the very sources that NVRTC
//! compiles, on machines with no GPU. Skips (with a message) when no C++
//! compiler is installed.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use aesx::{Cbc, Ctr};
use aesx_cuda::plan::{self, LaunchDims};
use aesx_cuda::testing;
use common::*;
use rand::{Rng, RngCore, SeedableRng};

fn harness() -> Option<&'static PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let bin = dir.join(format!("aesx-cuda-harness-{}", std::process::id()));
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/emulate/harness.cpp");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        match Command::new(&cxx)
            .args(["-O2", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&bin)
            .arg(&src)
            .output()
        {
            Ok(out) if out.status.success() => Some(bin),
            Ok(out) => panic!(
                "the kernels do not compile as C++:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => {
                eprintln!("skipping kernel emulation: no C++ compiler ({cxx}: {e})");
                None
            }
        }
    })
    .as_ref()
}

struct Launch<'a> {
    kernel: &'a str,
    key: &'a [u8],
    key2: Option<&'a [u8]>,
    p: [u64; 6],
    dims: LaunchDims,
    dims2: LaunchDims,
    data: &'a [u8],
}

fn run(l: &Launch) -> Vec<u8> {
    let bin = harness().expect("harness");
    let (rk, nr) = testing::round_key_words(l.key).unwrap();
    let rk2 = match l.key2 {
        Some(k) => testing::round_key_words(k).unwrap().0,
        None => [0u32; 60],
    };
    let mut input = Vec::new();
    input.extend_from_slice(&nr.to_le_bytes());
    input.extend_from_slice(&0u32.to_le_bytes());
    for w in rk.iter().chain(rk2.iter()) {
        input.extend_from_slice(&w.to_le_bytes());
    }
    for v in l.p {
        input.extend_from_slice(&v.to_le_bytes());
    }
    for v in [l.dims.grid, l.dims.block, l.dims2.grid, l.dims2.block] {
        input.extend_from_slice(&u64::from(v).to_le_bytes());
    }
    input.extend_from_slice(&(l.data.len() as u64).to_le_bytes());
    input.extend_from_slice(l.data);
    let mut child = Command::new(bin)
        .arg(l.kernel)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn harness");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "harness failed for {}", l.kernel);
    out.stdout
}

fn aes_launch(kernel: &str, key: &[u8], p: [u64; 6], data: &[u8]) -> Vec<u8> {
    let blocks = (data.len() as u64).div_ceil(16);
    let dims = plan::aes_launch_dims(blocks).unwrap();
    run(&Launch {
        kernel,
        key,
        key2: None,
        p,
        dims,
        dims2: dims,
        data,
    })
}

fn random(rng: &mut impl RngCore, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Block counts around the thread (32), warp (1024) and CTA (4096) sizes.
const BLOCK_COUNTS: [usize; 10] = [1, 2, 31, 32, 33, 1023, 1024, 1025, 4097, 5000];

#[test]
fn ecb_matches_soft_backend() {
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for klen in [16, 24, 32] {
        for &n in &BLOCK_COUNTS {
            let key = random(&mut rng, klen);
            let data = random(&mut rng, 16 * n);
            let mut want = data.clone();
            soft(&key).encrypt_blocks(&mut want).unwrap();
            assert_eq!(
                aes_launch("ecb_encrypt", &key, [0; 6], &data),
                want,
                "enc {klen} {n}"
            );
            assert_eq!(
                aes_launch("ecb_encrypt_in_place", &key, [0; 6], &data),
                want
            );
            assert_eq!(
                aes_launch("ecb_decrypt", &key, [0; 6], &want),
                data,
                "dec {klen} {n}"
            );
        }
    }
}

#[test]
fn sp800_38a_f1_ecb() {
    if harness().is_none() {
        return;
    }
    let pt = hex::decode(concat!(
        "6bc1bee22e409f96e93d7e117393172a",
        "ae2d8a571e03ac9c9eb76fac45af8e51",
        "30c81c46a35ce411e5fbc1191a0a52ef",
        "f69f2445df4f9b17ad2b417be66c3710"
    ))
    .unwrap();
    let cases = [
        (
            "2b7e151628aed2a6abf7158809cf4f3c",
            "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
        ),
        (
            "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
            "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eefef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
        ),
        (
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
        ),
    ];
    for (key, ct) in cases {
        let key = hex::decode(key).unwrap();
        let ct = hex::decode(ct).unwrap();
        assert_eq!(aes_launch("ecb_encrypt", &key, [0; 6], &pt), ct);
        assert_eq!(aes_launch("ecb_decrypt", &key, [0; 6], &ct), pt);
    }
}

fn ctr_params(counter: &[u8; 16], ctr32: bool) -> [u64; 6] {
    let (hi, lo) = plan::counter_halves(counter);
    [hi, lo, u64::from(ctr32), 0, 0, 0]
}

#[test]
fn ctr_matches_soft_backend_including_wrap() {
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
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
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
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
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
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
    let pt = hex::decode(concat!(
        "6bc1bee22e409f96e93d7e117393172a",
        "ae2d8a571e03ac9c9eb76fac45af8e51",
        "30c81c46a35ce411e5fbc1191a0a52ef",
        "f69f2445df4f9b17ad2b417be66c3710"
    ))
    .unwrap();
    let iv: [u8; 16] = hex::decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        .unwrap()
        .try_into()
        .unwrap();
    let cases = [
        (
            "2b7e151628aed2a6abf7158809cf4f3c",
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        ),
        (
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
        ),
    ];
    for (key, ct) in cases {
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
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    for klen in [16, 24, 32] {
        for &n in &BLOCK_COUNTS {
            let key = random(&mut rng, klen);
            let iv: [u8; 16] = rng.gen();
            let ct = random(&mut rng, 16 * n);
            let mut want = ct.clone();
            let mut chain = iv;
            Cbc::with_backend(&key, aesx::Backend::Soft)
                .unwrap()
                .decrypt_chained(&mut chain, &mut want)
                .unwrap();
            let (lo, hi) = plan::block_le_halves(&iv);
            let got = aes_launch("cbc_decrypt", &key, [lo, hi, 0, 0, 0, 0], &ct);
            assert_eq!(got, want, "cbc {klen} {n}");
        }
    }
}

fn xts_launch(
    key: &[u8],
    first_sector: u128,
    sector: usize,
    data: &[u8],
    decrypt: bool,
) -> Vec<u8> {
    let half = key.len() / 2;
    let blocks = data.len() as u64 / 16;
    let sectors = data.len() as u64 / sector as u64;
    run(&Launch {
        kernel: if decrypt {
            "xts_decrypt"
        } else {
            "xts_encrypt"
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
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
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

/// GHASH tree: every level through the emulated kernel equals the host
/// model, and the whole equals Horner's rule.
fn ghash_emulated(data: &[u8], h: u128) -> u128 {
    let blocks = (data.len() as u64).div_ceil(16);
    let mut cur: Vec<u8> = data.to_vec();
    let mut cur_len = data.len() as u64;
    let mut gcm_order = true;
    for level in plan::ghash_levels(blocks) {
        assert_eq!(level.elements, cur_len.div_ceil(16));
        let base = testing::gf_pow(h, level.runs);
        let out = run(&Launch {
            kernel: "ghash_runs",
            key: &[0u8; 16],
            key2: None,
            p: [
                base as u64,
                (base >> 64) as u64,
                u64::from(gcm_order),
                level.pad,
                level.runs,
                0,
            ],
            dims: plan::ghash_launch_dims(level.runs).unwrap(),
            dims2: plan::ghash_launch_dims(level.runs).unwrap(),
            data: &cur[..cur_len as usize],
        });
        // The host model of the same level.
        let input: Vec<u128> = if gcm_order {
            cur[..cur_len as usize]
                .chunks(16)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b[..c.len()].copy_from_slice(c);
                    testing::from_gcm_block(&b)
                })
                .collect()
        } else {
            cur.chunks(16)
                .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let model = plan::ghash_level_reference(&input, &level, base);
        let got: Vec<u128> = out
            .chunks(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, model, "level {}", level.level);
        cur = out;
        cur_len = cur.len() as u64;
        gcm_order = false;
    }
    let rest: Vec<u128> = if gcm_order {
        data.chunks(16)
            .map(|c| {
                let mut b = [0u8; 16];
                b[..c.len()].copy_from_slice(c);
                testing::from_gcm_block(&b)
            })
            .collect()
    } else {
        cur.chunks(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    testing::poly_eval(&rest, h)
}

#[test]
fn gcm_with_emulated_ctr_and_ghash_matches_openssl() {
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for (klen, len, aad_len, nonce_len) in [
        (16usize, 0usize, 0usize, 12usize),
        (16, 1, 5, 12),
        (24, 16 * 32, 16, 12),
        (32, 16 * 33 + 3, 0, 8),
        (16, 16 * 1025, 20, 12),
        (32, 16 * 33 * 32 + 9, 31, 60),
        (16, 40_000, 3, 12),
    ] {
        let key = random(&mut rng, klen);
        let nonce = random(&mut rng, nonce_len);
        let aad = random(&mut rng, aad_len);
        let pt = random(&mut rng, len);
        let aes = soft(&key);
        let h = testing::hash_subkey(|b| aes.encrypt_block(b));
        let j0 = testing::j0(h, &nonce);
        let ctr1 = plan::ctr32_add(&j0, 1);
        let ct = aes_launch("ctr", &key, ctr_params(&ctr1, true), &pt);
        // Two chunks joined on the host, as the pipelined API does.
        let split = (len / 2) & !15;
        let d1 = ghash_emulated(&ct[..split], h);
        let d2 = ghash_emulated(&ct[split..], h);
        let digest = testing::append_chunk_digest(
            testing::append_chunk_digest(0, h, split as u64, d1),
            h,
            (len - split) as u64,
            d2,
        );
        let s = testing::ghash_with_lengths(h, &aad, len as u64, digest);
        let mut ek = j0;
        aes.encrypt_block(&mut ek);
        let tag: Vec<u8> = s.iter().zip(ek).map(|(a, b)| a ^ b).collect();
        let (want_ct, want_tag) = openssl_gcm_seal(&key, &nonce, &aad, &pt);
        assert_eq!(ct, want_ct, "gcm ct {klen} {len}");
        assert_eq!(tag, want_tag, "gcm tag {klen} {len}");
    }
}

#[test]
fn nist_gcm_encrypt_vectors() {
    if harness().is_none() {
        return;
    }
    let mut checked = 0;
    for f in [
        "gcmEncryptExtIV128.rsp",
        "gcmEncryptExtIV192.rsp",
        "gcmEncryptExtIV256.rsp",
    ] {
        let text = std::fs::read_to_string(vectors_dir().join("nist/GCM").join(f)).unwrap();
        // Two vectors of every parameter set keep the test fast.
        for rec in rsp_records(&text) {
            let count: u32 = match field(&rec, "Count") {
                Some(c) => c.parse().unwrap(),
                None => continue,
            };
            if count > 1 {
                continue;
            }
            let key = hexfield(&rec, "Key");
            let nonce = hexfield(&rec, "IV");
            let pt = hexfield(&rec, "PT");
            let aad = hexfield(&rec, "AAD");
            let want_ct = hexfield(&rec, "CT");
            let want_tag = hexfield(&rec, "Tag");
            let aes = soft(&key);
            let h = testing::hash_subkey(|b| aes.encrypt_block(b));
            let j0 = testing::j0(h, &nonce);
            let ct = aes_launch("ctr", &key, ctr_params(&plan::ctr32_add(&j0, 1), true), &pt);
            let digest = ghash_emulated(&ct, h);
            let s = testing::ghash_with_lengths(h, &aad, pt.len() as u64, digest);
            let mut ek = j0;
            aes.encrypt_block(&mut ek);
            let tag: Vec<u8> = s.iter().zip(ek).map(|(a, b)| a ^ b).collect();
            assert_eq!(ct, want_ct, "{f} count {count}");
            assert_eq!(&tag[..want_tag.len()], &want_tag[..], "{f} count {count}");
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} GCM vectors");
}

/// GCM over many messages (the file format's chunks) with the two batched
/// kernels and the host's share from aesx_cuda::testing, against aesx's GCM
/// one message at a time: chunk strides, a short and an empty last message,
/// nonces that differ only in the chunk index, and the open side's verdicts.
fn gcm_msgs_emulated(
    key: &[u8],
    nonces: &[[u8; 12]],
    stride: usize,
    data: &[u8],
    seal: bool,
) -> (Vec<u8>, Vec<[u8; 16]>) {
    testing::check_layout(nonces.len(), stride, data.len()).unwrap();
    let aes = soft(key);
    let h = testing::hash_subkey(|b| aes.encrypt_block(b));
    let j0s = testing::j0s(h, nonces);
    let ctrs = testing::first_counters(&j0s);
    let ctr = |d: &[u8]| {
        let mut input = ctrs.clone();
        input.extend_from_slice(d);
        let dims = plan::aes_launch_dims((d.len() as u64).div_ceil(16)).unwrap();
        run(&Launch {
            kernel: "ctr_msgs",
            key,
            key2: None,
            p: [nonces.len() as u64, (stride / 16) as u64, 0, 0, 0, 0],
            dims,
            dims2: dims,
            data: &input,
        })
    };
    let out = if seal { ctr(data) } else { data.to_vec() };
    let ct = if seal { &out } else { data };
    let nmsgs = nonces.len() as u64;
    let nruns = testing::runs_per_msg(stride);
    let digests = if data.is_empty() {
        vec![0u8; 16 * nonces.len()]
    } else {
        let base = testing::gf_pow(h, nruns);
        let l1 = run(&Launch {
            kernel: "ghash_msgs",
            key: &[0u8; 16],
            key2: None,
            p: [
                base as u64,
                (base >> 64) as u64,
                1,
                stride as u64,
                nmsgs,
                nruns,
            ],
            dims: plan::ghash_launch_dims(nmsgs * nruns).unwrap(),
            dims2: plan::ghash_launch_dims(nmsgs * nruns).unwrap(),
            data: ct,
        });
        run(&Launch {
            kernel: "ghash_msgs",
            key: &[0u8; 16],
            key2: None,
            p: [h as u64, (h >> 64) as u64, 0, 16 * nruns, nmsgs, 1],
            dims: plan::ghash_launch_dims(nmsgs).unwrap(),
            dims2: plan::ghash_launch_dims(nmsgs).unwrap(),
            data: &l1,
        })
    };
    let mut ek = j0s.clone();
    aes.encrypt_blocks(&mut ek).unwrap();
    let tags = testing::tags(h, &[], stride, data.len(), &digests, &ek);
    let out = if seal { out } else { ctr(data) };
    (out, tags)
}

#[test]
fn gcm_messages_batched_match_aesx_gcm() {
    if harness().is_none() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for (klen, stride, nmsgs, last) in [
        (32usize, 16384usize, 1usize, 0usize),
        (32, 16384, 1, 5),
        (32, 16384, 3, 16384),
        (32, 16384, 4, 0),
        (32, 16384, 5, 9999),
        (16, 16384, 2, 16),
        (24, 512, 7, 511),
        (16, 16, 9, 1),
        (32, 1040, 3, 1040),
    ] {
        let key = random(&mut rng, klen);
        let base: [u8; 12] = random(&mut rng, 12).try_into().unwrap();
        let first = rng.gen::<u64>() >> 30;
        let nonces: Vec<[u8; 12]> = (0..nmsgs as u64)
            .map(|i| {
                let mut n = base;
                for (b, c) in n[4..].iter_mut().zip((first + i).to_be_bytes()) {
                    *b ^= c;
                }
                n
            })
            .collect();
        let len = (nmsgs - 1) * stride + last;
        let pt = random(&mut rng, len);
        let (ct, tags) = gcm_msgs_emulated(&key, &nonces, stride, &pt, true);
        let gcm = aesx::Gcm::with_backend(&key, aesx::Backend::Soft).unwrap();
        for (i, nonce) in nonces.iter().enumerate() {
            let a = i * stride;
            let b = (a + stride).min(len);
            let sealed = gcm.seal(nonce, &[], &pt[a..b]).unwrap();
            assert_eq!(
                &ct[a..b],
                &sealed[..b - a],
                "ct {klen} {stride} {nmsgs} {last} msg {i}"
            );
            assert_eq!(
                &tags[i][..],
                &sealed[b - a..],
                "tag {klen} {stride} {nmsgs} {last} msg {i}"
            );
        }
        // Opening: same digests from the ciphertext, plaintext back, and a
        // flipped bit fails that message's tag only.
        let (back, want) = gcm_msgs_emulated(&key, &nonces, stride, &ct, false);
        assert_eq!(back, pt);
        assert_eq!(want, tags);
        if len > 0 {
            let mut bad = ct.clone();
            let pos = rng.gen_range(0..len);
            bad[pos] ^= 0x20;
            let (_, t) = gcm_msgs_emulated(&key, &nonces, stride, &bad, false);
            assert_eq!(testing::verified_prefix(&t, &tags), pos / stride);
        }
    }
}
