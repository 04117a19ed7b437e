//! A reader for NIST CAVP `.rsp` files (and files written in their style,
//! such as the RFC 3686 CTR vectors and AArch64cryptolib's functional tests).
//!
//! The format, as the files really are:
//! - `#` lines are comments; lines may end in CRLF.
//! - `[ENCRYPT]` / `[DECRYPT]` (a bracketed word without `=`) opens a section
//!   and clears the headers.
//! - `[Name = value]` sets a header that applies to every following record
//!   until the same name is set again (GCM files set `Keylen`, `IVlen`,
//!   `PTlen`, `AADlen`, `Taglen` in a group before each batch of records).
//! - A record is a run of `NAME = value` lines ended by a blank line (or a
//!   header, or the end of the file). Names are matched without regard to
//!   case (`COUNT` and `Count` both occur); the value may be empty (`PT = `).
//! - A line that is just `FAIL` marks the record as one that must be
//!   rejected (GCM decryption files).
//!
//! Anything else is an error with its line number: a vector file that is
//! read wrongly must never pass silently.
//!
//! The file is self-contained (no `crate::` paths, only `std` and `hex`):
//! the aesx library's tests include it by path (`tests/common`), so the
//! repository has one reader of the format.

use std::fmt;

/// One record with the section and headers in force where it appeared.
#[derive(Debug, Clone)]
pub struct Record {
    /// 1-based line number of the record's first line.
    pub line: usize,
    /// The section (`ENCRYPT`, `DECRYPT`, upper-cased), if any.
    pub section: Option<String>,
    /// Headers in force, names upper-cased, in the order first set.
    pub headers: Vec<(String, String)>,
    /// Fields in file order, names upper-cased.
    pub fields: Vec<(String, String)>,
    /// Whether a `FAIL` line marked this record.
    pub fail: bool,
}

/// A problem in a vector file, with the line it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number (0 when it concerns the whole file).
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.msg)
        } else {
            write!(f, "line {}: {}", self.line, self.msg)
        }
    }
}

impl ParseError {
    /// An error at `line`.
    pub fn at(line: usize, msg: impl Into<String>) -> Self {
        ParseError {
            line,
            msg: msg.into(),
        }
    }
}

/// Parses the text of a `.rsp` file into its records.
pub fn parse(text: &str) -> Result<Vec<Record>, ParseError> {
    let mut records = Vec::new();
    let mut section: Option<String> = None;
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut current: Option<Record> = None;

    for (idx, raw) in text.lines().enumerate() {
        let lineno = idx + 1;
        let line = raw.trim();
        if line.is_empty() {
            records.extend(current.take());
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[') {
            records.extend(current.take());
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| ParseError::at(lineno, "unclosed '[' header"))?;
            match inner.split_once('=') {
                Some((name, value)) => {
                    let name = name.trim().to_ascii_uppercase();
                    let value = value.trim().to_string();
                    if name.is_empty() {
                        return Err(ParseError::at(lineno, "header without a name"));
                    }
                    match headers.iter_mut().find(|(n, _)| *n == name) {
                        Some(slot) => slot.1 = value,
                        None => headers.push((name, value)),
                    }
                }
                None => {
                    let name = inner.trim().to_ascii_uppercase();
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
                        return Err(ParseError::at(lineno, format!("bad section [{inner}]")));
                    }
                    section = Some(name);
                    headers.clear();
                }
            }
            continue;
        }
        let rec = current.get_or_insert_with(|| Record {
            line: lineno,
            section: section.clone(),
            headers: headers.clone(),
            fields: Vec::new(),
            fail: false,
        });
        if line.eq_ignore_ascii_case("FAIL") {
            if rec.fail {
                return Err(ParseError::at(lineno, "FAIL twice in one record"));
            }
            rec.fail = true;
            continue;
        }
        let (name, value) = line.split_once('=').ok_or_else(|| {
            ParseError::at(lineno, format!("expected NAME = value, got {line:?}"))
        })?;
        let name = name.trim().to_ascii_uppercase();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(ParseError::at(lineno, format!("bad field name {name:?}")));
        }
        if rec.fields.iter().any(|(n, _)| *n == name) {
            return Err(ParseError::at(
                lineno,
                format!("field {name} twice in one record"),
            ));
        }
        rec.fields.push((name, value.trim().to_string()));
    }
    records.extend(current.take());
    Ok(records)
}

