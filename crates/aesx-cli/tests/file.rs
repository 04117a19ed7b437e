//! `aesx encrypt`, `aesx decrypt`, `aesx keygen` end to end: round trips
//! through files and pipes, every kind of damage detected with its own
//! message, a non-zero exit and no output file, refusals, random access, and
//! interrupted runs leaving nothing behind.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Bytes before the first chunk of a key-file encryption: the aesx header
/// (6) then salt (24) and commitment (32).
const PRE: usize = 6 + 24 + 32;
const CHUNK: usize = 16384;
const ENC: usize = CHUNK + 16;

mod common;
use common::{aesx, data, ok, passphrase_sealed, start_fed, CHEAP_KDF};

fn setup() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    ok(d.path(), &["keygen", "-o", "key"], b"");
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// [`setup`] with `pt` encrypted under its key: the directory, `pt` and
/// the ciphertext.
fn setup_sealed(pt: Vec<u8>) -> (tempfile::TempDir, Vec<u8>, Vec<u8>) {
    let d = setup();
    let ct = encrypt_bytes(d.path(), &pt);
    (d, pt, ct)
}

fn encrypt_bytes(dir: &Path, pt: &[u8]) -> Vec<u8> {
    std::fs::write(dir.join("pt"), pt).unwrap();
    ok(
        dir,
        &["encrypt", "-k", "key", "-o", "ct", "--force", "pt"],
        b"",
    );
    std::fs::read(dir.join("ct")).unwrap()
}

/// Decrypts `ct` from a file to `-o out`: must fail with `msg` in its error,
/// exit 1 and leave no output file (nor temporary file) behind.
fn must_fail(dir: &Path, ct: &[u8], msg: &str, what: &str) {
    std::fs::write(dir.join("bad"), ct).unwrap();
    let before = names(dir);
    let o = aesx(dir, &["decrypt", "-k", "key", "-o", "out", "bad"], b"");
    assert_eq!(o.code, 1, "{what}: exit {} ({})", o.code, o.stderr);
    assert!(
        o.stderr.contains(msg),
        "{what}: expected {msg:?}, got {:?}",
        o.stderr
    );
    assert_eq!(o.stderr.lines().count(), 1, "{what}: {}", o.stderr);
    assert_eq!(names(dir), before, "{what}: files changed");
}

/// `aesx decrypt SECRET... -o out FILE` must exit `code`, say `msg` and
/// create no `out`.
#[track_caller]
fn decrypt_refused(dir: &Path, secret: &[&str], file: &str, code: i32, msg: &str) {
    let mut args = vec!["decrypt"];
    args.extend_from_slice(secret);
    args.extend(["-o", "out", file]);
    let o = aesx(dir, &args, b"");
    assert_eq!(o.code, code, "{}", o.stderr);
    assert!(o.stderr.contains(msg), "{}", o.stderr);
    assert!(!dir.join("out").exists());
}

