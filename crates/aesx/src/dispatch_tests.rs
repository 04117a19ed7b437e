//! Proves which kernel runs: forcing a backend must reach that backend's own
//! kernels (and no other level's), not a generic fallback that happens to
//! give the same bytes. Relies on the per-kernel, per-thread counters of
//! `backend::kernels::trace`, compiled into the unit-test build.

use std::{format, string::String, vec, vec::Vec};

use crate::backend::kernels::trace;
use crate::{cbc_encrypt_many, Aes, Backend, Cbc, CbcJob, Ccm, Cmac, Ctr, Ecb, Gcm, KeyWrap, Xts};

const OPS: [&str; 10] = [
    "encrypt_blocks",
    "decrypt_blocks",
    "cbc_encrypt",
    "cbc_decrypt",
    "ctr_apply",
    "cbc_encrypt_many",
    "gcm_encrypt",
    "gcm_decrypt",
    "xts_encrypt",
    "xts_decrypt",
];
/// The x86 family's backends (its levels), from the list.
fn levels() -> impl Iterator<Item = Backend> {
    Backend::ALL.into_iter().filter(|b| b.family() == "x86")
}

fn snapshot() -> Vec<(String, u64)> {
    let mut v = Vec::new();
    for b in levels() {
        for op in OPS {
            let name = format!("{}::{op}", b.name());
            let n = trace::count(&name).unwrap_or_else(|| panic!("no counter {name}"));
            v.push((name, n));
        }
    }
    v
}

/// Runs one operation of `op` on a key forced to `b`.
fn run(b: Backend, op: &str, key: &[u8]) {
    let mut buf = vec![0x3cu8; 16 * 37];
    match op {
        "encrypt_blocks" => Ecb::with_backend(key, b)
            .unwrap()
            .encrypt_in_place(&mut buf)
            .unwrap(),
        "decrypt_blocks" => Ecb::with_backend(key, b)
            .unwrap()
            .decrypt_in_place(&mut buf)
            .unwrap(),
        "cbc_encrypt" => Cbc::with_backend(key, b)
            .unwrap()
            .encrypt_in_place(&[1; 16], &mut buf)
            .unwrap(),
        "cbc_decrypt" => Cbc::with_backend(key, b)
            .unwrap()
            .decrypt_in_place(&[1; 16], &mut buf)
            .unwrap(),
        "ctr_apply" => Ctr::with_backend(key, &[2; 16], b)
            .unwrap()
            .apply_keystream(&mut buf),
        "cbc_encrypt_many" => {
            let aes = Aes::with_backend(key, b).unwrap();
            let mut other = vec![5u8; 16 * 20];
            let mut jobs = [
                CbcJob {
                    key: &aes,
                    iv: [3; 16],
                    data: &mut buf,
                },
                CbcJob {
                    key: &aes,
                    iv: [4; 16],
                    data: &mut other,
                },
            ];
            cbc_encrypt_many(&mut jobs).unwrap();
        }
        // Both GCM entries: a short one-shot message (the vaes512 one-shot
        // kernel) and a long one through the streaming interface.
        "gcm_encrypt" => {
            let gcm = Gcm::with_backend(key, b).unwrap();
            let _ = gcm.seal_in_place_detached(&[7; 12], b"aad", &mut buf[..100]);
            let mut e = gcm.encryptor(&[7; 12]).unwrap();
            e.encrypt_in_place(&mut buf).unwrap();
            let _ = e.finish();
        }
        "gcm_decrypt" => {
            let gcm = Gcm::with_backend(key, b).unwrap();
            let tag = gcm
                .seal_in_place_detached(&[7; 12], b"aad", &mut buf)
                .unwrap();
            gcm.open_in_place_detached(&[7; 12], b"aad", &mut buf, tag.as_bytes())
                .unwrap();
        }
        "xts_encrypt" | "xts_decrypt" => {
            let mut xk = key.to_vec();
            xk.extend(key.iter().map(|x| x ^ 0x55));
            let xts = Xts::with_backend(&xk, b).unwrap();
            let t = Xts::sector_tweak(11);
            let mut sectors = vec![0x3cu8; 512 * 9];
            if op == "xts_encrypt" {
                xts.encrypt(&t, &mut buf).unwrap();
                xts.encrypt_sectors(512, 3, &mut sectors).unwrap();
            } else {
                xts.decrypt(&t, &mut buf).unwrap();
                xts.decrypt_sectors(512, 3, &mut sectors).unwrap();
            }
        }
        _ => unreachable!(),
    }
}

