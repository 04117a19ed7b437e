//! The CLI's error: one line for the user, and an exit code.

use std::fmt;

/// A failure to report as `aesx: <message>` with an exit code.
#[derive(Debug)]
pub enum CliError {
    /// The user asked for something malformed (exit 2).
    Usage(String),
    /// The operation failed (exit 1).
    Failure(String),
}

impl CliError {
    /// Exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failure(_) => 1,
        }
    }

    /// A usage error.
    pub fn usage(msg: impl Into<String>) -> Self {
        CliError::Usage(msg.into())
    }

    /// A failure.
    pub fn failure(msg: impl Into<String>) -> Self {
        CliError::Failure(msg.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Failure(m) => f.write_str(m),
        }
    }
}

impl From<aesx::Error> for CliError {
    fn from(e: aesx::Error) -> Self {
        CliError::Failure(e.to_string())
    }
}

impl std::error::Error for CliError {}
