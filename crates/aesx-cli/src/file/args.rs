//! The options of `aesx encrypt`, `aesx decrypt` and `aesx keygen`.

use std::path::PathBuf;

use super::kdf;

/// Options shared by encrypt and decrypt.
#[derive(clap::Args, Debug)]
pub struct CommonArgs {
    /// Input file (default: standard input; `-` also means it).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Output file (default: standard output; `-` also means it).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Key file written by `aesx keygen`.
    #[arg(short = 'k', long = "key-file", value_name = "FILE", conflicts_with_all = ["passphrase", "passphrase_file"])]
    pub key_file: Option<PathBuf>,
    /// Use a passphrase, asked on the terminal.
    #[arg(short = 'p', long)]
    pub passphrase: bool,
    /// Read the passphrase from the first line of FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase")]
    pub passphrase_file: Option<PathBuf>,
    /// Replace the output file if it exists (a new file takes its name and
    /// keeps its mode; the old file is not rewritten in place).
    #[arg(short = 'f', long)]
    pub force: bool,
    /// No progress bar.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Backend to run on (default: AESX_BACKEND, else the fastest). `cuda`
    /// seals or opens the chunks on the GPU, many per launch, costing the
    /// CPU little; `cpu+cuda` has the GPU and -j CPU workers take chunks
    /// from one queue (--offset and --length stay on the CPU). A GPU that
    /// fails mid-file is dropped with a warning and the CPU redoes its
    /// chunks; with workers, a GPU slower than them is overtaken.
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,
    /// Worker threads, each reading and sealing or opening 1 MiB batches of
    /// its own (default: all cores; more than the cores run as many as the
    /// cores, since extra threads only take turns on them).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Arguments of `aesx encrypt`.
#[derive(clap::Args, Debug)]
pub struct EncryptArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// TESTS ONLY: Argon2id cost MEMORY_KIB,ITERATIONS,LANES instead of the
    /// default, so that test suites run fast. Weakens the passphrase.
    #[arg(long, value_name = "M,T,P", hide = true)]
    pub insecure_kdf_cost: Option<String>,
}

/// Arguments of `aesx decrypt`.
#[derive(clap::Args, Debug)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Decrypt only from this plaintext byte offset (needs a seekable input file).
    #[arg(long, value_name = "N")]
    pub offset: Option<u64>,
    /// Decrypt only this many bytes (default: to the end).
    #[arg(long, value_name = "M")]
    pub length: Option<u64>,
    /// Largest Argon2id memory a passphrase file may demand, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = kdf::DEFAULT_MAX_MEMORY_MIB)]
    pub max_kdf_memory: u32,
    /// Largest Argon2id work a passphrase file may demand: memory in MiB
    /// times passes (the default is 4 times what `aesx encrypt` uses).
    #[arg(long, value_name = "MIB_PASSES", default_value_t = kdf::DEFAULT_MAX_WORK_MIB)]
    pub max_kdf_work: u64,
}

/// Arguments of `aesx keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Write the key here (mode 0600) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace the output file if it exists (a new file takes its name and
    /// keeps its mode; the old file is not rewritten in place).
    #[arg(short = 'f', long)]
    pub force: bool,
}
