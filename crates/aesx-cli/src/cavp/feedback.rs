//! AESAVS CFB128, CFB8 and OFB files (GFSbox, KeySbox, VarKey, VarTxt,
//! MMT): KEY, IV, PLAINTEXT, CIPHERTEXT, in `[ENCRYPT]` and `[DECRYPT]`
//! sections.
//!
//! Each record is checked in its direction in one call and again split into
//! uneven pieces (1 byte, then 16, then the rest), since the streaming path
//! (partial blocks, the register) is where feedback-mode code goes wrong.

use aesx::{Backend, Cfb, Cfb8, Ofb};

use super::rsp::{ParseError, Record};
use super::{check_key, hx, Direction, Report};

/// Which feedback mode a file tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// CFB with 128-bit feedback.
    Cfb128,
    /// CFB with 8-bit feedback.
    Cfb8,
    /// Output feedback.
    Ofb,
}

impl Feedback {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Feedback::Cfb128 => "CFB128",
            Feedback::Cfb8 => "CFB8",
            Feedback::Ofb => "OFB",
        }
    }
}

struct Case {
    label: String,
    dir: Direction,
    key: Vec<u8>,
    iv: [u8; 16],
    pt: Vec<u8>,
    ct: Vec<u8>,
}

impl Case {
    fn from_record(rec: &Record) -> Result<Case, ParseError> {
        let dir = Direction::of(rec)?;
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
            dir,
            key,
            iv: rec.hex_array::<16>("IV")?,
            pt,
            ct,
        })
    }
}

/// Runs `mode` over `data` (in place), whole or in pieces of 1, 16, rest.
fn run_one(
    m: Feedback,
    case: &Case,
    b: Backend,
    data: &[u8],
    pieces: bool,
) -> aesx::Result<Vec<u8>> {
    let enc = case.dir == Direction::Encrypt;
    let mut out = data.to_vec();
    let mut cuts: Vec<&mut [u8]> = Vec::new();
    if pieces {
        let (a, rest) = out.split_at_mut(data.len().min(1));
        let (x, y) = rest.split_at_mut(rest.len().min(16));
        cuts.extend([a, x, y]);
    } else {
        cuts.push(&mut out);
    }
    match m {
        Feedback::Cfb128 => {
            let mut c = Cfb::with_backend(&case.key, &case.iv, b)?;
            for p in cuts {
                if enc {
                    c.encrypt(p)
                } else {
                    c.decrypt(p)
                }
            }
        }
        Feedback::Cfb8 => {
            let mut c = Cfb8::with_backend(&case.key, &case.iv, b)?;
            for p in cuts {
                if enc {
                    c.encrypt(p)
                } else {
                    c.decrypt(p)
                }
            }
        }
        Feedback::Ofb => {
            let mut o = Ofb::with_backend(&case.key, &case.iv, b)?;
            for p in cuts {
                o.apply_keystream(p);
            }
        }
    }
    Ok(out)
}

/// Checks every record on every backend.
pub fn run(
    mode: Feedback,
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
            let (input, want) = match case.dir {
                Direction::Encrypt => (&case.pt, &case.ct),
                Direction::Decrypt => (&case.ct, &case.pt),
            };
            for pieces in [false, true] {
                let what = if pieces { "in pieces" } else { "in one call" };
                match run_one(mode, case, b, input, pieces) {
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
