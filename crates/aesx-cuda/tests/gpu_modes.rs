//! Every GPU mode against aesx's soft backend, OpenSSL and NIST vectors, for
//! host and device memory, on sizes around the thread (32 blocks), warp
//! (1024 blocks) and chunk sizes. Without a CUDA device each test prints
//! "no CUDA device" and passes; AESX_REQUIRE_GPU=1 turns that into a failure.

mod common;

use std::sync::OnceLock;

use aesx::{Backend, Cbc, Ctr};
use aesx_cuda::{CudaAes, CudaError, CudaGcm, CudaXts, Gpu};
use common::*;
use rand::{Rng, SeedableRng};

/// Small chunks (64 KiB) so that moderate inputs span several chunks and
/// every slot of the pipeline.
const TEST_CHUNK: usize = 64 * 1024;

fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| match Gpu::with_chunk_len(0, TEST_CHUNK) {
        Ok(g) => {
            eprintln!("GPU tests on {:?}", g.info());
            Some(g)
        }
        Err(e @ (CudaError::NoDevice(_) | CudaError::NoNvrtc(_))) => {
            if std::env::var("AESX_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("AESX_REQUIRE_GPU=1 but: {e}");
            }
            eprintln!("no CUDA device, skipping GPU test ({e})");
            None
        }
        Err(e) => panic!("GPU present but unusable: {e}"),
    })
    .as_ref()
}

/// The GPU and a generator with a fixed seed for one test, or None (the
/// test then passes, having said why) without a device.
fn gpu_and_rng(seed: u64) -> Option<(&'static Gpu, rand::rngs::StdRng)> {
    Some((gpu()?, rand::rngs::StdRng::seed_from_u64(seed)))
}

/// Byte lengths: tiny, around 32 and 1024 blocks, around and across chunks.
fn lengths() -> Vec<usize> {
    vec![
        0,
        1,
        15,
        16,
        17,
        16 * 31 + 3,
        16 * 32,
        16 * 1023,
        16 * 1025 + 9,
        TEST_CHUNK - 16,
        TEST_CHUNK,
        TEST_CHUNK + 1,
        3 * TEST_CHUNK + 48,
        7 * TEST_CHUNK + 5,
        (1 << 20) + 7,
    ]
}

/// [`lengths`] rounded down to whole blocks, for the block modes.
fn block_lengths() -> impl Iterator<Item = usize> {
    lengths().into_iter().map(|l| l & !15)
}

/// A device copy of non-empty `data` (CUDA does not allocate zero bytes, so
/// the tests skip the device API for empty inputs).
fn to_device(g: &Gpu, data: &[u8]) -> cudarc::driver::CudaSlice<u8> {
    assert!(!data.is_empty());
    g.stream().clone_htod(data).unwrap()
}

fn from_device(g: &Gpu, d: &cudarc::driver::CudaSlice<u8>) -> Vec<u8> {
    let v = g.stream().clone_dtoh(d).unwrap();
    g.synchronize().unwrap();
    v
}

/// What `f` leaves in a copy of `data` (host memory).
fn on_copy(data: &[u8], f: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut v = data.to_vec();
    f(&mut v);
    v
}

/// What `f(src, dst)` leaves in `dst`, for `src` a device copy of `data`
/// and `dst` a zeroed device buffer of its length.
fn device_to(
    g: &Gpu,
    data: &[u8],
    f: impl FnOnce(&cudarc::driver::CudaSlice<u8>, &mut cudarc::driver::CudaSlice<u8>),
) -> Vec<u8> {
    let src = to_device(g, data);
    let mut dst = to_device(g, &vec![0u8; data.len()]);
    f(&src, &mut dst);
    from_device(g, &dst)
}

