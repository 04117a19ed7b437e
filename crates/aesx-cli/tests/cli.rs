//! The `aesx` binary end to end: `cipher` against `openssl enc` in both
//! directions, `info`, and every kind of bad input giving one `aesx: ...`
//! line and the right exit code, never a panic and never a half-written
//! output file. `cavp`: `tests/cavp_cli.rs`.

use std::path::Path;
use std::process::Command;

use aesx::Backend;

mod common;

use common::{at_repo as aesx_in, cmd, one_line as assert_error, repo, run as run_cmd, Out};

fn aesx(args: &[&str]) -> Out {
    aesx_in(args, b"")
}

fn aesx_cmd(args: &[&str]) -> Command {
    cmd(&repo(), args)
}

// ---------------------------------------------------------------- cipher

const K128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const K192: &str = "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b";
const K256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const IV: &str = "000102030405060708090a0b0c0d0e0f";

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

#[test]
fn cipher_sp800_38a_known_answer_cbc() {
    // SP 800-38A F.2.1: CBC-AES128 first block, without padding.
    let pt = hex::decode("6bc1bee22e409f96e93d7e117393172a").unwrap();
    let o = aesx_in(&cbc128("encrypt", &["--padding", "none"]), &pt);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(hex::encode(&o.stdout), "7649abac8119b246cee98e9b12e9197d");
}

#[test]
fn cipher_round_trips_every_backend_through_files_and_pipes() {
    let dir = tempfile::tempdir().unwrap();
    // Larger than one 256 KiB read chunk and not a whole number of blocks.
    let data = pattern(300_001);
    let input = dir.path().join("in.bin");
    std::fs::write(&input, &data).unwrap();
    for b in Backend::available() {
        for (mode, iv) in [("ecb", None), ("cbc", Some(IV)), ("ctr", Some(IV))] {
            let ct_path = dir.path().join(format!("{mode}.{b}.enc"));
            let mut args = vec!["cipher", "encrypt", "--mode", mode, "--key", K256];
            if let Some(iv) = iv {
                args.extend(["--iv", iv]);
            }
            args.extend(["--backend", b.name()]);
            let mut enc = args.clone();
            enc.extend([
                "-i",
                input.to_str().unwrap(),
                "-o",
                ct_path.to_str().unwrap(),
            ]);
            let o = aesx(&enc);
            assert_eq!(o.code, 0, "{mode} {b}: {}", o.stderr);
            assert!(o.stdout.is_empty());
            let ct = std::fs::read(&ct_path).unwrap();
            let want_len = if mode == "ctr" {
                data.len()
            } else {
                data.len() / 16 * 16 + 16
            };
            assert_eq!(ct.len(), want_len);
            // Decrypt through pipes (stdin arrives in pipe-sized pieces).
            args[1] = "decrypt";
            let o = aesx_in(&args, &ct);
            assert_eq!(o.code, 0, "{mode} {b}: {}", o.stderr);
            assert!(o.stdout == data, "{mode} {b}: round trip differs");
        }
    }
}

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
    let o = run_cmd(c, stdin);
    assert_eq!(o.code, 0, "openssl {args:?}: {}", o.stderr);
    o.stdout
}

