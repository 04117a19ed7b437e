//! The Wycheproof JSON runners of `aesx cavp` (AES-GCM, AES-GMAC, AES-XTS):
//! any JSON, or not JSON at all, is checked or refused with an error.
#![no_main]

use aesx_cli::cavp::Suite;
use aesx_fuzz::{run_cavp_suite, selector_and_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((sel, text)) = selector_and_text(data) else {
        return;
    };
    let suite = match sel % 3 {
        0 => Suite::WycheproofGcm(false),
        1 => Suite::WycheproofGcm(true),
        _ => Suite::WycheproofXts,
    };
    run_cavp_suite(suite, text);
});
