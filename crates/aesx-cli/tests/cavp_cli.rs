//! `aesx cavp` end to end over the vendored NIST vectors (every backend by
//! name), over corrupted copies and unreadable files, and its usage errors.

mod common;

use aesx::Backend;
use common::{at_repo as aesx_in, cmd, one_line as assert_error, repo, run as run_cmd, Out};

fn aesx(args: &[&str]) -> Out {
    aesx_in(args, b"")
}

fn aesx_cmd(args: &[&str]) -> std::process::Command {
    cmd(&repo(), args)
}

fn last_line(o: &Out) -> String {
    o.stdout_str().lines().last().unwrap_or("").to_string()
}

/// `(passed, failed)` from the final `N passed, N failed` line.
fn tally(o: &Out) -> (u64, u64) {
    let last = last_line(o);
    let parts: Vec<&str> = last.split(' ').collect();
    assert_eq!(parts.len(), 4, "final line {last:?}");
    assert_eq!(
        (parts[1], parts[3]),
        ("passed,", "failed"),
        "final line {last:?}"
    );
    (parts[0].parse().unwrap(), parts[2].parse().unwrap())
}

fn vector_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["ECB", "CBC", "CTR"] {
        let d = repo().join("vectors/nist").join(dir);
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            files.push(p.to_string_lossy().into_owned());
        }
    }
    files.sort();
    files
}

// ---------------------------------------------------------------- cavp

#[test]
fn cavp_all_vendored_ecb_cbc_ctr_pass() {
    let files = vector_files();
    assert_eq!(files.len(), 15 + 18 + 3);
    let mut args = vec!["cavp"];
    args.extend(files.iter().map(String::as_str));
    let o = aesx(&args);
    assert_eq!(
        o.code,
        0,
        "stdout: {}\nstderr: {}",
        o.stdout_str(),
        o.stderr
    );
    let (passed, failed) = tally(&o);
    assert_eq!(failed, 0);
    // 4885 records (CTR 9, CBC MCT 600, ECB and CBC KAT/MMT 2138 each), each
    // checked on every backend.
    let backends = match std::env::var("AESX_BACKEND") {
        Ok(v) if !v.trim().is_empty() => 1,
        _ => Backend::available().len() as u64,
    };
    assert_eq!(passed, 4885 * backends, "{}", o.stdout_str());
    assert_eq!(o.stdout_str().lines().count(), files.len() + 1);
    for line in o.stdout_str().lines().take(files.len()) {
        assert!(line.contains(" 0 failed"), "{line}");
    }
}

