//! The `aesx` command line as a library: every subcommand lives in its own
//! module, and `main.rs` only parses the arguments and maps errors to an
//! exit code. The module tree is a library so that the fuzz targets
//! (`fuzz/`) can reach the vector-file parsers and key-file readers.

#![forbid(unsafe_code)]

use std::io::Write;

pub mod backend_arg;
#[cfg(feature = "peers")]
pub mod bench;
#[cfg(not(feature = "peers"))]
pub mod no_bench;
#[cfg(not(feature = "peers"))]
pub use no_bench as bench;
pub mod cavp;
pub mod cipher;
pub mod error;
pub mod file;
pub mod generate;
pub mod info;
pub mod mac;

pub use aesx_file::CommandError;

/// `println!` that returns an error instead of panicking when stdout is
/// closed (`aesx cavp ... | head`); use inside functions returning
/// `Result<_, CommandError>`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))?
    };
}
pub(crate) use outln;

/// Writes one line to stdout; see `outln!`.
pub fn write_stdout(args: std::fmt::Arguments<'_>) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{args}")
        .and_then(|()| out.flush())
        .map_err(|e| CommandError::failure(format!("writing output: {e}")))
}

/// Writes one line to stderr, ignoring failure (there is nowhere left to
/// report it), where `eprintln!` would panic.
pub fn write_stderr(args: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{args}");
}
