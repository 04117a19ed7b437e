//! The CLI tried as an attacker would: each test is the repro of
//! a bug that was found, kept as a regression test. Every refusal is one
//! `aesx: ...` line with the right exit code, and leaves no output file.
//! Unix only: file modes, symlinks, sockets and non-UTF-8 names throughout.

#![cfg(unix)]

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{
    aesx, bin, cmd, data, fault_setup, finish, names, ok, one_line, sh, start_fed, IV, K,
};

fn ctr(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["cipher", "encrypt", "--mode", "ctr", "--key", K, "--iv", IV]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// A fresh directory holding `pt` as the file `name`.
fn dir_with(name: &str, pt: &[u8]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(name), pt).unwrap();
    d
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

// ------------------------------------------------------ cipher output safety

#[test]
fn cipher_refuses_an_existing_output_without_force() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("in"), data(1000, 1)).unwrap();
    std::fs::write(p.join("out"), b"keep me").unwrap();
    let o = aesx(p, &strs(&ctr(&["-i", "in", "-o", "out"])), b"");
    one_line(&o, 1, "already exists; use --force");
    assert_eq!(std::fs::read(p.join("out")).unwrap(), b"keep me");
    // --force replaces it, keeping its mode (as `cp` does).
    std::fs::set_permissions(p.join("out"), std::fs::Permissions::from_mode(0o640)).unwrap();
    ok(p, &strs(&ctr(&["-i", "in", "-o", "out", "--force"])), b"");
    assert_eq!(std::fs::read(p.join("out")).unwrap().len(), 1000);
    let mode = std::fs::metadata(p.join("out")).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o640);
    assert_eq!(names(p), ["in", "out"]);
}

#[test]
fn cipher_refuses_to_write_over_its_input_by_any_name() {
    let pt = data(5000, 2);
    let d = dir_with("f", &pt);
    let p = d.path();
    std::fs::hard_link(p.join("f"), p.join("hard")).unwrap();
    std::os::unix::fs::symlink(p.join("f"), p.join("soft")).unwrap();
    for out in ["f", "hard", "soft", "./f"] {
        let o = aesx(p, &strs(&ctr(&["-i", "f", "-o", out, "--force"])), b"");
        one_line(&o, 2, "same file");
    }
    // Standard input and standard output redirected to the input; `>>` used
    // to append to itself until SIGXFSZ.
    for script in [
        "$AESX cipher encrypt --mode ctr --key $K --iv $IV -i f >> f",
        "$AESX cipher encrypt --mode ctr --key $K --iv $IV -i f >> hard",
        "$AESX cipher encrypt --mode ctr --key $K --iv $IV < f -o f --force",
        "$AESX cipher encrypt --mode gcm --key $K --iv $IV < f >> soft",
        "$AESX encrypt -k /dev/null < f >> f",
    ] {
        let o = sh(p, &format!("K={K}; IV={IV}; {script}"));
        one_line(&o, 2, "same file");
        assert!(std::fs::read(p.join("f")).unwrap() == pt, "{script}");
    }
}

/// `aesx cipher -o out` reading a pipe that delivers data and then stalls.
fn start_stalled_cipher(dir: &Path, mode: &str) -> (Child, std::process::ChildStdin) {
    let mut c = Command::new(bin());
    c.env("AESX_TEST_NAMED_TEMP", "1").args([
        "cipher", "encrypt", "--mode", mode, "--key", K, "--iv", IV, "-o", "out",
    ]);
    let (child, stdin) = start_fed(c, dir, &data(4 << 20, 3));
    // Wait until the temporary file holds data.
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(10) {
        let tmp: Vec<_> = names(dir)
            .into_iter()
            .filter(|n| n.starts_with(".aesx-tmp-"))
            .collect();
        if tmp.len() == 1 && std::fs::metadata(dir.join(&tmp[0])).unwrap().len() > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, stdin)
}

