//! The shared library's identity on Linux: its SONAME and its symbol
//! versions (docs/C.md, "ABI policy").
//!
//! - SONAME `libaesx.so.0`: programs record that name, so an incompatible
//!   libaesx (a new major) can be installed beside this one as
//!   `libaesx.so.1` without breaking them.
//! - Every exported symbol carries the version `libaesx.so.0`
//!   (`--default-symver`), so a program linked against this ABI says so in
//!   its own dynamic section and the loader refuses a library without it.
//!   A named node from a version script (`AESX_0 { ... }`) cannot be had
//!   here: rustc already hands the linker its own anonymous version script
//!   (the export list: exactly the `#[no_mangle]` functions, everything
//!   else local), GNU ld refuses to combine an anonymous node with a named
//!   one, and lld lets the anonymous node's exact names win over it.
//!   `--default-symver` is GNU ld's, so the cdylib is linked with it
//!   (`-fuse-ld=bfd`) rather than with rustc's bundled lld.
//!
//! Other platforms build the library unchanged.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        for arg in [
            "-fuse-ld=bfd",
            "-Wl,-soname,libaesx.so.0",
            "-Wl,--default-symver",
        ] {
            println!("cargo:rustc-cdylib-link-arg={arg}");
        }
    }
}
