//! `aesx cipher --mode gcm-siv|xaes|ccm|kw|kwp` end to end: known answers
//! (RFC 8452, c2sp.org XAES-256-GCM, RFC 3610, RFC 3394, RFC 5649), round
//! trips on every backend, tampered input refused with no output file, and
//! every bad input reported in one line.

mod common;

use common::{aesx, backends, data, ok, one_line};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// `aesx cipher OP --mode MODE --key KEY [extra...]` on stdin.
fn cipher(op: &str, mode: &str, key: &str, extra: &[&str], input: &[u8]) -> common::Out {
    let dir = tmp();
    let mut args = vec!["cipher", op, "--mode", mode, "--key", key];
    args.extend_from_slice(extra);
    aesx(dir.path(), &args, input)
}

fn cipher_ok(op: &str, mode: &str, key: &str, extra: &[&str], input: &[u8]) -> Vec<u8> {
    let o = cipher(op, mode, key, extra, input);
    assert_eq!(o.code, 0, "{mode} {op}: {}", o.stderr);
    assert!(o.stderr.is_empty(), "{}", o.stderr);
    o.stdout
}

/// Known answer both ways: `pt` encrypts to `out`, and `out` decrypts back.
fn kat(mode: &str, key: &str, extra: &[&str], pt: &[u8], out: &str) {
    assert_eq!(hex::encode(cipher_ok("encrypt", mode, key, extra, pt)), out);
    assert_eq!(cipher_ok("decrypt", mode, key, extra, &h(out)), pt);
}

#[test]
fn gcm_siv_known_answers() {
    // RFC 8452 C.1 and C.2.
    kat(
        "gcm-siv",
        "01000000000000000000000000000000",
        &["--iv", "030000000000000000000000"],
        &h("0100000000000000"),
        "b5d839330ac7b786578782fff6013b815b287c22493a364c",
    );
    kat(
        "gcm-siv",
        "0100000000000000000000000000000000000000000000000000000000000000",
        &["--iv", "030000000000000000000000", "--aad", "01"],
        &h("0100000000000000"),
        "24fbd0da08d77aaa2301c2a6dd90711c16b4e4fedb096d71",
    );
}

#[test]
fn xaes_known_answers() {
    // c2sp.org/XAES-256-GCM, both worked examples.
    let nonce = hex::encode("ABCDEFGHIJKLMNOPQRSTUVWX");
    kat(
        "xaes",
        &"01".repeat(32),
        &["--iv", &nonce],
        b"XAES-256-GCM",
        "ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271",
    );
    kat(
        "xaes",
        &"03".repeat(32),
        &[
            "--iv",
            &nonce,
            "--aad",
            &hex::encode("c2sp.org/XAES-256-GCM"),
        ],
        b"XAES-256-GCM",
        "986ec1832593df5443a179437fd083bf3fdb41abd740a21f71eb769d",
    );
}

#[test]
fn ccm_known_answer() {
    // RFC 3610 packet vector #1: 13-byte nonce, 8-byte tag.
    kat(
        "ccm",
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
        &[
            "--iv",
            "00000003020100a0a1a2a3a4a5",
            "--aad",
            "0001020304050607",
            "--tag-len",
            "8",
        ],
        &h("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e"),
        "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0",
    );
}

#[test]
fn key_wrap_known_answers() {
    // RFC 3394 4.1 and RFC 5649 section 6 (both examples).
    kat(
        "kw",
        "000102030405060708090a0b0c0d0e0f",
        &[],
        &h("00112233445566778899aabbccddeeff"),
        "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5",
    );
    let kek = "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8";
    kat(
        "kwp",
        kek,
        &[],
        &h("c37b7e6492584340bed12207808941155068f738"),
        "138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a",
    );
    kat(
        "kwp",
        kek,
        &[],
        &h("466f7250617369"),
        "afbeb0f07dfbf5419200f2ccb50bb24f",
    );
}

