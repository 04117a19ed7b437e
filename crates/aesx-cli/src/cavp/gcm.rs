//! AES-GCM vectors: NIST CAVP `gcmEncryptExtIV*.rsp` and `gcmDecrypt*.rsp`
//! (whose `FAIL` records must be rejected with no plaintext released), and
//! AArch64cryptolib's `SL_functional_tests.rsp` run through the RFC 4106 ESP
//! path with its `CS` checksums.
//!
//! In the AArch64cryptolib file the bracketed length headers are
//! authoritative (some values carry an extra hex digit), so its fields are
//! read with [`Record::hex_bits`].

use aesx::ones_complement_checksum;
use aesx::{Backend, Error, Esp, Gcm};

use super::rsp::{ParseError, Record};
use super::{check_key, hx, Report};

/// Which GCM file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcmFile {
    /// `gcmEncryptExtIV*.rsp`: PT -> CT, Tag.
    Encrypt,
    /// `gcmDecrypt*.rsp`: CT, Tag -> PT or FAIL.
    Decrypt,
    /// `SL_functional_tests.rsp`: through ESP where the AAD is 8 or 12 bytes.
    Sl,
}

impl GcmFile {
    /// The mode column of the report.
    pub fn describe(self) -> &'static str {
        match self {
            GcmFile::Encrypt => "GCM encrypt",
            GcmFile::Decrypt => "GCM decrypt",
            GcmFile::Sl => "GCM/ESP (RFC 4106) with checksum",
        }
    }
}

struct Case {
    label: String,
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    pt: Option<Vec<u8>>,
    ct: Vec<u8>,
    tag: Vec<u8>,
    cs: Option<u64>,
}

impl Case {
    fn from_record(file: GcmFile, rec: &Record) -> Result<Case, ParseError> {
        let case = match file {
            GcmFile::Encrypt | GcmFile::Decrypt => {
                if file == GcmFile::Encrypt {
                    rec.no_fail()?;
                }
                Case {
                    label: rec.label(),
                    key: rec.hex("KEY")?,
                    iv: rec.hex("IV")?,
                    aad: rec.hex("AAD")?,
                    pt: if rec.fail { None } else { Some(rec.hex("PT")?) },
                    ct: rec.hex("CT")?,
                    tag: rec.hex("TAG")?,
                    cs: None,
                }
            }
            GcmFile::Sl => {
                rec.no_fail()?;
                let bits = |h: &str| rec.header_number(h);
                let cs = match rec.get("CS") {
                    Some(_) => {
                        let v = rec.hex_bits("CS", 64)?;
                        let mut a = [0u8; 8];
                        a.copy_from_slice(&v);
                        Some(u64::from_le_bytes(a))
                    }
                    None => None,
                };
                Case {
                    label: rec.label(),
                    key: rec.hex_bits("KEY", bits("Keylen")?)?,
                    iv: rec.hex_bits("IV", bits("IVlen")?)?,
                    aad: rec.hex_bits("AAD", bits("AADlen")?)?,
                    pt: Some(rec.hex_bits("PT", bits("PTlen")?)?),
                    ct: rec.hex_bits("CT", bits("PTlen")?)?,
                    tag: rec.hex_bits("TAG", bits("Taglen")?)?,
                    cs,
                }
            }
        };
        check_key(rec, &case.key)?;
        if let Some(pt) = &case.pt {
            if pt.len() != case.ct.len() {
                return Err(ParseError::at(
                    rec.line,
                    "plaintext and ciphertext lengths differ",
                ));
            }
        }
        Ok(case)
    }
}

/// Checks one case on one backend; `Err` describes the failure.
fn check(file: GcmFile, c: &Case, b: Backend) -> Result<(), String> {
    let e = |e: Error| format!("error: {e}");
    let gcm = Gcm::with_backend(&c.key, b)
        .and_then(|g| g.with_tag_len(c.tag.len()))
        .map_err(e)?;
    match (&c.pt, file) {
        (None, _) => {
            // A FAIL record: refused, and the output holds no plaintext.
            let mut out = vec![0xa5u8; c.ct.len()];
            match gcm.open_to_detached(&c.iv, &c.aad, &c.ct, &c.tag, &mut out) {
                Err(Error::AuthenticationFailed) if out.iter().all(|&x| x == 0) => Ok(()),
                Err(Error::AuthenticationFailed) => Err("output not zeroed".into()),
                Ok(()) => Err("forged tag accepted".into()),
                Err(err) => Err(e(err)),
            }
        }
        (Some(pt), GcmFile::Sl) if matches!(c.aad.len(), 8 | 12) && c.iv.len() == 12 => {
            let esp = Esp::with_backend(&c.key, &c.iv[..4], c.tag.len(), b).map_err(e)?;
            let mut buf = pt.clone();
            let (tag, sum) = esp
                .seal_in_place_with_checksum(&c.iv[4..], &c.aad, &mut buf)
                .map_err(e)?;
            if buf != c.ct || tag.as_bytes() != &c.tag[..] {
                return Err(format!(
                    "ESP seal gave {} tag {}",
                    hx(&buf),
                    hx(tag.as_bytes())
                ));
            }
            let sum2 = esp
                .open_in_place(&c.iv[4..], &c.aad, &mut buf, &c.tag)
                .map_err(e)?;
            if buf != *pt {
                return Err("ESP open gave the wrong plaintext".into());
            }
            match c.cs {
                Some(cs) if cs != sum || cs != sum2 => Err(format!(
                    "CS {} / {} expected {}",
                    hx(&sum.to_le_bytes()),
                    hx(&sum2.to_le_bytes()),
                    hx(&cs.to_le_bytes())
                )),
                _ => Ok(()),
            }
        }
        (Some(pt), _) => {
            let mut ct = vec![0u8; pt.len()];
            let tag = gcm
                .seal_to_detached(&c.iv, &c.aad, pt, &mut ct)
                .map_err(e)?;
            if ct != c.ct || tag.as_bytes() != &c.tag[..] {
                return Err(format!("sealed {} tag {}", hx(&ct), hx(tag.as_bytes())));
            }
            let mut back = c.ct.clone();
            gcm.open_in_place_detached(&c.iv, &c.aad, &mut back, &c.tag)
                .map_err(e)?;
            if back != *pt {
                return Err("open gave the wrong plaintext".into());
            }
            match c.cs {
                Some(cs) if cs != ones_complement_checksum(pt) => Err("CS mismatch".into()),
                _ => Ok(()),
            }
        }
    }
}