#[test]
fn ecb_host_and_device_match_soft() {
    let Some((g, mut rng)) = gpu_and_rng(11) else {
        return;
    };
    per_random_key(&mut rng, block_lengths(), |rng, key, len| {
        let data = random(rng, len);
        let mut want = data.clone();
        soft(key).encrypt_blocks(&mut want).unwrap();
        let k = CudaAes::new(g, key).unwrap();
        let mut host = data.clone();
        k.ecb_encrypt(&mut host).unwrap();
        assert_eq!(host, want, "ecb host {} {len}", key.len());
        k.ecb_decrypt(&mut host).unwrap();
        assert_eq!(host, data);
        if len == 0 {
            return;
        }
        let mut dev = to_device(g, &data);
        k.ecb_encrypt_device(&mut dev).unwrap();
        assert_eq!(from_device(g, &dev), want, "ecb device {} {len}", key.len());
        k.ecb_decrypt_device(&mut dev).unwrap();
        assert_eq!(from_device(g, &dev), data);
    });
    let k = CudaAes::new(g, &[0u8; 16]).unwrap();
    assert!(matches!(
        k.ecb_encrypt(&mut [0u8; 17]),
        Err(CudaError::Aes(aesx::Error::NotBlockAligned { .. }))
    ));
}

#[test]
fn ctr_host_and_device_match_soft_with_wrap() {
    let Some((g, mut rng)) = gpu_and_rng(12) else {
        return;
    };
    let mut wrap = [0xffu8; 16];
    wrap[15] = 0x80; // wraps 2^128 within the first chunk
    for klen in [16, 24, 32] {
        for (i, len) in lengths().into_iter().enumerate() {
            let key = random(&mut rng, klen);
            let iv: [u8; 16] = if i % 2 == 0 { wrap } else { rng.gen() };
            let data = random(&mut rng, len);
            let mut want = data.clone();
            Ctr::with_backend(&key, &iv, Backend::Soft)
                .unwrap()
                .apply_keystream(&mut want);
            let k = CudaAes::new(g, &key).unwrap();
            let host = on_copy(&data, |b| k.ctr_apply(&iv, b).unwrap());
            assert_eq!(host, want, "ctr host {klen} {len}");
            if len == 0 {
                continue;
            }
            let mut dev = to_device(g, &data);
            k.ctr_apply_device(&iv, &mut dev).unwrap();
            assert_eq!(from_device(g, &dev), want, "ctr device {klen} {len}");
            let out = device_to(g, &data, |s, d| k.ctr_apply_device_to(&iv, s, d).unwrap());
            assert_eq!(out, want);
        }
    }
}

#[test]
fn cbc_decrypt_host_and_device_match_soft() {
    let Some((g, mut rng)) = gpu_and_rng(13) else {
        return;
    };
    per_random_key(&mut rng, block_lengths(), |rng, key, len| {
        let iv: [u8; 16] = rng.gen();
        let ct = random(rng, len);
        let mut want = ct.clone();
        let mut chain = iv;
        Cbc::with_backend(key, Backend::Soft)
            .unwrap()
            .decrypt_chained(&mut chain, &mut want)
            .unwrap();
        let k = CudaAes::new(g, key).unwrap();
        let host = on_copy(&ct, |b| k.cbc_decrypt(&iv, b).unwrap());
        assert_eq!(host, want, "cbc host {} {len}", key.len());
        if len == 0 {
            return;
        }
        let out = device_to(g, &ct, |s, d| k.cbc_decrypt_device(&iv, s, d).unwrap());
        assert_eq!(out, want, "cbc device {} {len}", key.len());
    });
}