#[test]
fn keygen_writes_a_private_hex_key_and_refuses_to_overwrite() {
    let d = setup();
    let text = std::fs::read_to_string(d.path().join("key")).unwrap();
    assert_eq!(text.len(), 65);
    assert!(text.trim_end().bytes().all(|b| b.is_ascii_hexdigit()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.path().join("key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let o = aesx(d.path(), &["keygen", "-o", "key"], b"");
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("already exists"), "{}", o.stderr);
    assert_eq!(std::fs::read_to_string(d.path().join("key")).unwrap(), text);
    ok(d.path(), &["keygen", "-o", "key", "--force"], b"");
    assert_ne!(std::fs::read_to_string(d.path().join("key")).unwrap(), text);
    // To stdout: a different key each time.
    let a = ok(d.path(), &["keygen"], b"");
    let b = ok(d.path(), &["keygen"], b"");
    assert_eq!(a.len(), 65);
    assert_ne!(a, b);
}

#[test]
fn round_trips_through_files_and_pipes() {
    let d = setup();
    let p = d.path();
    for len in [0, 1, 15, 16383, 16384, 16385, 32768, 3 * 1024 * 1024 + 77] {
        let pt = data(len, len as u8);
        std::fs::write(p.join("pt"), &pt).unwrap();
        // Files.
        ok(
            p,
            &["encrypt", "-k", "key", "-o", "ct", "--force", "pt"],
            b"",
        );
        let ct = std::fs::read(p.join("ct")).unwrap();
        let chunks = len / CHUNK + 1;
        assert_eq!(ct.len(), PRE + len + 16 * chunks, "size {len}");
        ok(
            p,
            &["decrypt", "-k", "key", "-o", "back", "--force", "ct"],
            b"",
        );
        assert_eq!(
            std::fs::read(p.join("back")).unwrap(),
            pt,
            "size {len} via files"
        );
        // Pipes, with a single worker thread for variety.
        let ct2 = ok(p, &["encrypt", "-k", "key", "-j", "1"], &pt);
        assert_ne!(ct2, ct, "fresh salt every time");
        assert_eq!(
            ok(p, &["decrypt", "-k", "key", "-"], &ct2),
            pt,
            "size {len} via pipes"
        );
    }
}

#[test]
fn every_backend_round_trips_and_interoperates() {
    let d = setup();
    let p = d.path();
    let pt = data(40000, 3);
    std::fs::write(p.join("pt"), &pt).unwrap();
    let info = ok(p, &["info"], b"");
    let info = String::from_utf8_lossy(&info);
    for b in aesx::Backend::ALL.map(|b| b.name()) {
        let o = aesx(p, &["encrypt", "-k", "key", "--backend", b, "pt"], b"");
        if o.code != 0 {
            assert!(
                o.stderr.contains("not available"),
                "{b}: {} ({info})",
                o.stderr
            );
            continue;
        }
        // Decrypted on the fastest backend.
        assert_eq!(ok(p, &["decrypt", "-k", "key"], &o.stdout), pt, "{b}");
    }
}

#[test]
fn passphrases_round_trip_and_a_wrong_one_is_refused() {
    let d = setup();
    let p = d.path();
    std::fs::write(p.join("pw"), "correct horse\n").unwrap();
    std::fs::write(p.join("pw2"), "correct hor5e\n").unwrap();
    let pt = data(20000, 9);
    let ct = ok(
        p,
        &[
            "encrypt",
            "--passphrase-file",
            "pw",
            "--insecure-kdf-cost",
            CHEAP_KDF,
        ],
        &pt,
    );
    assert_eq!(&ct[..6], b"aesx\x01\x02");
    assert_eq!(ok(p, &["decrypt", "--passphrase-file", "pw"], &ct), pt);
    std::fs::write(p.join("ct"), &ct).unwrap();
    let wrong = "wrong key or passphrase";
    decrypt_refused(p, &["--passphrase-file", "pw2"], "ct", 1, wrong);
    // A key file is refused for a passphrase file and vice versa.
    let o = aesx(p, &["decrypt", "-k", "key", "ct"], b"");
    assert!(
        o.stderr.contains("encrypted with a passphrase"),
        "{}",
        o.stderr
    );
    let ct_k = ok(p, &["encrypt", "-k", "key"], &pt);
    let o = aesx(p, &["decrypt", "--passphrase-file", "pw"], &ct_k);
    assert!(
        o.stderr.contains("encrypted with a key file"),
        "{}",
        o.stderr
    );
    // A changed cost in the header fails the commitment.
    let mut bad = ct.clone();
    bad[9] ^= 1; // low byte of the memory cost
    std::fs::write(p.join("bad"), &bad).unwrap();
    decrypt_refused(p, &["--passphrase-file", "pw"], "bad", 1, wrong);
}

#[test]
fn hostile_kdf_costs_are_refused_before_any_work() {
    let d = setup();
    let p = d.path();
    let ct = passphrase_sealed(p, b"x");
    let mut bad = ct.clone();
    bad[6..10].copy_from_slice(&u32::MAX.to_be_bytes()); // 4 TiB of memory
    let t = Instant::now();
    let o = aesx(p, &["decrypt", "--passphrase-file", "pw"], &bad);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("refusing the file's passphrase cost"),
        "{}",
        o.stderr
    );
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[test]
fn every_byte_flip_is_detected() {
    let (d, _, ct) = setup_sealed(data(200, 1));
    let p = d.path();
    for i in 0..ct.len() {
        let mut bad = ct.clone();
        bad[i] ^= 0x40;
        std::fs::write(p.join("bad"), &bad).unwrap();
        let o = aesx(p, &["decrypt", "-k", "key", "-o", "out", "bad"], b"");
        assert_eq!(o.code, 1, "flip at {i} accepted");
        assert!(!p.join("out").exists(), "flip at {i} left output");
        let expect = match i {
            0..=3 => "not an aesx",
            4 => "unsupported aesx format version",
            5 => "unknown key source",
            _ if i < PRE => "wrong key or passphrase",
            _ => "final chunk 0 failed authentication",
        };
        assert!(o.stderr.contains(expect), "flip at {i}: {}", o.stderr);
    }
}

#[test]
fn truncation_extension_reordering_and_foreign_files_each_fail_clearly() {
    let (d, _, ct) = setup_sealed(data(3 * CHUNK + 100, 2));
    let p = d.path();
    assert_eq!(ct.len(), PRE + 3 * ENC + 116);
    // Truncated inside the aesx header, the payload header, and at every
    // chunk boundary, inside a chunk and inside a tag.
    let cuts = [
        (0, "not an aesx", "empty file"),
        (3, "truncated inside the aesx header", "cut in magic"),
        (5, "truncated inside the aesx header", "cut in header"),
        (6 + 30, "truncated inside the header", "cut in commitment"),
        (
            PRE + ENC + 5000,
            "final chunk 1 failed",
            "cut inside chunk 1",
        ),
        (
            PRE + 3 * ENC + 8,
            "inside a chunk's authentication tag",
            "cut in tag",
        ),
        (ct.len() - 1, "final chunk 3 failed", "last byte cut"),
    ];
    for (end, msg, what) in cuts {
        must_fail(p, &ct[..end], msg, what);
    }
    for k in 0..=3 {
        must_fail(
            p,
            &ct[..PRE + k * ENC],
            "ends at a chunk boundary",
            &format!("cut after chunk {k}"),
        );
    }
    // Appended data.
    let mut ext = ct.clone();
    ext.push(0);
    must_fail(p, &ext, "something was appended", "one byte appended");
    let mut ext = ct.clone();
    ext.extend_from_slice(&ct[PRE..PRE + ENC]);
    must_fail(p, &ext, "something was appended", "chunk appended");
    let mut ext = ct.clone();
    ext.extend_from_slice(&[7u8; 3 * ENC + 5]);
    must_fail(p, &ext, "something was appended", "chunks of junk appended");
    // Swapped and duplicated chunks.
    let mut sw = ct.clone();
    sw[PRE..PRE + ENC].copy_from_slice(&ct[PRE + ENC..PRE + 2 * ENC]);
    sw[PRE + ENC..PRE + 2 * ENC].copy_from_slice(&ct[PRE..PRE + ENC]);
    let mut dup = ct.clone();
    dup[PRE + ENC..PRE + 2 * ENC].copy_from_slice(&ct[PRE..PRE + ENC]);
    for (bad, msg, what) in [
        (
            &sw,
            "chunk 0 failed authentication",
            "chunks 0 and 1 swapped",
        ),
        (&dup, "chunk 1 failed authentication", "chunk 0 duplicated"),
    ] {
        must_fail(p, bad, msg, what);
    }
    // Changed header, wrong key, foreign files.
    // A key source changed to "passphrase": the tool asks for the other
    // kind of secret (and with it, the commitment would fail).
    let mut h = ct.clone();
    h[5] = 2;
    std::fs::write(p.join("bad"), &h).unwrap();
    let asks = "encrypted with a passphrase";
    decrypt_refused(p, &["-k", "key"], "bad", 2, asks);
    let mut h = ct.clone();
    h[4] = 9;
    must_fail(
        p,
        &h,
        "unsupported aesx format version 9",
        "version changed",
    );
    let mut h = ct.clone();
    h[10] ^= 1;
    must_fail(p, &h, "key commitment mismatch", "salt changed");
    ok(p, &["keygen", "-o", "key2"], b"");
    std::fs::write(p.join("bad"), &ct).unwrap();
    decrypt_refused(p, &["-k", "key2"], "bad", 1, "wrong key or passphrase");
    must_fail(p, &data(5000, 7), "not an aesx", "random bytes");
    must_fail(p, b"hello, world\n", "not an aesx", "text");
}

#[test]
fn streaming_to_stdout_releases_only_verified_chunks() {
    let (d, pt, ct) = setup_sealed(data(300 * CHUNK + 5, 4));
    let p = d.path();
    // Damage in chunk 200: stdout gets at most the 200 verified chunks
    // before it, a prefix of the plaintext, and the exit is non-zero.
    let mut bad = ct.clone();
    bad[PRE + 200 * ENC + 3] ^= 1;
    let o = aesx(p, &["decrypt", "-k", "key"], &bad);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("chunk 200 failed"), "{}", o.stderr);
    assert!(o.stdout.len() <= 200 * CHUNK);
    assert_eq!(o.stdout[..], pt[..o.stdout.len()]);
    // Truncated at a boundary: every full chunk may come out, then an error.
    let o = aesx(p, &["decrypt", "-k", "key"], &ct[..PRE + 250 * ENC]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("truncated"), "{}", o.stderr);
    assert!(o.stdout.len() <= 250 * CHUNK);
    assert_eq!(o.stdout[..], pt[..o.stdout.len()]);
}

#[test]
fn random_access_decrypts_ranges() {
    let d = setup();
    let p = d.path();
    let pt = data(5 * CHUNK + 1234, 5);
    encrypt_bytes(p, &pt);
    let n = pt.len() as u64;
    for (off, len) in [
        (0, Some(0)),
        (0, Some(1)),
        (0, None),
        (100, Some(16384)),
        (16383, Some(2)),
        (16384, Some(16384)),
        (3 * 16384 + 7, None),
        (n - 1, None),
        (n, None),
        (n - 10, Some(1000)),
    ] {
        let mut args = vec![
            "decrypt".to_string(),
            "-k".into(),
            "key".into(),
            "ct".into(),
        ];
        args.extend(["--offset".to_string(), off.to_string()]);
        if let Some(l) = len {
            args.extend(["--length".to_string(), l.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let end = len.map_or(n, |l| (off + l).min(n));
        assert_eq!(
            ok(p, &args, b""),
            pt[off as usize..end as usize],
            "{off} {len:?}"
        );
    }
    let o = aesx(
        p,
        &[
            "decrypt",
            "-k",
            "key",
            "ct",
            "--offset",
            &(n + 1).to_string(),
        ],
        b"",
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("past the end"), "{}", o.stderr);
    // A truncated file is refused even for a range far from the cut: the
    // final chunk is always authenticated.
    let ct = std::fs::read(p.join("ct")).unwrap();
    std::fs::write(p.join("cut"), &ct[..ct.len() - 10]).unwrap();
    let o = aesx(
        p,
        &[
            "decrypt", "-k", "key", "cut", "--offset", "0", "--length", "10",
        ],
        b"",
    );
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("final chunk 5 failed"), "{}", o.stderr);
    let mut ext = ct.clone();
    ext.extend_from_slice(b"tail");
    std::fs::write(p.join("ext"), &ext).unwrap();
    let o = aesx(
        p,
        &[
            "decrypt", "-k", "key", "ext", "--offset", "0", "--length", "10",
        ],
        b"",
    );
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("something was appended"), "{}", o.stderr);
    // Pipes cannot seek.
    let o = aesx(p, &["decrypt", "-k", "key", "--offset", "5"], &ct);
    assert_eq!(o.code, 2);
}

#[test]
fn refusals() {
    let d = setup();
    let p = d.path();
    std::fs::write(p.join("pt"), b"plain").unwrap();
    std::fs::write(p.join("exists"), b"keep me").unwrap();
    let o = aesx(p, &["encrypt", "-k", "key", "-o", "exists", "pt"], b"");
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("already exists; use --force"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read(p.join("exists")).unwrap(), b"keep me");
    let o = aesx(
        p,
        &["encrypt", "-k", "key", "-o", "pt", "--force", "pt"],
        b"",
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("same file"), "{}", o.stderr);
    assert_eq!(std::fs::read(p.join("pt")).unwrap(), b"plain");
    // Through a symlink, still the same file.
    #[cfg(unix)]
    std::os::unix::fs::symlink("pt", p.join("link")).unwrap();
    #[cfg(windows)]
    std::os::windows::fs::symlink_file("pt", p.join("link")).unwrap();
    let o = aesx(
        p,
        &["encrypt", "-k", "key", "-o", "link", "--force", "pt"],
        b"",
    );
    assert!(o.stderr.contains("same file"), "{}", o.stderr);
    // --force replaces.
    ok(
        p,
        &["encrypt", "-k", "key", "-o", "exists", "--force", "pt"],
        b"",
    );
    assert_eq!(&std::fs::read(p.join("exists")).unwrap()[..4], b"aesx");
    // No key given.
    let o = aesx(p, &["encrypt", "pt"], b"");
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("no key"), "{}", o.stderr);
    // Missing input.
    let o = aesx(p, &["encrypt", "-k", "key", "nope"], b"");
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("cannot open nope"), "{}", o.stderr);
    // An unknown backend: the message names every one the file commands
    // take, the GPU ones included, and nothing is written.
    let o = aesx(
        p,
        &[
            "encrypt",
            "-k",
            "key",
            "--backend",
            "turbo",
            "-o",
            "out",
            "pt",
        ],
        b"",
    );
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("unknown backend \"turbo\"") && o.stderr.contains("cuda, cpu+cuda)"),
        "{}",
        o.stderr
    );
    assert!(!p.join("out").exists());
    let leftovers: Vec<_> = names(p)
        .into_iter()
        .filter(|n| n.starts_with(".aesx"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Starts `aesx encrypt -o out` reading a pipe that delivers some data and
/// then stalls; returns once the process has consumed it.
fn start_stalled(dir: &Path, named_temp: bool) -> (Child, std::process::ChildStdin) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_aesx"));
    if named_temp {
        cmd.env("AESX_TEST_NAMED_TEMP", "1");
    }
    cmd.args(["encrypt", "-k", "key", "-o", "out"]);
    let (child, stdin) = start_fed(cmd, dir, &data(8 << 20, 6));
    std::thread::sleep(Duration::from_millis(300));
    (child, stdin)
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

/// Sends `sig` to a stalled run and waits: its exit code (`None` when
/// killed) and what it left in `dir`.
fn stop(dir: &Path, mut child: Child, sig: &str) -> (Option<i32>, Vec<String>) {
    signal(&child, sig);
    let code = child.wait().unwrap().code();
    (code, residue(dir))
}

/// A stalled run completes normally once its pipe closes.
fn completes(dir: &Path, named_temp: bool) {
    let (mut child, stdin) = start_stalled(dir, named_temp);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// `aesx decrypt -k key -o OUT IN` through a named temporary file: its
/// exit code.
fn decrypt_named_temp(dir: &Path, input: &str, out: &str) -> Option<i32> {
    let o = Command::new(env!("CARGO_BIN_EXE_aesx"))
        .env("AESX_TEST_NAMED_TEMP", "1")
        .args(["decrypt", "-k", "key", "-o", out, input])
        .current_dir(dir)
        .output()
        .unwrap();
    o.status.code()
}

/// What a directory holds apart from the key.
fn residue(dir: &Path) -> Vec<String> {
    names(dir).into_iter().filter(|n| n != "key").collect()
}

#[test]
fn interrupted_runs_leave_no_output() {
    let d = setup();
    let p = d.path();
    // While the run is stalled mid-stream, nothing is visible: the output is
    // an unnamed O_TMPFILE file (or, on filesystems without it, a hidden
    // .aesx-tmp-* file).
    let (mut child, stdin) = start_stalled(p, false);
    let during = residue(p);
    let unnamed = during.is_empty();
    assert!(
        unnamed || (during.len() == 1 && during[0].starts_with(".aesx-tmp-")),
        "{during:?}"
    );
    signal(&child, "-INT");
    let st = child.wait().unwrap();
    drop(stdin);
    assert_eq!(st.code(), Some(130));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("interrupted"), "{err}");
    assert!(residue(p).is_empty(), "SIGINT left {:?}", residue(p));

    // SIGTERM too.
    let (child, _stdin) = start_stalled(p, false);
    let (code, left) = stop(p, child, "-TERM");
    assert_eq!(code, Some(130));
    assert!(left.is_empty(), "SIGTERM left {left:?}");

    // SIGKILL cannot be caught: only the unnamed temporary file promises
    // that nothing remains.
    let (child, _stdin) = start_stalled(p, false);
    let (_, left) = stop(p, child, "-KILL");
    if unnamed {
        assert!(left.is_empty(), "SIGKILL left {left:?}");
    } else {
        assert!(left.iter().all(|n| n.starts_with(".aesx-tmp-")), "{left:?}");
        assert!(!p.join("out").exists());
    }

    // And the same command completes normally once the pipe closes.
    completes(p, false);
    assert!(p.join("out").exists());
}

#[test]
fn interrupted_runs_with_named_temporary_files() {
    // The fallback for filesystems without O_TMPFILE, forced: a hidden
    // .aesx-tmp-* file exists while writing; SIGINT and SIGTERM remove it,
    // SIGKILL cannot (as documented), and success renames it into place.
    let d = setup();
    let p = d.path();
    for sig in ["-INT", "-TERM"] {
        let (child, _stdin) = start_stalled(p, true);
        let during = residue(p);
        assert!(
            during.len() == 1 && during[0].starts_with(".aesx-tmp-"),
            "{during:?}"
        );
        let (code, left) = stop(p, child, sig);
        assert_eq!(code, Some(130));
        assert!(left.is_empty(), "{sig} left {left:?}");
    }
    let (child, _stdin) = start_stalled(p, true);
    let (_, left) = stop(p, child, "-KILL");
    assert!(
        left.len() == 1 && left[0].starts_with(".aesx-tmp-"),
        "{left:?}"
    );
    std::fs::remove_file(p.join(&left[0])).unwrap();
    completes(p, true);
    assert_eq!(residue(p), ["out"]);
    // A successful decryption through a named temporary file; then a
    // failing one leaves nothing.
    assert_eq!(decrypt_named_temp(p, "out", "out2"), Some(0));
    let mut cut = std::fs::read(p.join("out")).unwrap();
    cut.truncate(cut.len() - 1);
    std::fs::write(p.join("cut"), &cut).unwrap();
    assert_eq!(decrypt_named_temp(p, "cut", "out3"), Some(1));
    assert_eq!(residue(p), ["cut", "out", "out2"]);
}

#[test]
fn devices_terminal_refused_dev_null_accepted_dev_full_fails() {
    let d = setup();
    let p = d.path();
    std::fs::write(p.join("pt"), b"x").unwrap();
    ok(p, &["encrypt", "-k", "key", "-o", "/dev/null", "pt"], b"");
    // A full disk is an error, not a silent short file.
    if Path::new("/dev/full").exists() {
        let o = aesx(p, &["encrypt", "-k", "key", "-o", "/dev/full", "pt"], b"");
        assert_eq!(o.code, 1);
        assert!(o.stderr.contains("No space left"), "{}", o.stderr);
        let o = aesx(p, &["encrypt", "-k", "key", "pt"], b"");
        let ct = o.stdout;
        std::fs::write(p.join("ct"), &ct).unwrap();
        let o = aesx(p, &["decrypt", "-k", "key", "-o", "/dev/full", "ct"], b"");
        assert_eq!(o.code, 1);
        assert!(o.stderr.contains("No space left"), "{}", o.stderr);
    }
    // A terminal, if this machine has one to give.
    if let Ok(tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        drop(tty);
        let o = aesx(p, &["encrypt", "-k", "key", "-o", "/dev/tty", "pt"], b"");
        assert_eq!(o.code, 2, "{}", o.stderr);
        assert!(o.stderr.contains("terminal"), "{}", o.stderr);
    }
}

/// Chunks per batch of the file pipeline (aesx-file's `BATCH_CHUNKS`): the
/// tests below cross batch boundaries, where the workers hand over.
const BATCH: usize = 64;

#[test]
fn files_of_many_batches_round_trip_at_every_thread_count() {
    // Lengths around whole batches: the final batch empty, one byte, short.
    for len in [
        2 * BATCH * CHUNK,
        2 * BATCH * CHUNK + 1,
        5 * BATCH * CHUNK + 3 * CHUNK + 77,
    ] {
        let (d, pt, _) = setup_sealed(data(len, 11));
        let p = d.path();
        for j in ["1", "2", "3", "8"] {
            ok(
                p,
                &["encrypt", "-k", "key", "-j", j, "-o", "ct", "--force", "pt"],
                b"",
            );
            let ct = std::fs::read(p.join("ct")).unwrap();
            assert_eq!(ct.len(), PRE + len + 16 * (len / CHUNK + 1), "{len} -j {j}");
            for dj in ["1", "3"] {
                let out = ok(p, &["decrypt", "-k", "key", "-j", dj, "ct"], b"");
                assert!(out == pt, "{len}: encrypted -j {j}, decrypted -j {dj}");
            }
            // The same ciphertext through a pipe (the reader thread's path).
            let out = ok(p, &["decrypt", "-k", "key", "-j", j], &ct);
            assert!(out == pt, "{len}: -j {j} from a pipe");
        }
    }
}

#[test]
fn a_damaged_file_releases_exactly_the_chunks_before_the_damage() {
    let (d, pt, ct) = setup_sealed(data(5 * BATCH * CHUNK + 999, 12));
    let p = d.path();
    // Chunk 200 lies in batch 3: batches 0-2 and the first 8 chunks of
    // batch 3 verified, and workers may already have opened batch 4.
    let mut bad = ct.clone();
    bad[PRE + 200 * ENC + 3] ^= 1;
    std::fs::write(p.join("bad"), &bad).unwrap();
    for j in ["1", "2", "4", "16"] {
        let o = aesx(p, &["decrypt", "-k", "key", "-j", j, "bad"], b"");
        assert_eq!(o.code, 1, "-j {j}");
        assert!(o.stderr.contains("chunk 200 failed"), "{}", o.stderr);
        assert_eq!(o.stdout.len(), 200 * CHUNK, "-j {j}");
        assert!(o.stdout[..] == pt[..200 * CHUNK], "-j {j}");
        // A named output is never created.
        let before = names(p);
        let o = aesx(
            p,
            &["decrypt", "-k", "key", "-j", j, "-o", "out", "bad"],
            b"",
        );
        assert_eq!(o.code, 1);
        assert_eq!(names(p), before, "-j {j}");
    }
    // Cut at a batch boundary: every chunk before the cut, then the error.
    std::fs::write(p.join("cut"), &ct[..PRE + 2 * BATCH * ENC]).unwrap();
    let o = aesx(p, &["decrypt", "-k", "key", "-j", "2", "cut"], b"");
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("truncated"), "{}", o.stderr);
    assert!(o.stdout[..] == pt[..2 * BATCH * CHUNK]);
}

#[test]
fn ranges_across_batch_boundaries() {
    let (d, pt, _) = setup_sealed(data(3 * BATCH * CHUNK + 4321, 13));
    let p = d.path();
    let n = pt.len() as u64;
    let b = (BATCH * CHUNK) as u64;
    for (off, len) in [
        (b - 3, Some(10)),
        (b - (CHUNK as u64), Some(3 * CHUNK as u64)),
        (b, Some(b)),
        (b + 1, Some(b)),
        (2 * b - 1, None),
        (0, None),
        (3 * b, None),
        (3 * b - 5, Some(100)),
    ] {
        let end = len.map_or(n, |l| (off + l).min(n));
        for j in ["1", "3"] {
            let (o, l) = (off.to_string(), len.map(|l| l.to_string()));
            let mut args = vec!["decrypt", "-k", "key", "-j", j, "ct", "--offset", &o];
            if let Some(l) = &l {
                args.extend(["--length", l]);
            }
            let got = ok(p, &args, b"");
            assert!(
                got[..] == pt[off as usize..end as usize],
                "{off} {len:?} -j {j}"
            );
        }
    }
}
