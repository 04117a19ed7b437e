//! Faults while writing and reading: a full disk (`/dev/full`),
//! `RLIMIT_FSIZE` reached mid-write, a full tmpfs in a private mount
//! namespace, a pipe whose writer dies, an output that is (or becomes) a
//! directory. Each must be one `aesx: ...` line and leave no output file and
//! no temporary file, with the unnamed (`O_TMPFILE`) temporary file and
//! with the named `.aesx-tmp-*` one that filesystems without `O_TMPFILE`
//! and every other system use (read errors mid-input: `tests/hostile.rs`).

use std::path::Path;
use std::process::Command;

mod common;
use common::{bin, cmd, data, fault_setup, names, one_line, sh, start_fed, Out, IV, K};

/// The two ways to hold the output until it is complete: the environment
/// prefix of a shell command line that picks each.
const TEMPS: [(&str, &str); 2] = [("unnamed", ""), ("named", "AESX_TEST_NAMED_TEMP=1 ")];

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
    for (temp, env) in TEMPS {
        for (what, line) in fault_cases() {
            let o = sh(
                p,
                &format!(
                    "ulimit -f 1024; {env}exec $AESX {}",
                    line.replace("OUT", "out")
                ),
            );
            one_line(&o, 1, "File too large");
            assert_eq!(names(p), before, "{what} ({temp} temporary file)");
        }
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
    let cases = TEMPS
        .iter()
        .flat_map(|(_, env)| fault_cases().into_iter().map(move |c| (*env, c)));
    for (env, (what, line)) in cases {
        let script = format!(
            "mount -t tmpfs -o size=1m tmpfs mnt || exit 99; \
             {env}$AESX {} 2>err; rc=$?; ls -A mnt; cat err >&2; exit $rc",
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
            "{what} ({env:?}) left {:?}",
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

/// Every command that writes a file, with `OUT` for the output.
fn writing_cases() -> Vec<(&'static str, String)> {
    let mut v = fault_cases();
    v.push(("keygen", "keygen -o OUT".to_string()));
    v
}

/// Everything in `dir`, one level down too (`a/b`), sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for n in names(dir) {
        if dir.join(&n).is_dir() {
            v.extend(names(&dir.join(&n)).into_iter().map(|m| format!("{n}/{m}")));
        }
        v.push(n);
    }
    v.sort();
    v
}

#[test]
fn output_that_is_a_directory_leaves_nothing() {
    // Refused when the output is opened, before any temporary file exists,
    // with and without --force.
    let d = fault_setup();
    let p = d.path();
    std::fs::create_dir(p.join("out")).unwrap();
    let before = tree(p);
    for (temp, env) in TEMPS {
        for force in ["", " --force"] {
            for (what, line) in writing_cases() {
                let o = sh(
                    p,
                    &format!("{env}exec $AESX {}{force}", line.replace("OUT", "out")),
                );
                one_line(&o, 1, "out: is a directory");
                assert_eq!(tree(p), before, "{what}{force} ({temp} temporary file)");
            }
        }
    }
}

#[test]
fn output_that_becomes_a_directory_while_writing_leaves_nothing() {
    // The name is free when the output is opened, and a directory by the
    // time it is published: the link (no --force) or the rename (--force)
    // fails, and the temporary file must go with the error.
    let d = fault_setup();
    let p = d.path();
    let pt = data(8 << 20, 3);
    let ct = std::fs::read(p.join("ct")).unwrap();
    let gct = std::fs::read(p.join("gct")).unwrap();
    let ctr = format!("cipher encrypt --mode ctr --key {K} --iv {IV} -o out");
    let gcm = format!("cipher decrypt --mode gcm --key {K} --iv {IV} -o out");
    let cases: [(&str, &[u8]); 4] = [
        ("encrypt -k key -o out", &pt),
        ("decrypt -k key -o out", &ct),
        (&ctr, &pt),
        (&gcm, &gct),
    ];
    let before = tree(p);
    for named in [false, true] {
        for force in [false, true] {
            for (line, input) in cases {
                let mut args: Vec<&str> = line.split(' ').collect();
                if force {
                    args.push("--force");
                }
                let mut c = cmd(p, &args);
                if named {
                    c.env("AESX_TEST_NAMED_TEMP", "1");
                }
                // All of the input is in once the write returns (less what
                // the pipe holds), so the output was opened; the run then
                // waits for the end of its input.
                let (child, stdin) = start_fed(c, p, input);
                std::fs::create_dir(p.join("out")).unwrap();
                drop(stdin);
                let o = child.wait_with_output().unwrap();
                let o = Out {
                    code: o.status.code().unwrap_or(-1),
                    stdout: o.stdout,
                    stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                };
                let what = format!("{line} force={force} named={named}");
                let needle = if force {
                    "writing out: is a directory"
                } else {
                    "out appeared while writing; use --force"
                };
                one_line(&o, 1, needle);
                let mut want = before.clone();
                want.push("out".to_string());
                want.sort();
                assert_eq!(tree(p), want, "{what}");
                std::fs::remove_dir(p.join("out")).unwrap();
            }
        }
    }
}
