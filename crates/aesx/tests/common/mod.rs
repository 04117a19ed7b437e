//! Shared by the tests: NIST CAVP `.rsp` records (read by the CLI's
//! parser, the only one), the path of the repository's `vectors/` folder,
//! the backends a run covers, random keys and bytes, and (in submodules)
//! OpenSSL's one-shot answers and the length checks every AEAD type makes.

#![allow(dead_code)] // each test binary uses a different part

pub mod aead_checks;
pub mod ossl;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::RngCore;

/// The CLI's reader of `.rsp` files (`aesx cavp`), the one parser of the
/// format in the repository. It is a self-contained file, included here by
/// path: the CLI cannot be a dependency of the library it tests, and the
/// library's tests should not carry a second reader that could drift.
#[path = "../../../aesx-cli/src/cavp/rsp.rs"]
mod rsp;

/// One record with the section and headers in force where it appeared,
/// names upper-cased, in maps for the tests' lookups.
#[derive(Debug, Clone, Default)]
pub struct Record {
    pub line: usize,
    /// The section (`ENCRYPT`, `DECRYPT`), empty before the first one.
    pub section: String,
    pub headers: BTreeMap<String, String>,
    pub fields: BTreeMap<String, String>,
    pub fail: bool,
}

impl From<rsp::Record> for Record {
    fn from(r: rsp::Record) -> Record {
        Record {
            line: r.line,
            section: r.section.unwrap_or_default(),
            headers: r.headers.into_iter().collect(),
            fields: r.fields.into_iter().collect(),
            fail: r.fail,
        }
    }
}

impl Record {
    /// Field `name` (upper case) decoded from hex; panics if absent or bad.
    pub fn hex(&self, name: &str) -> Vec<u8> {
        let v = self
            .fields
            .get(name)
            .unwrap_or_else(|| panic!("line {}: no {name}", self.line));
        hex::decode(v).unwrap_or_else(|e| panic!("line {}: {name}: {e}", self.line))
    }

    /// Field `name` decoded from hex into exactly 16 bytes.
    pub fn block(&self, name: &str) -> [u8; 16] {
        self.hex(name)
            .try_into()
            .unwrap_or_else(|_| panic!("line {}: {name} is not 16 bytes", self.line))
    }

    /// Field `name` as a decimal number.
    pub fn number(&self, name: &str) -> u64 {
        self.fields[name]
            .parse()
            .unwrap_or_else(|_| panic!("line {}: {name} is not a number", self.line))
    }
}

/// Parses `.rsp` text; a line the reader refuses panics the test, so a
/// misread file cannot pass quietly.
pub fn parse_rsp(text: &str) -> Vec<Record> {
    rsp::parse(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(Record::from)
        .collect()
}

/// The repository's `vectors/` folder.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// The files in `vectors/<sub>` whose names satisfy `keep`, sorted.
pub fn vector_files(sub: &str, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let dir = vectors_dir().join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| keep(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    files.sort();
    files
}

/// Reads and parses one vector file.
pub fn read_rsp(path: &std::path::Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let recs = parse_rsp(&text);
    assert!(!recs.is_empty(), "{}: no records", path.display());
    recs
}

/// The backends a test run covers: the one named by `AESX_BACKEND` if set
/// (CI runs the suite under qemu once with `armv8`, once with `soft`), else
/// every backend this machine has. The library reads no environment
/// variable; the tests do, and pass the backend in. A name this machine
/// cannot run fails the test, as forcing never falls back.
pub fn backends() -> Vec<aesx::Backend> {
    match forced_backend() {
        Some(b) => vec![b],
        None => aesx::Backend::available().iter().collect(),
    }
}

/// The backend for tests that need just one key: the forced one, else the
/// fastest.
pub fn backend() -> aesx::Backend {
    forced_backend().unwrap_or_else(aesx::Backend::fastest)
}

fn forced_backend() -> Option<aesx::Backend> {
    let v = std::env::var("AESX_BACKEND").ok()?;
    if v.trim().is_empty() {
        return None;
    }
    let b: aesx::Backend = v
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("AESX_BACKEND={v:?}: unknown backend"));
    b.require()
        .unwrap_or_else(|_| panic!("AESX_BACKEND={v:?}: not available on this machine"))
        .into()
}

/// Calls `check(rng, b, round)` for `rounds` rounds on every backend `b`,
/// drawing from one RNG seeded with `seed`.
pub fn random_rounds(
    seed: u64,
    rounds: usize,
    mut check: impl FnMut(&mut rand::rngs::StdRng, aesx::Backend, usize),
) {
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
    for b in backends() {
        for round in 0..rounds {
            check(&mut rng, b, round);
        }
    }
}

/// `n` random bytes.
pub fn random_bytes(rng: &mut impl RngCore, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// A random AES key, its size (16, 24 or 32 bytes) rotating with `i`.
pub fn key_for(rng: &mut impl RngCore, i: usize) -> Vec<u8> {
    random_bytes(rng, [16, 24, 32][i % 3])
}

/// The keys of SP 800-38A appendix F (and of the SP 800-38B CMAC
/// examples): AES-128, AES-192 and AES-256.
pub const SP800_38A_KEYS: [&str; 3] = [
    "2b7e151628aed2a6abf7158809cf4f3c",
    "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
    "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
];

/// The four-block plaintext of SP 800-38A appendix F (and the message of
/// the SP 800-38B CMAC examples).
pub const SP800_38A_PT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                                30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
