//! GCM under every core schedule (forced: CPUID picks one per machine), on
//! every backend, against OpenSSL: one-shot and streamed, both directions,
//! at lengths around the VAES kernels' main steps (256 bytes on ymm, 512 on
//! zmm), their four-register tails, and past a wrap of the counter's last
//! byte. The ymm kernel multiplies with Karatsuba under the `zen` and
//! `generic` schedules and schoolbook under `intel`, so one machine checks
//! both. The schedules differ in instruction order only, so a test running
//! beside this one under a forced schedule still sees correct output.

mod common;

use aesx::hazmat::GcmDecryptorHazmat;
use aesx::{Gcm, Schedule};
use openssl::symm::{encrypt_aead, Cipher};
use rand::{Rng, RngCore, SeedableRng};

fn cipher(key_len: usize) -> Cipher {
    match key_len {
        16 => Cipher::aes_128_gcm(),
        24 => Cipher::aes_192_gcm(),
        _ => Cipher::aes_256_gcm(),
    }
}

fn random_bytes(rng: &mut impl RngCore, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

#[test]
fn every_schedule_matches_openssl() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x4743_4d53);
    let lens = [
        0usize, 1, 16, 100, 127, 128, 129, 255, 256, 257, 383, 511, 512, 513, 767, 1500, 4113,
        16384, 20000,
    ];
    for schedule in Schedule::ALL {
        Schedule::force(Some(schedule));
        for backend in common::backends() {
            for key_len in [16usize, 24, 32] {
                for len in lens {
                    let aad_len = rng.gen_range(0..200);
                    check(&mut rng, schedule, backend, key_len, len, aad_len);
                }
            }
        }
    }
    Schedule::force(None);
}

/// Long AAD (and GMAC, with no text): the AAD hash's groups of eight
/// blocks (`aesni`) and its main steps of 256 bytes (ymm, Karatsuba under
/// `zen` and `generic`) and 512 (zmm), with the tails around them.
#[test]
fn long_aad_under_every_schedule() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x4741_4144);
    let aad_lens = [
        127usize, 128, 129, 255, 256, 257, 511, 512, 513, 1029, 4096, 4127,
    ];
    for schedule in Schedule::ALL {
        Schedule::force(Some(schedule));
        for backend in common::backends() {
            for key_len in [16usize, 24, 32] {
                for aad_len in aad_lens {
                    for len in [0usize, 17] {
                        check(&mut rng, schedule, backend, key_len, len, aad_len);
                    }
                }
            }
        }
    }
    Schedule::force(None);
}

/// One random message of `len` bytes with `aad_len` bytes of AAD under
/// `backend`: sealed and opened in one shot and streamed in two uneven
/// pieces, against OpenSSL.
fn check(
    rng: &mut impl Rng,
    schedule: Schedule,
    backend: aesx::Backend,
    key_len: usize,
    len: usize,
    aad_len: usize,
) {
    let key = random_bytes(rng, key_len);
    let iv = random_bytes(rng, 12);
    let aad = random_bytes(rng, aad_len);
    let pt = random_bytes(rng, len);
    let mut tag = [0u8; 16];
    let want = encrypt_aead(cipher(key_len), &key, Some(&iv), &aad, &pt, &mut tag).unwrap();
    let what = format!("{schedule} {backend} key {key_len} len {len} aad {aad_len}");
    let gcm = Gcm::with_backend(&key, backend).unwrap();

    let sealed = gcm.seal(&iv, &aad, &pt).unwrap();
    assert_eq!(&sealed[..len], &want[..], "{what} seal");
    assert_eq!(&sealed[len..], &tag[..], "{what} seal tag");
    let opened = gcm.open(&iv, &aad, &sealed).unwrap();
    assert_eq!(opened, pt, "{what} open");

    // Streamed in two uneven pieces: the kernels' per-call path (no AAD
    // inside, the GHASH state carried over).
    let cut = rng.gen_range(0..=len);
    let mut enc = gcm.encryptor(&iv).unwrap();
    enc.aad(&aad).unwrap();
    let mut buf = pt.clone();
    let (a, b) = buf.split_at_mut(cut);
    enc.encrypt_in_place(a).unwrap();
    enc.encrypt_in_place(b).unwrap();
    assert_eq!(enc.finish().as_bytes(), &tag[..], "{what} streamed tag");
    assert_eq!(buf, want, "{what} streamed");
    let mut dec = GcmDecryptorHazmat::new(&gcm, &iv).unwrap();
    dec.aad(&aad).unwrap();
    let (a, b) = buf.split_at_mut(cut);
    dec.decrypt_in_place(a).unwrap();
    dec.decrypt_in_place(b).unwrap();
    dec.finish(&tag).unwrap();
    assert_eq!(buf, pt, "{what} streamed decrypt");
}
