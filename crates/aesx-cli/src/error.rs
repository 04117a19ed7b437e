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
            // Whatever a message embeds, it is shown as one line without
            // Rust's " (os error N)" suffix.
            CliError::Usage(m) | CliError::Failure(m) => {
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

impl From<aesx::Error> for CliError {
    fn from(e: aesx::Error) -> Self {
        CliError::Failure(e.to_string())
    }
}

impl std::error::Error for CliError {}

/// A clap usage error as one line: its first line without clap's `error: `
/// prefix (the tips and the usage block that follow are dropped), and where
/// to look for more.
pub fn clap_one_line(e: &clap::Error) -> String {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    ) {
        return "a subcommand is required (see aesx --help)".to_string();
    }
    // The first paragraph (a list of missing arguments is indented below
    // its heading), joined into one line.
    let text = e.render().to_string();
    let para: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let first = para.join(" ");
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    let first = if first.is_empty() {
        "invalid arguments"
    } else {
        first
    };
    format!("{first} (see --help)")
}