#[test]
fn round_trips_agree_on_every_backend() {
    let k32 = hex::encode(data(32, 1));
    let k16 = hex::encode(data(16, 2));
    let cases: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            "gcm-siv",
            &k16,
            vec!["--iv", "000102030405060708090a0b", "--aad", "aa"],
        ),
        ("gcm-siv", &k32, vec!["--iv", "000102030405060708090a0b"]),
        (
            "xaes",
            &k32,
            vec!["--iv", "000102030405060708090a0b0c0d0e0f1011121314151617"],
        ),
        (
            "ccm",
            &k16,
            vec!["--iv", "00010203040506", "--tag-len", "4"],
        ),
        (
            "ccm",
            &k32,
            vec!["--iv", "000102030405060708090a", "--aad", "0102"],
        ),
    ];
    for len in [0usize, 1, 15, 16, 17, 255, 4096 + 7, 300_000] {
        let pt = data(len, len as u8);
        for (mode, key, extra) in &cases {
            let mut first: Option<Vec<u8>> = None;
            for b in backends() {
                let mut args = extra.clone();
                args.extend(["--backend", b]);
                let ct = cipher_ok("encrypt", mode, key, &args, &pt);
                assert_eq!(
                    cipher_ok("decrypt", mode, key, &args, &ct),
                    pt,
                    "{mode} {b}"
                );
                match &first {
                    None => first = Some(ct),
                    Some(f) => assert_eq!(&ct, f, "{mode} {len} bytes: {b} differs"),
                }
            }
        }
        for mode in ["kw", "kwp"] {
            if (mode == "kw" && (len < 16 || len % 8 != 0)) || len == 0 {
                continue;
            }
            let mut first: Option<Vec<u8>> = None;
            for b in backends() {
                let ct = cipher_ok("encrypt", mode, &k32, &["--backend", b], &pt);
                assert_eq!(ct.len(), len.div_ceil(8) * 8 + 8);
                assert_eq!(cipher_ok("decrypt", mode, &k32, &["--backend", b], &ct), pt);
                match &first {
                    None => first = Some(ct),
                    Some(f) => assert_eq!(&ct, f, "{mode} {len} bytes: {b} differs"),
                }
            }
        }
    }
}

#[test]
fn tampered_input_is_refused_and_writes_no_file() {
    let dir = tmp();
    let key = hex::encode(data(32, 9));
    let pt = data(1000, 3);
    let modes: [(&str, Vec<&str>); 5] = [
        ("gcm-siv", vec!["--iv", "000102030405060708090a0b"]),
        (
            "xaes",
            vec!["--iv", "000102030405060708090a0b0c0d0e0f1011121314151617"],
        ),
        ("ccm", vec!["--iv", "0001020304050607", "--tag-len", "10"]),
        ("kw", vec![]),
        ("kwp", vec![]),
    ];
    for (mode, extra) in &modes {
        let input = if *mode == "kw" { &pt[..992] } else { &pt[..] };
        let ct = cipher_ok("encrypt", mode, &key, extra, input);
        for flip in [0, ct.len() / 2, ct.len() - 1] {
            let mut bad = ct.clone();
            bad[flip] ^= 0x01;
            std::fs::write(dir.path().join("bad"), &bad).unwrap();
            let mut args = vec!["cipher", "decrypt", "--mode", mode, "--key", &key];
            args.extend(extra.iter().copied());
            args.extend(["-i", "bad", "-o", "out"]);
            let o = aesx(dir.path(), &args, b"");
            one_line(&o, 1, "nothing written");
            assert!(o.stdout.is_empty());
            assert!(!dir.path().join("out").exists(), "{mode}: output file left");
            // Nor to standard output.
            let o = cipher("decrypt", mode, &key, extra, &bad);
            one_line(&o, 1, "nothing written");
            assert!(o.stdout.is_empty(), "{mode}: wrote to stdout");
        }
        // A wrong AAD or nonce is refused the same way.
        if *mode != "kw" && *mode != "kwp" {
            let mut args = extra.clone();
            args.extend(["--aad", "00"]);
            let o = cipher("decrypt", mode, &key, &args, &ct);
            one_line(&o, 1, "authentication failed");
        }
    }
    let o = cipher("decrypt", "kw", &hex::encode(data(16, 1)), &[], &[0u8; 24]);
    one_line(&o, 1, "unwrap failed");
}

#[test]
fn named_output_appears_only_on_success() {
    let dir = tmp();
    let key = hex::encode(data(16, 4));
    std::fs::write(dir.path().join("pt"), data(5000, 1)).unwrap();
    let ccm = |op, input, output| {
        let iv = "0a0b0c0d0e0f1011";
        [
            "cipher", op, "--mode", "ccm", "--key", &key, "--iv", iv, "-i", input, "-o", output,
        ]
    };
    ok(dir.path(), &ccm("encrypt", "pt", "ct"), b"");
    let dec = ccm("decrypt", "ct", "back");
    ok(dir.path(), &dec, b"");
    assert_eq!(
        std::fs::read(dir.path().join("back")).unwrap(),
        data(5000, 1)
    );
    // The existing file is not replaced without --force.
    let o = aesx(dir.path(), &dec, b"");
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
}

/// (op, mode, key, extra arguments, stdin, exit code, needle in the line)
type BadCase<'a> = (
    &'a str,
    &'a str,
    &'a str,
    Vec<&'a str>,
    &'a [u8],
    i32,
    &'a str,
);

