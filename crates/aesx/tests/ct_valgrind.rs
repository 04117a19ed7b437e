//! Constant-time evidence for the soft backend, in the manner of ctgrind and
//! TIMECOP: under Valgrind's memcheck the key and the plaintext are marked
//! "undefined", so that any branch, conditional move or memory address that
//! depends on them is reported ("Conditional jump or move depends on
//! uninitialised value(s)", "Use of uninitialised value of size 8"). Output is
//! marked defined again before anything looks at it.
//!
//! The probes are `#[ignore]`d tests that do their work only under Valgrind;
//! the ordinary tests run this very binary under `valgrind --error-exitcode=99`
//! with one probe selected. A deliberately leaky AES round (S-box table
//! lookup) and a leaky comparison (early exit) are probed the same way, and
//! Valgrind must flag them: that shows the harness can fail.
//!
//! Without Valgrind the test is skipped with a message, except under CI
//! (`CI` set), where that is a failure.

use std::process::Command;

use aesx::{Aes, Backend, Cbc, Ctr, Ecb, Padding};

/// Valgrind client requests; the `unsafe` inline assembly lives in the
/// library's `backend/` with the rest of the unsafe code.
mod valgrind;

/// Printed by a probe that really ran under Valgrind; the driver insists on
/// it, so a probe name that matches nothing cannot pass silently.
const MARKER: &str = "ct-probe: ran under valgrind";

/// A probe: runs `body` when under Valgrind (else says so and returns,
/// checking nothing), then prints [`MARKER`] for the driver.
fn probe(name: &str, body: impl FnOnce()) {
    if !valgrind::running() {
        eprintln!("{name}: not under valgrind, nothing to check");
        return;
    }
    body();
    println!("{MARKER}");
}

fn secret_bytes(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

/// Everything the soft backend offers, on secret keys and plaintexts: key
/// expansion through the public API, single and bulk blocks (full and
/// partial batches) both ways, CBC and CTR.
#[test]
#[ignore = "driven under valgrind by soft_backend_is_constant_time"]
fn ct_probe_soft() {
    probe("ct_probe_soft", || {
        // The driver asks for the baseline build through the environment; the
        // library reads none, so the probe passes the choice in.
        if std::env::var("AESX_SOFT_SIMD").is_ok_and(|v| v == "baseline") {
            aesx::__testing::soft_simd_baseline();
        }
        // Which build of the rounds the soft backend picks under Valgrind.
        #[cfg(target_arch = "x86_64")]
        println!(
            "ct_probe_soft: avx2 detected {}, AESX_SOFT_SIMD={:?}",
            std::arch::is_x86_feature_detected!("avx2"),
            std::env::var("AESX_SOFT_SIMD").ok()
        );
        for key_len in [16, 24, 32] {
            let key = secret_bytes(key_len, 1);
            // 21 blocks: one full batch of sixteen and a partial one.
            let pt = secret_bytes(16 * 21, 2);
            valgrind::poison(&key);
            valgrind::poison(&pt);

            let aes = Aes::with_backend(&key, Backend::Soft).unwrap();
            let mut block: [u8; 16] = pt[..16].try_into().unwrap();
            aes.encrypt_block(&mut block);
            aes.decrypt_block(&mut block);
            valgrind::unpoison(&block);
            let want: [u8; 16] = pt[..16].try_into().unwrap();
            valgrind::unpoison(&want);
            assert_eq!(block, want);

            let ecb = Ecb::with_backend(&key, Backend::Soft).unwrap();
            let mut buf = pt.clone();
            ecb.encrypt_in_place(&mut buf).unwrap();
            ecb.decrypt_in_place(&mut buf).unwrap();
            valgrind::unpoison(&buf);

            let iv = [0x5a; 16];
            let cbc = Cbc::with_backend(&key, Backend::Soft).unwrap();
            let buf = pt.clone();
            let mut ct = vec![0u8; buf.len()];
            let n = cbc.encrypt(&iv, &buf, &mut ct, Padding::None).unwrap();
            assert_eq!(n, buf.len());
            cbc.decrypt_in_place(&iv, &mut ct).unwrap();
            valgrind::unpoison(&ct);
            valgrind::unpoison(&buf);
            assert_eq!(ct, buf);

            let mut ctr = Ctr::with_backend(&key, &iv, Backend::Soft).unwrap();
            // An odd length exercises the mode's partial-block keystream too.
            let mut buf = pt[..16 * 21 - 5].to_vec();
            ctr.apply_keystream(&mut buf);
            valgrind::unpoison(&buf);
            let mut back = buf.clone();
            let mut ctr = Ctr::with_backend(&key, &iv, Backend::Soft).unwrap();
            ctr.apply_keystream(&mut back);
            valgrind::unpoison(&back);
            let want = pt[..16 * 21 - 5].to_vec();
            valgrind::unpoison(&want);
            assert_eq!(back, want);
        }
    });
}

/// A textbook leaky AES fragment: AddRoundKey, then SubBytes through a
/// 256-byte table indexed by the secret state (the cache-timing leak of
/// T-table AES), then ShiftRows.
fn leaky_round(table: &[u8; 256], key: &[u8; 16], block: &mut [u8; 16]) {
    for (b, k) in block.iter_mut().zip(key) {
        *b = table[(*b ^ *k) as usize];
    }
    block.rotate_left(5);
}

/// Any bijective byte table will do for the leak; this one is an affine map.
fn leaky_table() -> [u8; 256] {
    core::array::from_fn(|i| (i as u8).wrapping_mul(5).wrapping_add(0x63))
}

#[test]
#[ignore = "driven under valgrind by leaky_double_is_flagged"]
fn ct_probe_leaky_table() {
    probe("ct_probe_leaky_table", || {
        let table = leaky_table();
        let key: [u8; 16] = secret_bytes(16, 3).try_into().unwrap();
        let mut block: [u8; 16] = secret_bytes(16, 4).try_into().unwrap();
        valgrind::poison(&key);
        valgrind::poison(&block);
        leaky_round(&table, std::hint::black_box(&key), &mut block);
        valgrind::unpoison(&block);
        std::hint::black_box(&block);
    });
}

/// A comparison that exits at the first difference: it branches on secrets.
#[inline(never)]
fn leaky_eq(a: &[u8], b: &[u8]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return false;
        }
    }
    true
}

