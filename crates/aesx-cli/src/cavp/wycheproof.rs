//! The Wycheproof JSON reader shared by the issue-19 runners (GCM-SIV, CCM,
//! key wrap, CMAC): `testGroups[].tests[]`, each test with a `tcId`, a
//! `result` of `valid`, `acceptable` or `invalid`, and hex fields. Every
//! field a runner asks for is required: a test missing one is a malformed
//! file, not an "invalid" case that passes because an empty key was refused.

use aesx::Backend;
use serde_json::Value;

use super::rsp::{decode_hex, ParseError};
use super::Report;

/// What a test expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Must succeed with the given output.
    Valid,
    /// May succeed (then with the given output) or be refused.
    Acceptable,
    /// Must be refused.
    Invalid,
}

/// One test, with the group parameters the runners use.
pub struct Test {
    /// `tcId`.
    pub id: u64,
    /// `result`.
    pub expect: Expect,
    /// The group's `tagSize` in bits, if it has one.
    pub tag_bits: Option<u64>,
    fields: Value,
}

impl Test {
    /// The hex field `name`, decoded.
    pub fn hex(&self, name: &str) -> Result<Vec<u8>, ParseError> {
        let s = self.fields[name]
            .as_str()
            .ok_or_else(|| bad(format!("tcId {}: no {name}", self.id)))?;
        decode_hex(s).map_err(|e| bad(format!("tcId {}: {name}: {e}", self.id)))
    }

    /// The group's tag size in whole bytes (`default` bits without one).
    pub fn tag_len(&self, default: u64) -> Result<usize, ParseError> {
        match self.tag_bits.unwrap_or(default) {
            b if b % 8 == 0 && b <= 128 => Ok((b / 8) as usize),
            b => Err(bad(format!(
                "tcId {}: tagSize {b} is not whole bytes",
                self.id
            ))),
        }
    }
}

fn bad(msg: String) -> ParseError {
    ParseError::at(0, msg)
}

/// Every test of a Wycheproof file.
pub fn read(text: &str) -> Result<Vec<Test>, ParseError> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not Wycheproof JSON: {e}")))?;
    let groups = doc["testGroups"]
        .as_array()
        .ok_or_else(|| bad("no testGroups array".to_string()))?;
    let mut out = Vec::new();
    for g in groups {
        let tests = g["tests"]
            .as_array()
            .ok_or_else(|| bad("a test group has no tests array".to_string()))?;
        for t in tests {
            let id = t["tcId"]
                .as_u64()
                .ok_or_else(|| bad("a test has no tcId".to_string()))?;
            let expect = match t["result"].as_str() {
                Some("valid") => Expect::Valid,
                Some("acceptable") => Expect::Acceptable,
                Some("invalid") => Expect::Invalid,
                _ => {
                    return Err(bad(format!(
                        "tcId {id}: result is not valid, acceptable or invalid"
                    )))
                }
            };
            out.push(Test {
                id,
                expect,
                tag_bits: g["tagSize"].as_u64(),
                fields: t.clone(),
            });
        }
    }
    Ok(out)
}

/// One family of the CPU-only Wycheproof files (AEADs, key wrap, CMAC): how a test becomes a typed case, and
/// how a case is checked on a backend.
pub trait Family {
    /// A test's fields, read.
    type Case;

    /// Reads the fields the family needs (every one required).
    fn parse(t: &Test) -> Result<Self::Case, ParseError>;

    /// Checks one case on one backend; `Err` describes the failure.
    fn check(&self, t: &Test, c: &Self::Case, b: Backend) -> Result<(), String>;
}

/// Reads every test of `text` into a typed case (so that a malformed file
/// is an error before anything runs), then checks every case on every
/// backend, one [`Report::check`] each.
pub fn run<F: Family>(
    family: F,
    text: &str,
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let tests = read(text)?;
    let cases = tests.iter().map(F::parse).collect::<Result<Vec<_>, _>>()?;
    report.records = cases.len();
    let pairs: Vec<(&Test, F::Case)> = tests.iter().zip(cases).collect();
    let label = |(t, _): &(&Test, F::Case)| format!("tcId {}", t.id);
    report.check_all(&pairs, backends, label, |(t, c), b| family.check(t, c, b));
    Ok(())
}

/// A refusal is right for an invalid case (and allowed for an acceptable
/// one); for a valid case it is the failure `what: e`.
pub fn refused(expect: Expect, what: &str, e: aesx::Error) -> Result<(), String> {
    match expect {
        Expect::Valid => Err(format!("{what}: {e}")),
        Expect::Acceptable | Expect::Invalid => Ok(()),
    }
}
