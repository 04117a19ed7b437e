//! Faults while writing and reading (issue 17): a full disk (`/dev/full`),
//! `RLIMIT_FSIZE` reached mid-write, a full tmpfs in a private mount
//! namespace, a pipe whose writer dies. Each must be one `aesx: ...` line
//! and leave no output file (read errors mid-input: `tests/hostile.rs`).

use std::process::Command;

mod common;
use common::{bin, fault_setup, names, one_line, sh, Out, IV, K};

/// The command lines of a fault test: encrypt, decrypt and three ciphers.
fn fault_cases() -> Vec<(&'static str, String)> {
    vec![
        ("encrypt", "encrypt -k key -o OUT pt".to_string()),
        ("decrypt", "decrypt -k key -o OUT ct".to_string()),
        (
            "cipher ctr",
            format!("cipher encrypt --mode ctr --key {K} --iv {IV} -i pt -o OUT"),
        ),
        (
            "cipher gcm",
            format!("cipher encrypt --mode gcm --key {K} --iv {IV} -i pt -o OUT"),
        ),
        (
            "cipher gcm decrypt",
            format!("cipher decrypt --mode gcm --key {K} --iv {IV} -i gct -o OUT"),
        ),
    ]
}

#[test]
fn full_disk_dev_full_is_one_line() {
    let d = fault_setup();
    let p = d.path();
    for (what, line) in fault_cases() {
        let o = sh(
            p,
            &format!("exec $AESX {}", line.replace("OUT", "/dev/full")),
        );
        one_line(&o, 1, "No space left on device");
        assert!(!o.stderr.is_empty(), "{what}");
    }
}

#[test]
fn file_size_limit_mid_write_leaves_no_output() {
    // RLIMIT_FSIZE makes writes past 1 MiB fail (EFBIG) like a full disk
    // would, on any filesystem, without privileges; aesx ignores SIGXFSZ,
    // so that this is an error line rather than a silent kill.
    let d = fault_setup();
    let p = d.path();
    let before = names(p);
    for (what, line) in fault_cases() {
        let o = sh(
            p,
            &format!("ulimit -f 1024; exec $AESX {}", line.replace("OUT", "out")),
        );
        one_line(&o, 1, "File too large");
        assert_eq!(names(p), before, "{what}");
    }
}

#[test]
fn full_tmpfs_leaves_no_output() {
    // A real full filesystem: a 1 MiB tmpfs in a private mount namespace.
    let d = fault_setup();
    let p = d.path();
    let probe = sh(p, "unshare -rm true");
    if probe.code != 0 {
        eprintln!("SKIPPED: no user namespaces here ({})", probe.stderr.trim());
        return;
    }
    std::fs::create_dir(p.join("mnt")).unwrap();
    for (what, line) in fault_cases() {
        let script = format!(
            "mount -t tmpfs -o size=1m tmpfs mnt || exit 99; \
             $AESX {} 2>err; rc=$?; ls -A mnt; cat err >&2; exit $rc",
            line.replace("OUT", "mnt/out")
        );
        let o = Command::new("unshare")
            .args(["-rm", "bash", "-c", &script])
            .env("AESX", bin())
            .current_dir(p)
            .output()
            .unwrap();
        let o = Out {
            code: o.status.code().unwrap_or(-1),
            stdout: o.stdout,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        };
        assert_ne!(o.code, 99, "mount failed: {}", o.stderr);
        one_line(&o, 1, "No space left on device");
        assert!(
            o.stdout.is_empty(),
            "{what} left {:?}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

#[test]
fn fifo_whose_writer_dies_mid_input_leaves_no_output() {
    let d = fault_setup();
    let p = d.path();
    let before = names(p);
    for (line, msg) in [
        ("decrypt -k key -o out fifo", "truncated"),
        (
            &*format!("cipher decrypt --mode gcm --key {K} --iv {IV} -i fifo -o out"),
            "authentication failed",
        ),
        (
            &*format!("cipher decrypt --mode gcm --key {K} --iv {IV} -i fifo"),
            "authentication failed",
        ),
    ] {
        let src = if line.starts_with("decrypt") {
            "ct"
        } else {
            "gct"
        };
        let o = sh(
            p,
            &format!(
                "mkfifo fifo; (head -c 1000000 {src} > fifo &); $AESX {line}; rc=$?; rm fifo; exit $rc"
            ),
        );
        one_line(&o, 1, msg);
        assert!(o.stdout.is_empty(), "{line}: released unverified bytes");
        assert_eq!(names(p), before, "{line}");
    }
}