#[test]
fn xts_host_and_device_match_reference() {
    let Some((g, mut rng)) = gpu_and_rng(14) else {
        return;
    };
    for (sector, count) in [
        (16usize, 5000usize),
        (512, 300),
        (528, 129),
        (4096, 70),
        (1 << 20, 2),
    ] {
        for klen in [32, 64] {
            let key = random(&mut rng, klen);
            let first: u128 = if count % 2 == 0 {
                u128::MAX - 1
            } else {
                rng.gen::<u64>() as u128
            };
            let data = random(&mut rng, sector * count);
            let want = xts_reference(&key, first, sector, &data, false);
            let x = CudaXts::new(g, &key).unwrap();
            let mut host = data.clone();
            x.encrypt_sectors(first, sector, &mut host).unwrap();
            assert_eq!(host, want, "xts host {sector} {count}");
            x.decrypt_sectors(first, sector, &mut host).unwrap();
            assert_eq!(host, data);
            let mut dev = to_device(g, &data);
            x.encrypt_sectors_device(first, sector, &mut dev).unwrap();
            assert_eq!(from_device(g, &dev), want, "xts device {sector} {count}");
            x.decrypt_sectors_device(first, sector, &mut dev).unwrap();
            assert_eq!(from_device(g, &dev), data);
        }
    }
    let x = CudaXts::new(g, &[7u8; 32]).unwrap();
    assert!(matches!(
        x.encrypt_sectors(0, 512, &mut [0u8; 512]),
        Err(CudaError::Aes(aesx::Error::XtsEqualKeyHalves))
    ));
    let x = CudaXts::new(g, &random(&mut rng, 32)).unwrap();
    assert!(x.encrypt_sectors(0, 500, &mut [0u8; 1000]).is_err());
    assert!(x.encrypt_sectors(0, 512, &mut [0u8; 1000]).is_err());
}

#[test]
fn gcm_host_and_device_match_openssl() {
    let Some((g, mut rng)) = gpu_and_rng(15) else {
        return;
    };
    for klen in [16, 24, 32] {
        for (i, len) in lengths().into_iter().enumerate() {
            let key = random(&mut rng, klen);
            let nonce = random(&mut rng, if i % 4 == 3 { 7 } else { 12 });
            let aad = random(&mut rng, i * 3);
            let pt = random(&mut rng, len);
            let (want_ct, want_tag) = openssl_gcm_seal(&key, &nonce, &aad, &pt);
            let k = CudaGcm::new(g, &key).unwrap();
            let mut host = pt.clone();
            let tag = k.seal_in_place(&nonce, &aad, &mut host).unwrap();
            assert_eq!(host, want_ct, "gcm host ct {klen} {len}");
            assert_eq!(tag.to_vec(), want_tag, "gcm host tag {klen} {len}");
            k.open_in_place(&nonce, &aad, &mut host, &tag).unwrap();
            assert_eq!(host, pt);
            if len == 0 {
                continue;
            }
            let mut dev = to_device(g, &pt);
            let tag = k.seal_device(&nonce, &aad, &mut dev).unwrap();
            assert_eq!(from_device(g, &dev), want_ct, "gcm device ct {klen} {len}");
            assert_eq!(tag.to_vec(), want_tag, "gcm device tag {klen} {len}");
            k.open_device(&nonce, &aad, &mut dev, &tag[..12]).unwrap();
            assert_eq!(from_device(g, &dev), pt);
            // A forged tag releases nothing.
            let mut forged = want_ct.clone();
            let mut bad = want_tag.clone();
            bad[0] ^= 1;
            assert!(matches!(
                k.open_in_place(&nonce, &aad, &mut forged, &bad),
                Err(CudaError::Aes(aesx::Error::AuthenticationFailed))
            ));
            assert!(forged.iter().all(|&b| b == 0));
            let mut dev = to_device(g, &want_ct);
            assert!(k.open_device(&nonce, &aad, &mut dev, &bad).is_err());
            assert!(from_device(g, &dev).iter().all(|&b| b == 0));
        }
    }
}

#[test]
fn nist_vectors_on_the_gpu() {
    let Some(g) = gpu() else { return };
    // SP 800-38A F.5.1 (CTR-AES128).
    let key = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
    let iv: [u8; 16] = hex::decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        .unwrap()
        .try_into()
        .unwrap();
    let mut buf =
        hex::decode("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51").unwrap();
    CudaAes::new(g, &key)
        .unwrap()
        .ctr_apply(&iv, &mut buf)
        .unwrap();
    assert_eq!(
        hex::encode(&buf),
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
    );
    // GCM decrypt file: every vector of the first parameter sets, FAIL
    // cases included.
    let text = std::fs::read_to_string(vectors_dir().join("nist/GCM/gcmDecrypt128.rsp")).unwrap();
    let mut checked = 0;
    for rec in rsp_records(&text).into_iter().take(400) {
        let Some(_) = field(&rec, "Count") else {
            continue;
        };
        let key = hexfield(&rec, "Key");
        let k = CudaGcm::new(g, &key).unwrap();
        let mut ct = hexfield(&rec, "CT");
        let r = k.open_in_place(
            &hexfield(&rec, "IV"),
            &hexfield(&rec, "AAD"),
            &mut ct,
            &hexfield(&rec, "Tag"),
        );
        if rec.iter().any(|(k, _)| k == "FAIL") {
            assert!(r.is_err());
        } else {
            r.unwrap();
            assert_eq!(ct, hexfield(&rec, "PT"));
        }
        checked += 1;
    }
    assert!(checked > 100);
}

