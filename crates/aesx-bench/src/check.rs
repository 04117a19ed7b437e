//! The honesty check: before anything is timed, every implementation's
//! output must equal aesx-soft's (and the vector file's, with `--rsp`).

use super::cases::Case;
use super::cases::Setup;
use super::impls::Impl;
use super::measure::{first_outputs, mismatch};
use aesx_file::CommandError;

/// Every implementation's first two outputs must equal aesx-soft's (and the
/// first one the file's expectation, when there is one); returns the
/// reference outputs.
pub(super) fn honesty_check(
    impls: &[Impl],
    case: &Case,
    setup: &Setup,
    expect: Option<&[u8]>,
) -> Result<[Vec<u8>; 2], CommandError> {
    let soft = Impl::Aesx(aesx::Backend::Soft);
    let reference = first_outputs(soft, case, setup).map_err(CommandError::failure)?;
    let where_ = format!("{} AES-{} {} B", case.mode, case.key_bits, case.size);
    if let Some(want) = expect {
        if let Some(m) = mismatch(
            &format!("aesx-soft, {where_}, against the file"),
            &reference[0],
            want,
        ) {
            return Err(CommandError::failure(format!("output check failed: {m}")));
        }
    }
    for &imp in impls.iter().filter(|&&i| i != soft) {
        let got = first_outputs(imp, case, setup).map_err(CommandError::failure)?;
        for (k, (g, r)) in got.iter().zip(&reference).enumerate() {
            let what = format!("{imp}, {where_}, call {}", k + 1);
            if let Some(m) = mismatch(&what, g, r) {
                return Err(CommandError::failure(format!(
                    "output check failed against aesx-soft: {m}"
                )));
            }
        }
    }
    Ok(reference)
}

/// The rows the runner tests check: every mode `pick` keeps, every key
/// size it is defined for, at one block, a small packet, an MTU and a
/// page (each where the mode accepts it).
#[cfg(test)]
pub(super) fn small_cases(pick: impl Fn(super::cases::Mode) -> bool) -> Vec<Case> {
    let mut cases = Vec::new();
    for spec in super::cases::MODES.iter().filter(|m| pick(m.mode)) {
        for key_bits in [128, 192, 256] {
            for size in [16, 64, 1500, 4096] {
                if spec.mode.accepts(size) && spec.mode.has_key_bits(key_bits) {
                    cases.push(Case {
                        mode: spec.mode,
                        key_bits,
                        size,
                    });
                }
            }
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::Mode;
    use crate::plan::setup_for;

    #[test]
    fn honesty_check_catches_a_wrong_expectation() {
        let case = Case {
            mode: Mode::CbcEnc,
            key_bits: 128,
            size: 64,
        };
        let setup = setup_for(&case).unwrap();
        let all: Vec<Impl> = Impl::all_available()
            .into_iter()
            .filter(|i| i.supports(case.mode, case.key_bits))
            .collect();
        let good = honesty_check(&all, &case, &setup, None).unwrap();
        assert!(honesty_check(&all, &case, &setup, Some(&good[0])).is_ok());
        let mut bad = good[0].clone();
        bad[63] ^= 1;
        let err = honesty_check(&all, &case, &setup, Some(&bad)).unwrap_err();
        assert!(err.to_string().contains("byte 63"), "{err}");
        assert!(mismatch("x", &[1, 2], &[1, 2]).is_none());
        assert!(mismatch("x", &[1, 2], &[1, 3]).unwrap().contains("byte 1"));
        assert!(mismatch("x", &[1], &[1, 2]).is_some());
    }

    /// aws-lc-rs keeps the modes' state itself (CBC chain, CTR counter and
    /// the rest of a partial keystream block): its first two calls must
    /// equal aesx-soft's in every mode, key size and kind of size.
    #[test]
    fn aws_lc_rows_match_aesx_soft() {
        let mut checked = 0;
        for case in small_cases(|_| true) {
            if !Impl::AwsLc.supports(case.mode, case.key_bits) {
                continue;
            }
            let setup = setup_for(&case).unwrap();
            honesty_check(&[Impl::AwsLc], &case, &setup, None)
                .unwrap_or_else(|e| panic!("{}: {e}", case.mode));
            checked += 1;
        }
        // block, ecb, cbc-enc, cbc-dec: 3 keys x 3 sizes; ctr, gcm-enc,
        // gcm-dec: 3 keys x 4 sizes; no XTS.
        // The CPU-only rows: gcm-siv-enc/dec (2 keys, 4 sizes), kw (2 keys,
        // 3 whole-block sizes), cmac (3 keys, 4 sizes).
        assert_eq!(checked, 4 * 9 + 3 * 12 + 16 + 6 + 12);
    }
}
