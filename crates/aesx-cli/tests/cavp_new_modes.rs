//! `aesx cavp` on the Wycheproof files of the CPU-only modes (AES-GCM-SIV, CCM, KW,
//! KWP, CMAC): every case passes on every available backend, a corrupted
//! case fails, and `--backend cuda` says in one line that they are CPU-only.

mod common;

use std::path::PathBuf;

use common::{aesx, one_line};

const FILES: [(&str, usize); 5] = [
    ("aes_gcm_siv_test.json", 202),
    ("aes_ccm_test.json", 552),
    ("aes_wrap_test.json", 165),
    ("aes_kwp_test.json", 254),
    ("aes_cmac_test.json", 311),
];

fn vector(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors/wycheproof")
        .join(name)
}

#[test]
fn every_file_passes_on_every_backend() {
    let dir = tempfile::tempdir().unwrap();
    let n = aesx::Backend::available().iter().count();
    let mut args = vec!["cavp".to_string()];
    args.extend(FILES.iter().map(|(f, _)| vector(f).display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut c = common::cmd(dir.path(), &args);
    c.env_remove("AESX_BACKEND");
    let o = common::finish(c.spawn().unwrap(), b"");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.code, 0, "{out}{}", o.stderr);
    let mut total = 0;
    for (f, records) in FILES {
        let want = format!("{records} records, {} passed, 0 failed", records * n);
        let line = out.lines().find(|l| l.contains(f)).unwrap();
        assert!(line.contains(&want), "{line}");
        total += records * n;
    }
    assert!(
        out.ends_with(&format!("{total} passed, 0 failed\n")),
        "{out}"
    );
}

/// `file` with the first occurrence of `from` replaced by `to`.
fn corrupt(dir: &std::path::Path, file: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(vector(file)).unwrap();
    assert!(text.contains(from), "{file} lacks {from}");
    let path = dir.join(file);
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn corrupted_cases_fail() {
    let dir = tempfile::tempdir().unwrap();
    let be = aesx::Backend::fastest().name();
    let cases = [
        // An expected tag changed (GCM-SIV RFC 8452 C.1, first case).
        (
            "aes_gcm_siv_test.json",
            "\"tag\": \"dc20e2d83f25705bb49e439eca56de25\"",
            "\"tag\": \"dc20e2d83f25705bb49e439eca56de26\"",
        ),
        // An invalid case relabelled valid.
        (
            "aes_ccm_test.json",
            "\"result\": \"invalid\"",
            "\"result\": \"valid\"",
        ),
        // A valid wrapped key relabelled invalid.
        (
            "aes_wrap_test.json",
            "\"result\": \"valid\"",
            "\"result\": \"invalid\"",
        ),
        (
            "aes_kwp_test.json",
            "\"result\": \"valid\"",
            "\"result\": \"invalid\"",
        ),
        (
            "aes_cmac_test.json",
            "\"result\": \"valid\"",
            "\"result\": \"invalid\"",
        ),
    ];
    for (file, from, to) in cases {
        let path = corrupt(dir.path(), file, from, to);
        let p = path.display().to_string();
        let o = aesx(dir.path(), &["cavp", "--backend", be, &p], b"");
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.code, 1, "{file}: {out}{}", o.stderr);
        assert!(out.contains(", 1 failed"), "{file}: {out}");
        assert!(out.contains("FAIL"), "{out}");
    }
}

#[test]
fn malformed_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = corrupt(
        dir.path(),
        "aes_cmac_test.json",
        "\"msg\": \"\"",
        "\"msg\": \"0\"",
    );
    let o = aesx(dir.path(), &["cavp", &path.display().to_string()], b"");
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("odd number of hex digits"),
        "{}",
        o.stderr
    );
}

#[test]
fn cuda_backend_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (f, _) in FILES {
        let p = vector(f).display().to_string();
        let o = aesx(dir.path(), &["cavp", "--backend", "cuda", &p], b"");
        one_line(&o, 2, common::CUDA_REFUSED);
    }
}