/// XTS data units of every length around the stolen pair, against aesx.
#[test]
fn xts_units_with_ciphertext_stealing_match_soft() {
    let Some((g, mut rng)) = gpu_and_rng(21) else {
        return;
    };
    for klen in [32usize, 64] {
        let key = random(&mut rng, klen);
        let x = CudaXts::new(g, &key).unwrap();
        let cpu = aesx::Xts::with_backend(&key, Backend::Soft).unwrap();
        for len in (16..70).chain([16 * 1025 + 9, TEST_CHUNK + 15, (1 << 20) + 1, 1 << 24]) {
            let tweak: [u8; 16] = random(&mut rng, 16).try_into().unwrap();
            let pt = random(&mut rng, len);
            let mut want = pt.clone();
            cpu.encrypt(&tweak, &mut want).unwrap();
            let mut got = pt.clone();
            x.encrypt_unit(&tweak, &mut got).unwrap();
            assert!(got == want, "xts unit encrypt {klen} {len}");
            x.decrypt_unit(&tweak, &mut got).unwrap();
            assert!(got == pt, "xts unit decrypt {klen} {len}");
        }
        let mut short = [0u8; 15];
        assert!(x.encrypt_unit(&[0; 16], &mut short).is_err());
    }
}

/// Batched GCM (the file format's chunks) against aesx, message by
/// message, with a forged tag in the middle of a batch.
#[test]
fn gcm_messages_match_soft_and_stop_at_a_forgery() {
    let Some((g, mut rng)) = gpu_and_rng(22) else {
        return;
    };
    for (stride, nmsgs, last) in [
        (16384usize, 1usize, 0usize),
        (16384, 1, 7),
        (16384, 2048, 16384),
        (16384, 2049, 0),
        (16384, 300, 12345),
        (512, 33, 17),
    ] {
        let key = random(&mut rng, 32);
        let gcm = CudaGcm::new(g, &key).unwrap();
        let cpu = aesx::Gcm::with_backend(&key, Backend::Soft).unwrap();
        let nonces: Vec<[u8; 12]> = (0..nmsgs)
            .map(|_| random(&mut rng, 12).try_into().unwrap())
            .collect();
        let len = (nmsgs - 1) * stride + last;
        let pt = random(&mut rng, len);
        let mut buf = pt.clone();
        let tags = gcm.seal_messages(&nonces, stride, &mut buf).unwrap();
        for (i, n) in nonces.iter().enumerate() {
            let a = i * stride;
            let b = (a + stride).min(len);
            let sealed = cpu.seal(n, &[], &pt[a..b]).unwrap();
            assert!(buf[a..b] == sealed[..b - a], "ct {stride} {nmsgs} msg {i}");
            assert_eq!(
                &tags[i][..],
                &sealed[b - a..],
                "tag {stride} {nmsgs} msg {i}"
            );
        }
        let ct = buf.clone();
        assert_eq!(
            gcm.open_messages(&nonces, stride, &mut buf, &tags).unwrap(),
            nmsgs
        );
        assert!(buf == pt);
        if nmsgs > 2 {
            let mut bad = tags.clone();
            bad[nmsgs / 2][3] ^= 1;
            let mut buf = ct.clone();
            let k = gcm.open_messages(&nonces, stride, &mut buf, &bad).unwrap();
            assert_eq!(k, nmsgs / 2);
            assert!(buf[..k * stride] == pt[..k * stride]);
            assert!(buf[k * stride..].iter().all(|&b| b == 0));
        }
    }
}

