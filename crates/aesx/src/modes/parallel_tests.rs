//! The split calls of `parallel.rs`: every split against one thread, through the public calls: in these
//! tests a segment may be as short as three blocks, so short messages
//! reach every thread count.
use super::parallel::{self, *};
use crate::backend::kernels::siv::SIV_NONCE_LEN;
use crate::backend::InOut;
use crate::key::{Block, BLOCK_LEN};
use crate::{Backend, Ctr, Error, Gcm, GcmSiv, Xts};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

fn random(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// Lengths around block and segment edges, and a few at random.
fn lengths(rng: &mut StdRng) -> Vec<usize> {
    let mut v = vec![0, 1, 15, 16, 17];
    for blocks in [3, 6, 9, 24, 25, 48, 49] {
        v.extend([
            blocks * BLOCK_LEN - 1,
            blocks * BLOCK_LEN,
            blocks * BLOCK_LEN + 1,
        ]);
    }
    v.extend((0..4).map(|_| rng.gen_range(0..1500)));
    v
}

#[test]
fn gcm_every_split_gives_one_threads_bytes() {
    let mut rng = StdRng::seed_from_u64(0x6763_6d70);
    for b in Backend::available() {
        for key_len in [16, 24, 32] {
            let one = Gcm::with_backend(&random(&mut rng, key_len), b).unwrap();
            for len in lengths(&mut rng) {
                let aad_len = [0, 7, 16, 45][rng.gen_range(0..4)];
                let nonce_len = if rng.gen_bool(0.8) { 12 } else { 20 };
                let (aad, pt) = (random(&mut rng, aad_len), random(&mut rng, len));
                let nonce = random(&mut rng, nonce_len);
                let want = one.seal(&nonce, &aad, &pt).unwrap();
                for t in 1..=8 {
                    let gcm = one.clone().with_threads(t);
                    let ctx = format!("{b:?} key {key_len} len {len} aad {aad_len} threads {t}");
                    assert_eq!(gcm.seal(&nonce, &aad, &pt).unwrap(), want, "{ctx}");
                    let mut buf = pt.clone();
                    let tag = gcm.seal_in_place_detached(&nonce, &aad, &mut buf).unwrap();
                    assert_eq!(buf, want[..len], "{ctx}");
                    assert_eq!(tag.as_bytes(), &want[len..], "{ctx}");
                    assert_eq!(gcm.open(&nonce, &aad, &want).unwrap(), pt, "{ctx}");
                    // A changed tag: nothing released, out of place or in place.
                    let mut forged = want.clone();
                    forged[len] ^= 0x80;
                    let mut out = vec![0xa5u8; len];
                    assert_eq!(
                        gcm.open_to(&nonce, &aad, &forged, &mut out),
                        Err(Error::AuthenticationFailed),
                        "{ctx}"
                    );
                    assert!(out.iter().all(|&x| x == 0), "{ctx}");
                    assert!(gcm.open_in_place(&nonce, &aad, &mut forged).is_err());
                    assert!(forged.iter().all(|&x| x == 0), "{ctx}");
                }
            }
        }
    }
}

/// Counter blocks whose 32-bit count wraps inside a segment and at a
/// segment's start, against the backend's one-thread fused kernel.
#[test]
fn gcm_counter_wraps_as_inc32() {
    let mut rng = StdRng::seed_from_u64(0x7772_6170);
    for b in Backend::available() {
        let gcm = Gcm::with_backend(&random(&mut rng, 16), b).unwrap();
        for back in [1u32, 2, 5, 17, 30] {
            let mut j0: Block = rng.gen();
            j0[12..].copy_from_slice(&0u32.wrapping_sub(back).to_be_bytes());
            let (aad, pt) = (random(&mut rng, 20), random(&mut rng, 40 * BLOCK_LEN + 9));
            let mut want = pt.clone();
            let full = gcm
                .engine
                .gcm_oneshot(true, &j0, &aad, InOut::in_place(&mut want));
            for parts in 1..=8 {
                let mut got = pt.clone();
                let tag = parallel::gcm(
                    &gcm.engine,
                    16,
                    parts,
                    &j0,
                    &aad,
                    InOut::in_place(&mut got),
                    true,
                );
                assert_eq!(got, want, "{b:?} back {back} parts {parts}");
                assert_eq!(tag.as_bytes(), &full, "{b:?} back {back} parts {parts}");
                let t2 = parallel::gcm(
                    &gcm.engine,
                    16,
                    parts,
                    &j0,
                    &aad,
                    InOut::in_place(&mut got),
                    false,
                );
                assert_eq!((got == pt, t2.as_bytes()), (true, &full[..]));
            }
        }
    }
}

#[test]
fn gcm_siv_every_split_gives_one_threads_bytes() {
    let mut rng = StdRng::seed_from_u64(0x7369_7670);
    for b in Backend::available() {
        for key_len in [16, 24, 32] {
            let one = GcmSiv::with_backend(&random(&mut rng, key_len), b).unwrap();
            for len in lengths(&mut rng) {
                let aad_len = [0, 7, 16, 45][rng.gen_range(0..4)];
                let (aad, pt) = (random(&mut rng, aad_len), random(&mut rng, len));
                let nonce = random(&mut rng, 12);
                let want = one.seal(&nonce, &aad, &pt).unwrap();
                for t in 1..=8 {
                    let siv = one.clone().with_threads(t);
                    let ctx = format!("{b:?} key {key_len} len {len} aad {aad_len} threads {t}");
                    assert_eq!(siv.seal(&nonce, &aad, &pt).unwrap(), want, "{ctx}");
                    let mut buf = pt.clone();
                    let tag = siv.seal_in_place_detached(&nonce, &aad, &mut buf).unwrap();
                    assert_eq!(buf, want[..len], "{ctx}");
                    assert_eq!(tag.as_bytes(), &want[len..], "{ctx}");
                    let mut ct = vec![0x5au8; len];
                    let tag = siv.seal_to_detached(&nonce, &aad, &pt, &mut ct).unwrap();
                    assert_eq!((&ct[..], tag.as_bytes()), want.split_at(len), "{ctx}");
                    assert_eq!(siv.open(&nonce, &aad, &want).unwrap(), pt, "{ctx}");
                    let (ct, tag) = want.split_at(len);
                    let mut buf = ct.to_vec();
                    siv.open_in_place_detached(&nonce, &aad, &mut buf, tag)
                        .unwrap();
                    assert_eq!(buf, pt, "{ctx}");
                    // A changed tag or text: nothing released.
                    for at in [len, len / 2] {
                        let mut forged = want.clone();
                        forged[at] ^= 0x01;
                        let (fct, ftag) = forged.split_at(len);
                        let mut out = vec![0xa5u8; len];
                        assert_eq!(
                            siv.open_to_detached(&nonce, &aad, fct, ftag, &mut out),
                            Err(Error::AuthenticationFailed),
                            "{ctx} at {at}"
                        );
                        assert!(out.iter().all(|&x| x == 0), "{ctx}");
                        let mut buf = fct.to_vec();
                        assert!(siv
                            .open_in_place_detached(&nonce, &aad, &mut buf, ftag)
                            .is_err());
                        assert!(buf.iter().all(|&x| x == 0), "{ctx}");
                    }
                }
            }
        }
    }
}

/// Opening counts from the received tag, whatever it is: counter words
/// that wrap mod 2^32 inside a segment and at a segment's start, against
/// the backend's one-thread open (sealing cannot pick its tag).
#[test]
fn gcm_siv_counter_wraps_mod_2_32() {
    let mut rng = StdRng::seed_from_u64(0x7772_6173);
    for b in Backend::available() {
        for key_len in [16, 24, 32] {
            let siv = GcmSiv::with_backend(&random(&mut rng, key_len), b).unwrap();
            let (engine, size) = (&siv.aes.engine, siv.key_size());
            let nonce: [u8; SIV_NONCE_LEN] = rng.gen();
            for back in [1u32, 2, 5, 17, 30] {
                let mut tag: Block = rng.gen();
                tag[..4].copy_from_slice(&0u32.wrapping_sub(back).to_le_bytes());
                let (aad, ct) = (random(&mut rng, 20), random(&mut rng, 40 * BLOCK_LEN + 9));
                let mut want = ct.clone();
                let full = engine
                    .gcm_siv_open(size, &nonce, &aad, InOut::in_place(&mut want), &tag)
                    .unwrap();
                for parts in 1..=8 {
                    let mut got = vec![0u8; ct.len()];
                    let io = InOut::new(&ct, &mut got).unwrap();
                    let t = gcm_siv(engine, size, parts, &nonce, &aad, io, Some(&tag));
                    let ctx = format!("{b:?} key {key_len} back {back} parts {parts}");
                    assert_eq!(got, want, "{ctx}");
                    assert_eq!(t.unwrap(), full, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn ctr_every_split_gives_one_threads_keystream() {
    let mut rng = StdRng::seed_from_u64(0x6374_7270);
    for b in Backend::available() {
        let key = random(&mut rng, 32);
        // A random counter, and one that wraps modulo 2^128 inside.
        let ivs = [rng.gen::<[u8; 16]>(), (u128::MAX - 20).to_be_bytes()];
        for iv in ivs {
            let data = random(&mut rng, 2000);
            let mut want = data.clone();
            Ctr::with_backend(&key, &iv, b)
                .unwrap()
                .apply_keystream(&mut want);
            for t in 1..=8 {
                let mut ctr = Ctr::with_backend(&key, &iv, b).unwrap().with_threads(t);
                let mut got = data.clone();
                // Pieces that leave partial blocks between calls.
                let mut at = 0;
                while at < got.len() {
                    let n = rng.gen_range(1..900).min(got.len() - at);
                    ctr.apply_keystream(&mut got[at..at + n]);
                    at += n;
                }
                assert_eq!(got, want, "{b:?} threads {t}");
                assert_eq!(ctr.position(), 2000);
            }
        }
    }
}

#[test]
fn xts_every_split_gives_one_threads_sectors() {
    let mut rng = StdRng::seed_from_u64(0x7874_7370);
    for b in Backend::available() {
        for key_len in [32, 64] {
            let one = Xts::with_backend(&random(&mut rng, key_len), b).unwrap();
            for (size, count) in [(16, 1), (16, 37), (48, 11), (512, 9)] {
                let first = if rng.gen_bool(0.5) {
                    rng.gen::<u64>() as u128
                } else {
                    u128::MAX - count as u128 + 1
                };
                let data = random(&mut rng, size * count);
                let mut want = data.clone();
                one.encrypt_sectors(size, first, &mut want).unwrap();
                for t in 1..=8 {
                    let xts = one.clone().with_threads(t);
                    let mut got = data.clone();
                    xts.encrypt_sectors(size, first, &mut got).unwrap();
                    assert_eq!(got, want, "{b:?} {size}x{count} threads {t}");
                    let mut back = vec![0u8; got.len()];
                    xts.decrypt_sectors_to(size, first, &got, &mut back)
                        .unwrap();
                    assert_eq!(back, data, "{b:?} {size}x{count} threads {t}");
                }
            }
        }
    }
}

#[test]
fn xts_unit_every_split_gives_one_threads_bytes() {
    let mut rng = StdRng::seed_from_u64(0x7874_7575);
    for b in Backend::available() {
        for key_len in [32, 64] {
            let one = Xts::with_backend(&random(&mut rng, key_len), b).unwrap();
            let mut lens = lengths(&mut rng);
            lens.retain(|&l| l >= BLOCK_LEN);
            for len in lens {
                let tweak: Block = rng.gen();
                let data = random(&mut rng, len);
                let mut want = data.clone();
                one.encrypt(&tweak, &mut want).unwrap();
                for t in 1..=8 {
                    let xts = one.clone().with_threads(t);
                    let ctx = format!("{b:?} key {key_len} len {len} threads {t}");
                    let mut got = vec![0u8; len];
                    xts.encrypt_to(&tweak, &data, &mut got).unwrap();
                    assert_eq!(got, want, "{ctx}");
                    xts.decrypt(&tweak, &mut got).unwrap();
                    assert_eq!(got, data, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn alpha_powers_are_repeated_doublings() {
    let mut x = 1u128;
    for m in 0..300u64 {
        assert_eq!(alpha_pow(m), x, "m = {m}");
        x = (x << 1) ^ (0x87 * (x >> 127));
    }
    let t = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
    let mut y = t;
    for _ in 0..1000 {
        y = (y << 1) ^ (0x87 * (y >> 127));
    }
    assert_eq!(gf128_le_mul(t, alpha_pow(1000)), y);
}

#[test]
fn thread_counts_are_held_in_range() {
    let gcm = Gcm::with_backend(&[1u8; 16], Backend::Soft).unwrap();
    assert_eq!(gcm.threads(), 1);
    assert_eq!(gcm.clone().with_threads(0).threads(), 1);
    assert_eq!(gcm.clone().with_threads(1000).threads(), MAX_THREADS);
    assert_eq!(segments(5 * BLOCK_LEN, BLOCK_LEN, 8), 1);
    assert_eq!(segments(6 * BLOCK_LEN, BLOCK_LEN, 8), 2);
    assert_eq!(segments(100 * BLOCK_LEN, BLOCK_LEN, 8), 8);
}
