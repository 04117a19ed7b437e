//! The Wycheproof JSON runners of `aesx cavp` (AES-GCM, AES-GMAC, AES-XTS):
//! any JSON, or not JSON at all, is checked or refused with an error.
#![no_main]

use aesx_cli::cavp::{self, Report, Suite};
use aesx_fuzz::backends;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let suite = match sel % 3 {
        0 => Suite::WycheproofGcm(false),
        1 => Suite::WycheproofGcm(true),
        _ => Suite::WycheproofXts,
    };
    let mut report = Report::default();
    if cavp::run_suite(suite, text, &backends(), &mut report).is_ok() {
        assert!(report.passed + report.failed <= (report.records * backends().len()) as u64);
    }
});