impl Record {
    /// The value of field `name` (any case), if present.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The value of field `name`, or an error naming it.
    pub fn require(&self, name: &str) -> Result<&str, ParseError> {
        self.get(name).ok_or_else(|| {
            ParseError::at(
                self.line,
                format!("record has no {}", name.to_ascii_uppercase()),
            )
        })
    }

    /// Field `name` decoded from hex.
    pub fn hex(&self, name: &str) -> Result<Vec<u8>, ParseError> {
        let v = self.require(name)?;
        decode_hex(v)
            .map_err(|e| ParseError::at(self.line, format!("{}: {e}", name.to_ascii_uppercase())))
    }

    /// The first of `names` present, decoded from hex (e.g. `PLAINTEXT` or `PT`).
    pub fn hex_any(&self, names: &[&str]) -> Result<Vec<u8>, ParseError> {
        match names.iter().find(|n| self.get(n).is_some()) {
            Some(n) => self.hex(n),
            None => Err(ParseError::at(
                self.line,
                format!("record has none of {}", names.join(", ")),
            )),
        }
    }

    /// Field `name` decoded from hex into exactly `N` bytes.
    pub fn hex_array<const N: usize>(&self, name: &str) -> Result<[u8; N], ParseError> {
        let v = self.hex(name)?;
        v.as_slice().try_into().map_err(|_| {
            ParseError::at(
                self.line,
                format!(
                    "{} is {} bytes, expected {N}",
                    name.to_ascii_uppercase(),
                    v.len()
                ),
            )
        })
    }

    /// The first `bits / 8` bytes of hex field `name`, for files whose
    /// bracketed length header is authoritative over the value (e.g.
    /// AArch64cryptolib's `[PTlen = ...]`, where some values carry an extra
    /// digit). `bits` must be a multiple of 8 and the value at least that
    /// long.
    #[allow(dead_code)] // for the GCM runners
    pub fn hex_bits(&self, name: &str, bits: u64) -> Result<Vec<u8>, ParseError> {
        let v = self.require(name)?;
        let upper = name.to_ascii_uppercase();
        if !bits.is_multiple_of(8) {
            return Err(ParseError::at(
                self.line,
                format!("{upper}: length {bits} bits is not whole bytes"),
            ));
        }
        let digits = usize::try_from(bits / 4).unwrap_or(usize::MAX);
        let prefix = v.get(..digits).ok_or_else(|| {
            ParseError::at(
                self.line,
                format!(
                    "{upper} has {} hex digits, header says {bits} bits",
                    v.len()
                ),
            )
        })?;
        decode_hex(prefix).map_err(|e| ParseError::at(self.line, format!("{upper}: {e}")))
    }

    /// Refuses a `FAIL` marker in files whose records are all valid.
    pub fn no_fail(&self) -> Result<(), ParseError> {
        if self.fail {
            Err(ParseError::at(
                self.line,
                "unexpected FAIL marker in this kind of file",
            ))
        } else {
            Ok(())
        }
    }

    /// Field `name` as a decimal number.
    pub fn number(&self, name: &str) -> Result<u64, ParseError> {
        let v = self.require(name)?;
        v.parse().map_err(|_| {
            ParseError::at(
                self.line,
                format!("{}: not a number: {v:?}", name.to_ascii_uppercase()),
            )
        })
    }

    /// Header `name` (any case) in force for this record.
    #[allow(dead_code)] // for the GCM and XTS runners, whose files carry headers
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Header `name` as a decimal number, or an error naming it.
    #[allow(dead_code)] // for the GCM and XTS runners, whose files carry headers
    pub fn header_number(&self, name: &str) -> Result<u64, ParseError> {
        let v = self.header(name).ok_or_else(|| {
            ParseError::at(self.line, format!("no [{name} = ...] header in force"))
        })?;
        v.parse()
            .map_err(|_| ParseError::at(self.line, format!("header {name}: not a number: {v:?}")))
    }

    /// A short name for messages: `COUNT = 3 [DECRYPT]`.
    pub fn label(&self) -> String {
        let count = self.get("COUNT").unwrap_or("?");
        match &self.section {
            Some(s) => format!("line {} (COUNT = {count}, {s})", self.line),
            None => format!("line {} (COUNT = {count})", self.line),
        }
    }
}

