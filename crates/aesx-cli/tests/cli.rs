//! The `aesx` binary end to end: `cavp` over the vendored vectors and over
//! corrupted ones, `cipher` against `openssl enc` in both directions, and
//! every kind of bad input giving one `aesx: ...` line and the right exit
//! code, never a panic and never a half-written output file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use aesx::Backend;

struct Out {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Out {
    fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn aesx_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_aesx"));
    c.args(args).current_dir(repo());
    c
}

fn run_cmd(mut c: Command, stdin: &[u8]) -> Out {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // Feed stdin from a thread so a large input cannot deadlock on a full
    // stdout pipe; a closed pipe (the program exited early) is fine.
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let o = child.wait_with_output().expect("wait");
    feeder.join().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn aesx(args: &[&str]) -> Out {
    run_cmd(aesx_cmd(args), b"")
}

fn aesx_in(args: &[&str], stdin: &[u8]) -> Out {
    run_cmd(aesx_cmd(args), stdin)
}

/// One line on stderr, `aesx: ...` containing `needle`, exit `code`.
#[track_caller]
fn assert_error(o: &Out, code: i32, needle: &str) {
    assert!(!o.stderr.contains("panicked"), "panic: {}", o.stderr);
    assert_eq!(o.code, code, "exit code; stderr: {}", o.stderr);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "want one stderr line, got: {:?}", o.stderr);
    assert!(lines[0].starts_with("aesx: "), "stderr: {:?}", o.stderr);
    assert!(
        lines[0].to_lowercase().contains(&needle.to_lowercase()),
        "stderr {:?} lacks {needle:?}",
        o.stderr
    );
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
    let bad_hex = dir.path().join("ECBMMT128.rsp");
    std::fs::write(
        &bad_hex,
        "[ENCRYPT]\n\nCOUNT = 0\nKEY = 000102030405060708090a0b0c0d0e0f\nPLAINTEXT = 00112233445566778899aabbccddeexx\nCIPHERTEXT = 00112233445566778899aabbccddeeff\n",
    )
    .unwrap();
    let unknown = dir.path().join("notes.txt");
    std::fs::write(&unknown, "[ENCRYPT]\nKEY = 00\n").unwrap();
    let empty = dir.path().join("CBCMMT256.rsp");
    std::fs::write(&empty, "# nothing here\n").unwrap();
    let short_key = dir.path().join("aes-128-ctr.txt");
    std::fs::write(
        &short_key,
        "[ENCRYPT]\nCOUNT = 0\nKEY = 0001\nIV = 00000000000000000000000000000000\nPLAINTEXT = 00\nCIPHERTEXT = 00\n",
    )
    .unwrap();
    let malformed = dir.path().join("CBCVarTxt128.rsp");
    std::fs::write(&malformed, "[ENCRYPT]\nCOUNT 0\n").unwrap();
    for (path, needle) in [
        (&bad_hex, "line 3: PLAINTEXT: bad hex"),
        (&unknown, "cannot tell"),
        (&empty, "no test records"),
        (&short_key, "KEY is 2 bytes"),
        (&malformed, "line 2"),
        (&dir.path().join("missing.rsp"), "cannot read"),
    ] {
        let o = aesx(&["cavp", path.to_str().unwrap()]);
        assert_error(&o, 2, needle);
        assert!(o.stderr.contains(path.to_str().unwrap()), "{}", o.stderr);
        assert_eq!(tally(&o), (0, 1));
    }
    // A good file beside a bad one still runs, and the bad one still fails
    // the run.
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
    let o = aesx_in(
        &[
            "cipher",
            "encrypt",
            "--mode",
            "cbc",
            "--key",
            K128,
            "--iv",
            IV,
            "--padding",
            "none",
        ],
        &pt,
    );
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

fn enc_args<'a>(mode: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["cipher", "encrypt", "--mode", mode, "--key", K128];
    v.extend_from_slice(extra);
    v
}

#[test]
fn cipher_bad_arguments() {
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
        (
            enc_args("ecb", &["--backend", "turbo"]),
            2,
            "unknown backend",
        ),
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
            vec![
                "cipher",
                "decrypt",
                "--mode",
                "ecb",
                "--key",
                K128,
                "--padding",
                "none",
            ],
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
    let o = aesx_in(
        &[
            "cipher",
            "encrypt",
            "--mode",
            "cbc",
            "--key",
            K128,
            "--iv",
            IV,
            "--padding",
            "none",
        ],
        &pt,
    );
    assert_eq!(o.code, 0);
    let ct = o.stdout;
    let ct_path = d.join("ct.bin");
    std::fs::write(&ct_path, &ct).unwrap();
    let dec = |out: &Path| {
        aesx(&[
            "cipher",
            "decrypt",
            "--mode",
            "cbc",
            "--key",
            K128,
            "--iv",
            IV,
            "-i",
            ct_path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ])
    };
    // New output: not created.
    let fresh = d.join("fresh.bin");
    assert_error(&dec(&fresh), 1, "bad padding");
    assert!(!fresh.exists());
    // Existing output: left exactly as it was.
    let existing = d.join("existing.bin");
    std::fs::write(&existing, b"keep me").unwrap();
    assert_error(&dec(&existing), 1, "bad padding");
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
    // A length error found before writing also leaves nothing behind.
    let odd = d.join("odd.bin");
    std::fs::write(&odd, [0u8; 20]).unwrap();
    let o = aesx(&[
        "cipher",
        "decrypt",
        "--mode",
        "ecb",
        "--key",
        K128,
        "-i",
        odd.to_str().unwrap(),
        "-o",
        existing.to_str().unwrap(),
    ]);
    assert_error(&o, 1, "20 bytes");
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
    assert_eq!(
        leftovers(d, &["ct.bin", "existing.bin", "odd.bin"]),
        Vec::<String>::new()
    );
    // Success replaces the file, and no temporary file stays behind.
    let o = aesx(&[
        "cipher",
        "decrypt",
        "--mode",
        "cbc",
        "--key",
        K128,
        "--iv",
        IV,
        "--padding",
        "none",
        "-i",
        ct_path.to_str().unwrap(),
        "-o",
        existing.to_str().unwrap(),
        "--force",
    ]);
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