/// Host buffers at odd addresses (a slice from byte 1, 3 or 7 of a Vec)
/// through every host API, against the same data at an aligned address.
#[test]
fn unaligned_host_buffers() {
    let Some((g, mut rng)) = gpu_and_rng(23) else {
        return;
    };
    let key = random(&mut rng, 32);
    let k = CudaAes::new(g, &key).unwrap();
    let x = CudaXts::new(g, &random(&mut rng, 64)).unwrap();
    let gcm = CudaGcm::new(g, &key).unwrap();
    let iv: [u8; 16] = random(&mut rng, 16).try_into().unwrap();
    let nonces: Vec<[u8; 12]> = (0..5).map(|i| [i as u8; 12]).collect();
    for shift in [1usize, 3, 7] {
        let len = 3 * TEST_CHUNK + 4096;
        let data = random(&mut rng, len);
        let mut backing = vec![0u8; len + shift];
        type Op<'a> = Box<dyn Fn(&mut [u8]) + 'a>;
        let ops: Vec<(&str, Op)> = vec![
            ("ecb", Box::new(|b: &mut [u8]| k.ecb_encrypt(b).unwrap())),
            (
                "ctr",
                Box::new(|b: &mut [u8]| k.ctr_apply(&iv, &mut b[..len - 5]).unwrap()),
            ),
            (
                "cbc",
                Box::new(|b: &mut [u8]| k.cbc_decrypt(&iv, b).unwrap()),
            ),
            (
                "xts",
                Box::new(|b: &mut [u8]| x.encrypt_sectors(5, 4096, b).unwrap()),
            ),
            (
                "xts unit",
                Box::new(|b: &mut [u8]| x.encrypt_unit(&iv, &mut b[..len - 9]).unwrap()),
            ),
            (
                "gcm",
                Box::new(|b: &mut [u8]| {
                    let t = gcm.seal_in_place(&iv[..12], b"a", b).unwrap();
                    b[..16].copy_from_slice(&t);
                }),
            ),
            (
                "gcm msgs",
                Box::new(|b: &mut [u8]| {
                    let t = gcm
                        .seal_messages(&nonces, 16384, &mut b[..4 * 16384 + 3])
                        .unwrap();
                    b[..16].copy_from_slice(&t[4]);
                }),
            ),
        ];
        for (name, op) in &ops {
            let mut aligned = data.clone();
            op(&mut aligned);
            backing[shift..].copy_from_slice(&data);
            op(&mut backing[shift..]);
            assert!(backing[shift..] == aligned[..], "{name} at offset {shift}");
        }
    }
}

/// A `HostBuffer` (and any slice of one) goes to the copy engines without
/// staging; the bytes must be those of a pageable buffer, and a forged GCM
/// tag must still leave nothing behind.
#[test]
fn host_buffers_match_pageable_buffers() {
    let Some((g, mut rng)) = gpu_and_rng(29) else {
        return;
    };
    let key = random(&mut rng, 16);
    let k = CudaAes::new(g, &key).unwrap();
    let x = CudaXts::new(g, &random(&mut rng, 64)).unwrap();
    let gcm = CudaGcm::new(g, &key).unwrap();
    let iv: [u8; 16] = random(&mut rng, 16).try_into().unwrap();
    let len = 5 * TEST_CHUNK + 4096;
    let mut pinned = g.host_buffer(len + 64).unwrap();
    assert!(
        pinned.iter().all(|&b| b == 0),
        "a new host buffer is zeroed"
    );
    for (off, n) in [(0, len), (16, 3 * TEST_CHUNK), (7, TEST_CHUNK + 33)] {
        let data = random(&mut rng, n);
        let run = |b: &mut [u8]| {
            k.ctr_apply(&iv, b).unwrap();
            let whole = b.len() / 4096 * 4096;
            x.encrypt_sectors(3, 4096, &mut b[..whole]).unwrap();
            let t = gcm.seal_in_place(&iv[..12], b"ad", b).unwrap();
            gcm.open_in_place(&iv[..12], b"ad", b, &t).unwrap();
            gcm.seal_in_place(&iv[..12], b"ad", b).unwrap()
        };
        let mut pageable = data.clone();
        let want_tag = run(&mut pageable);
        let p = &mut pinned[off..off + n];
        p.copy_from_slice(&data);
        let tag = run(p);
        assert!(*p == pageable[..], "host buffer at {off}+{n}");
        assert_eq!(tag, want_tag, "tag at {off}+{n}");
        let mut bad = tag;
        bad[3] ^= 0x40;
        assert!(gcm.open_in_place(&iv[..12], b"ad", p, &bad).is_err());
        assert!(p.iter().all(|&b| b == 0), "forgery at {off}+{n} left bytes");
    }
}

