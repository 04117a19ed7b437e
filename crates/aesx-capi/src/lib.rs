//! libaesx: the C ABI of aesx.
//!
//! Built as `libaesx.so` and `libaesx.a`; `include/aesx.h` is generated from
//! this crate by cbindgen (see `cbindgen.toml`; the `header_is_fresh` test
//! fails when the committed header is stale). `docs/C.md` says how to build,
//! link and call it.
//!
//! Every entry point is a thin door to the `aesx` library: it checks the C
//! arguments (NULL pointers, impossible lengths, overlap), turns them into
//! slices, calls the library's own one-shot methods, and maps its `Error` to
//! an integer status. A panic never crosses into C: each entry point runs its
//! body under `catch_unwind` and reports `AESX_ERR_INTERNAL`.

mod aead;
mod block_modes;
mod buffers;
mod keys;
mod status;
mod xts;

pub use aead::*;
pub use block_modes::*;
pub use keys::*;
pub use status::*;
pub use xts::*;

#[cfg(test)]
mod tests;
