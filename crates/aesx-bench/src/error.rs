//! The laboratory's error: a message and whether it was the caller's
//! mistake. The `aesx` command turns it into its own error (`Usage` into
//! `Usage`, `Failure` into `Failure`) and prints that as always: one line,
//! `aesx: <message>`, exit status 2 or 1.

use std::fmt;

/// Why a benchmark did not run or did not finish.
#[derive(Debug)]
pub enum BenchError {
    /// The options ask for something malformed or impossible (exit 2).
    Usage(String),
    /// The run failed (exit 1).
    Failure(String),
}

impl BenchError {
    /// A usage error.
    pub fn usage(msg: impl Into<String>) -> Self {
        BenchError::Usage(msg.into())
    }

    /// A failure.
    pub fn failure(msg: impl Into<String>) -> Self {
        BenchError::Failure(msg.into())
    }
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Usage(m) | BenchError::Failure(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BenchError {}

impl From<aesx::Error> for BenchError {
    fn from(e: aesx::Error) -> Self {
        BenchError::Failure(e.to_string())
    }
}
