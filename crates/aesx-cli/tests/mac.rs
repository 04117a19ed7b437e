//! `aesx mac --mode cmac`: RFC 4493 known answers, the same tag for any
//! input size and chunking (stdin, files, every backend), `--verify`, and
//! every bad input in one line.

mod common;

use common::{aesx, data, ok, one_line};

const K: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const M64: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                   30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";

fn mac(key: &str, extra: &[&str], input: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["mac", "--mode", "cmac", "--key", key];
    args.extend_from_slice(extra);
    String::from_utf8(ok(dir.path(), &args, input)).unwrap()
}

#[test]
fn rfc4493_known_answers() {
    let m = hex::decode(M64).unwrap();
    // RFC 4493 section 4, examples 1 to 4.
    assert_eq!(mac(K, &[], b""), "bb1d6929e95937287fa37d129b756746\n");
    assert_eq!(mac(K, &[], &m[..16]), "070a16b46b4d4144f79bdd9dd04a287c\n");
    assert_eq!(mac(K, &[], &m[..40]), "dfa66747de9ae63030ca32611497c827\n");
    assert_eq!(
        mac(K, &["-i", "-"], &m),
        "51f0bebf7e3b9d92fc49741779363cfe\n"
    );
    // SP 800-38B D.2 / D.3: AES-192 and AES-256, 64-byte message.
    assert_eq!(
        mac("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", &[], &m),
        "a1d5df0eed790f794d77589659f39a11\n"
    );
    assert_eq!(
        mac(
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            &[],
            &m
        ),
        "e1992190549f6ed5696a2c056c315410\n"
    );
}

#[test]
fn any_size_any_backend_same_tag() {
    let dir = tempfile::tempdir().unwrap();
    let key = hex::encode(data(32, 5));
    let big = data(3 * 256 * 1024 + 17, 6);
    std::fs::write(dir.path().join("big"), &big).unwrap();
    let from_stdin = mac(&key, &[], &big);
    assert_eq!(from_stdin.len(), 33);
    for b in aesx::Backend::available().iter() {
        let args = [
            "mac",
            "--mode",
            "cmac",
            "--key",
            &key,
            "-i",
            "big",
            "--backend",
            b.name(),
        ];
        let from_file = String::from_utf8(ok(dir.path(), &args, b"")).unwrap();
        assert_eq!(from_file, from_stdin, "{b}");
    }
    // A one-byte change changes the tag.
    let mut other = big.clone();
    other[big.len() / 2] ^= 1;
    assert_ne!(mac(&key, &[], &other), from_stdin);
}

#[test]
fn verify_matches_and_mismatches() {
    let dir = tempfile::tempdir().unwrap();
    let m = hex::decode(M64).unwrap();
    let good = "51f0bebf7e3b9d92fc49741779363cfe";
    let args = |t: &'static str| ["mac", "--mode", "cmac", "--key", K, "--verify", t];
    let o = aesx(dir.path(), &args(good), &m);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
    // A truncated tag is compared on its length.
    assert_eq!(aesx(dir.path(), &args("51f0bebf7e3b9d92"), &m).code, 0);
    let o = aesx(dir.path(), &args("51f0bebf7e3b9d92fc49741779363cff"), &m);
    one_line(&o, 1, "mismatch");
    let o = aesx(dir.path(), &args("52f0bebf"), &m);
    one_line(&o, 1, "mismatch");
}

#[test]
fn bad_inputs_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], i32, &str); 10] = [
        (&["--key", &K[..30]], 2, "--key"),
        (&["--key", "0011"], 2, "16, 24 or 32"),
        (&["--key", "zz"], 2, "--key"),
        (&["--key", K, "--verify", ""], 2, "1 to 16"),
        (&["--key", K, "--verify", &"00".repeat(17)], 2, "1 to 16"),
        (&["--key", K, "--verify", "0"], 2, "--verify"),
        (&["--key", K, "-i", "missing"], 1, "cannot open"),
        (&["--key", K, "-i", "."], 1, "directory"),
        (&["--key", K, "--backend", "nope"], 2, "unknown backend"),
        (&["--key", K, "--backend", "cuda"], 2, common::CUDA_REFUSED),
    ];
    for (extra, code, needle) in cases {
        let mut args = vec!["mac", "--mode", "cmac"];
        args.extend_from_slice(extra);
        let o = aesx(dir.path(), &args, b"abc");
        one_line(&o, code, needle);
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    let o = aesx(dir.path(), &["mac", "--mode", "hmac", "--key", K], b"");
    one_line(&o, 2, "hmac");
    let o = aesx(dir.path(), &["mac", "--key", K], b"");
    one_line(&o, 2, "--mode");
}
