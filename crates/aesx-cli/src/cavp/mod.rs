//! `aesx cavp`: run NIST CAVP (and similar) vector files through every
//! backend and count what passes.
//!
//! Adding a vector family is adding a runner file here, one [`Suite`]
//! variant, one arm in [`detect`] and one arm in [`run_suite`]. Runners first
//! turn every record into a typed case (so a malformed file is an error
//! before anything runs), then check each case on each backend, one
//! [`Report::check`] per case and backend.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use aesx::Backend;

use crate::backend_arg::{self, Choice};
use crate::cipher::aead::Kind;
use crate::cipher::keywrap::Variant;
use crate::{outln, CommandError};

mod aead;
mod cmac;
mod ctr;
#[cfg(feature = "cuda")]
mod cuda;
mod ecb_cbc;
mod feedback;
mod gcm;
mod keywrap;
mod mct;
pub mod rsp;
mod wycheproof;
mod xts;

use rsp::{ParseError, Record};

/// Arguments of `aesx cavp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run on this backend only (default: every available one, or the one
    /// named by AESX_BACKEND); `cuda` runs the GCM and XTS files on the GPU.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
    /// Vector files: AESAVS ECB/CBC KAT, MMT and CBC MCT .rsp files,
    /// AESAVS CFB128/CFB8/OFB KAT and MMT files (CPU only), CTR
    /// vectors (aes-*-ctr.txt), NIST XTSGenAES*.rsp, GCM
    /// gcmEncryptExtIV*/gcmDecrypt*.rsp, AArch64cryptolib
    /// SL_functional_tests.rsp (GCM/ESP with checksums), Wycheproof
    /// aes_xts_test.json, aes_gcm_test.json, aes_gmac_test.json,
    /// aes_gcm_siv_test.json, aes_ccm_test.json, aes_wrap_test.json,
    /// aes_kwp_test.json and aes_cmac_test.json (the last five CPU only).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// ECB or CBC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockMode {
    /// Electronic codebook.
    Ecb,
    /// Cipher block chaining.
    Cbc,
}

impl BlockMode {
    fn name(self) -> &'static str {
        match self {
            BlockMode::Ecb => "ECB",
            BlockMode::Cbc => "CBC",
        }
    }
}

/// What a vector file holds, decided by [`detect`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// AESAVS known-answer (GFSbox, KeySbox, VarKey, VarTxt) or multi-block
    /// message tests; the `&str` is the test's name.
    EcbCbc(BlockMode, &'static str),
    /// AESAVS Monte Carlo tests.
    Mct(BlockMode),
    /// CTR vectors whose IV is the whole initial counter block.
    Ctr,
    /// AESAVS CFB128, CFB8 or OFB known-answer or multi-block files; the
    /// `&str` is the test's name.
    Feedback(feedback::Feedback, &'static str),
    /// NIST XTSGenAES files (either tweak form).
    Xts,
    /// Wycheproof aes_xts_test.json.
    WycheproofXts,
    /// GCM: NIST encrypt/decrypt files, AArch64cryptolib's ESP file.
    Gcm(gcm::GcmFile),
    /// Wycheproof `aes_gcm_test.json` (false) or `aes_gmac_test.json` (true).
    WycheproofGcm(bool),
    /// Wycheproof `aes_gcm_siv_test.json` or `aes_ccm_test.json`.
    WycheproofAead(crate::cipher::aead::Kind),
    /// Wycheproof `aes_wrap_test.json` or `aes_kwp_test.json`.
    WycheproofKeyWrap(crate::cipher::keywrap::Variant),
    /// Wycheproof `aes_cmac_test.json`.
    WycheproofCmac,
}

impl Suite {
    /// The mode column of the report.
    fn describe(self) -> String {
        match self {
            Suite::EcbCbc(m, test) => format!("{} {test}", m.name()),
            Suite::Mct(m) => format!("{} MCT", m.name()),
            Suite::Ctr => "CTR".to_string(),
            Suite::Feedback(m, test) => format!("{} {test}", m.name()),
            Suite::Xts => "XTS".to_string(),
            Suite::WycheproofXts => "XTS (Wycheproof)".to_string(),
            Suite::Gcm(f) => f.describe().to_string(),
            Suite::WycheproofGcm(false) => "Wycheproof AES-GCM".to_string(),
            Suite::WycheproofGcm(true) => "Wycheproof AES-GMAC".to_string(),
            Suite::WycheproofAead(Kind::Ccm) => "Wycheproof AES-CCM".to_string(),
            Suite::WycheproofAead(_) => "Wycheproof AES-GCM-SIV".to_string(),
            Suite::WycheproofKeyWrap(Variant::Kw) => "Wycheproof AES-KW".to_string(),
            Suite::WycheproofKeyWrap(Variant::Kwp) => "Wycheproof AES-KWP".to_string(),
            Suite::WycheproofCmac => "Wycheproof AES-CMAC".to_string(),
        }
    }

    /// Whether the suite runs on the CPU only (GCM-SIV, CCM, key wrap, CMAC,
    /// CFB, OFB:
    /// aesx-cuda has no kernels for them).
    pub fn cpu_only(self) -> bool {
        matches!(
            self,
            Suite::WycheproofAead(_)
                | Suite::WycheproofKeyWrap(_)
                | Suite::WycheproofCmac
                | Suite::Feedback(..)
        )
    }
}

/// Whether a record asks to encrypt or to decrypt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `[ENCRYPT]`
    Encrypt,
    /// `[DECRYPT]`
    Decrypt,
}

