//! `aesx cipher --mode cfb|cfb8|ofb` against `openssl enc -aes-*-cfb|-cfb8|
//! -ofb` (both ways, every key size, lengths around the block size and
//! across the CLI's 256 KiB chunks, every backend), the usage errors, and
//! `aesx cavp` on the NIST CFB128/CFB8/OFB files in `vectors/nist`.

mod common;

use std::process::Command;

use common::{at_repo, backends, data, one_line, run};

const IV: &str = "000102030405060708090a0b0c0d0e0f";

fn openssl_available() -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("the openssl command is required in CI");
        }
        eprintln!("skipping: the openssl command line tool is not installed");
    }
    ok
}

fn openssl(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let mut c = Command::new("openssl");
    c.args(args);
    let o = run(c, stdin);
    assert_eq!(o.code, 0, "openssl {args:?}: {}", o.stderr);
    o.stdout
}

#[test]
fn feedback_modes_interoperate_with_openssl_enc() {
    if !openssl_available() {
        return;
    }
    let bks = backends();
    let mut turn = 0;
    for bits in [128, 192, 256] {
        let key = hex::encode(data(bits / 8, bits as u8));
        for mode in ["cfb", "cfb8", "ofb"] {
            let lens: &[usize] = if mode == "cfb8" {
                &[0, 1, 15, 16, 17, 33, 1000, 300_000]
            } else {
                &[0, 1, 15, 16, 17, 33, 1000, 262_144, 262_161, 600_001]
            };
            for &len in lens {
                let b = bks[turn % bks.len()];
                turn += 1;
                let pt = data(len, 7);
                let cipher = format!("-aes-{bits}-{mode}");
                let ossl = ["enc", cipher.as_str(), "-K", key.as_str(), "-iv", IV];
                let what = format!("{mode} {bits} len {len} on {b}");
                let want = openssl(&ossl, &pt);
                assert_eq!(want.len(), len, "{what}: openssl added bytes");
                let mut ours = vec![
                    "cipher",
                    "encrypt",
                    "--mode",
                    mode,
                    "--key",
                    &key,
                    "--iv",
                    IV,
                    "--backend",
                    b,
                ];
                let o = at_repo(&ours, &pt);
                assert_eq!(o.code, 0, "{what}: {}", o.stderr);
                assert!(o.stdout == want, "{what}: ciphertext differs from openssl");
                ours[1] = "decrypt";
                let o = at_repo(&ours, &want);
                assert_eq!(o.code, 0, "{what}: {}", o.stderr);
                assert!(o.stdout == pt, "{what}: decryption differs");
                let mut d = ossl.to_vec();
                d.push("-d");
                assert!(openssl(&d, &want) == pt, "{what}: openssl -d");
            }
        }
    }
}

#[test]
fn feedback_usage_errors() {
    let k = "00".repeat(16);
    for mode in ["cfb", "cfb8", "ofb"] {
        let base = ["cipher", "encrypt", "--mode", mode, "--key", k.as_str()];
        let o = at_repo(&base, b"x");
        one_line(&o, 2, "--iv is required");
        let mut a = base.to_vec();
        a.extend(["--iv", "0011"]);
        one_line(&at_repo(&a, b"x"), 2, "16 bytes");
        let mut a = base.to_vec();
        a.extend(["--iv", IV, "--padding", "pkcs7"]);
        one_line(&at_repo(&a, b"x"), 2, "padding");
        let mut a = base.to_vec();
        a.extend(["--iv", IV, "--aad", "00"]);
        one_line(&at_repo(&a, b"x"), 2, "--aad");
        let mut a = vec!["cipher", "encrypt", "--mode", mode, "--key", "0011"];
        a.extend(["--iv", IV]);
        one_line(&at_repo(&a, b"x"), 2, "--key");
    }
}

#[test]
fn cavp_runs_the_feedback_files() {
    let mut files = Vec::new();
    for (dir, prefix) in [("CFB", "CFB128"), ("CFB", "CFB8"), ("OFB", "OFB")] {
        for test in ["GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"] {
            for bits in [128, 192, 256] {
                files.push(format!("vectors/nist/{dir}/{prefix}{test}{bits}.rsp"));
            }
        }
    }
    let mut args = vec!["cavp"];
    args.extend(files.iter().map(String::as_str));
    let o = at_repo(&args, b"");
    assert_eq!(o.code, 0, "{}\n{}", o.stdout_str(), o.stderr);
    let out = o.stdout_str();
    for name in ["CFB128 MMT", "CFB8 GFSbox", "OFB VarTxt"] {
        assert!(out.contains(name), "{out}");
    }
    assert!(!out.contains("FAIL"), "{out}");
}
