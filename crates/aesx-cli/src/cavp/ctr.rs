//! CTR vectors (e.g. RFC 3686 as `aes-*-ctr.txt`): KEY, IV (the whole
//! 16-byte initial counter block), PLAINTEXT, CIPHERTEXT of any length.
//!
//! Each record is checked in one call and again split into uneven pieces
//! (1 byte, then 16, then the rest), in both directions, since the streaming
//! path (partial keystream blocks) is where CTR code goes wrong.

use aesx::{Backend, Ctr};

use super::rsp::{ParseError, Record};
use super::{check_key, hx, Direction, Report};

struct Case {
    label: String,
    key: Vec<u8>,
    iv: [u8; 16],
    pt: Vec<u8>,
    ct: Vec<u8>,
}

impl Case {
    fn from_record(rec: &Record) -> Result<Case, ParseError> {
        // CTR is its own inverse; the section only has to be a known one.
        Direction::of(rec)?;
        rec.no_fail()?;
        let key = rec.hex("KEY")?;
        check_key(rec, &key)?;
        let pt = rec.hex_any(&["PLAINTEXT", "PT"])?;
        let ct = rec.hex_any(&["CIPHERTEXT", "CT"])?;
        if pt.len() != ct.len() {
            return Err(ParseError::at(
                rec.line,
                format!(
                    "plaintext and ciphertext lengths differ ({} and {} bytes)",
                    pt.len(),
                    ct.len()
                ),
            ));
        }
        Ok(Case {
            label: rec.label(),
            key,
            iv: rec.hex_array::<16>("IV")?,
            pt,
            ct,
        })
    }
}

/// Applies the keystream to `data`: whole, or in pieces of 1, 16, rest.
fn apply(case: &Case, backend: Backend, data: &[u8], pieces: bool) -> aesx::Result<Vec<u8>> {
    let mut ctr = Ctr::with_backend(&case.key, &case.iv, backend)?;
    if !pieces {
        let mut out = vec![0u8; data.len()];
        ctr.apply_keystream_to(data, &mut out)?;
        return Ok(out);
    }
    let mut out = data.to_vec();
    let (a, rest) = out.split_at_mut(data.len().min(1));
    let (b, c) = rest.split_at_mut(rest.len().min(16));
    for piece in [a, b, c] {
        ctr.apply_keystream(piece);
    }
    Ok(out)
}

/// Checks every record on every backend.
pub fn run(
    records: &[Record],
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let cases = report.parse_all(records, Case::from_record)?;
    report.check_all(
        &cases,
        backends,
        |c| c.label.clone(),
        |case, b| {
            let runs = [
                ("encrypt", &case.pt, &case.ct, false),
                ("decrypt in pieces", &case.ct, &case.pt, true),
                ("encrypt in pieces", &case.pt, &case.ct, true),
                ("decrypt", &case.ct, &case.pt, false),
            ];
            for (what, input, want, pieces) in runs {
                match apply(case, b, input, pieces) {
                    Ok(got) if got == *want => {}
                    Ok(got) => return Err(format!("{what}: {} expected {}", hx(&got), hx(want))),
                    Err(e) => return Err(format!("{what}: error: {e}")),
                }
            }
            Ok(())
        },
    );
    Ok(())
}