impl Direction {
    /// The direction of a record from its section.
    pub fn of(rec: &rsp::Record) -> Result<Direction, ParseError> {
        match rec.section.as_deref() {
            Some("ENCRYPT") => Ok(Direction::Encrypt),
            Some("DECRYPT") => Ok(Direction::Decrypt),
            Some(other) => Err(ParseError::at(
                rec.line,
                format!("record in unknown section [{other}]"),
            )),
            None => Err(ParseError::at(
                rec.line,
                "record outside an [ENCRYPT] or [DECRYPT] section",
            )),
        }
    }
}

/// Tells from the file name (and, failing that, the AESAVS comment header)
/// what a file holds.
pub fn detect(path: &Path, text: &str) -> Result<Suite, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if let Some(s) = detect_aesavs(&name) {
        return s;
    }
    if name.starts_with("gcmencryptextiv") {
        return Ok(Suite::Gcm(gcm::GcmFile::Encrypt));
    }
    if name.starts_with("gcmdecrypt") {
        return Ok(Suite::Gcm(gcm::GcmFile::Decrypt));
    }
    if name.starts_with("aes_gcm_test") && name.ends_with(".json") {
        return Ok(Suite::WycheproofGcm(false));
    }
    if name.starts_with("aes_gmac_test") && name.ends_with(".json") {
        return Ok(Suite::WycheproofGcm(true));
    }
    let json = name.ends_with(".json");
    for (prefix, suite) in [
        ("aes_gcm_siv_test", Suite::WycheproofAead(Kind::GcmSiv)),
        ("aes_ccm_test", Suite::WycheproofAead(Kind::Ccm)),
        ("aes_wrap_test", Suite::WycheproofKeyWrap(Variant::Kw)),
        ("aes_kwp_test", Suite::WycheproofKeyWrap(Variant::Kwp)),
        ("aes_cmac_test", Suite::WycheproofCmac),
    ] {
        if json && name.starts_with(prefix) {
            return Ok(suite);
        }
    }
    if name.starts_with("sl_functional_tests") {
        return Ok(Suite::Gcm(gcm::GcmFile::Sl));
    }
    if name.contains("ctr") {
        return Ok(Suite::Ctr);
    }
    if name.starts_with("xtsgenaes") {
        return Ok(Suite::Xts);
    }
    if name.contains("xts") && name.ends_with(".json") {
        return Ok(Suite::WycheproofXts);
    }
    // A renamed AESAVS file still says what it is: "# AESVS MMT test data for CBC".
    for line in text
        .lines()
        .take_while(|l| l.trim().starts_with('#') || l.trim().is_empty())
    {
        let l = line.to_ascii_lowercase();
        if let Some(pos) = l.find(" test data for ") {
            let test = l[..pos].split_whitespace().last().unwrap_or("");
            let mode = l[pos + " test data for ".len()..].trim();
            if let Some(s) = detect_aesavs(&format!("{mode}{test}")) {
                return s;
            }
        }
    }
    Err(
        "cannot tell what this file holds from its name or header (expected an AESAVS \
         ECB*/CBC* .rsp file such as CBCMMT128.rsp, or CTR vectors such as aes-128-ctr.txt)"
            .to_string(),
    )
}

