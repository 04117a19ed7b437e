//! Shared by the CLI's end-to-end tests: running the binary with stdin
//! fed from a thread, the one-line error check, and deterministic data.

#![allow(dead_code)] // each test binary uses a different part

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// The binary under test: this build's, or `AESX_TEST_BIN` (to rerun the
/// repros against another build, e.g. one from before the fixes).
pub fn bin() -> String {
    std::env::var("AESX_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_aesx").to_string())
}

pub struct Out {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Out {
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// The available backends' names.
pub fn backends() -> Vec<&'static str> {
    aesx::Backend::available()
        .iter()
        .map(|b| b.name())
        .collect()
}

/// The repository root, where `vectors/` lies.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `aesx ARGS` run in the repository root, `stdin` fed from a thread.
pub fn at_repo(args: &[&str], stdin: &[u8]) -> Out {
    aesx(&repo(), args, stdin)
}

/// Runs any command (one made by [`cmd`] and adjusted, or another tool)
/// with `stdin` fed from a thread and its output captured.
pub fn run(mut c: Command, stdin: &[u8]) -> Out {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    finish(c.spawn().unwrap(), stdin)
}

pub fn finish(mut child: Child, stdin: &[u8]) -> Out {
    if let Some(mut pipe) = child.stdin.take() {
        let input = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

pub fn cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

pub fn aesx(dir: &Path, args: &[&str], stdin: &[u8]) -> Out {
    finish(cmd(dir, args).spawn().unwrap(), stdin)
}

pub fn ok(dir: &Path, args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let o = aesx(dir, args, stdin);
    assert_eq!(o.code, 0, "aesx {args:?}: {}", o.stderr);
    o.stdout
}

/// One `aesx: ` line on stderr, exit `code`, containing `needle`.
#[track_caller]
pub fn one_line(o: &Out, code: i32, needle: &str) {
    assert!(!o.stderr.contains("panicked"), "panic: {}", o.stderr);
    assert_eq!(o.code, code, "exit code; stderr: {}", o.stderr);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "want one stderr line, got: {:?}", o.stderr);
    assert!(lines[0].starts_with("aesx: "), "{:?}", o.stderr);
    assert!(!lines[0].contains("os error"), "{:?}", o.stderr);
    assert!(
        lines[0].to_lowercase().contains(&needle.to_lowercase()),
        "stderr {:?} lacks {needle:?}",
        o.stderr
    );
}

pub fn data(len: usize, seed: u8) -> Vec<u8> {
    let mut x = 0x9e37_79b9u32 ^ u32::from(seed);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// Starts `c` in `dir` with these stdin and stdout, stderr captured.
pub fn spawn_in(mut c: Command, dir: &Path, stdin: Stdio, stdout: Stdio) -> Child {
    c.current_dir(dir)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts `c` in `dir` (stdout discarded) and writes `input` to its stdin,
/// which stays open: the process then waits for more.
pub fn start_fed(c: Command, dir: &Path, input: &[u8]) -> (Child, ChildStdin) {
    let mut child = spawn_in(c, dir, Stdio::piped(), Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    (child, stdin)
}

/// Runs a bash script (for redirections, ulimit, namespaces) with `$AESX`.
pub fn sh(dir: &Path, script: &str) -> Out {
    let mut c = Command::new("bash");
    c.args(["-c", script]).env("AESX", bin());
    finish(spawn_in(c, dir, Stdio::null(), Stdio::piped()), b"")
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// What `--backend cuda` with a CPU-only mode says: that the mode runs on
/// the CPU only, or, in a build without the `cuda` feature, that.
pub const CUDA_REFUSED: &str = if cfg!(feature = "cuda") {
    "CPU only"
} else {
    "without the `cuda` feature"
};

/// An AES-128 key and an IV, in hex.
pub const K: &str = "000102030405060708090a0b0c0d0e0f";
pub const IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// A directory for the fault tests: `key`, a 3 MiB plaintext `pt`, its
/// file encryption `ct` and its raw GCM encryption `gct` (under [`K`],
/// [`IV`]).
pub fn fault_setup() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    ok(p, &["keygen", "-o", "key"], b"");
    let pt = data(3 << 20, 8);
    std::fs::write(p.join("pt"), &pt).unwrap();
    ok(p, &["encrypt", "-k", "key", "-o", "ct", "pt"], b"");
    let g = ok(
        p,
        &["cipher", "encrypt", "--mode", "gcm", "--key", K, "--iv", IV],
        &pt,
    );
    std::fs::write(p.join("gct"), g).unwrap();
    d
}

/// A fast Argon2id cost for tests (64 KiB, 1 pass, 1 lane).
pub const CHEAP_KDF: &str = "64,1,1";

/// Writes the passphrase file `pw` in `dir` and returns `pt` encrypted
/// under it at [`CHEAP_KDF`].
pub fn passphrase_sealed(dir: &Path, pt: &[u8]) -> Vec<u8> {
    std::fs::write(dir.join("pw"), "pw\n").unwrap();
    let args = [
        "encrypt",
        "--passphrase-file",
        "pw",
        "--insecure-kdf-cost",
        CHEAP_KDF,
    ];
    ok(dir, &args, pt)
}
