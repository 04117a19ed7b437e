//! Hostile Argon2id costs in a passphrase file's header: the
//! decryption ceilings, their flags, and the order of the checks (output
//! and caps before any memory is spent).

use std::time::{Duration, Instant};

mod common;
use common::{aesx, ok, one_line, passphrase_sealed, sh};

/// A passphrase file's header with its Argon2id cost replaced.
fn with_cost(ct: &[u8], mem_kib: u32, passes: u32) -> Vec<u8> {
    let mut v = ct.to_vec();
    v[6..10].copy_from_slice(&mem_kib.to_be_bytes());
    v[10..14].copy_from_slice(&passes.to_be_bytes());
    v
}

/// A directory with the passphrase file `pw`, and `x` encrypted under it.
fn sealed_x() -> (tempfile::TempDir, Vec<u8>) {
    let d = tempfile::tempdir().unwrap();
    let ct = passphrase_sealed(d.path(), b"x");
    (d, ct)
}

#[test]
fn argon2_ceiling_is_laptop_sized_and_can_be_raised() {
    let (d, ct) = sealed_x();
    let p = d.path();
    let dec = ["decrypt", "--passphrase-file", "pw"];
    // 2 GiB: under the old 4 GiB cap, now refused at once.
    let t = Instant::now();
    let o = aesx(p, &dec, &with_cost(&ct, 2 << 20, 1));
    one_line(&o, 1, "--max-kdf-memory 2048");
    // 1 GiB x 4 passes: within the memory ceiling, over the time one.
    let o = aesx(p, &dec, &with_cost(&ct, 1 << 20, 4));
    one_line(&o, 1, "--max-kdf-work 4096");
    assert!(t.elapsed() < Duration::from_secs(3));
    // The ceilings are options: lowering them refuses even a cheap file...
    let o = aesx(
        p,
        &[
            "decrypt",
            "--passphrase-file",
            "pw",
            "--max-kdf-memory",
            "0",
        ],
        &ct,
    );
    one_line(&o, 1, "limit of 0 MiB");
    // ...and the default takes it.
    assert_eq!(ok(p, &dec, &ct), b"x");
}

#[test]
fn decrypt_checks_the_output_before_argon2() {
    let (d, ct) = sealed_x();
    let p = d.path();
    // 1 GiB, 3 passes: allowed, and seconds of work, never started.
    std::fs::write(p.join("ct"), with_cost(&ct, 1 << 20, 3)).unwrap();
    std::fs::write(p.join("exists"), b"").unwrap();
    let t = Instant::now();
    for (out, msg) in [
        ("/nonexistent/dir/x", "cannot write /nonexistent/dir/x"),
        ("exists", "already exists"),
        ("ct", "same file"),
        (".", "is a directory"),
    ] {
        let o = aesx(
            p,
            &["decrypt", "--passphrase-file", "pw", "-o", out, "ct"],
            b"",
        );
        assert!(o.code == 1 || o.code == 2, "{}", o.stderr);
        one_line(&o, o.code, msg);
    }
    // --offset on a pipe is found before the KDF too.
    let o = aesx(
        p,
        &["decrypt", "--passphrase-file", "pw", "--offset", "1"],
        &ct,
    );
    one_line(&o, 2, "regular input file");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn argon2_allocation_failure_is_one_line() {
    let (d, ct) = sealed_x();
    let p = d.path();
    // 512 MiB of Argon2id memory in a process allowed 256 MiB.
    std::fs::write(p.join("ct"), with_cost(&ct, 512 << 10, 1)).unwrap();
    let o = sh(
        p,
        "ulimit -v 262144; exec $AESX decrypt --passphrase-file pw ct",
    );
    one_line(&o, 1, "out of memory: Argon2id needs 512 MiB");
}
