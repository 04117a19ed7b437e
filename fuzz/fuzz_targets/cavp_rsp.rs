//! The NIST `.rsp` reader and every `.rsp` runner of `aesx cavp`: the first
//! byte picks the suite (as the file name would), the rest is the file. A
//! malformed file is an error, never a panic; the runners check whatever
//! parses on every backend.
#![no_main]

use aesx_cli::cavp::{self, rsp, BlockMode, Suite};
use aesx_fuzz::{run_cavp_suite, selector_and_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((sel, text)) = selector_and_text(data) else {
        return;
    };
    // The reader alone: records carry their line numbers in order.
    if let Ok(recs) = rsp::parse(text) {
        assert!(recs.windows(2).all(|w| w[0].line <= w[1].line));
    }
    let suite = match sel % 8 {
        0 => Suite::EcbCbc(BlockMode::Ecb, "KAT"),
        1 => Suite::EcbCbc(BlockMode::Cbc, "MMT"),
        2 => Suite::Mct(BlockMode::Cbc),
        3 => Suite::Ctr,
        4 => Suite::Xts,
        // The three GCM files, found by name as `aesx cavp` does.
        5 => cavp::detect("gcmEncryptExtIV128.rsp".as_ref(), "").unwrap(),
        6 => cavp::detect("gcmDecrypt128.rsp".as_ref(), "").unwrap(),
        _ => cavp::detect("SL_functional_tests.rsp".as_ref(), "").unwrap(),
    };
    // Monte Carlo records cost 1000 CBC calls each: keep the run short.
    if matches!(suite, Suite::Mct(_)) && text.matches("COUNT").count() > 4 {
        return;
    }
    run_cavp_suite(suite, text);
    // Header detection on arbitrary text never panics either.
    let _ = cavp::detect("renamed.rsp".as_ref(), text);
});
