//! The "x bound" column: how far each x86 row is from the hardware.
//!
//! Every AES mode runs at least one block cipher call per 16 bytes, so no
//! mode on a tier can pass the rate at which that tier's AES instructions
//! retire: ECB over a message that stays in L1, where the loads, stores and
//! XORs hide behind the AES rounds. That rate is measured in the same run,
//! per tier and key size, on one thread; a row on `n` threads is held
//! against `n` times it. The row's tier is its backend for aesx rows, the
//! `--isa` tier for peers held to it, and the best tier of this CPU for
//! peers left free (they pick their own fastest code).

use std::collections::BTreeMap;

use aesx::Backend;

use super::cases::{Case, Mode};
use super::impls::Impl;
use super::isa::Tier;
use super::measure::{self, Plan, Subject};
use super::plan::setup_for;
use super::report::Row;
use super::timing::ClockInfo;

/// Bytes of the ECB message the bound is measured on: in L1 with its
/// output, long enough that the call overhead vanishes.
const BOUND_BYTES: usize = 16 << 10;

/// The tier a row's throughput is bounded by, if it runs on an x86 tier.
fn tier_of(r: &Row, isa: Option<Tier>) -> Option<Tier> {
    if r.peer {
        return isa.or_else(|| {
            Tier::all()
                .rev()
                .find(|t| Backend::available().contains(t.backend()))
        });
    }
    Tier::all().find(|t| r.imp == Impl::Aesx(t.backend()).to_string())
}

/// Measured ECB rates (GB/s, one thread) per tier and key size.
pub struct Bounds(BTreeMap<(&'static str, u32), f64>);

impl Bounds {
    /// Measures the bound of every tier and key size the rows need.
    pub fn measure(
        rows: &[Row],
        isa: Option<Tier>,
        plan: &Plan,
        clock: &ClockInfo,
    ) -> Result<Bounds, String> {
        let mut map = BTreeMap::new();
        for r in rows {
            let Some(t) = tier_of(r, isa) else { continue };
            if map.contains_key(&(t.name(), r.key_bits)) {
                continue;
            }
            let case = Case {
                mode: Mode::Ecb,
                key_bits: r.key_bits,
                size: BOUND_BYTES,
            };
            let setup = setup_for(&case).map_err(|e| e.to_string())?;
            let mut s = [Subject::new(Impl::Aesx(t.backend()), &case, &setup, 1)?];
            measure::measure(&mut s, plan)?;
            if let Some(row) = Row::from_subject(&s[0], &case, clock) {
                map.insert((t.name(), r.key_bits), row.gb_per_s);
            }
        }
        Ok(Bounds(map))
    }

    /// Fills in each x86 row's fraction of its bound.
    pub fn apply(&self, rows: &mut [Row], isa: Option<Tier>) {
        for r in rows.iter_mut() {
            r.vs_bound = tier_of(r, isa)
                .and_then(|t| self.0.get(&(t.name(), r.key_bits)))
                .filter(|&&b| b > 0.0)
                .map(|&b| r.gb_per_s / (b * r.threads.max(1) as f64));
        }
    }

    /// One line per bound, for the report.
    pub fn describe(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|((tier, bits), gbs)| {
                format!("{tier} AES-{bits}: {gbs:.2} GB/s per thread (ECB, {BOUND_BYTES} B)")
            })
            .collect()
    }
}
