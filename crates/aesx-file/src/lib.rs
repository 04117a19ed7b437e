//! The aesx encrypted file format (`docs/FORMAT.md`): the header
//! ([`header`]), the passphrase key derivation ([`kdf`]) and the c2sp.org/chunked-encryption payload ([`payload`]),
//! without any I/O policy. The `aesx` command line, the Python package and
//! the fuzz targets all read and write files through this crate, so there is
//! one implementation of the format.
//!
//! It is also the lowest crate that the command line, its benchmark
//! laboratory and the Python package all stand on, so it holds what those
//! front ends share above the library: their one-line error
//! ([`CommandError`]) and the parser of a backend name a user types
//! ([`backend_name`]).
#![forbid(unsafe_code)]

pub mod backend_name;
pub mod command_error;
pub mod header;
pub mod kdf;
pub mod payload;
pub mod pipeline;

pub use command_error::CommandError;