#[test]
fn cipher_interoperates_with_openssl_enc() {
    if !openssl_available() {
        return;
    }
    let backends: Vec<Backend> = Backend::available().iter().collect();
    let mut turn = 0;
    for (bits, key) in [(128, K128), (192, K192), (256, K256)] {
        for mode in ["ecb", "cbc", "ctr"] {
            for padded in [true, false] {
                if mode == "ctr" && !padded {
                    continue;
                }
                for len in [0usize, 1, 15, 16, 17, 31, 32, 100, 4096, 70_000] {
                    if !padded && len % 16 != 0 {
                        continue;
                    }
                    // Rotate through the backends so that each sees every
                    // mode and size class without multiplying the runs.
                    let b = backends[turn % backends.len()];
                    turn += 1;
                    let data = pattern(len);
                    let cipher = format!("-aes-{bits}-{mode}");
                    let mut ossl = vec!["enc", cipher.as_str(), "-K", key];
                    let mut ours = vec![
                        "cipher",
                        "encrypt",
                        "--mode",
                        mode,
                        "--key",
                        key,
                        "--backend",
                        b.name(),
                    ];
                    if mode != "ecb" {
                        ossl.extend(["-iv", IV]);
                        ours.extend(["--iv", IV]);
                    }
                    if !padded {
                        ossl.push("-nopad");
                        ours.extend(["--padding", "none"]);
                    }
                    let what = format!("{mode} {bits} len {len} padded {padded} on {b}");
                    // aesx encrypts, openssl decrypts.
                    let o = aesx_in(&ours, &data);
                    assert_eq!(o.code, 0, "{what}: {}", o.stderr);
                    let expected = openssl(&ossl, &data);
                    assert!(
                        o.stdout == expected,
                        "{what}: ciphertext differs from openssl"
                    );
                    let mut ossl_d = ossl.clone();
                    ossl_d.push("-d");
                    assert!(openssl(&ossl_d, &o.stdout) == data, "{what}: openssl -d");
                    // openssl encrypts, aesx decrypts.
                    ours[1] = "decrypt";
                    let o = aesx_in(&ours, &expected);
                    assert_eq!(o.code, 0, "{what}: {}", o.stderr);
                    assert!(o.stdout == data, "{what}: decryption differs");
                }
            }
        }
    }
}

/// `cipher OP --mode cbc` with the AES-128 key and IV, then `extra`.
fn cbc128<'a>(op: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["cipher", op, "--mode", "cbc", "--key", K128, "--iv", IV];
    v.extend_from_slice(extra);
    v
}

/// `cipher OP --mode MODE` with the AES-128 key, then `extra`.
fn k128_args<'a>(op: &'a str, mode: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["cipher", op, "--mode", mode, "--key", K128];
    v.extend_from_slice(extra);
    v
}

fn enc_args<'a>(mode: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    k128_args("encrypt", mode, extra)
}

#[test]
fn cipher_bad_arguments() {
    // Every backend of the library's list, then the GPU.
    let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    let unknown = format!(
        "unknown backend \"turbo\" (expected one of {}, cuda)",
        names.join(", ")
    );
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["cipher", "encrypt", "--mode", "ecb", "--key", "0011"],
            2,
            "--key: 2 bytes",
        ),
        (
            vec!["cipher", "encrypt", "--mode", "ecb", "--key", "zz"],
            2,
            "--key: not hex",
        ),
        (
            vec!["cipher", "encrypt", "--mode", "ecb", "--key", "001"],
            2,
            "odd number",
        ),
        (enc_args("cbc", &[]), 2, "--iv is required"),
        (enc_args("ctr", &["--iv", "0011"]), 2, "--iv: 2 bytes"),
        (enc_args("cbc", &["--iv", "g0"]), 2, "--iv: not hex"),
        (enc_args("ecb", &["--iv", IV]), 2, "--iv is not used"),
        (
            enc_args("ctr", &["--iv", IV, "--padding", "pkcs7"]),
            2,
            "padding",
        ),
        (enc_args("ecb", &["--backend", "turbo"]), 2, &unknown),
        (
            enc_args("ecb", &["-i", "/nonexistent/input.bin"]),
            1,
            "cannot open /nonexistent/input.bin",
        ),
        (
            enc_args("ecb", &["-o", "/nonexistent-dir/out.bin"]),
            1,
            "cannot write",
        ),
    ];
    for (args, code, needle) in cases {
        let o = aesx_in(&args, b"0123456789abcdef");
        assert_error(&o, code, needle);
        assert!(o.stdout.is_empty(), "{args:?} wrote output");
    }
    if let Some(missing) = Backend::ALL.into_iter().find(|b| !b.is_available()) {
        let o = aesx_in(&enc_args("ecb", &["--backend", missing.name()]), b"x");
        assert_error(&o, 1, "not available");
    }
    // Unknown mode and missing subcommand arguments are clap usage errors.
    let o = aesx(&["cipher", "encrypt", "--mode", "ofb", "--key", K128]);
    assert_eq!(o.code, 2);
    assert!(!o.stderr.contains("panicked"));
}