#[test]
fn bad_inputs_are_one_line() {
    let k16 = "000102030405060708090a0b0c0d0e0f";
    let k32 = &"11".repeat(32);
    let n12 = "000102030405060708090a0b";
    let n24 = &"22".repeat(24);
    let k20 = &"00".repeat(20);
    let n13 = &"00".repeat(13);
    #[rustfmt::skip]
    let cases: Vec<BadCase> = vec![
        ("encrypt", "gcm-siv", &k16[..30], vec!["--iv", n12], b"x", 2, "--key"),
        ("encrypt", "gcm-siv", k20, vec!["--iv", n12], b"x", 2, "16, 24 or 32"),
        ("encrypt", "gcm-siv", k16, vec![], b"x", 2, "--iv"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", "00"], b"x", 2, "12 bytes"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", n24], b"x", 2, "12 bytes"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", n12, "--tag-len", "12"], b"x", 2, "16"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", n12, "--padding", "pkcs7"], b"x", 2, "padding"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", n12, "--tweak", k16], b"x", 2, "xts"),
        ("decrypt", "gcm-siv", k16, vec!["--iv", n12], b"short", 1, "shorter"),
        ("encrypt", "xaes", k16, vec!["--iv", n24], b"x", 2, "32 bytes"),
        ("encrypt", "xaes", k32, vec!["--iv", n12], b"x", 2, "24 bytes"),
        ("decrypt", "xaes", k32, vec!["--iv", n24], &[0u8; 15], 1, "shorter"),
        ("encrypt", "ccm", k16, vec!["--iv", "000102030405"], b"x", 2, "7 to 13"),
        ("encrypt", "ccm", k16, vec!["--iv", &n24[..28]], b"x", 2, "7 to 13"),
        ("encrypt", "ccm", k16, vec!["--iv", n12, "--tag-len", "5"], b"x", 2, "--tag-len"),
        ("encrypt", "ccm", k16, vec!["--iv", n12, "--tag-len", "2"], b"x", 2, "--tag-len"),
        ("encrypt", "ccm", k16, vec!["--iv", n12, "--tag-len", "18"], b"x", 2, "--tag-len"),
        ("encrypt", "ccm", k16, vec!["--iv", n12, "--aad", "0g"], b"x", 2, "--aad"),
        ("encrypt", "ccm", k16, vec!["--iv", "zz"], b"x", 2, "--iv"),
        ("decrypt", "ccm", k16, vec!["--iv", n12, "--tag-len", "8"], &[0u8; 7], 1, "shorter"),
        // CCM with a 13-byte nonce counts 2^16 - 1 bytes at most.
        ("encrypt", "ccm", k16, vec!["--iv", n13], &[0u8; 65536], 1, "longer"),
        ("encrypt", "kw", k16, vec![], &[0u8; 8], 1, "at least 16"),
        ("encrypt", "kw", k16, vec![], &[0u8; 20], 1, "multiple of 8"),
        ("decrypt", "kw", k16, vec![], &[0u8; 16], 1, "at least 24"),
        ("decrypt", "kw", k16, vec![], &[0u8; 25], 1, "multiple of 8"),
        ("encrypt", "kw", k16, vec!["--iv", n12], &[0u8; 16], 2, "--iv"),
        ("encrypt", "kw", k16, vec!["--aad", "00"], &[0u8; 16], 2, "--aad"),
        ("encrypt", "kw", &k16[..16], vec![], &[0u8; 16], 2, "--key"),
        ("encrypt", "kwp", k16, vec![], b"", 1, "1 to 2^32 - 1"),
        ("decrypt", "kwp", k16, vec![], &[0u8; 8], 1, "at least 16"),
        ("decrypt", "kwp", k16, vec![], &[0u8; 20], 1, "multiple of 8"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", n12, "--backend", "nope"], b"x", 2, "unknown backend"),
        ("encrypt", "gcm-siv", k16, vec!["--iv", n12, "--backend", "cuda"], b"x", 2, common::CUDA_REFUSED),
        ("encrypt", "kwp", k16, vec!["--backend", "cuda"], b"x", 2, common::CUDA_REFUSED),
        ("encrypt", "siv", k16, vec![], b"x", 2, "siv"),
    ];
    for (op, mode, key, extra, stdin, code, needle) in cases {
        let dir = tmp();
        let mut args = vec!["cipher", op, "--mode", mode, "--key", key];
        args.extend(extra.iter().copied());
        args.extend(["-o", "out"]);
        let o = aesx(dir.path(), &args, stdin);
        one_line(&o, code, needle);
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!dir.path().join("out").exists(), "{args:?}: output left");
    }
}

#[test]
fn help_names_the_nonce_sizes_and_layout() {
    let dir = tmp();
    let help = String::from_utf8(ok(dir.path(), &["cipher", "--help"], b"")).unwrap();
    for needle in [
        "gcm-siv", "xaes", "ccm", "kw", "kwp", "12 bytes", "24 bytes", "7 to 13",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}");
    }
    assert!(help.contains("ciphertext then"), "{help}");
}
