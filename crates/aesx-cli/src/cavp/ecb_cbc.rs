//! AESAVS known-answer (GFSbox, KeySbox, VarKey, VarTxt) and multi-block
//! message (MMT) tests for ECB and CBC.
//!
//! Each record is checked in its own direction and in the inverse one (the
//! records hold both texts), encryption out of place and decryption in
//! place, so both buffer paths of the library run.

use aesx::{Backend, Cbc, Ecb, Padding};

use super::rsp::{ParseError, Record};
use super::{check_key, hx, BlockMode, Direction, Report};

struct Case {
    label: String,
    dir: Direction,
    key: Vec<u8>,
    iv: [u8; 16],
    pt: Vec<u8>,
    ct: Vec<u8>,
}

impl Case {
    fn from_record(mode: BlockMode, rec: &Record) -> Result<Case, ParseError> {
        let dir = Direction::of(rec)?;
        rec.no_fail()?;
        let key = rec.hex("KEY")?;
        check_key(rec, &key)?;
        let iv = match mode {
            BlockMode::Cbc => rec.hex_array::<16>("IV")?,
            BlockMode::Ecb => {
                if rec.get("IV").is_some() {
                    return Err(ParseError::at(rec.line, "ECB record has an IV"));
                }
                [0; 16]
            }
        };
        let pt = rec.hex_any(&["PLAINTEXT", "PT"])?;
        let ct = rec.hex_any(&["CIPHERTEXT", "CT"])?;
        if pt.len() != ct.len() || !pt.len().is_multiple_of(16) {
            return Err(ParseError::at(
                rec.line,
                format!(
                    "plaintext and ciphertext must be equal whole blocks ({} and {} bytes)",
                    pt.len(),
                    ct.len()
                ),
            ));
        }
        Ok(Case {
            label: rec.label(),
            dir,
            key,
            iv,
            pt,
            ct,
        })
    }
}

/// Encrypts (out of place) and decrypts (in place) one case on `backend`.
fn both_ways(mode: BlockMode, case: &Case, backend: Backend) -> aesx::Result<(Vec<u8>, Vec<u8>)> {
    let mut pt = case.ct.clone();
    let ct = match mode {
        BlockMode::Ecb => {
            let ecb = Ecb::with_backend(&case.key, backend)?;
            ecb.decrypt_in_place(&mut pt)?;
            ecb.encrypt_vec(&case.pt, Padding::None)?
        }
        BlockMode::Cbc => {
            let cbc = Cbc::with_backend(&case.key, backend)?;
            cbc.decrypt_in_place(&case.iv, &mut pt)?;
            cbc.encrypt_vec(&case.iv, &case.pt, Padding::None)?
        }
    };
    Ok((ct, pt))
}

/// Checks every record on every backend.
pub fn run(
    mode: BlockMode,
    records: &[Record],
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let cases = report.parse_all(records, |r| Case::from_record(mode, r))?;
    report.check_all(
        &cases,
        backends,
        |c| c.label.clone(),
        |case, b| {
            let (ct, pt) = both_ways(mode, case, b).map_err(|e| format!("error: {e}"))?;
            if ct == case.ct && pt == case.pt {
                return Ok(());
            }
            // The record's own direction first in the message.
            let (first, second) = match case.dir {
                Direction::Encrypt => (("ciphertext", &ct, &case.ct), ("plaintext", &pt, &case.pt)),
                Direction::Decrypt => (("plaintext", &pt, &case.pt), ("ciphertext", &ct, &case.ct)),
            };
            let (what, got, want) = if first.1 != first.2 { first } else { second };
            Err(format!("{what} {} expected {}", hx(got), hx(want)))
        },
    );
    Ok(())
}