/// The AESAVS known-answer and multi-block test names (file name prefix,
/// report name).
const KAT: [(&str, &str); 5] = [
    ("gfsbox", "GFSbox"),
    ("keysbox", "KeySbox"),
    ("varkey", "VarKey"),
    ("vartxt", "VarTxt"),
    ("mmt", "MMT"),
];

/// `cfb128gfsbox128.rsp`, `cfb8mmt256.rsp`, `ofbvarkey192.rsp`, ... (lower
/// case).
fn detect_feedback(name: &str) -> Option<Result<Suite, String>> {
    use feedback::Feedback as F;
    let (mode, rest) = [("cfb128", F::Cfb128), ("cfb8", F::Cfb8), ("ofb", F::Ofb)]
        .into_iter()
        .find_map(|(p, m)| name.strip_prefix(p).map(|r| (m, r)))?;
    if let Some((_, test)) = KAT.iter().find(|(p, _)| rest.starts_with(p)) {
        return Some(Ok(Suite::Feedback(mode, test)));
    }
    if rest.starts_with("mct") {
        return Some(Err(format!(
            "{} Monte Carlo files are not supported",
            mode.name()
        )));
    }
    None
}

/// `ecbgfsbox128.rsp`, `cbcmct256.rsp`, ... (lower case).
fn detect_aesavs(name: &str) -> Option<Result<Suite, String>> {
    if let Some(s) = detect_feedback(name) {
        return Some(s);
    }
    let (mode, rest) = if let Some(r) = name.strip_prefix("ecb") {
        (BlockMode::Ecb, r)
    } else if let Some(r) = name.strip_prefix("cbc") {
        (BlockMode::Cbc, r)
    } else {
        return None;
    };
    if let Some((_, test)) = KAT.iter().find(|(p, _)| rest.starts_with(p)) {
        return Some(Ok(Suite::EcbCbc(mode, test)));
    }
    if rest.starts_with("mct") {
        return Some(match mode {
            BlockMode::Cbc => Ok(Suite::Mct(mode)),
            BlockMode::Ecb => Err("ECB Monte Carlo files are not supported yet".to_string()),
        });
    }
    None
}

/// Runs one suite over parsed text; adds its checks to `report` (public for
/// the fuzz targets).
pub fn run_suite(
    suite: Suite,
    text: &str,
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    match suite {
        Suite::EcbCbc(mode, _) => ecb_cbc::run(mode, &rsp::parse(text)?, backends, report),
        Suite::Mct(mode) => mct::run(mode, &rsp::parse(text)?, backends, report),
        Suite::Ctr => ctr::run(&rsp::parse(text)?, backends, report),
        Suite::Feedback(m, _) => feedback::run(m, &rsp::parse(text)?, backends, report),
        Suite::Xts => xts::run_nist(&rsp::parse(text)?, backends, report),
        Suite::WycheproofXts => xts::run_wycheproof(text, backends, report),
        Suite::Gcm(f) => gcm::run(f, &rsp::parse(text)?, backends, report),
        Suite::WycheproofGcm(gmac) => gcm::run_wycheproof(gmac, text, backends, report),
        Suite::WycheproofAead(kind) => wycheproof::run(kind, text, backends, report),
        Suite::WycheproofKeyWrap(v) => wycheproof::run(v, text, backends, report),
        Suite::WycheproofCmac => wycheproof::run(cmac::CmacFile, text, backends, report),
    }
}

/// Largest vector file read (the biggest known, NIST's gcmEncryptExtIV256.rsp,
/// is about 3 MiB): `aesx cavp /dev/zero` must not grow without end.
const MAX_VECTOR_FILE: u64 = 64 * 1024 * 1024;

/// Most failures printed per file; the count is always complete.
const MAX_SHOWN: usize = 10;

/// The result of one file: how many records, how many checks passed and
/// failed (one check per record and backend).
#[derive(Debug, Default)]
pub struct Report {
    /// Records in the file.
    pub records: usize,
    /// Checks that passed.
    pub passed: u64,
    /// Checks that failed.
    pub failed: u64,
    /// The first `MAX_SHOWN` failures, described.
    pub failures: Vec<String>,
    /// Records not checked, and why (e.g. XTS data units of 130 bits).
    pub skipped: usize,
    /// Why records were skipped.
    pub skip_reason: &'static str,
}