#[test]
fn cipher_removes_its_temporary_file_on_sigterm_and_sighup() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for (sig, mode) in [
        ("-TERM", "ctr"),
        ("-HUP", "ctr"),
        ("-INT", "gcm"),
        ("-TERM", "gcm"),
    ] {
        let (mut child, _stdin) = start_stalled_cipher(p, mode);
        let during = names(p);
        assert!(
            during.len() == 1 && during[0].starts_with(".aesx-tmp-"),
            "{during:?}"
        );
        let st = Command::new("kill")
            .args([sig, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        assert_eq!(child.wait().unwrap().code(), Some(130), "{sig}");
        assert!(names(p).is_empty(), "{sig} {mode} left {:?}", names(p));
    }
}

// --------------------------------------------------------------- cipher gcm

fn gcm(op: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "cipher",
        op,
        "--mode",
        "gcm",
        "--key",
        K,
        "--iv",
        "000102030405060708090a0b",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn cipher_gcm_streams_in_bounded_memory() {
    // 48 MiB through a process limited to 96 MiB of address space: holding
    // the whole input in memory (about twice its size) cannot fit.
    let pt = data(48 << 20, 4);
    let d = dir_with("pt", &pt);
    let p = d.path();
    let g = |op: &str, rest: &str| {
        format!(
            "ulimit -v 98304; exec $AESX {} {rest}",
            gcm(op, &[]).join(" ")
        )
    };
    let o = sh(p, &g("encrypt", "-i pt -o ct"));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let ct = std::fs::read(p.join("ct")).unwrap();
    assert_eq!(ct.len(), pt.len() + 16);
    // Decrypting to a file, and to stdout (spooled, copied after the tag).
    let o = sh(p, &g("decrypt", "-i ct -o back"));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(std::fs::read(p.join("back")).unwrap() == pt);
    let o = sh(p, &g("decrypt", "< ct"));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout == pt);
    // Same bytes as the one-shot library call (split differently).
    let want = aesx::Gcm::new(&hex::decode(K).unwrap())
        .unwrap()
        .seal(
            &hex::decode("000102030405060708090a0b").unwrap(),
            b"",
            &pt[..100_000],
        )
        .unwrap();
    let small = ok(p, &strs(&gcm("encrypt", &[])), &pt[..100_000]);
    assert!(small == want);
}

#[test]
fn cipher_gcm_releases_nothing_unverified() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let pt = data(700_000, 5);
    let mut ct = ok(p, &strs(&gcm("encrypt", &[])), &pt);
    let n = ct.len();
    ct[n - 1] ^= 1;
    std::fs::write(p.join("bad"), &ct).unwrap();
    // To a new file, to an existing one (--force), to stdout, through a pipe.
    let o = aesx(p, &strs(&gcm("decrypt", &["-i", "bad", "-o", "out"])), b"");
    one_line(&o, 1, "authentication failed");
    std::fs::write(p.join("old"), b"old").unwrap();
    let o = aesx(
        p,
        &strs(&gcm("decrypt", &["-i", "bad", "-o", "old", "-f"])),
        b"",
    );
    one_line(&o, 1, "authentication failed");
    assert_eq!(std::fs::read(p.join("old")).unwrap(), b"old");
    let o = aesx(p, &strs(&gcm("decrypt", &[])), &ct);
    one_line(&o, 1, "authentication failed");
    assert!(o.stdout.is_empty(), "released {} bytes", o.stdout.len());
    assert_eq!(names(p), ["bad", "old"]);
}

#[test]
fn cipher_gcm_input_shorter_than_the_tag_says_so() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for n in [0usize, 1, 15] {
        let o = aesx(p, &strs(&gcm("decrypt", &[])), &vec![7u8; n]);
        one_line(
            &o,
            1,
            &format!("{n} bytes, shorter than the 16-byte GCM tag"),
        );
        std::fs::write(p.join("short"), vec![7u8; n]).unwrap();
        let o = aesx(p, &strs(&gcm("decrypt", &["-i", "short", "-o", "o"])), b"");
        one_line(&o, 1, "shorter than the 16-byte GCM tag");
    }
    let o = aesx(p, &strs(&gcm("decrypt", &["--tag-len", "4"])), b"abc");
    one_line(&o, 1, "shorter than the 4-byte GCM tag");
    // An empty message has a valid encryption: the tag alone.
    let t = ok(p, &strs(&gcm("encrypt", &[])), b"");
    assert_eq!(t.len(), 16);
    assert!(ok(p, &strs(&gcm("decrypt", &[])), &t).is_empty());
}

// ------------------------------------------------------- stdout by its names