/// Checks every record on every backend.
pub fn run(
    file: GcmFile,
    records: &[Record],
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let cases = report.parse_all(records, |r| Case::from_record(file, r))?;
    report.check_all(
        &cases,
        backends,
        |c| c.label.clone(),
        |c, b| check(file, c, b),
    );
    Ok(())
}

/// Wycheproof `aes_gcm_test.json` (`gmac == false`) or `aes_gmac_test.json`
/// (GMAC: the message is the AAD, the plaintext empty). `valid` and
/// `acceptable` cases must seal to the expected bytes and open; `invalid`
/// ones must be refused (a zero-length IV by the constructor, a modified
/// tag by `open`, with the output zeroed).
pub fn run_wycheproof(
    gmac: bool,
    text: &str,
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ParseError::at(e.line(), format!("not Wycheproof JSON: {e}")))?;
    let groups = doc["testGroups"]
        .as_array()
        .ok_or_else(|| ParseError::at(0, "no testGroups array"))?;
    // Every field is required: a case missing one is a malformed file, not
    // an "invalid" case that passes because the empty key was refused.
    let field = |t: &serde_json::Value, k: &str| -> Result<Vec<u8>, ParseError> {
        let v = t[k]
            .as_str()
            .ok_or_else(|| ParseError::at(0, format!("tcId {}: no {k}", t["tcId"])))?;
        super::rsp::decode_hex(v)
            .map_err(|e| ParseError::at(0, format!("tcId {}: {k}: {e}", t["tcId"])))
    };
    let mut cases = Vec::new();
    for g in groups {
        let tag_bits = g["tagSize"].as_u64().unwrap_or(128);
        for t in g["tests"].as_array().into_iter().flatten() {
            let (msg, aad) = if gmac {
                (Vec::new(), field(t, "msg")?)
            } else {
                (field(t, "msg")?, field(t, "aad")?)
            };
            let ct = if gmac { Vec::new() } else { field(t, "ct")? };
            let valid = match t["result"].as_str() {
                Some("valid") | Some("acceptable") => true,
                Some("invalid") => false,
                _ => {
                    return Err(ParseError::at(
                        0,
                        format!(
                            "tcId {}: result is not valid, acceptable or invalid",
                            t["tcId"]
                        ),
                    ))
                }
            };
            let tag_bits = match tag_bits {
                b if b % 8 == 0 && b <= 128 => b,
                b => return Err(ParseError::at(0, format!("tagSize {b} is not whole bytes"))),
            };
            cases.push((
                t["tcId"].as_u64().unwrap_or(0),
                valid,
                (tag_bits / 8) as usize,
                field(t, "key")?,
                field(t, "iv")?,
                aad,
                msg,
                ct,
                field(t, "tag")?,
            ));
        }
    }
    report.records = cases.len();
    let label = |c: &(u64, _, _, _, _, _, _, _, _)| format!("tcId {}", c.0);
    report.check_all(&cases, backends, label, |c, b| {
        let (_, valid, tag_len, key, iv, aad, msg, ct, tag) = c;
        let gcm = match Gcm::with_backend(key, b).and_then(|g| g.with_tag_len(*tag_len)) {
            Ok(g) => g,
            Err(_) if !valid => return Ok(()),
            Err(e) => return Err(format!("error: {e}")),
        };
        if *valid {
            let mut out = vec![0u8; msg.len()];
            let t = gcm
                .seal_to_detached(iv, aad, msg, &mut out)
                .map_err(|e| format!("seal: {e}"))?;
            if out != *ct || t.as_bytes() != &tag[..] {
                return Err(format!("sealed {} tag {}", hx(&out), hx(t.as_bytes())));
            }
        }
        let mut out = vec![0xa5u8; ct.len()];
        match (gcm.open_to_detached(iv, aad, ct, tag, &mut out), valid) {
            (Ok(()), true) if out == *msg => Ok(()),
            (Ok(()), true) => Err("open gave the wrong plaintext".into()),
            (Ok(()), false) => Err("invalid case accepted".into()),
            (Err(Error::AuthenticationFailed), false) if out.iter().any(|&x| x != 0) => {
                Err("refused but output not zeroed".into())
            }
            (Err(_), false) => Ok(()),
            (Err(e), true) => Err(format!("open: {e}")),
        }
    });
    Ok(())
}