#[test]
fn forced_backends_run_their_own_kernels() {
    if !trace::enabled() {
        eprintln!("kernel counters are compiled out (release build); nothing to check");
        return;
    }
    assert_eq!(trace::count("no::such_kernel"), None);
    let mut checked = 0;
    for b in levels() {
        if !b.is_available() {
            assert!(Aes::with_backend(&[0; 16], b).is_err());
            continue;
        }
        for op in OPS {
            for key in [&[9u8; 16][..], &[9u8; 24], &[9u8; 32]] {
                if op.starts_with("xts") && key.len() == 24 {
                    continue; // XTS has no AES-192.
                }
                let before = snapshot();
                run(b, op, key);
                let after = snapshot();
                let want = format!("{}::{op}", b.name());
                for ((name, n0), (_, n1)) in before.iter().zip(after.iter()) {
                    if *name == want {
                        assert!(n1 > n0, "{want} did not run for a {b} key");
                    } else if name.split("::").next() != Some(b.name()) {
                        // Another level's kernel must never run for this key.
                        assert_eq!(n0, n1, "{name} ran for a {b} key ({op})");
                    }
                }
                checked += 1;
            }
        }
    }
    // The soft backend reaches none of the x86 kernels.
    let before = snapshot();
    for op in OPS {
        run(Backend::Soft, op, &[9u8; 16]);
    }
    assert_eq!(before, snapshot(), "an x86 kernel ran for a soft key");
    eprintln!("checked {checked} forced (backend, kernel, key size) cases");
}

/// GCM-SIV's kernels (POLYVAL, the little-endian CTR32) and XAES's GCM on a
/// derived key run on the forced level, and nowhere else.
#[test]
fn gcm_siv_and_xaes_run_their_levels_kernels() {
    if !trace::enabled() {
        return;
    }
    const SIV_OPS: [&str; 2] = ["polyval", "ctr32le"];
    let counts = || -> Vec<(String, u64)> {
        let mut v = Vec::new();
        for b in levels() {
            for op in SIV_OPS.iter().chain(["gcm_encrypt", "gcm_decrypt"].iter()) {
                let name = format!("{}::{op}", b.name());
                v.push((name.clone(), trace::count(&name).unwrap()));
            }
        }
        v
    };
    let run_all = |b: Backend| {
        let mut buf = vec![0x3cu8; 16 * 37 + 5];
        for key in [&[9u8; 16][..], &[9u8; 32]] {
            let siv = crate::GcmSiv::with_backend(key, b).unwrap();
            let tag = siv
                .seal_in_place_detached(&[1; 12], b"aad", &mut buf)
                .unwrap();
            siv.open_in_place_detached(&[1; 12], b"aad", &mut buf, tag.as_bytes())
                .unwrap();
        }
        let x = crate::Xaes256Gcm::with_backend(&[9u8; 32], b).unwrap();
        let tag = x
            .seal_in_place_detached(&[1; 24], b"aad", &mut buf)
            .unwrap();
        x.open_in_place_detached(&[1; 24], b"aad", &mut buf, tag.as_bytes())
            .unwrap();
    };
    for b in levels() {
        if !b.is_available() {
            continue;
        }
        let before = counts();
        run_all(b);
        let after = counts();
        for ((name, n0), (_, n1)) in before.iter().zip(after.iter()) {
            if name.starts_with(&format!("{}::", b.name())) {
                assert!(n1 > n0, "{name} did not run for a {b} key");
            } else {
                assert_eq!(n0, n1, "{name} ran for a {b} key");
            }
        }
    }
    let before = counts();
    run_all(Backend::Soft);
    assert_eq!(before, counts(), "an x86 kernel ran for a soft key");
}

