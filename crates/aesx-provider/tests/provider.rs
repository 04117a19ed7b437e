//! The provider as OpenSSL loads it: the cdylib copied to `aesx.so` in a
//! temporary directory, then
//! - the C harness (`tests/harness.c`, compiled here with `cc -lcrypto`) on
//!   every aesx backend this machine has: descriptions against the default
//!   provider, OpenSSL's own cipher test data, differential runs, misuse;
//! - the `openssl` CLI: `list -cipher-algorithms` and `enc` round trips
//!   against the default provider's output.
//!
//! Needs a C compiler, OpenSSL 3 headers and libcrypto, and the `openssl`
//! binary; no network.

use std::path::{Path, PathBuf};
use std::process::Command;

use aesx::Backend;

/// The cdylib cargo built beside this test.
fn cdylib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        let p = dir.join("libaesx_provider.so");
        if p.exists() {
            return p;
        }
    }
    panic!("libaesx_provider.so not found beside {}", exe.display());
}

/// A fresh directory holding `aesx.so` (and the harness), per test.
fn provider_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aesx-provider-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(cdylib(), dir.join("aesx.so")).unwrap();
    dir
}

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn backends() -> Vec<&'static str> {
    Backend::available().iter().map(Backend::name).collect()
}

#[test]
fn harness_on_every_backend() {
    let dir = provider_dir("harness");
    let exe = dir.join("harness");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let st = Command::new(&cc)
        .args(["-O1", "-Wall", "-Wextra", "-Werror", "-pthread", "-o"])
        .arg(&exe)
        .arg(manifest().join("tests/harness.c"))
        .arg("-lcrypto")
        .status()
        .expect("a C compiler");
    assert!(
        st.success(),
        "compiling harness.c (needs OpenSSL 3's headers and libcrypto: \
         apt-get install libssl-dev)"
    );
    let vectors: Vec<_> = [
        "evpciph_aes_common.txt",
        "evpciph_aes_ccm_cavs.txt",
        "evpciph_aes_wrap.txt",
        "evpciph_aes_gcm_siv.txt",
    ]
    .iter()
    .map(|f| manifest().join("../../vectors/openssl").join(f))
    .collect();
    for v in &vectors {
        assert!(v.exists(), "{}", v.display());
    }
    let names = backends();
    assert!(names.contains(&"soft"));
    for name in names {
        let out = Command::new(&exe)
            .arg(&dir)
            .args(&vectors)
            .env("AESX_BACKEND", name)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        println!("== AESX_BACKEND={name}\n{text}{err}");
        assert!(
            out.status.success(),
            "harness failed on {name}:\n{text}\n{err}"
        );
        assert!(text.contains(&format!("backend {name}")), "{text}");
        assert!(text.contains(", 0 failures"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn openssl(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("openssl")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("openssl {args:?}: {e} (dir {})", dir.display()))
}

#[test]
fn openssl_list_reads_like_the_default() {
    let dir = provider_dir("list");
    let d = dir.to_str().unwrap();
    let ours = openssl(
        &dir,
        &[
            "list",
            "-cipher-algorithms",
            "-provider-path",
            d,
            "-provider",
            "aesx",
        ],
    );
    assert!(
        ours.status.success(),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let ours = String::from_utf8_lossy(&ours.stdout).into_owned();
    let theirs = openssl(&dir, &["list", "-cipher-algorithms"]);
    let theirs = String::from_utf8_lossy(&theirs.stdout).into_owned();
    let provided = |s: &str, at: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.ends_with(at))
            .map(|l| l.trim().trim_end_matches(at).trim().to_uppercase())
            .collect()
    };
    let mine = provided(&ours, "@ aesx");
    assert_eq!(mine.len(), 32, "{ours}");
    assert!(!ours.contains("@ default"), "only aesx was loaded:\n{ours}");
    let default = provided(&theirs, "@ default");
    // AES-GCM-SIV is the default's only from OpenSSL 3.2 on.
    let siv_here = default.iter().any(|l| l.contains("GCM-SIV"));
    for line in mine.iter().filter(|l| siv_here || !l.contains("GCM-SIV")) {
        assert!(
            default.contains(line),
            "{line} is not the default's: {default:?}"
        );
    }
    for mode in ["ECB", "CBC", "CTR", "GCM"] {
        for bits in [128, 192, 256] {
            let name = format!("AES-{bits}-{mode}");
            assert!(
                mine.iter().any(|l| l.contains(&name)),
                "{name} missing: {mine:?}"
            );
        }
    }
    for name in ["AES-128-XTS", "AES-256-XTS"] {
        assert!(mine.iter().any(|l| l.contains(name)), "{name} missing");
    }
    // An unknown AESX_BACKEND refuses to load rather than guess.
    let bad = Command::new("openssl")
        .args([
            "list",
            "-cipher-algorithms",
            "-provider-path",
            d,
            "-provider",
            "aesx",
        ])
        .env("AESX_BACKEND", "no-such-backend")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn openssl_enc_round_trips_against_the_default() {
    let dir = provider_dir("enc");
    let d = dir.to_str().unwrap();
    let pt = dir.join("pt.bin");
    let data: Vec<u8> = (0..100_003u32).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(&pt, &data).unwrap();
    let key32 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    let iv = "f0e0d0c0b0a090807060504030201000";
    // (`openssl enc` takes no AEAD and no XTS cipher.)
    let cases: [(&str, &str, &[&str]); 5] = [
        ("aes-256-cbc", key32, &[]),
        ("aes-128-cbc", &key32[..32], &["-nopad"]),
        ("aes-192-ctr", &key32[..48], &[]),
        ("aes-256-ecb", key32, &[]),
        ("aes128", &key32[..32], &[]),
    ];
    for backend in backends() {
        for (cipher, key, extra) in cases {
            let input = if extra.contains(&"-nopad") {
                let p = dir.join("pt_blocks.bin");
                std::fs::write(&p, &data[..data.len() / 16 * 16]).unwrap();
                p
            } else {
                pt.clone()
            };
            let run = |prov: bool, dec: bool, inp: &Path, out: &Path| {
                let mut args = vec!["enc", if dec { "-d" } else { "-e" }, "-K", key];
                let ecb = cipher.contains("ecb");
                if !ecb {
                    args.extend(["-iv", iv]);
                }
                let flag = format!("-{cipher}");
                args.push(&flag);
                args.extend(["-in", inp.to_str().unwrap(), "-out", out.to_str().unwrap()]);
                args.extend(extra.iter().copied());
                if prov {
                    args.extend(["-provider-path", d, "-provider", "aesx"]);
                }
                let o = Command::new("openssl")
                    .args(&args)
                    .env("AESX_BACKEND", backend)
                    .env("AESX_PROVIDER_TRACE", "1")
                    .output()
                    .unwrap();
                assert!(
                    o.status.success(),
                    "openssl {args:?}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                String::from_utf8_lossy(&o.stderr).into_owned()
            };
            let (ca, cd, back) = (dir.join("ca"), dir.join("cd"), dir.join("back"));
            let trace = run(true, false, &input, &ca);
            assert!(
                trace.contains("bytes through aesx") && trace.contains(backend),
                "no aesx trace: {trace}"
            );
            run(false, false, &input, &cd);
            assert_eq!(
                std::fs::read(&ca).unwrap(),
                std::fs::read(&cd).unwrap(),
                "{cipher} on {backend}"
            );
            run(true, true, &ca, &back);
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(&input).unwrap()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
