//! `aesx`: validate, benchmark and use AES from the command line.
//!
//! Every subcommand lives in its own module; `main` maps their errors to one
//! line on stderr and an exit code (1 for failures, 2 for usage errors).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use aesx_cli::{bench, cavp, cipher, error, file, generate, info, mac, write_stderr};

/// AES, fast and constant-time where it matters.
#[derive(Parser, Debug)]
#[command(name = "aesx", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate against NIST CAVP .rsp files (and Wycheproof JSON).
    Cavp(cavp::Args),
    /// Benchmark every backend and the peer libraries side by side.
    Bench(bench::Args),
    /// Raw cipher modes (ECB, CBC, CTR, XTS, GCM, GCM-SIV, XAES, CCM, KW,
    /// KWP) over files or pipes.
    Cipher(cipher::Args),
    /// Message authentication codes (AES-CMAC) of a file or a pipe.
    Mac(mac::Args),
    /// What this machine offers: CPU, features, backends.
    Info(info::Args),
    /// Encrypt a file or stream (authenticated, docs/FORMAT.md).
    Encrypt(file::EncryptArgs),
    /// Decrypt and verify a file or stream made by `aesx encrypt`.
    Decrypt(file::DecryptArgs),
    /// Write a new random key file for `aesx encrypt -k`.
    Keygen(file::KeygenArgs),
    /// Man pages and shell completion scripts for aesx.
    Generate(generate::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors.
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            write_stderr(format_args!("aesx: {}", error::clap_one_line(&e)));
            return ExitCode::from(2);
        }
    };
    // The schedule applies to every subcommand (and to the runs `aesx
    // bench` starts of itself, which inherit the variable).
    if let Err(e) = aesx_cli::backend_arg::force_schedule_from_env() {
        write_stderr(format_args!("aesx: {e}"));
        return ExitCode::from(e.exit_code());
    }
    let result = match cli.command {
        Command::Cavp(a) => cavp::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Cipher(a) => cipher::run(a),
        Command::Mac(a) => mac::run(a),
        Command::Info(a) => info::run(a),
        Command::Encrypt(a) => file::run_encrypt(a),
        Command::Decrypt(a) => file::run_decrypt(a),
        Command::Keygen(a) => file::run_keygen(a),
        Command::Generate(a) => generate::run(a, Cli::command()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            write_stderr(format_args!("aesx: {e}"));
            ExitCode::from(e.exit_code())
        }
    }
}