#[test]
#[ignore = "driven under valgrind by leaky_double_is_flagged"]
fn ct_probe_leaky_branch() {
    probe("ct_probe_leaky_branch", || {
        let tag = secret_bytes(16, 5);
        let guess = secret_bytes(16, 6);
        valgrind::poison(&tag);
        let same = leaky_eq(std::hint::black_box(&tag), std::hint::black_box(&guess));
        std::hint::black_box(same);
    });
}

/// The soft probe would pass vacuously if the secrets lost their taint on
/// the way (a copy that memcheck does not follow, say). Here the soft
/// backend's output is branched on without declassifying it: memcheck must
/// object, which shows the taint flows through the bitsliced code.
#[test]
#[ignore = "driven under valgrind by leaky_double_is_flagged"]
fn ct_probe_taint_propagates() {
    probe("ct_probe_taint_propagates", || {
        let key = secret_bytes(16, 7);
        let mut block: [u8; 16] = secret_bytes(16, 8).try_into().unwrap();
        valgrind::poison(&block);
        let aes = Aes::with_backend(&key, Backend::Soft).unwrap();
        aes.encrypt_block(&mut block);
        // Deliberately not unpoisoned.
        let zero = leaky_eq(std::hint::black_box(&block), &[0u8; 16]);
        std::hint::black_box(zero);
    });
}

/// The outcome of running one probe under memcheck.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `probe` of this test binary under memcheck, or `None` (after saying
/// so) when Valgrind is not installed outside CI. The probe must have run
/// (its marker printed), so a name that matches nothing cannot pass.
fn under_valgrind(probe: &str, env: &[(&str, &str)]) -> Option<Run> {
    if !cfg!(all(target_arch = "x86_64", unix)) {
        // The client requests above are written for amd64 only.
        eprintln!("SKIPPED: the valgrind constant-time check runs on x86-64 Unix only");
        return None;
    }
    let exe = std::env::current_exe().expect("path of the test binary");
    let out = Command::new("valgrind")
        .envs(env.iter().copied())
        .args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--leak-check=no",
            "--track-origins=no",
        ])
        .arg(&exe)
        .args([
            probe,
            "--exact",
            "--include-ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .output();
    match out {
        Ok(o) => {
            let run = Run {
                code: o.status.code(),
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            };
            assert!(
                run.stdout.contains(MARKER),
                "{probe} did not run under valgrind ({env:?})\nstdout:\n{}\nstderr:\n{}",
                run.stdout,
                run.stderr
            );
            Some(run)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::env::var_os("CI").is_some() {
                panic!("valgrind is not installed, and CI requires the constant-time check");
            }
            eprintln!(
                "SKIPPED: valgrind is not installed; the constant-time check of the \
                 soft backend did not run (install valgrind to run it)"
            );
            None
        }
        Err(e) => panic!("could not start valgrind: {e}"),
    }
}

/// The two memcheck reports that mean a secret steered control flow or an
/// address.
fn secret_dependence(stderr: &str) -> bool {
    stderr.contains("Conditional jump or move depends on uninitialised value")
        || stderr.contains("Use of uninitialised value")
}

/// Both builds of the soft rounds: the widest one the CPU (as Valgrind
/// presents it) runs, and the baseline one.
#[test]
fn soft_backend_is_constant_time() {
    for env in [&[][..], &[("AESX_SOFT_SIMD", "baseline")][..]] {
        let Some(run) = under_valgrind("ct_probe_soft", env) else {
            return;
        };
        assert!(
            run.code == Some(0) && !secret_dependence(&run.stderr),
            "memcheck saw secret-dependent behaviour in the soft backend \
             ({env:?}, exit {:?}):\n{}",
            run.code,
            run.stderr
        );
    }
}

#[test]
fn leaky_double_is_flagged() {
    for (probe, report) in [
        ("ct_probe_leaky_table", "Use of uninitialised value of size"),
        (
            "ct_probe_leaky_branch",
            "Conditional jump or move depends on uninitialised value",
        ),
        (
            "ct_probe_taint_propagates",
            "Conditional jump or move depends on uninitialised value",
        ),
    ] {
        let Some(run) = under_valgrind(probe, &[]) else {
            return;
        };
        assert_eq!(
            run.code,
            Some(99),
            "valgrind did not fail {probe}:\n{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(report),
            "{probe}: expected \"{report}\" from memcheck:\n{}",
            run.stderr
        );
    }
}