#[test]
fn stdout_by_name_works_when_stdout_is_a_pipe() {
    let pt = data(100_000, 6);
    let d = dir_with("pt", &pt);
    let p = d.path();
    ok(p, &["keygen", "-o", "key"], b"");
    for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        let key = ok(p, &["keygen", "-o", name], b"");
        assert_eq!(key.len(), 65, "{name}");
        let ct = ok(p, &["encrypt", "-k", "key", "-o", name, "pt"], b"");
        assert!(
            ok(p, &["decrypt", "-k", "key", "-o", name], &ct) == pt,
            "{name}"
        );
        let c = ok(p, &strs(&ctr(&["-i", "pt", "-o", name])), b"");
        assert_eq!(c.len(), pt.len(), "{name}");
        let g = ok(p, &strs(&gcm("encrypt", &["-o", name])), &pt);
        assert!(
            ok(p, &strs(&gcm("decrypt", &["-o", name])), &g) == pt,
            "{name}"
        );
    }
    // Stdout redirected to a file is written where the shell put it.
    let o = sh(
        p,
        "echo head > f; $AESX keygen -o /dev/stdout >> f; wc -c < f",
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "70",
        "{}",
        o.stderr
    );
}

// --------------------------------------------------------------------- cavp

#[test]
fn cavp_wycheproof_invalid_case_missing_fields_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let json = r#"{"testGroups":[{"ivSize":96,"keySize":128,"tagSize":128,"tests":[
        {"tcId":1,"comment":"","flags":[],"result":"invalid"}]}]}"#;
    std::fs::write(p.join("aes_gcm_test.json"), json).unwrap();
    let o = aesx(p, &["cavp", "--backend", "soft", "aes_gcm_test.json"], b"");
    assert_eq!(o.code, 2, "{}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stderr.contains("tcId 1: no "), "{}", o.stderr);
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 passed, 1 failed"));
}

#[test]
fn cavp_file_whose_every_record_was_skipped_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // XTS-AES-192 (48-byte keys) is skipped: a file of nothing else.
    let key = "00".repeat(48);
    let json = format!(
        r#"{{"testGroups":[{{"tests":[{{"tcId":1,"key":"{key}","iv":"00","msg":"{m}","ct":"{m}","result":"valid"}}]}}]}}"#,
        m = "00".repeat(16)
    );
    std::fs::write(p.join("aes_xts_test.json"), json).unwrap();
    let o = aesx(p, &["cavp", "--backend", "soft", "aes_xts_test.json"], b"");
    assert_eq!(o.code, 2, "{}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stderr.contains("nothing was checked"), "{}", o.stderr);
}

// --------------------------------------------------------------------- caps

#[test]
fn key_passphrase_and_vector_files_are_capped() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("pt"), b"x").unwrap();
    let t = Instant::now();
    let o = aesx(p, &["encrypt", "-k", "/dev/zero", "pt"], b"");
    one_line(&o, 1, "larger than 1024 bytes");
    let o = aesx(p, &["encrypt", "--passphrase-file", "/dev/zero", "pt"], b"");
    one_line(&o, 1, "larger than 65536 bytes");
    std::os::unix::fs::symlink("/dev/zero", p.join("aes_gcm_test.json")).unwrap();
    let o = aesx(p, &["cavp", "aes_gcm_test.json"], b"");
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("larger than 67108864 bytes"),
        "{}",
        o.stderr
    );
    if cfg!(feature = "peers") {
        let o = aesx(p, &["bench", "--rsp", "/dev/zero"], b"");
        one_line(&o, 1, "larger than 67108864 bytes");
    }
    assert!(t.elapsed() < Duration::from_secs(60));
    // A directory as a key file.
    let o = aesx(p, &["encrypt", "-k", ".", "pt"], b"");
    one_line(&o, 1, "is a directory");
}

// ------------------------------------------------------------ --force, keys

#[test]
fn force_keeps_the_mode_and_help_says_the_file_is_replaced() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(p, &["keygen", "-o", "key"], b"");
    std::fs::write(p.join("pt"), b"hello").unwrap();
    std::fs::write(p.join("ct"), b"old").unwrap();
    std::fs::set_permissions(p.join("ct"), std::fs::Permissions::from_mode(0o604)).unwrap();
    let ino = std::fs::metadata(p.join("ct")).unwrap().ino();
    ok(
        p,
        &["encrypt", "-k", "key", "-o", "ct", "--force", "pt"],
        b"",
    );
    let m = std::fs::metadata(p.join("ct")).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o604);
    assert_ne!(m.ino(), ino, "replaced, not rewritten");
    for sub in ["encrypt", "decrypt", "keygen", "cipher"] {
        let h = ok(p, &[sub, "--help"], b"");
        let h = String::from_utf8_lossy(&h);
        assert!(h.contains("Replace the output file"), "{sub}: {h}");
    }
}

