//! The aesx file format from Python: whole-file encryption and decryption
//! with atomic output, a random-access reader, and the per-range calls that
//! `aesx.dask` spreads over a cluster. All of it goes through `aesx_file`, so
//! the bytes are exactly what `aesx encrypt` writes and `aesx decrypt` reads.

mod args;
mod failure;
mod input;
pub(crate) mod output;
mod ranges;
mod reader;
mod whole;

use aesx_file::payload::{CHUNK_LEN, ENC_CHUNK_LEN};
use pyo3::prelude::*;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(whole::encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(whole::decrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(whole::_file_hashed, m)?)?;
    m.add_class::<reader::_Reader>()?;
    m.add_function(wrap_pyfunction!(ranges::_prefix_len, m)?)?;
    m.add_function(wrap_pyfunction!(ranges::_new_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(ranges::_seal_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(ranges::_open_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(ranges::_range_at, m)?)?;
    m.add_function(wrap_pyfunction!(ranges::_hash_fd, m)?)?;
    m.add("CHUNK_LEN", CHUNK_LEN)?;
    m.add("ENC_CHUNK_LEN", ENC_CHUNK_LEN)?;
    Ok(())
}
