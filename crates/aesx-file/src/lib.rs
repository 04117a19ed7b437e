//! The aesx encrypted file format (`docs/FORMAT.md`): the header
//! ([`header`]), the passphrase key derivation ([`kdf`]) and the c2sp.org/chunked-encryption payload ([`payload`]),
//! without any I/O policy. The `aesx` command line, the Python package and
//! the fuzz targets all read and write files through this crate, so there is
//! one implementation of the format.
#![forbid(unsafe_code)]

pub mod header;
pub mod kdf;
pub mod payload;
pub mod pipeline;