impl Report {
    /// Counts one check; `detail` describes a failure.
    pub fn check(&mut self, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            if self.failures.len() < MAX_SHOWN {
                self.failures.push(detail());
            }
        }
    }

    /// Parses every record into a case (a record that does not parse is
    /// the file's error, before anything runs) and counts the records.
    pub fn parse_all<C>(
        &mut self,
        records: &[Record],
        parse: impl FnMut(&Record) -> Result<C, ParseError>,
    ) -> Result<Vec<C>, ParseError> {
        let cases = records.iter().map(parse).collect::<Result<Vec<_>, _>>()?;
        self.records = cases.len();
        Ok(cases)
    }

    /// Runs `check` on every case and backend, one [`Report::check`] each;
    /// a failure is described as `{label} on {backend}: {its error}`.
    pub fn check_all<C>(
        &mut self,
        cases: &[C],
        backends: &[Backend],
        label: impl Fn(&C) -> String,
        mut check: impl FnMut(&C, Backend) -> Result<(), String>,
    ) {
        for &b in backends {
            for case in cases {
                let r = check(case, b);
                self.check(r.is_ok(), || {
                    format!("{} on {b}: {}", label(case), r.err().unwrap_or_default())
                });
            }
        }
    }
}

/// Runs `aesx cavp`.
pub fn run(args: Args) -> Result<ExitCode, CommandError> {
    let backends = match backend_arg::forced(args.backend.as_deref(), backend_arg::Accepts::Gpu)? {
        Some(Choice::Cpu(b)) => vec![b],
        None => Backend::available().iter().collect(),
        #[cfg(feature = "cuda")]
        Some(Choice::Cuda) => {
            // Said before the GPU is opened, and for the files' names alone.
            if let Some(path) = args
                .files
                .iter()
                .find(|p| detect(p, "").is_ok_and(Suite::cpu_only))
            {
                return Err(CommandError::usage(format!(
                    "--backend cuda: {} holds AES-GCM-SIV, CCM, KW/KWP or CMAC vectors, which \
                     run on the CPU only (choose a CPU backend or leave --backend out)",
                    path.display()
                )));
            }
            return cuda::run(&args.files);
        }
    };
    let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
    let names = names.join(" ");
    let mut tally = Tally::default();
    for path in &args.files {
        let outcome =
            run_file(path, &backends).map_err(|m| aesx_file::command_error::strip_os_error(&m));
        tally.file(path, outcome, &names)?;
    }
    tally.finish()
}

/// The counts over the files of one `aesx cavp` run.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    unreadable: usize,
}

impl Tally {
    /// Prints the outcome of the file at `path`, checked on `names`, and
    /// counts it. `Err` carries the message for stderr.
    fn file(
        &mut self,
        path: &Path,
        outcome: Result<(Suite, Report), String>,
        names: &str,
    ) -> Result<(), CommandError> {
        match outcome {
            Ok((suite, report)) => {
                for f in &report.failures {
                    outln!("  FAIL {}: {f}", path.display());
                }
                if report.failed as usize > report.failures.len() {
                    outln!(
                        "  ... and {} more failures in {}",
                        report.failed as usize - report.failures.len(),
                        path.display()
                    );
                }
                let skipped = if report.skipped > 0 {
                    format!(", {} skipped ({})", report.skipped, report.skip_reason)
                } else {
                    String::new()
                };
                outln!(
                    "{}: {}, {} records, {} passed, {} failed{skipped} [{names}]",
                    path.display(),
                    suite.describe(),
                    report.records,
                    report.passed,
                    report.failed
                );
                self.passed += report.passed;
                self.failed += report.failed;
            }
            Err(msg) => {
                // Not a silent skip: the file counts as a failure and the
                // exit status says that input could not be read.
                crate::write_stderr(format_args!("aesx: {}: {msg}", path.display()));
                outln!(
                    "{}: ERROR (see stderr), counted as 1 failed",
                    path.display()
                );
                self.unreadable += 1;
                self.failed += 1;
            }
        }
        Ok(())
    }

