//! What a build without one of the default features says when asked for
//! what it left out: one line, exit 2, naming the feature. Run with
//! `cargo test -p aesx-cli --no-default-features --test features`; in the
//! default build only the opposite (the feature is there) is checked.

mod common;

use common::{aesx, one_line};

const KEY: &str = "000102030405060708090a0b0c0d0e0f";

#[test]
fn bench_needs_peers() {
    let d = tempfile::tempdir().unwrap();
    let o = aesx(d.path(), &["bench", "--mode", "ctr", "--no-peers"], b"");
    if cfg!(feature = "peers") {
        assert!(!o.stderr.contains("feature"), "{}", o.stderr);
    } else {
        one_line(&o, 2, "bench needs the `peers` feature");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn plot_and_gpu_table_need_their_features() {
    if cfg!(not(feature = "peers")) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let svg = d.path().join("x.svg");
    let o = aesx(
        d.path(),
        &["bench", "--plot", svg.to_str().unwrap(), "--mode", "nope"],
        b"",
    );
    if cfg!(feature = "plot") {
        one_line(&o, 2, "unknown mode");
    } else {
        one_line(&o, 2, "--plot needs the `plot` feature");
    }
    if cfg!(not(all(feature = "cuda", feature = "plot"))) {
        let o = aesx(d.path(), &["bench", "--gpu-table"], b"");
        one_line(&o, 2, "--gpu-table needs the `cuda` and `plot` features");
    }
}

#[test]
fn backend_cuda_needs_cuda() {
    if cfg!(feature = "cuda") {
        return; // tests/cuda_cli.rs
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("pt"), b"0123456789abcdef").unwrap();
    std::fs::write(d.path().join("key"), format!("{KEY}{KEY}\n")).unwrap();
    for args in [
        vec![
            "encrypt",
            "--backend",
            "cuda",
            "-k",
            "key",
            "-o",
            "out",
            "pt",
        ],
        vec![
            "cipher",
            "encrypt",
            "--mode",
            "ecb",
            "--key",
            KEY,
            "--backend",
            "cuda",
            "-i",
            "pt",
            "-o",
            "out",
        ],
        vec!["cavp", "--backend", "cuda", "x.rsp"],
    ] {
        let o = aesx(d.path(), &args, b"");
        one_line(&o, 2, "built without the `cuda` feature");
        assert!(!d.path().join("out").exists(), "{args:?}");
    }
    let o = common::cmd(d.path(), &["encrypt", "-k", "key", "-o", "out", "pt"])
        .env("AESX_BACKEND", "cuda")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("AESX_BACKEND cuda"));
}
