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

/// `aesx cavp` on the repository's files must pass, each with its number
/// of records; the files' paths and the output.
#[track_caller]
fn cavp_passes(files: &[(&str, usize)]) -> (Vec<PathBuf>, String) {
    let paths: Vec<PathBuf> = files.iter().map(|(f, _)| repo().join(f)).collect();
    let (code, out) = cavp(&paths);
    assert_eq!(code, 0, "{out}");
    for (_, n) in files {
        assert!(
            out.contains(&format!("{n} records, {n} passed, 0 failed")),
            "{out}"
        );
    }
    (paths, out)
}

#[test]
fn gcm_and_esp_files_pass() {
    let (_, out) = cavp_passes(&[
        ("vectors/nist/GCM/gcmEncryptExtIV128.rsp", 7875),
        ("vectors/nist/GCM/gcmDecrypt192.rsp", 7875),
        ("vectors/aarch64cryptolib/SL_functional_tests.rsp", 46),
    ]);
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

/// Runs `aesx cipher ...` with `stdin`: (exit code, stdout, stderr).
fn cipher(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_aesx"))
        .arg("cipher")
        .args(args)
        .env_remove("AESX_BACKEND")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A usage error exits before reading: a broken pipe is fine here.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code().unwrap_or(-1), out.stdout, err)
}

#[test]
fn cipher_gcm_round_trip_matches_library() {
    let key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    let msg = b"attack at dawn; bring the long ladder and two lamps".repeat(50);
    for (iv, aad, tag_len) in [
        ("cafebabefacedbaddecaf888", None, 16),
        ("0011223344", Some("feedface"), 12),
    ] {
        let mut args = vec!["encrypt", "--mode", "gcm", "--key", key, "--iv", iv];
        if let Some(a) = aad {
            args.extend(["--aad", a]);
        }
        let tl = tag_len.to_string();
        args.extend(["--tag-len", tl.as_str()]);
        let (code, ct, err) = cipher(&args, &msg);
        assert_eq!(code, 0, "{err}");
        let gcm = aesx::Gcm::new(&hex::decode(key).unwrap())
            .unwrap()
            .with_tag_len(tag_len)
            .unwrap();
        let aad_bytes = aad.map(|a| hex::decode(a).unwrap()).unwrap_or_default();
        let want = gcm
            .seal(&hex::decode(iv).unwrap(), &aad_bytes, &msg)
            .unwrap();
        assert_eq!(ct, want);
        args[0] = "decrypt";
        let (code, pt, err) = cipher(&args, &ct);
        assert_eq!(code, 0, "{err}");
        assert_eq!(pt, msg);
        // One flipped bit: exit 1, one line on stderr, nothing on stdout.
        let mut bad = ct.clone();
        bad[7] ^= 1;
        let (code, out, err) = cipher(&args, &bad);
        assert_eq!(code, 1, "{err}");
        assert!(out.is_empty());
        assert!(err.starts_with("aesx: authentication failed"), "{err}");
        // Too short to hold a tag.
        let (code, out, _) = cipher(&args, &ct[..tag_len - 1]);
        assert_eq!(code, 1);
        assert!(out.is_empty());
    }
}

#[test]
fn cipher_gcm_usage_errors() {
    let key = "000102030405060708090a0b0c0d0e0f";
    let iv16 = "00".repeat(16);
    // The mode and the options after its key: each a usage error.
    let cases: [(&str, &[&str]); 3] = [
        ("gcm", &[]),
        ("gcm", &["--iv", "00", "--tag-len", "11"]),
        ("ctr", &["--iv", &iv16, "--aad", "00"]),
    ];
    for (mode, extra) in cases {
        let mut args = vec!["encrypt", "--mode", mode, "--key", key];
        args.extend_from_slice(extra);
        let (code, _, err) = cipher(&args, b"x");
        assert_eq!(code, 2, "{err}");
    }
}

#[test]
fn wycheproof_gcm_and_gmac_pass_and_tampering_fails() {
    let (files, _) = cavp_passes(&[
        ("vectors/wycheproof/aes_gcm_test.json", 316),
        ("vectors/wycheproof/aes_gmac_test.json", 414),
    ]);
    // Flip one digit of the first valid tag: that case must now fail.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let at = text.find("\"tag\": \"").unwrap() + "\"tag\": \"".len();
    let mut bad = text.into_bytes();
    bad[at] = if bad[at] == b'0' { b'1' } else { b'0' };
    let p = dir.path().join("aes_gcm_test.json");
    std::fs::write(&p, bad).unwrap();
    let (code, out) = cavp(&[p]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("315 passed, 1 failed"), "{out}");
}