/// The serial MAC and key-wrap kernels (`backend::kernels::mac`): one
/// AES-NI kernel serves every x86 level (a wider register cannot shorten one
/// chain), the armv8 backend has its own, and the soft backend takes the
/// generic versions, which reach none of these counters.
const MAC_OPS: [&str; 5] = [
    "cbc_mac",
    "ccm_encrypt",
    "ccm_decrypt",
    "kw_wrap",
    "kw_unwrap",
];

/// Whose name a family's serial kernels carry: the family's first (slowest)
/// backend in the list, whose kernels every tier of the family shares.
fn serial_kernels(family: &str) -> &'static str {
    let first = Backend::ALL.into_iter().find(|b| b.family() == family);
    first.map_or("", Backend::name)
}

fn mac_counts() -> Vec<(String, u64)> {
    let mut v = Vec::new();
    let mut hardware: Vec<&str> = Backend::ALL
        .into_iter()
        .filter(|b| *b != Backend::Soft)
        .map(Backend::family)
        .collect();
    hardware.dedup();
    for family in hardware.into_iter().map(serial_kernels) {
        for op in MAC_OPS {
            let name = format!("{family}::{op}");
            let n = trace::count(&name).unwrap_or_else(|| panic!("no counter {name}"));
            v.push((name, n));
        }
    }
    v
}

fn run_mac(b: Backend, op: &str, key: &[u8]) {
    // The allocation-free calls, so that the no-std unit tests run this too.
    let data = [0x5au8; 16 * 9 + 5];
    match op {
        "cbc_mac" => {
            let _ = Cmac::with_backend(key, b).unwrap().mac(&data);
        }
        "ccm_encrypt" | "ccm_decrypt" => {
            let ccm = Ccm::with_backend(key, 16, b).unwrap();
            let mut buf = data;
            let tag = ccm
                .seal_in_place_detached(&[1; 12], b"aad", &mut buf)
                .unwrap();
            if op == "ccm_decrypt" {
                ccm.open_in_place_detached(&[1; 12], b"aad", &mut buf, tag.as_bytes())
                    .unwrap();
                assert_eq!(buf, data);
            }
        }
        "kw_wrap" | "kw_unwrap" => {
            let kw = KeyWrap::with_backend(key, b).unwrap();
            let mut w = [0u8; 40];
            let n = kw.wrap_to(&data[..32], &mut w).unwrap();
            if op == "kw_unwrap" {
                let mut back = [0u8; 32];
                let m = kw.unwrap_to(&w[..n], &mut back).unwrap();
                assert_eq!(&back[..m], &data[..32]);
            }
        }
        _ => unreachable!(),
    }
}

#[test]
fn mac_kernels_dispatch() {
    if !trace::enabled() {
        return;
    }
    let mut checked = 0;
    for b in Backend::available().iter() {
        let family = (b != Backend::Soft).then(|| serial_kernels(b.family()));
        for op in MAC_OPS {
            for key in [&[9u8; 16][..], &[9u8; 24], &[9u8; 32]] {
                let before = mac_counts();
                run_mac(b, op, key);
                let after = mac_counts();
                for ((name, n0), (_, n1)) in before.iter().zip(after.iter()) {
                    match family {
                        Some(f) if *name == format!("{f}::{op}") => {
                            assert!(n1 > n0, "{name} did not run for a {b} key")
                        }
                        Some(f) if !name.starts_with(f) => {
                            assert_eq!(n0, n1, "{name} ran for a {b} key")
                        }
                        None => assert_eq!(n0, n1, "{name} ran for a {b} key"),
                        _ => {}
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 15);
}
