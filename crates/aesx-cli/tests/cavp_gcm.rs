//! `aesx cavp` on GCM vector files: NIST encrypt/decrypt (FAIL records
//! included) and AArch64cryptolib's ESP file with checksums pass; a
//! tampered tag, ciphertext or checksum fails.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `aesx cavp --backend <fastest> files...`: (exit code, stdout).
fn cavp(files: &[PathBuf]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_aesx"))
        .arg("cavp")
        .arg("--backend")
        .arg(aesx::Backend::fastest().name())
        .args(files)
        .env_remove("AESX_BACKEND")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn gcm_and_esp_files_pass() {
    let files = [
        "vectors/nist/GCM/gcmEncryptExtIV128.rsp",
        "vectors/nist/GCM/gcmDecrypt192.rsp",
        "vectors/aarch64cryptolib/SL_functional_tests.rsp",
    ]
    .map(|f| repo().join(f));
    let (code, out) = cavp(&files);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("7875 records, 7875 passed, 0 failed"), "{out}");
    assert!(out.contains("46 records, 46 passed, 0 failed"), "{out}");
    assert!(out.ends_with("15796 passed, 0 failed\n"), "{out}");
}

#[test]
fn tampered_gcm_and_esp_records_fail() {
    let dir = tempfile::tempdir().unwrap();
    // A CS checksum off by one in the ESP file.
    let sl =
        std::fs::read_to_string(repo().join("vectors/aarch64cryptolib/SL_functional_tests.rsp"))
            .unwrap()
            .replacen("CS = 8599715a02020304", "CS = 8599715a02020305", 1);
    let sl_path = dir.path().join("SL_functional_tests.rsp");
    std::fs::write(&sl_path, sl).unwrap();
    // The first tag of an encrypt file, one digit changed.
    let enc =
        std::fs::read_to_string(repo().join("vectors/nist/GCM/gcmEncryptExtIV256.rsp")).unwrap();
    let at = enc.find("Tag = ").unwrap() + "Tag = ".len();
    let mut enc = enc.into_bytes();
    enc[at] = if enc[at] == b'0' { b'1' } else { b'0' };
    let enc_path = dir.path().join("gcmEncryptExtIV256.rsp");
    std::fs::write(&enc_path, enc).unwrap();
    let (code, out) = cavp(&[sl_path, enc_path]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("45 passed, 1 failed"), "{out}");
    assert!(out.contains("7874 passed, 1 failed"), "{out}");
}