/// Strict hex: an even number of hex digits, nothing else.
pub fn decode_hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", s.len()));
    }
    hex::decode(s).map_err(|e| format!("bad hex: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# comment\r\n\r\n[ENCRYPT]\r\n\r\nCOUNT = 0\r\nKEY = 00ff\r\nPT = \r\n\r\nCount = 1\r\nKey = 01\r\nFAIL\r\n[DECRYPT]\r\n[Keylen = 128]\r\n[PTlen = 0]\r\nCOUNT = 2\r\n\r\n[PTlen = 8]\r\nCOUNT = 3\r\n";

    #[test]
    fn sections_headers_records() {
        let r = parse(SAMPLE).unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].section.as_deref(), Some("ENCRYPT"));
        assert_eq!(r[0].hex("key").unwrap(), vec![0, 0xff]);
        assert_eq!(r[0].hex("PT").unwrap(), Vec::<u8>::new());
        assert!(!r[0].fail);
        assert_eq!(r[1].number("COUNT").unwrap(), 1);
        assert!(r[1].fail);
        assert_eq!(r[2].section.as_deref(), Some("DECRYPT"));
        assert_eq!(r[2].header_number("keylen").unwrap(), 128);
        assert_eq!(r[2].header("PTLEN"), Some("0"));
        assert_eq!(r[3].header("PTlen"), Some("8"));
        assert_eq!(r[3].header("Keylen"), Some("128"));
        assert_eq!(r[2].line, 15);
    }

    #[test]
    fn malformed_lines_are_errors() {
        assert_eq!(parse("KEY 00\n").unwrap_err().line, 1);
        assert!(parse("[ENCRYPT\n").is_err());
        assert!(parse("A = 1\nA = 2\n").is_err());
        let r = parse("KEY = 0g\n").unwrap();
        assert!(r[0].hex("KEY").is_err());
        let r = parse("KEY = 000\n").unwrap();
        assert!(r[0].hex("KEY").is_err());
        assert!(r[0].hex("IV").is_err());
        assert!(r[0].hex_array::<2>("KEY").is_err());
    }

    #[test]
    fn hex_bits_trusts_the_header() {
        let r = parse("[PTlen = 16]\nPT = abcde\nCT = ab\n").unwrap();
        assert_eq!(r[0].hex_bits("PT", 16).unwrap(), vec![0xab, 0xcd]);
        assert_eq!(r[0].hex_bits("PT", 0).unwrap(), Vec::<u8>::new());
        assert!(r[0].hex_bits("CT", 16).is_err());
        assert!(r[0].hex_bits("PT", 12).is_err());
        assert!(r[0].no_fail().is_ok());
    }

    /// The reader takes every vendored .rsp file, including the families
    /// whose runners come later (GCM with FAIL records, XTS, the
    /// AArch64cryptolib header-driven file).
    #[test]
    fn reads_every_vendored_rsp_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
        let files = [
            "nist/GCM/gcmDecrypt128.rsp",
            "nist/XTS/tweak-128hexstr/XTSGenAES256.rsp",
            "nist/XTS/tweak-dataunitseqno/XTSGenAES128.rsp",
            "aarch64cryptolib/SL_functional_tests.rsp",
            "nist/CBC/CBCMCT256.rsp",
        ];
        for f in files {
            let text = std::fs::read_to_string(root.join(f)).unwrap();
            let recs = parse(&text).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert!(!recs.is_empty(), "{f}");
            match f {
                f if f.contains("gcmDecrypt") => {
                    assert!(recs.iter().any(|r| r.fail));
                    assert!(recs
                        .iter()
                        .all(|r| r.header_number("Keylen").unwrap() == 128));
                    assert!(recs.iter().all(|r| r.get("TAG").is_some()));
                }
                f if f.contains("SL_functional") => {
                    assert_eq!(recs.len(), 46);
                    for r in &recs {
                        let bits = r.header_number("PTlen").unwrap();
                        assert_eq!(r.hex_bits("PT", bits).unwrap().len() as u64 * 8, bits);
                    }
                }
                _ => assert!(recs.iter().all(|r| r.section.is_some() && !r.fail)),
            }
        }
    }
}
