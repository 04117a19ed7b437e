//! `aesx generate`: the man pages and shell completion scripts, made from
//! the command's own clap definition at run time, so that they cannot
//! drift from the options the binary really takes. Packagers run it once
//! at build time (`tools/package/deb.sh`); users can too.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::CommandError;

/// Arguments of `aesx generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand, Debug)]
enum What {
    /// Man pages: aesx.1 and one aesx-SUBCOMMAND.1 per subcommand, into DIR
    /// (which must exist).
    Man {
        /// The directory to write the pages into.
        #[arg(short = 'o', long, value_name = "DIR")]
        dir: PathBuf,
    },
    /// A completion script for SHELL on standard output, e.g.
    /// `aesx generate completions bash > /etc/bash_completion.d/aesx`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Runs `aesx generate` for the command `cmd` (the whole `aesx`).
pub fn run(a: Args, cmd: clap::Command) -> Result<ExitCode, CommandError> {
    match a.what {
        What::Man { dir } => {
            if !dir.is_dir() {
                return Err(CommandError::usage(format!(
                    "{}: not a directory (create it first)",
                    dir.display()
                )));
            }
            clap_mangen::generate_to(cmd, &dir).map_err(|e| {
                CommandError::failure(format!(
                    "writing man pages into {}: {}",
                    dir.display(),
                    crate::file::io_msg(&e)
                ))
            })?;
        }
        What::Completions { shell } => {
            let mut cmd = cmd;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cmd, "aesx", &mut out);
            let mut stdout = std::io::stdout().lock();
            std::io::Write::write_all(&mut stdout, &out)
                .and_then(|()| std::io::Write::flush(&mut stdout))
                .map_err(|e| {
                    CommandError::failure(format!("writing output: {}", crate::file::io_msg(&e)))
                })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
