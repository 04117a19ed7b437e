//! The GCM kernels (CTR32 and the GHASH tree, one message or many)
//! emulated on the CPU (see `emulated_kernels.rs`), against OpenSSL, aesx's
//! Gcm and the NIST vectors.

mod common;
mod emulate;

use aesx_cuda::plan;
use aesx_cuda::testing;
use common::*;
use emulate::*;
use rand::Rng;

/// A GHASH kernel (`ghash_runs` or `ghash_msgs`, base in p[0], p[1]) by
/// Horner's rule and its twin with the table of powers (`*_pows`, the
/// table in front of the data): both must agree; returns the output.
fn ghash_both(kernel: &str, p: [u64; 6], threads: u64, data: &[u8]) -> Vec<u8> {
    let horner = ghash_launch(kernel, p, threads, data);
    let base = u128::from(p[0]) | (u128::from(p[1]) << 64);
    let mut input: Vec<u8> = testing::ghash_pows(base)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    input.extend_from_slice(data);
    let table = ghash_launch(&format!("{kernel}_pows"), p, threads, &input);
    assert_eq!(table, horner, "{kernel}_pows against {kernel}");
    table
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
        let p = [
            base as u64,
            (base >> 64) as u64,
            u64::from(gcm_order),
            level.pad,
            level.runs,
            0,
        ];
        let out = ghash_both("ghash_runs", p, level.runs, &cur[..cur_len as usize]);
        // The host model of the same level.
        let input = elements(&cur[..cur_len as usize], gcm_order);
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
    testing::poly_eval(&elements(&cur[..cur_len as usize], gcm_order), h)
}

/// The field elements of a tree level's input: ciphertext blocks in GCM's
/// bit order (a partial last block padded with zeros) at the first level,
/// the previous level's little-endian outputs after.
fn elements(bytes: &[u8], gcm_order: bool) -> Vec<u128> {
    if gcm_order {
        bytes
            .chunks(16)
            .map(|c| {
                let mut b = [0u8; 16];
                b[..c.len()].copy_from_slice(c);
                testing::from_gcm_block(&b)
            })
            .collect()
    } else {
        bytes
            .chunks(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

/// The tag from the ciphertext's digest: GHASH with the associated data and
/// the lengths, XOR E_K(J0).
fn gcm_tag(
    aes: &aesx::Aes,
    h: u128,
    j0: [u8; 16],
    aad: &[u8],
    len: usize,
    digest: u128,
) -> Vec<u8> {
    let s = testing::ghash_with_lengths(h, aad, len as u64, digest);
    let mut ek = j0;
    aes.encrypt_block(&mut ek);
    s.iter().zip(ek).map(|(a, b)| a ^ b).collect()
}

#[test]
fn gcm_with_emulated_ctr_and_ghash_matches_openssl() {
    let Some(mut rng) = emulated_rng(6) else {
        return;
    };
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
        let tag = gcm_tag(&aes, h, j0, &aad, len, digest);
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
            let tag = gcm_tag(&aes, h, j0, &aad, pt.len(), digest);
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
        let p = [nonces.len() as u64, (stride / 16) as u64, 0, 0, 0, 0];
        run_one_key("ctr_msgs", key, p, dims, &input)
    };
    let out = if seal { ctr(data) } else { data.to_vec() };
    let ct = if seal { &out } else { data };
    let nmsgs = nonces.len() as u64;
    let nruns = testing::runs_per_msg(stride);
    let digests = if data.is_empty() {
        vec![0u8; 16 * nonces.len()]
    } else {
        let base = testing::gf_pow(h, nruns);
        let p = [
            base as u64,
            (base >> 64) as u64,
            1,
            stride as u64,
            nmsgs,
            nruns,
        ];
        let l1 = ghash_both("ghash_msgs", p, nmsgs * nruns, ct);
        let p = [h as u64, (h >> 64) as u64, 0, 16 * nruns, nmsgs, 1];
        ghash_both("ghash_msgs", p, nmsgs, &l1)
    };
    let mut ek = j0s.clone();
    aes.encrypt_blocks(&mut ek).unwrap();
    let tags = testing::tags(h, &[], stride, data.len(), &digests, &ek);
    let out = if seal { out } else { ctr(data) };
    (out, tags)
}

#[test]
fn gcm_messages_batched_match_aesx_gcm() {
    let Some(mut rng) = emulated_rng(12) else {
        return;
    };
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
