//! The error of a command built on aesx: the `aesx` command line and its
//! benchmark laboratory (`aesx-bench`) report every failure as one line,
//! `aesx: <message>`, with exit status 2 for the user's mistake and 1 for
//! an operation that failed. Both stand on this crate (the laboratory is
//! optional in the command line, so the type cannot live there), and the
//! Python package reads [`CommandError`]s from the backend names
//! ([`crate::backend_name`]) as `ValueError`s.

use std::fmt;

/// A failure to report as `aesx: <message>` with an exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    /// The user asked for something malformed or impossible (exit 2).
    Usage(String),
    /// The operation failed (exit 1).
    Failure(String),
}

impl CommandError {
    /// Exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::Usage(_) => 2,
            CommandError::Failure(_) => 1,
        }
    }

    /// A usage error.
    pub fn usage(msg: impl Into<String>) -> Self {
        CommandError::Usage(msg.into())
    }

    /// A failure.
    pub fn failure(msg: impl Into<String>) -> Self {
        CommandError::Failure(msg.into())
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Whatever a message embeds, it is shown as one line without
            // Rust's " (os error N)" suffix.
            CommandError::Usage(m) | CommandError::Failure(m) => {
                f.write_str(&strip_os_error(&m.replace(['\n', '\r'], " ")))
            }
        }
    }
}

/// `s` without the " (os error N)" that `std::io::Error` appends.
pub fn strip_os_error(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(" (os error ") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + " (os error ".len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(')') {
            rest = &tail[digits + 1..];
        } else {
            out.push_str(" (os error ");
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

impl From<aesx::Error> for CommandError {
    fn from(e: aesx::Error) -> Self {
        CommandError::Failure(e.to_string())
    }
}

impl std::error::Error for CommandError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_without_os_error() {
        let e = CommandError::failure("open x: No such file (os error 2)\nmore");
        assert_eq!(e.to_string(), "open x: No such file more");
        assert_eq!(e.exit_code(), 1);
        assert_eq!(CommandError::usage("u").exit_code(), 2);
        // Not an os error suffix: kept.
        assert_eq!(strip_os_error("a (os error x)"), "a (os error x)");
    }
}
