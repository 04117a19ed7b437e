//! The crate's error type.

use core::fmt;

/// What can go wrong on the GPU path, as a value (nothing here panics).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CudaError {
    /// No usable CUDA device: no driver library, no device, or the driver
    /// failed to initialise. The text says which.
    NoDevice(String),
    /// libnvrtc could not be loaded, so kernels cannot be compiled.
    NoNvrtc(String),
    /// NVRTC rejected the kernel sources (the log is included).
    Compile(String),
    /// A CUDA driver call failed.
    Driver(String),
    /// A GPU result that differs from aesx on the CPU (benchmark checks).
    Mismatch(String),
    /// The request itself is invalid (key, length, nonce, tag, ...).
    Aes(aesx::Error),
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaError::NoDevice(why) => write!(f, "no CUDA device: {why}"),
            CudaError::NoNvrtc(why) => write!(f, "NVRTC not available: {why}"),
            CudaError::Compile(log) => write!(f, "CUDA kernel compilation failed: {log}"),
            CudaError::Driver(e) => write!(f, "CUDA driver error: {e}"),
            CudaError::Mismatch(what) => write!(f, "GPU result mismatch: {what}"),
            CudaError::Aes(e) => write!(f, "{e}"),
        }
    }
}

impl CudaError {
    /// The message's first line, trimmed: an NVRTC log can span many lines,
    /// and "this GPU cannot be used" is said in one.
    pub fn first_line(&self) -> String {
        let text = self.to_string();
        text.lines().next().unwrap_or("").trim().to_string()
    }
}

impl std::error::Error for CudaError {}

impl From<aesx::Error> for CudaError {
    fn from(e: aesx::Error) -> Self {
        CudaError::Aes(e)
    }
}

impl From<cudarc::driver::DriverError> for CudaError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        CudaError::Driver(format!("{e:?}"))
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = core::result::Result<T, CudaError>;