#[test]
fn encrypt_refuses_to_write_over_the_key_file() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(p, &["keygen", "-o", "key"], b"");
    let key = std::fs::read(p.join("key")).unwrap();
    std::fs::hard_link(p.join("key"), p.join("key2")).unwrap();
    std::fs::write(p.join("pt"), b"hello").unwrap();
    std::fs::write(p.join("pw"), "pw\n").unwrap();
    for out in ["key", "key2", "./key"] {
        let o = aesx(
            p,
            &["encrypt", "-k", "key", "-o", out, "--force", "pt"],
            b"",
        );
        one_line(&o, 2, "over the key file");
    }
    let o = aesx(
        p,
        &["encrypt", "--passphrase-file", "pw", "-o", "pw", "-f", "pt"],
        b"",
    );
    one_line(&o, 2, "over the passphrase file");
    assert_eq!(std::fs::read(p.join("key")).unwrap(), key);
}

// --------------------------------------------------------------------- xts

#[test]
fn xts_accepts_a_range_ending_at_the_last_sector() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let key = format!("{}{}", "11".repeat(32), "22".repeat(32));
    let last = u128::MAX.to_string();
    let second_last = (u128::MAX - 1).to_string();
    let xts = |op: &str, sector: &str| -> Vec<String> {
        [
            "cipher",
            op,
            "--mode",
            "xts",
            "--key",
            &key,
            "--sector",
            sector,
            "--sector-size",
            "512",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let pt = data(1024, 7);
    // Sectors 2^128-2 and 2^128-1.
    let ct = ok(p, &strs(&xts("encrypt", &second_last)), &pt);
    assert!(ok(p, &strs(&xts("decrypt", &second_last)), &ct) == pt);
    // The second sector is the one-unit encryption at sector 2^128-1.
    let unit = ok(
        p,
        &[
            "cipher", "encrypt", "--mode", "xts", "--key", &key, "--sector", &last,
        ],
        &pt[512..],
    );
    assert!(unit[..] == ct[512..]);
    assert_eq!(ok(p, &strs(&xts("encrypt", &last)), &pt[..512]).len(), 512);
    // One sector more is past the end.
    let o = aesx(p, &strs(&xts("encrypt", &last)), &pt);
    one_line(&o, 1, "pass 2^128 - 1");
}

// ---------------------------------------------------------------- messages

#[test]
fn usage_errors_are_one_line_with_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for args in [
        &["cipher"][..],
        &["cipher", "encrypt", "--mode", "rot13", "--key", K],
        &["encrypt", "--bogus"],
        &["encrypt", "-k", "a", "-p"],
        &["decrypt", "--offset", "x"],
        &[],
        &["frobnicate"],
    ] {
        let o = aesx(p, args, b"");
        one_line(&o, 2, "");
    }
    assert!(aesx(p, &["--version"], b"").code == 0);
}

#[test]
fn no_os_error_numbers_in_messages() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let o = aesx(p, &strs(&ctr(&["-i", "/nonexistent"])), b"");
    one_line(&o, 1, "No such file or directory");
    let o = aesx(p, &["encrypt", "-k", "/nonexistent"], b"");
    one_line(&o, 1, "No such file or directory");
    let o = aesx(p, &["cavp", "/nonexistent.rsp"], b"");
    assert!(!o.stderr.contains("os error"), "{}", o.stderr);
    let o = aesx(p, &strs(&ctr(&["-o", "/proc/version", "--force"])), b"x");
    assert_eq!(o.code, 1);
    assert!(!o.stderr.contains("os error"), "{}", o.stderr);
}

#[test]
#[cfg(all(feature = "peers", feature = "plot"))]
fn bench_checks_report_paths_before_running() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let t = Instant::now();
    for (flag, path, msg) in [
        (
            "--json",
            "/nonexistent/x.json",
            "--json /nonexistent/x.json",
        ),
        ("--csv", ".", "is a directory"),
        ("--plot", "/proc/x.svg", "cannot create files in /proc"),
    ] {
        let o = aesx(p, &["bench", flag, path], b"");
        one_line(&o, 2, msg);
    }
    assert!(t.elapsed() < Duration::from_secs(5));
}

// ------------------------------------------------------------- read errors