#[test]
fn cipher_bad_data() {
    let cases: Vec<(Vec<&str>, &[u8], &str)> = vec![
        (
            enc_args("ecb", &["--padding", "none"]),
            &[0u8; 17],
            "17 bytes, not a whole number",
        ),
        (
            k128_args("decrypt", "ecb", &["--padding", "none"]),
            &[0u8; 15],
            "15 bytes",
        ),
        (
            vec![
                "cipher", "decrypt", "--mode", "cbc", "--key", K128, "--iv", IV,
            ],
            &[0u8; 33],
            "33 bytes",
        ),
        (
            vec![
                "cipher", "decrypt", "--mode", "cbc", "--key", K128, "--iv", IV,
            ],
            b"",
            "empty",
        ),
    ];
    for (args, input, needle) in cases {
        let o = aesx_in(&args, input);
        assert_error(&o, 1, needle);
    }
    // A last plaintext byte of 0 is never valid PKCS#7 (nor is 17..=255).
    for last in [0u8, 17, 0xff] {
        let mut pt = [5u8; 32];
        pt[31] = last;
        let ct = aesx_in(&enc_args("ecb", &["--padding", "none"]), &pt);
        assert_eq!(ct.code, 0);
        let o = aesx_in(
            &["cipher", "decrypt", "--mode", "ecb", "--key", K128],
            &ct.stdout,
        );
        assert_error(&o, 1, "bad padding");
        // Only what precedes the held-back last block may have been written.
        assert!(o.stdout.len() <= 16);
    }
}

/// Names in `dir` other than `keep`.
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn cipher_never_leaves_half_written_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A large ciphertext whose last block has bad padding (final plaintext
    // byte 0): the error comes after hundreds of kilobytes were decrypted.
    let mut pt = pattern(400_000);
    pt[399_999] = 0;
    let o = aesx_in(&cbc128("encrypt", &["--padding", "none"]), &pt);
    assert_eq!(o.code, 0);
    let ct = o.stdout;
    let ct_path = d.join("ct.bin");
    std::fs::write(&ct_path, &ct).unwrap();
    // `ct.bin` decrypted into `out` with `--force` (and `padding`).
    let dec = |padding: &[&str], out: &Path| {
        let (ct, out) = (ct_path.to_str().unwrap(), out.to_str().unwrap());
        let mut args = padding.to_vec();
        args.extend(["-i", ct, "-o", out, "--force"]);
        aesx(&cbc128("decrypt", &args))
    };
    // New output: not created.
    let fresh = d.join("fresh.bin");
    assert_error(&dec(&[], &fresh), 1, "bad padding");
    assert!(!fresh.exists());
    // Existing output: left exactly as it was.
    let existing = d.join("existing.bin");
    std::fs::write(&existing, b"keep me").unwrap();
    assert_error(&dec(&[], &existing), 1, "bad padding");
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
    // A length error found before writing also leaves nothing behind.
    let odd = d.join("odd.bin");
    std::fs::write(&odd, [0u8; 20]).unwrap();
    let (odd, existing_name) = (odd.to_str().unwrap(), existing.to_str().unwrap());
    let o = aesx(&k128_args(
        "decrypt",
        "ecb",
        &["-i", odd, "-o", existing_name],
    ));
    assert_error(&o, 1, "20 bytes");
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
    assert_eq!(
        leftovers(d, &["ct.bin", "existing.bin", "odd.bin"]),
        Vec::<String>::new()
    );
    // Success replaces the file, and no temporary file stays behind.
    let o = dec(&["--padding", "none"], &existing);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(std::fs::read(&existing).unwrap() == pt);
    assert_eq!(
        leftovers(d, &["ct.bin", "existing.bin", "odd.bin"]),
        Vec::<String>::new()
    );
}

// ---------------------------------------------------------------- info

