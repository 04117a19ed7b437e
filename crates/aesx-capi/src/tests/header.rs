//! The committed include/aesx.h must be what cbindgen makes of the source,
//! with the backend constants written from the library's list.

use std::fmt::Write;
use std::path::Path;

use aesx::Backend;

/// The header's `AESX_BACKEND_*` block: AUTO, one constant per row of
/// `Backend::ALL` (its name upper-cased, its number) and LAST, the highest
/// number. Written here rather than as Rust constants so that a new row of
/// the list reaches C without a line in this crate.
pub(super) fn backend_constants() -> String {
    let mut s = String::from(
        "\n// Backends: the numbers `backend` arguments take and aesx_*_backend()\n\
         // returns (from aesx's list of backends; ABI: never renumbered).\n\n\
         // Let aesx choose: the fastest backend this CPU has (the library reads no\n\
         // environment variable; force a backend by passing its number).\n\
         #define AESX_BACKEND_AUTO 0\n",
    );
    for b in Backend::ALL {
        let _ = write!(
            s,
            "\n// \"{}\" ({} family): needs {}.\n#define AESX_BACKEND_{} {}\n",
            b.name(),
            b.family(),
            b.needs(),
            b.name().to_ascii_uppercase(),
            b.number()
        );
    }
    let last = Backend::ALL.iter().map(|b| b.number()).max().unwrap_or(0);
    let _ = write!(
        s,
        "\n// The highest backend number. Backends are numbered 1 to AESX_BACKEND_LAST\n\
         // without gaps, so `for (b = 1; b <= AESX_BACKEND_LAST; b++)` visits each\n\
         // once (aesx_backend_available(b) says whether this machine runs it).\n\
         #define AESX_BACKEND_LAST {last}"
    );
    s
}

#[test]
fn header_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    config.after_includes = Some(backend_constants());
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("UTF-8 header");
    let path = dir.join("include/aesx.h");
    if std::env::var_os("AESX_BLESS_HEADER").is_some() {
        std::fs::write(&path, &fresh).expect("write include/aesx.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "crates/aesx-capi/include/aesx.h is stale: regenerate it with\n  \
         AESX_BLESS_HEADER=1 cargo test -p aesx-capi header_is_fresh\nand commit it"
    );
}