    /// Prints the totals; the exit status is 2 when a file could not be
    /// read, else 1 when a check failed.
    fn finish(&self) -> Result<ExitCode, CommandError> {
        outln!("{} passed, {} failed", self.passed, self.failed);
        Ok(ExitCode::from(if self.unreadable > 0 {
            2
        } else if self.failed > 0 {
            1
        } else {
            0
        }))
    }
}

fn run_file(path: &Path, backends: &[Backend]) -> Result<(Suite, Report), String> {
    let bytes = crate::file::read_capped(path, MAX_VECTOR_FILE)
        .map_err(|e| format!("cannot read: {}", crate::file::io_msg(&e)))?;
    let text = String::from_utf8(bytes).map_err(|_| "not a text file (invalid UTF-8)")?;
    let suite = detect(path, &text)?;
    let mut report = Report::default();
    run_suite(suite, &text, backends, &mut report).map_err(|e| e.to_string())?;
    if report.records == 0 {
        return Err("no test records found".to_string());
    }
    // A file that checked nothing proves nothing: it is an error, not a pass.
    if report.passed + report.failed == 0 {
        let why = match report.skip_reason {
            "" => String::new(),
            r => format!(" ({r})"),
        };
        return Err(format!(
            "all {} records were skipped{why}; nothing was checked",
            report.records
        ));
    }
    Ok((suite, report))
}

/// Hex for failure messages.
pub fn hx(b: &[u8]) -> String {
    hex::encode(b)
}

/// A key length check shared by the runners: AES keys only.
pub fn check_key(rec: &rsp::Record, key: &[u8]) -> Result<(), ParseError> {
    if matches!(key.len(), 16 | 24 | 32) {
        Ok(())
    } else {
        Err(ParseError::at(
            rec.line,
            format!("KEY is {} bytes, expected 16, 24 or 32", key.len()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(name: &str) -> Result<Suite, String> {
        detect(Path::new(name), "")
    }

    #[test]
    fn detects_by_name() {
        assert_eq!(
            d("vectors/ECBGFSbox128.rsp"),
            Ok(Suite::EcbCbc(BlockMode::Ecb, "GFSbox"))
        );
        assert_eq!(
            d("CBCVarTxt256.rsp"),
            Ok(Suite::EcbCbc(BlockMode::Cbc, "VarTxt"))
        );
        assert_eq!(d("CBCMMT192.rsp"), Ok(Suite::EcbCbc(BlockMode::Cbc, "MMT")));
        assert_eq!(d("CBCMCT128.rsp"), Ok(Suite::Mct(BlockMode::Cbc)));
        assert_eq!(d("aes-192-ctr.txt"), Ok(Suite::Ctr));
        assert_eq!(
            d("gcmEncryptExtIV128.rsp"),
            Ok(Suite::Gcm(gcm::GcmFile::Encrypt))
        );
        assert_eq!(
            d("gcmDecrypt256.rsp"),
            Ok(Suite::Gcm(gcm::GcmFile::Decrypt))
        );
        assert_eq!(
            d("SL_functional_tests.rsp"),
            Ok(Suite::Gcm(gcm::GcmFile::Sl))
        );
        assert_eq!(
            d("aes_gcm_siv_test.json"),
            Ok(Suite::WycheproofAead(Kind::GcmSiv))
        );
        assert_eq!(d("aes_ccm_test.json"), Ok(Suite::WycheproofAead(Kind::Ccm)));
        assert_eq!(
            d("aes_wrap_test.json"),
            Ok(Suite::WycheproofKeyWrap(Variant::Kw))
        );
        assert_eq!(
            d("aes_kwp_test.json"),
            Ok(Suite::WycheproofKeyWrap(Variant::Kwp))
        );
        assert_eq!(d("aes_cmac_test.json"), Ok(Suite::WycheproofCmac));
        assert_eq!(d("aes_gcm_test.json"), Ok(Suite::WycheproofGcm(false)));
        assert!(d("ECBMCT128.rsp").is_err());
        assert!(d("notes.txt").is_err());
    }

    #[test]
    fn detects_by_header() {
        let text = "# CAVS 11.1\n# AESVS MMT test data for CBC\n\n[ENCRYPT]\n";
        assert_eq!(
            detect(Path::new("renamed.rsp"), text),
            Ok(Suite::EcbCbc(BlockMode::Cbc, "MMT"))
        );
    }
}