/// The chunk pipe against aesx's GCM chunk by chunk: records out when
/// sealing (ciphertext then tag, the last chunk short or empty), the
/// plaintext back when opening, and a forged chunk stops the verified
/// count at itself with everything after it zeroed.
#[test]
fn chunk_pipe_matches_gcm_chunk_by_chunk() {
    use aesx_cuda::chunk_pipe::{Direction, CHUNK, RECORD};
    let Some((g, mut rng)) = gpu_and_rng(31) else {
        return;
    };
    let key = random(&mut rng, 32);
    let gcm = CudaGcm::new(g, &key).unwrap();
    let cpu = aesx::Gcm::with_backend(&key, Backend::Soft).unwrap();
    let nonce = |i: usize| {
        let mut n = [0x5au8; 12];
        n[4..].copy_from_slice(&(i as u64).to_be_bytes());
        n
    };
    const BATCH: usize = 3;
    for len in [
        0,
        1,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        3 * CHUNK,
        5 * CHUNK + 17,
        7 * CHUNK,
    ] {
        let pt = random(&mut rng, len);
        // The stream's chunks: whole ones, then the final short (or empty).
        let nchunks = len / CHUNK + 1;
        let mut want = Vec::new();
        for i in 0..nchunks {
            let mut c = pt[(i * CHUNK).min(len)..((i + 1) * CHUNK).min(len)].to_vec();
            let t = cpu.seal_in_place_detached(&nonce(i), &[], &mut c).unwrap();
            want.extend_from_slice(&c);
            want.extend_from_slice(t.as_bytes());
        }
        // Seal in batches of BATCH chunks, two slots.
        let mut pipe = gcm.chunk_pipe(Direction::Seal, BATCH, 2).unwrap();
        let mut got = Vec::new();
        let mut first = 0;
        while first < nchunks {
            let n = BATCH.min(nchunks - first);
            let a = (first * CHUNK).min(len);
            let b = ((first + n) * CHUNK).min(len);
            if pipe.is_full() {
                got.extend_from_slice(pipe.take().unwrap().unwrap().output);
            }
            pipe.input().unwrap()[..b - a].copy_from_slice(&pt[a..b]);
            let nonces: Vec<[u8; 12]> = (first..first + n).map(nonce).collect();
            pipe.submit(b - a, &nonces).unwrap();
            first += n;
        }
        while let Some(d) = pipe.take().unwrap() {
            got.extend_from_slice(d.output);
        }
        assert!(got == want, "sealed records, {len} bytes");
        drop(pipe);
        // Open the records, once intact and once with a flipped bit in
        // the last chunk's tag.
        for forge in [false, true] {
            let mut ct = want.clone();
            if forge {
                // A bit of the last chunk's tag (the only bytes of an
                // empty stream's record).
                let k = ct.len() - 1;
                ct[k] ^= 1;
            }
            let mut pipe = gcm.chunk_pipe(Direction::Open, BATCH, 2).unwrap();
            let mut back = Vec::new();
            let mut verified = 0;
            let mut first = 0;
            while first < nchunks {
                let n = BATCH.min(nchunks - first);
                let a = first * RECORD;
                let b = ((first + n) * RECORD).min(ct.len());
                if pipe.is_full() {
                    let d = pipe.take().unwrap().unwrap();
                    verified += d.verified;
                    back.extend_from_slice(d.output);
                }
                pipe.input().unwrap()[..b - a].copy_from_slice(&ct[a..b]);
                let nonces: Vec<[u8; 12]> = (first..first + n).map(nonce).collect();
                pipe.submit(b - a, &nonces).unwrap();
                first += n;
            }
            while let Some(d) = pipe.take().unwrap() {
                verified += d.verified;
                back.extend_from_slice(d.output);
            }
            if forge {
                assert_eq!(verified, nchunks - 1, "forged last chunk, {len} bytes");
                let good = (nchunks - 1) * CHUNK;
                assert!(back[..good] == pt[..good]);
                assert!(
                    back[good..].iter().all(|&b| b == 0),
                    "unverified bytes released"
                );
            } else {
                assert_eq!(verified, nchunks);
                assert!(back == pt, "opened plaintext, {len} bytes");
            }
        }
    }
}

