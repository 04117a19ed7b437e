//! The committed include/aesx.h must be what cbindgen makes of the source.

use std::path::Path;

#[test]
fn header_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
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
