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

// The contracts of the exported functions are written for C readers, as a
// "Requires:" paragraph in each doc comment (it lands in aesx.h), not as
// Rust's "# Safety" heading.
#![allow(clippy::missing_safety_doc)]

// The order of these modules is the order of the header (cbindgen reads
// them as declared): status codes, keys and backends, then the modes.
mod status;

mod keys;

mod block_modes;

mod feedback;

mod xts;

mod aead;

mod aead_modes;

mod parallel;

mod gcm_siv;

mod keywrap;

mod cmac;

mod cuda;

mod buffers;
mod sealing;

pub use aead::*;
pub use aead_modes::*;
pub use block_modes::*;
pub use cmac::*;
pub use cuda::*;
pub use feedback::*;
pub use gcm_siv::*;
pub use keys::*;
pub use keywrap::*;
pub use parallel::*;
pub use status::*;
pub use xts::*;

#[cfg(test)]
mod tests;