#[test]
fn read_errors_are_one_line_and_leave_no_output() {
    let d = fault_setup();
    let p = d.path();
    let before = names(p);
    // A directory as input.
    for line in [
        "encrypt -k key -o out .".to_string(),
        "decrypt -k key -o out .".to_string(),
        format!("cipher encrypt --mode ctr --key {K} --iv {IV} -i . -o out"),
        format!("cipher encrypt --mode gcm --key {K} --iv {IV} < . -o out"),
    ] {
        let o = sh(p, &format!("exec $AESX {line}"));
        one_line(&o, 1, "directory");
        assert_eq!(names(p), before, "{line}");
    }
    // A connection reset mid-input: data, then an error instead of the end.
    for (args, what) in [
        (vec!["encrypt", "-k", "key", "-o", "out"], "encrypt"),
        (strs(&ctr(&["-o", "out"])), "cipher ctr"),
        (strs(&gcm("encrypt", &["-o", "out"])), "cipher gcm"),
        (vec!["decrypt", "-k", "key", "-o", "out"], "decrypt"),
    ] {
        // Decryption gets the start of a real file, so that it is the
        // reset, not the header, that stops it.
        let sent = if what == "decrypt" {
            std::fs::read(p.join("ct")).unwrap()[..1 << 20].to_vec()
        } else {
            data(1 << 20, 9)
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        // A byte the server never reads: closing a socket with unread data
        // sends a reset, so the reader gets ECONNRESET instead of the end.
        client.write_all(b"x").unwrap();
        let child = Command::new(bin())
            .args(&args)
            .current_dir(p)
            .stdin(Stdio::from(std::os::fd::OwnedFd::from(client)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        server.write_all(&sent).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        drop(server);
        let o = finish(child, b"");
        one_line(&o, 1, "reading input: Connection reset");
        assert_eq!(names(p), before, "{what}");
    }
}

// ------------------------------------------------- found beyond the list

#[test]
fn key_or_passphrase_file_that_is_the_data_on_stdin_is_refused() {
    // `-k /dev/stdin < data` used to take the data as the key file (or
    // the passphrase from the ciphertext), with a misleading error.
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("pt"), b"hello").unwrap();
    for script in [
        "$AESX encrypt -k /dev/stdin < pt",
        "$AESX encrypt --passphrase-file /dev/stdin < pt",
        "$AESX decrypt --passphrase-file /proc/self/fd/0 < pt",
        "cat pt | $AESX encrypt -k /dev/fd/0",
    ] {
        let o = sh(p, script);
        one_line(&o, 2, "is the standard input");
    }
}

#[test]
fn dangling_symlink_output_is_named_as_such() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::os::unix::fs::symlink("missing/x", p.join("dl")).unwrap();
    let o = aesx(p, &strs(&ctr(&["-o", "dl", "--force"])), b"abc");
    one_line(&o, 1, "symbolic link to a missing file");
    let o = aesx(p, &["keygen", "-o", "dl"], b"");
    one_line(&o, 1, "symbolic link to a missing file");
    assert!(std::fs::symlink_metadata(p.join("dl"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn keygen_force_never_makes_a_key_more_readable() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("key"), b"old").unwrap();
    std::fs::set_permissions(p.join("key"), std::fs::Permissions::from_mode(0o644)).unwrap();
    ok(p, &["keygen", "-o", "key", "--force"], b"");
    let m = std::fs::metadata(p.join("key")).unwrap().mode() & 0o7777;
    assert_eq!(m, 0o600);
    std::fs::set_permissions(p.join("key"), std::fs::Permissions::from_mode(0o400)).unwrap();
    ok(p, &["keygen", "-o", "key", "--force"], b"");
    let m = std::fs::metadata(p.join("key")).unwrap().mode() & 0o7777;
    assert_eq!(m, 0o400);
}

#[test]
fn non_utf8_names_are_shown_and_handled() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let name = OsStr::from_bytes(b"out\xff\xfe");
    std::fs::write(p.join(name), b"x").unwrap();
    // `aesx cipher encrypt --mode ctr ... -o NAME` of "abc".
    let to_name = |extra: &[&str]| {
        let args = ctr(extra);
        let mut c = cmd(p, &strs(&args));
        c.arg("-o").arg(name);
        finish(c.spawn().unwrap(), b"abc")
    };
    one_line(&to_name(&[]), 1, "already exists");
    let o = to_name(&["--force"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(std::fs::read(p.join(name)).unwrap().len(), 3);
}
