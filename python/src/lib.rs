//! The `aesx._aesx` extension module: thin doors onto the aesx library and
//! the aesx-file format. The Python-facing package (`python/aesx/`) wraps
//! these in pyca-shaped classes where that is more natural in Python.

use pyo3::prelude::*;

mod aead;
mod backend;
mod buf;
mod checks;
mod cipher;
mod cmac;
mod cuda;
mod errors;
mod file;
mod gcm;
mod keywrap;

#[pymodule]
fn _aesx(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    backend::register(m)?;
    m.add("RELEASE_GIL_AT", buf::RELEASE_GIL_AT)?;
    gcm::register(m)?;
    aead::register(m)?;
    keywrap::register(m)?;
    cmac::register(m)?;
    cipher::register(m)?;
    file::register(m)?;
    cuda::register(m)?;
    Ok(())
}
