//! One message on several threads at the real segment size (the unit tests
//! in `modes/parallel.rs` reach every split of short messages): GCM and
//! GCM-SIV seal and open, CTR, XTS sectors and one XTS data unit give the
//! one-thread bytes on every backend (or the one `AESX_BACKEND` forces),
//! and a forged GCM or GCM-SIV message releases nothing.

mod common;

use aesx::parallel::MIN_SEGMENT;
use aesx::{Ctr, Error, Gcm, GcmSiv, Xts};
use rand::{Rng, RngCore, SeedableRng};

fn random(rng: &mut rand::rngs::StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

#[test]
fn gcm_threads_match_one_thread_at_segment_edges() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7061_7267);
    let lens = [
        2 * MIN_SEGMENT - 16,
        2 * MIN_SEGMENT,
        2 * MIN_SEGMENT + 17,
        3 * MIN_SEGMENT + 5,
    ];
    for b in common::backends() {
        let one = Gcm::with_backend(&random(&mut rng, 32), b).unwrap();
        for (i, &len) in lens.iter().enumerate() {
            let aad = random(&mut rng, [0, 13, 16, 100][i]);
            let (nonce, pt) = (random(&mut rng, 12), random(&mut rng, len));
            let want = one.seal(&nonce, &aad, &pt).unwrap();
            for t in [2, 3, 8] {
                let gcm = one.clone().with_threads(t);
                let ctx = format!("{b:?} len {len} threads {t}");
                assert_eq!(
                    gcm.seal(&nonce, &aad, &want[..0]).unwrap(),
                    one.seal(&nonce, &aad, b"").unwrap()
                );
                assert_eq!(gcm.seal(&nonce, &aad, &pt).unwrap(), want, "{ctx}");
                assert_eq!(gcm.open(&nonce, &aad, &want).unwrap(), pt, "{ctx}");
                // The last ciphertext byte changed: refused, output wiped.
                let mut forged = want.clone();
                forged[len - 1] ^= 1;
                let mut out = vec![0xffu8; len];
                let r = gcm.open_to(&nonce, &aad, &forged, &mut out);
                assert_eq!(r, Err(Error::AuthenticationFailed), "{ctx}");
                assert!(out.iter().all(|&x| x == 0), "{ctx}");
            }
        }
    }
}

#[test]
fn gcm_siv_threads_match_one_thread_at_segment_edges() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7369_7673);
    let lens = [
        2 * MIN_SEGMENT - 16,
        2 * MIN_SEGMENT,
        2 * MIN_SEGMENT + 17,
        3 * MIN_SEGMENT + 5,
    ];
    for b in common::backends() {
        for (i, &len) in lens.iter().enumerate() {
            let key_len = [16, 32, 24, 32][i];
            let one = GcmSiv::with_backend(&random(&mut rng, key_len), b).unwrap();
            let aad = random(&mut rng, [0, 13, 16, 100][i]);
            let (nonce, pt) = (random(&mut rng, 12), random(&mut rng, len));
            let want = one.seal(&nonce, &aad, &pt).unwrap();
            for t in [2, 3, 8] {
                let siv = one.clone().with_threads(t);
                let ctx = format!("{b:?} key {key_len} len {len} threads {t}");
                assert_eq!(siv.seal(&nonce, &aad, &pt).unwrap(), want, "{ctx}");
                assert_eq!(siv.open(&nonce, &aad, &want).unwrap(), pt, "{ctx}");
                // The first ciphertext byte or the tag changed: refused,
                // output wiped.
                for at in [0, len] {
                    let mut forged = want.clone();
                    forged[at] ^= 1;
                    let (ct, tag) = forged.split_at(len);
                    let mut out = vec![0xffu8; len];
                    let r = siv.open_to_detached(&nonce, &aad, ct, tag, &mut out);
                    assert_eq!(r, Err(Error::AuthenticationFailed), "{ctx} at {at}");
                    assert!(out.iter().all(|&x| x == 0), "{ctx} at {at}");
                }
            }
        }
    }
}

#[test]
fn ctr_and_xts_threads_match_one_thread() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6374_7873);
    let len = 2 * MIN_SEGMENT + MIN_SEGMENT / 3;
    for b in common::backends() {
        let key = random(&mut rng, 16);
        let iv: [u8; 16] = rng.gen();
        let data = random(&mut rng, len + 9);
        let mut want = data.clone();
        Ctr::with_backend(&key, &iv, b)
            .unwrap()
            .apply_keystream(&mut want);
        for t in [2, 5] {
            let mut got = data.clone();
            let mut ctr = Ctr::with_backend(&key, &iv, b).unwrap().with_threads(t);
            ctr.apply_keystream(&mut got[..3]);
            ctr.apply_keystream(&mut got[3..]);
            assert_eq!(got, want, "{b:?} ctr threads {t}");
        }

        let one = Xts::with_backend(&random(&mut rng, 64), b).unwrap();
        let sectors = &data[..len - len % 4096];
        let mut want = sectors.to_vec();
        one.encrypt_sectors(4096, 1 << 40, &mut want).unwrap();
        for t in [2, 3] {
            let xts = one.clone().with_threads(t);
            let mut got = vec![0u8; sectors.len()];
            xts.encrypt_sectors_to(4096, 1 << 40, sectors, &mut got)
                .unwrap();
            assert_eq!(got, want, "{b:?} xts threads {t}");
            xts.decrypt_sectors(4096, 1 << 40, &mut got).unwrap();
            assert_eq!(got, sectors, "{b:?} xts threads {t}");
        }

        // One data unit, whole blocks and with a partial last block.
        let tweak: [u8; 16] = rng.gen();
        for unit in [&data[..len - len % 16], &data[..]] {
            let mut want = unit.to_vec();
            one.encrypt(&tweak, &mut want).unwrap();
            for t in [2, 3] {
                let xts = one.clone().with_threads(t);
                let mut got = vec![0u8; unit.len()];
                xts.encrypt_to(&tweak, unit, &mut got).unwrap();
                assert_eq!(got, want, "{b:?} xts unit {} threads {t}", unit.len());
                xts.decrypt(&tweak, &mut got).unwrap();
                assert_eq!(got, unit, "{b:?} xts unit {} threads {t}", unit.len());
            }
        }
    }
}
