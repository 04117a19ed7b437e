//! `aesx cipher --mode xts` and `aesx cavp` on XTS vectors, end to end.

mod common;

use aesx::{Backend, Xts};
use common::{at_repo as aesx_in, one_line as assert_error, repo};

const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn key() -> Vec<u8> {
    hex::decode(KEY).unwrap()
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 13 + 5) as u8).collect()
}

#[test]
fn cavp_runs_every_xts_file() {
    let files = [
        "vectors/nist/XTS/tweak-128hexstr/XTSGenAES128.rsp",
        "vectors/nist/XTS/tweak-128hexstr/XTSGenAES256.rsp",
        "vectors/nist/XTS/tweak-dataunitseqno/XTSGenAES128.rsp",
        "vectors/nist/XTS/tweak-dataunitseqno/XTSGenAES256.rsp",
        "vectors/wycheproof/aes_xts_test.json",
    ];
    let mut args = vec!["cavp", "--backend", "vaes512"];
    if !Backend::Vaes512.is_available() {
        args[2] = "soft";
    }
    args.extend(files);
    let o = aesx_in(&args, b"");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.code, 0, "{out}\n{}", o.stderr);
    // Per file: 800 byte-sized records (AES-128 file: 200 skipped of 130
    // bits; AES-256 file: 400 skipped of 140 and 250 bits); encryption
    // records count once per backend, as do decryption records.
    assert!(
        out.contains("XTSGenAES128.rsp: XTS, 1000 records, 800 passed, 0 failed, 200 skipped"),
        "{out}"
    );
    assert!(
        out.contains("XTSGenAES256.rsp: XTS, 1000 records, 600 passed, 0 failed, 400 skipped"),
        "{out}"
    );
    assert!(
        out.contains(
            "aes_xts_test.json: XTS (Wycheproof), 123 records, 82 passed, 0 failed, 41 skipped"
        ),
        "{out}"
    );
}

#[test]
fn cavp_notices_a_corrupted_xts_vector() {
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("vectors/nist/XTS/tweak-dataunitseqno/XTSGenAES128.rsp");
    let text = std::fs::read_to_string(src).unwrap();
    // Flip one digit of the first ciphertext.
    let at = text.find("CT = ").unwrap() + 5;
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    let path = dir.path().join("XTSGenAES128.rsp");
    std::fs::write(&path, bytes).unwrap();
    let o = aesx_in(&["cavp", "--backend", "soft", path.to_str().unwrap()], b"");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.code, 1, "{out}");
    assert!(out.contains("799 passed, 1 failed"), "{out}");
}

#[test]
fn cipher_xts_image_matches_the_library() {
    let image = pattern(512 * 37);
    let xts = Xts::new(&key()).unwrap();
    let mut want = image.clone();
    xts.encrypt_sectors(512, 1000, &mut want).unwrap();
    for backend in Backend::available() {
        let args = [
            "cipher",
            "encrypt",
            "--mode",
            "xts",
            "--key",
            KEY,
            "--sector-size",
            "512",
            "--sector",
            "1000",
            "--backend",
            backend.name(),
        ];
        let o = aesx_in(&args, &image);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(o.stdout, want, "{backend}");
        let mut dec = args;
        dec[1] = "decrypt";
        let o = aesx_in(&dec, &want);
        assert_eq!(o.stdout, image, "{backend}");
    }
    // One sector on its own, by number and by tweak.
    let sector = &want[512 * 5..512 * 6];
    let o = aesx_in(
        &[
            "cipher", "decrypt", "--mode", "xts", "--key", KEY, "--sector", "1005",
        ],
        sector,
    );
    assert_eq!(o.stdout, &image[512 * 5..512 * 6]);
    let tweak = hex::encode(1005u128.to_le_bytes());
    let o = aesx_in(
        &[
            "cipher", "decrypt", "--mode", "xts", "--key", KEY, "--tweak", &tweak,
        ],
        sector,
    );
    assert_eq!(o.stdout, &image[512 * 5..512 * 6]);
}

#[test]
fn cipher_xts_unit_with_stealing() {
    let data = pattern(1000);
    let tweak = [0x42u8; 16];
    let mut want = data.clone();
    Xts::new(&key())
        .unwrap()
        .encrypt(&tweak, &mut want)
        .unwrap();
    let th = hex::encode(tweak);
    let o = aesx_in(
        &[
            "cipher", "encrypt", "--mode", "xts", "--key", KEY, "--tweak", &th,
        ],
        &data,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, want);
}

#[test]
fn cipher_xts_errors() {
    let half = &KEY[..32];
    let equal = format!("{half}{half}");
    // `--key`, the other options, the input's length, exit code and error.
    let cases: [(&str, &[&str], usize, i32, &str); 10] = [
        (KEY, &[], 32, 2, "--tweak HEX or --sector N"),
        (
            KEY,
            &["--sector-size", "512"],
            1000,
            1,
            "whole number of 512-byte sectors",
        ),
        (KEY, &["--sector-size", "500"], 1000, 2, "--sector-size 500"),
        (KEY, &["--sector", "1"], 15, 1, "data unit"),
        (KEY, &["--tweak", "00", "--sector", "1"], 32, 2, "not both"),
        (KEY, &["--tweak", "0011"], 32, 2, "--tweak: 2 bytes"),
        (
            KEY,
            &["--tweak", "00", "--sector-size", "512"],
            512,
            2,
            "--tweak cannot",
        ),
        (
            half,
            &["--sector", "1"],
            32,
            2,
            "XTS keys are 32 or 64 bytes",
        ),
        (&equal, &["--sector", "1"], 32, 1, "halves are equal"),
        (
            KEY,
            &["--sector", "1", "--iv", KEY],
            32,
            2,
            "--iv is not used",
        ),
    ];
    for (key, extra, len, code, needle) in cases {
        let mut args = vec!["cipher", "encrypt", "--mode", "xts", "--key", key];
        args.extend_from_slice(extra);
        assert_error(&aesx_in(&args, &pattern(len)), code, needle);
    }
    let o = aesx_in(
        &[
            "cipher",
            "encrypt",
            "--mode",
            "ctr",
            "--key",
            &KEY[..32],
            "--iv",
            &KEY[..32],
            "--sector",
            "3",
        ],
        &pattern(32),
    );
    assert_error(&o, 2, "XTS options");
}