#[test]
fn info_reports_cpu_and_backends() {
    let o = run_cmd(
        {
            let mut c = aesx_cmd(&["info"]);
            c.env_remove("AESX_BACKEND");
            c
        },
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let s = o.stdout_str();
    assert!(s.contains("cpu:"), "{s}");
    for b in Backend::available() {
        assert!(s.contains(b.name()), "{s}");
    }
    let fastest = Backend::fastest();
    assert!(s.contains(&format!("default:   {fastest}")), "{s}");
    #[cfg(target_arch = "x86_64")]
    assert!(s.contains("aes") && s.contains("avx512f"), "{s}");

    let forced = run_cmd(
        {
            let mut c = aesx_cmd(&["info"]);
            c.env("AESX_BACKEND", "soft");
            c
        },
        b"",
    );
    assert_eq!(forced.code, 0);
    assert!(forced
        .stdout_str()
        .contains("default:   soft (forced by AESX_BACKEND"));

    let bogus = run_cmd(
        {
            let mut c = aesx_cmd(&["info"]);
            c.env("AESX_BACKEND", "bogus");
            c
        },
        b"",
    );
    assert_error(&bogus, 1, "AESX_BACKEND");
}

#[test]
fn info_reports_the_schedule_and_every_forced_one_encrypts_alike() {
    let info = |value: Option<&str>| {
        let mut c = aesx_cmd(&["info"]);
        match value {
            Some(v) => c.env("AESX_SCHEDULE", v),
            None => c.env_remove("AESX_SCHEDULE"),
        };
        run_cmd(c, b"")
    };
    let o = info(None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let detected = aesx::Schedule::detected();
    assert!(
        o.stdout_str()
            .contains(&format!("schedule:  {detected} (from ")),
        "{}",
        o.stdout_str()
    );
    let forced = info(Some("Intel"));
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert!(forced
        .stdout_str()
        .contains("schedule:  intel (forced by AESX_SCHEDULE"));
    assert_error(&info(Some("skylake")), 2, "AESX_SCHEDULE");

    // XTS over several eight-block batches, AES-128 (the schedules differ
    // there), under each schedule: the same ciphertext.
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
    let key = "00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let mut outs = Vec::new();
    for s in aesx::Schedule::ALL {
        let mut c = aesx_cmd(&["cipher", "encrypt", "--mode", "xts", "--key", key]);
        c.args(["--tweak", "000102030405060708090a0b0c0d0e0f"]);
        c.env("AESX_SCHEDULE", s.name());
        let o = run_cmd(c, &data);
        assert_eq!(o.code, 0, "{s}: {}", o.stderr);
        assert_eq!(o.stdout.len(), data.len(), "{s}");
        outs.push(o.stdout);
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn cipher_output_to_devices_symlinks_and_the_input_itself() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = pattern(1000);
    let plain = d.join("plain.bin");
    std::fs::write(&plain, &data).unwrap();
    let cbc = |op: &'static str, i: &Path, o: &Path| {
        aesx(&[
            "cipher",
            op,
            "--mode",
            "cbc",
            "--key",
            K128,
            "--iv",
            IV,
            "-i",
            i.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--force",
        ])
    };
    // A device is written in place, never replaced by a rename.
    let o = cbc("encrypt", &plain, Path::new("/dev/null"));
    assert_eq!(o.code, 0, "{}", o.stderr);
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let ft = std::fs::metadata("/dev/null").unwrap().file_type();
        assert!(ft.is_char_device());
    }
    // Through a symlink: the target is replaced, the link stays a link.
    #[cfg(unix)]
    {
        let target = d.join("target.bin");
        std::fs::write(&target, b"old").unwrap();
        let link = d.join("link.bin");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let o = cbc("encrypt", &plain, &link);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap().len(), 1008);
    }
    // Input and output the same file: refused, even with --force, as
    // `aesx encrypt` does; the file is left alone.
    let same = d.join("same.bin");
    std::fs::write(&same, &data).unwrap();
    assert_error(&cbc("encrypt", &same, &same), 2, "same file");
    assert!(std::fs::read(&same).unwrap() == data);
    // A directory as output is refused.
    assert_error(&cbc("encrypt", &plain, d), 1, "is a directory");
}
