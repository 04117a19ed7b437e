//! AESAVS Monte Carlo tests (AESAVS section 6.4) for CBC.
//!
//! Each record gives the state at the start of one outer iteration i
//! (KEY[i], IV[i], the first input block) and the last output block after
//! 1000 chained inner iterations. For encryption:
//!
//! ```text
//! CT[j]   = CBC-Encrypt(KEY[i], chain, PT[j])        (chain starts at IV[i])
//! PT[j+1] = IV[i] if j = 0, else CT[j-1]
//! KEY[i+1] = KEY[i] xor (the last keylen bits of CT[998] || CT[999])
//! IV[i+1] = CT[999],  PT[0] of i+1 = CT[998]
//! ```
//!
//! Decryption is the same with the roles of PT and CT exchanged. Every
//! record is run from its own inputs, so each is an independent check, and
//! the derived KEY/IV/input of the next outer iteration must equal the next
//! record's: that checks the key update rules as well.

use aesx::{Backend, Cbc};

use super::rsp::{ParseError, Record};
use super::{check_key, hx, BlockMode, Direction, Report};

const INNER: usize = 1000;

struct Case {
    label: String,
    count: u64,
    dir: Direction,
    key: Vec<u8>,
    iv: [u8; 16],
    input: [u8; 16],
    output: [u8; 16],
}

impl Case {
    fn from_record(rec: &Record) -> Result<Case, ParseError> {
        let dir = Direction::of(rec)?;
        rec.no_fail()?;
        let key = rec.hex("KEY")?;
        check_key(rec, &key)?;
        let (input, output) = match dir {
            Direction::Encrypt => ("PLAINTEXT", "CIPHERTEXT"),
            Direction::Decrypt => ("CIPHERTEXT", "PLAINTEXT"),
        };
        Ok(Case {
            label: rec.label(),
            count: rec.number("COUNT")?,
            dir,
            key,
            iv: rec.hex_array::<16>("IV")?,
            input: rec.hex_array::<16>(input)?,
            output: rec.hex_array::<16>(output)?,
        })
    }
}

/// The state one outer iteration hands to the next.
struct Next {
    last: [u8; 16],
    key: Vec<u8>,
    iv: [u8; 16],
    input: [u8; 16],
}

/// One outer iteration of the CBC Monte Carlo test.
fn cbc_outer(case: &Case, backend: Backend) -> aesx::Result<Next> {
    let cbc = Cbc::with_backend(&case.key, backend)?;
    let mut chain = case.iv;
    let mut input = case.input;
    // out[j] and out[j-1]; `prev` doubles as the next input for j >= 1.
    let mut out = [0u8; 16];
    let mut prev = [0u8; 16];
    for j in 0..INNER {
        let mut block = input;
        match case.dir {
            Direction::Encrypt => cbc.encrypt_chained(&mut chain, &mut block)?,
            Direction::Decrypt => cbc.decrypt_chained(&mut chain, &mut block)?,
        }
        let next_input = if j == 0 { case.iv } else { out };
        prev = out;
        out = block;
        input = next_input;
    }
    // KEY[i+1] = KEY[i] xor the last key-length bytes of out[998] || out[999].
    let mut tail = [0u8; 32];
    tail[..16].copy_from_slice(&prev);
    tail[16..].copy_from_slice(&out);
    let n = case.key.len();
    let key = case
        .key
        .iter()
        .zip(&tail[32 - n..])
        .map(|(k, t)| k ^ t)
        .collect();
    Ok(Next {
        last: out,
        key,
        iv: out,
        input: prev,
    })
}

/// Checks every record on every backend.
pub fn run(
    mode: BlockMode,
    records: &[Record],
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    if mode != BlockMode::Cbc {
        return Err(ParseError::at(
            0,
            "only CBC Monte Carlo tests are supported",
        ));
    }
    let cases = report.parse_all(records, Case::from_record)?;
    // The following record continues a record when it is the next outer
    // iteration of the same section.
    let followed: Vec<(&Case, Option<&Case>)> = cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let next = cases.get(i + 1);
            (
                case,
                next.filter(|n| n.dir == case.dir && case.count.checked_add(1) == Some(n.count)),
            )
        })
        .collect();
    report.check_all(
        &followed,
        backends,
        |(c, _)| c.label.clone(),
        |&(case, follower), b| {
            let next = cbc_outer(case, b).map_err(|e| format!("error: {e}"))?;
            if next.last != case.output {
                return Err(format!(
                    "output {} expected {}",
                    hx(&next.last),
                    hx(&case.output)
                ));
            }
            match follower {
                Some(f) if next.key != f.key || next.iv != f.iv || next.input != f.input => {
                    Err(format!(
                        "derived next KEY {} IV {} input {} do not match COUNT = {} \
                     (KEY {} IV {} input {})",
                        hx(&next.key),
                        hx(&next.iv),
                        hx(&next.input),
                        f.count,
                        hx(&f.key),
                        hx(&f.iv),
                        hx(&f.input)
                    ))
                }
                _ => Ok(()),
            }
        },
    );
    Ok(())
}