#[test]
fn cavp_corrupted_vectors_fail() {
    let dir = tempfile::tempdir().unwrap();
    // One flipped ciphertext bit in a KAT file, in the DECRYPT section.
    let text = std::fs::read_to_string(repo().join("vectors/nist/CBC/CBCGFSbox128.rsp")).unwrap();
    let dec = text.find("[DECRYPT]").unwrap();
    let at = dec + text[dec..].find("CIPHERTEXT = ").unwrap() + "CIPHERTEXT = ".len();
    let mut bad = text.clone().into_bytes();
    bad[at] = if bad[at] == b'0' { b'1' } else { b'0' };
    let kat = dir.path().join("CBCGFSbox128.rsp");
    std::fs::write(&kat, &bad).unwrap();
    // A Monte Carlo file whose second record's key differs in one digit:
    // the first record's derived key no longer matches, nor does the
    // second record's output.
    let text = std::fs::read_to_string(repo().join("vectors/nist/CBC/CBCMCT192.rsp")).unwrap();
    let second = text.find("COUNT = 1").unwrap();
    let at = second + text[second..].find("KEY = ").unwrap() + "KEY = ".len();
    let mut bad = text.into_bytes();
    bad[at] = if bad[at] == b'0' { b'1' } else { b'0' };
    let mct = dir.path().join("CBCMCT192.rsp");
    std::fs::write(&mct, &bad).unwrap();

    let o = aesx(&[
        "cavp",
        "--backend",
        Backend::fastest().name(),
        kat.to_str().unwrap(),
        mct.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 1, "{}{}", o.stdout_str(), o.stderr);
    let (passed, failed) = tally(&o);
    assert_eq!(failed, 1 + 2, "{}", o.stdout_str());
    assert_eq!(passed, 13 + 198);
    assert!(o.stdout_str().contains("FAIL"));
}

#[test]
fn cavp_unreadable_files_are_errors_not_skips() {
    let dir = tempfile::tempdir().unwrap();
    // File name, contents (none: no such file), the error.
    for (name, text, needle) in [
        (
            "ECBMMT128.rsp",
            Some("[ENCRYPT]\n\nCOUNT = 0\nKEY = 000102030405060708090a0b0c0d0e0f\nPLAINTEXT = 00112233445566778899aabbccddeexx\nCIPHERTEXT = 00112233445566778899aabbccddeeff\n"),
            "line 3: PLAINTEXT: bad hex",
        ),
        ("notes.txt", Some("[ENCRYPT]\nKEY = 00\n"), "cannot tell"),
        ("CBCMMT256.rsp", Some("# nothing here\n"), "no test records"),
        (
            "aes-128-ctr.txt",
            Some("[ENCRYPT]\nCOUNT = 0\nKEY = 0001\nIV = 00000000000000000000000000000000\nPLAINTEXT = 00\nCIPHERTEXT = 00\n"),
            "KEY is 2 bytes",
        ),
        ("CBCVarTxt128.rsp", Some("[ENCRYPT]\nCOUNT 0\n"), "line 2"),
        ("missing.rsp", None, "cannot read"),
    ] {
        let path = dir.path().join(name);
        if let Some(text) = text {
            std::fs::write(&path, text).unwrap();
        }
        let o = aesx(&["cavp", path.to_str().unwrap()]);
        assert_error(&o, 2, needle);
        assert!(o.stderr.contains(path.to_str().unwrap()), "{}", o.stderr);
        assert_eq!(tally(&o), (0, 1));
    }
    // A good file beside a bad one still runs, and the bad one still fails
    // the run.
    let bad_hex = dir.path().join("ECBMMT128.rsp");
    let good = repo().join("vectors/nist/ECB/ECBGFSbox128.rsp");
    let o = aesx(&[
        "cavp",
        "--backend",
        "soft",
        good.to_str().unwrap(),
        bad_hex.to_str().unwrap(),
    ]);
    assert_error(&o, 2, "bad hex");
    assert_eq!(tally(&o), (14, 1));
}

#[test]
fn cavp_usage_errors() {
    let good = "vectors/nist/CTR/aes-128-ctr.txt";
    assert_error(
        &aesx(&["cavp", "--backend", "nonesuch", good]),
        2,
        "unknown backend",
    );
    if let Some(missing) = Backend::ALL.into_iter().find(|b| !b.is_available()) {
        assert_error(
            &aesx(&["cavp", "--backend", missing.name(), good]),
            1,
            "not available",
        );
        let o = run_cmd(
            {
                let mut c = aesx_cmd(&["cavp", good]);
                c.env("AESX_BACKEND", missing.name());
                c
            },
            b"",
        );
        assert_error(&o, 1, "AESX_BACKEND");
    }
    let o = aesx(&["cavp"]);
    assert_eq!(o.code, 2);
    assert!(!o.stderr.contains("panicked"));
}

#[test]
fn cavp_each_backend_by_name() {
    for b in Backend::available() {
        let o = aesx(&[
            "cavp",
            "--backend",
            b.name(),
            "vectors/nist/ECB/ECBGFSbox256.rsp",
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(last_line(&o), "10 passed, 0 failed");
        assert!(o.stdout_str().contains(&format!("[{}]", b.name())));
    }
}