/// Every host-memory and device-memory path launches kernels: none of them
/// may quietly do its work on the CPU instead.
#[test]
fn every_gpu_path_launches_kernels() {
    use aesx_cuda::chunk_pipe::Direction;
    let Some((g, mut rng)) = gpu_and_rng(37) else {
        return;
    };
    let key = random(&mut rng, 32);
    let k = CudaAes::new(g, &key).unwrap();
    let x = CudaXts::new(g, &random(&mut rng, 64)).unwrap();
    let gcm = CudaGcm::new(g, &key).unwrap();
    let iv = [7u8; 16];
    let data = random(&mut rng, 3 * TEST_CHUNK + 16);
    let mut pinned = g.host_buffer(data.len()).unwrap();
    type Op<'a> = Box<dyn Fn(&mut [u8]) + 'a>;
    let ops: Vec<(&str, Op)> = vec![
        ("ecb", Box::new(|b: &mut [u8]| k.ecb_encrypt(b).unwrap())),
        ("ctr", Box::new(|b: &mut [u8]| k.ctr_apply(&iv, b).unwrap())),
        (
            "cbc-dec",
            Box::new(|b: &mut [u8]| k.cbc_decrypt(&iv, b).unwrap()),
        ),
        (
            "xts",
            Box::new(|b: &mut [u8]| x.decrypt_sectors(1, 16, b).unwrap()),
        ),
        (
            "xts unit",
            Box::new(|b: &mut [u8]| x.encrypt_unit(&iv, &mut b[..100]).unwrap()),
        ),
        (
            "gcm",
            Box::new(|b: &mut [u8]| {
                gcm.seal_in_place(&iv[..12], b"", b).unwrap();
            }),
        ),
        (
            "gcm msgs",
            Box::new(|b: &mut [u8]| {
                gcm.seal_messages(&[[1u8; 12]; 4], 16384, &mut b[..3 * 16384 + 5])
                    .unwrap();
            }),
        ),
        (
            "chunk pipe",
            Box::new(|b: &mut [u8]| {
                let mut p = gcm.chunk_pipe(Direction::Seal, 4, 2).unwrap();
                p.input().unwrap()[..b.len()].copy_from_slice(b);
                p.submit(b.len(), &[[2u8; 12]; 4]).unwrap();
                p.take().unwrap().unwrap();
            }),
        ),
    ];
    for (name, op) in &ops {
        for (kind, buf) in [
            ("pageable", &mut data.clone()[..]),
            ("host buffer", &mut pinned[..]),
        ] {
            let buf = if *name == "chunk pipe" {
                &mut buf[..3 * 16384 + 5]
            } else {
                buf
            };
            let before = aesx_cuda::launches();
            op(buf);
            assert!(
                aesx_cuda::launches() > before,
                "{name} on a {kind} buffer launched no kernel"
            );
        }
    }
    let mut dev = to_device(g, &data);
    let before = aesx_cuda::launches();
    k.ctr_apply_device(&iv, &mut dev).unwrap();
    gcm.seal_device(&iv[..12], b"", &mut dev).unwrap();
    g.synchronize().unwrap();
    assert!(
        aesx_cuda::launches() >= before + 2,
        "device paths launched no kernel"
    );
}
