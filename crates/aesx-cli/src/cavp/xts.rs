//! XTS-AES vectors: NIST CAVP `XTSGenAES128.rsp` / `XTSGenAES256.rsp` (the
//! tweak as a 128-bit hex string `i`, or as a decimal `DataUnitSeqNumber`
//! encoded little-endian), and Wycheproof `aes_xts_test.json`.
//!
//! Some NIST data units are not a whole number of bytes (130, 140, 250
//! bits); a byte-oriented XTS cannot express them, so they are skipped and
//! counted. Wycheproof's XTS-AES-192 groups (48-byte keys, not in IEEE 1619,
//! refused by aesx) are skipped and counted too. Every other record is
//! checked in both directions on every backend.

use aesx::{Backend, Xts};

use super::rsp::{ParseError, Record};
use super::{hx, Direction, Report};

struct Case {
    label: String,
    encrypt: bool,
    key: Vec<u8>,
    tweak: [u8; 16],
    pt: Vec<u8>,
    ct: Vec<u8>,
    /// Wycheproof `invalid`: the output must not be `ct`.
    invalid: bool,
}

/// A NIST record's tweak: `i` in hex, or the sector number
/// `DataUnitSeqNumber` (exactly one of them).
pub(super) fn nist_tweak(rec: &Record) -> Result<[u8; 16], ParseError> {
    match (rec.get("I"), rec.get("DATAUNITSEQNUMBER")) {
        (Some(_), None) => rec.hex_array::<16>("I"),
        (None, Some(n)) => Ok(Xts::sector_tweak(n.parse::<u128>().map_err(|_| {
            ParseError::at(rec.line, format!("DATAUNITSEQNUMBER: not a number: {n:?}"))
        })?)),
        _ => Err(ParseError::at(
            rec.line,
            "record needs exactly one of i and DataUnitSeqNumber",
        )),
    }
}

fn from_record(rec: &Record) -> Result<Option<Case>, ParseError> {
    rec.no_fail()?;
    let encrypt = Direction::of(rec)? == Direction::Encrypt;
    let bits = rec.number("DATAUNITLEN")?;
    let key = rec.hex("KEY")?;
    if !matches!(key.len(), 32 | 64) {
        return Err(ParseError::at(
            rec.line,
            format!("KEY is {} bytes, expected 32 or 64", key.len()),
        ));
    }
    let tweak = nist_tweak(rec)?;
    let pt = rec.hex("PT")?;
    let ct = rec.hex("CT")?;
    let bytes = bits.div_ceil(8);
    if pt.len() as u64 != bytes || ct.len() as u64 != bytes {
        return Err(ParseError::at(
            rec.line,
            format!(
                "DataUnitLen = {bits} bits but PT/CT hold {} and {} bytes",
                pt.len(),
                ct.len()
            ),
        ));
    }
    if !bits.is_multiple_of(8) {
        return Ok(None);
    }
    Ok(Some(Case {
        label: rec.label(),
        encrypt,
        key,
        tweak,
        pt,
        ct,
        invalid: false,
    }))
}

fn check(cases: &[Case], backends: &[Backend], report: &mut Report) {
    report.check_all(
        cases,
        backends,
        |c| c.label.clone(),
        |case, b| match (check_one(case, b), case.invalid) {
            (Ok(()), true) => Err("invalid vector accepted".to_string()),
            (Err(_), true) => Ok(()),
            (r, false) => r,
        },
    );
}

/// Ok if the case's expected output comes out in each direction that it
/// tests (encryption records check both; decryption records check
/// decryption, since their keys need not be usable for encryption).
fn check_one(case: &Case, b: Backend) -> Result<(), String> {
    let xts = Xts::with_backend(&case.key, b).map_err(|e| e.to_string())?;
    if case.encrypt {
        let mut out = vec![0u8; case.pt.len()];
        xts.encrypt_to(&case.tweak, &case.pt, &mut out)
            .map_err(|e| format!("encrypt: {e}"))?;
        if out != case.ct {
            return Err(format!("encrypt: {} expected {}", hx(&out), hx(&case.ct)));
        }
    }
    let mut out = case.ct.clone();
    xts.decrypt(&case.tweak, &mut out)
        .map_err(|e| format!("decrypt: {e}"))?;
    if out != case.pt {
        return Err(format!("decrypt: {} expected {}", hx(&out), hx(&case.pt)));
    }
    Ok(())
}

/// NIST XTSGenAES files.
pub fn run_nist(
    records: &[Record],
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let mut cases = Vec::new();
    for rec in records {
        match from_record(rec)? {
            Some(c) => cases.push(c),
            None => report.skipped += 1,
        }
    }
    report.records = records.len();
    if report.skipped > 0 {
        report.skip_reason = "data units not a whole number of bytes";
    }
    check(&cases, backends, report);
    Ok(())
}

/// Wycheproof `aes_xts_test.json`.
pub fn run_wycheproof(
    text: &str,
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let bad = |m: String| ParseError::at(0, m);
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let groups = doc["testGroups"]
        .as_array()
        .ok_or_else(|| bad("no testGroups array".to_string()))?;
    let mut cases = Vec::new();
    let mut records = 0;
    for g in groups {
        let tests = g["tests"]
            .as_array()
            .ok_or_else(|| bad("a test group has no tests array".to_string()))?;
        for t in tests {
            records += 1;
            let id = t["tcId"].as_u64().unwrap_or(0);
            let field = |name: &str| -> Result<Vec<u8>, ParseError> {
                let s = t[name]
                    .as_str()
                    .ok_or_else(|| bad(format!("tcId {id}: no {name}")))?;
                super::rsp::decode_hex(s).map_err(|e| bad(format!("tcId {id}: {name}: {e}")))
            };
            let (key, iv, msg, ct) = (field("key")?, field("iv")?, field("msg")?, field("ct")?);
            let invalid = match t["result"].as_str() {
                Some("valid") | Some("acceptable") => false,
                Some("invalid") => true,
                _ => return Err(bad(format!("tcId {id}: unknown result"))),
            };
            if key.len() == 48 {
                report.skipped += 1;
                continue;
            }
            // A shorter IV is the low-order part of the tweak, as a sector
            // number would be (checked against OpenSSL by the library tests).
            if iv.len() > 16 || msg.len() != ct.len() {
                return Err(bad(format!("tcId {id}: malformed iv, msg or ct")));
            }
            let mut tweak = [0u8; 16];
            tweak[..iv.len()].copy_from_slice(&iv);
            cases.push(Case {
                label: format!("tcId {id}"),
                encrypt: true,
                key,
                tweak,
                pt: msg,
                ct,
                invalid,
            });
        }
    }
    report.records = records;
    if report.skipped > 0 {
        report.skip_reason = "XTS-AES-192 (48-byte keys) is not in IEEE 1619";
    }
    check(&cases, backends, report);
    Ok(())
}
