//! The implementations under test, by name: which exist on this machine
//! and build, what each supports, and a fresh [`Runner`] for a case.

use std::fmt;

use aesx::Backend;

use super::cases::{Mode, Setup};
#[cfg(feature = "cuda")]
use super::cuda_impl;
use super::peers_siv_ccm_kw as more;
use super::runner::Runner;
use super::{aesx_impl, awslc, peers};

/// Whether a runner file has a mode with a key size.
type SupportsFn = fn(Mode, u32) -> bool;
/// A runner file's keyed runner for a case.
type RunnerFn = fn(Mode, &Setup) -> Result<Box<dyn Runner>, String>;

/// An implementation the benchmark can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Impl {
    /// aesx on one backend.
    Aesx(Backend),
    /// aesx-cuda, the GPU backend (host memory in and out).
    #[cfg(feature = "cuda")]
    Cuda,
    /// OpenSSL (vendored, through EVP).
    OpenSsl,
    /// AWS-LC through aws-lc-rs (GCM, ECB, CBC, CTR; it has no XTS API).
    AwsLc,
    /// ring 0.17 (AES only inside AES-GCM).
    Ring,
    /// RustCrypto `aes`, `ctr`, `cbc`, `xts-mode`, `aes-gcm`.
    RustCrypto,
}

impl Impl {
    /// Every implementation this machine and build can run: the available
    /// aesx backends, slowest first, then the peers.
    pub fn all_available() -> Vec<Impl> {
        let mut v: Vec<Impl> = Backend::available().iter().map(Impl::Aesx).collect();
        #[cfg(feature = "cuda")]
        if cuda_impl::available() {
            v.push(Impl::Cuda);
        }
        v.extend([Impl::OpenSsl, Impl::AwsLc, Impl::Ring, Impl::RustCrypto]);
        v
    }

    /// Parses a row name (`aesx-soft`, `openssl`, ...), or a bare backend
    /// name (`soft`, `vaes512`).
    pub fn parse(s: &str) -> Result<Impl, String> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "openssl" => return Ok(Impl::OpenSsl),
            "aws-lc-rs" | "aws-lc" | "awslc" => return Ok(Impl::AwsLc),
            "ring" => return Ok(Impl::Ring),
            "rustcrypto" => return Ok(Impl::RustCrypto),
            _ => {}
        }
        let bare = s.strip_prefix("aesx-").unwrap_or(&s);
        #[cfg(not(feature = "cuda"))]
        if bare == "cuda" {
            return Err("aesx-cuda: this aesx was built without the `cuda` feature".into());
        }
        #[cfg(feature = "cuda")]
        if bare == "cuda" {
            // Opened here (kernels loaded and self-checked), so that a
            // missing driver, device or NVRTC is one line up front.
            return cuda_impl::gpu_or_why().map(|_| Impl::Cuda);
        }
        let b: Backend = bare.parse().map_err(|_| {
            format!(
                "unknown implementation '{s}' (expected aesx-<backend>, openssl, aws-lc-rs, ring or rustcrypto)"
            )
        })?;
        if !b.is_available() {
            return Err(format!(
                "aesx-{} is not available on this machine",
                b.name()
            ));
        }
        Ok(Impl::Aesx(b))
    }

    /// True for the other libraries.
    pub fn is_peer(self) -> bool {
        match self {
            Impl::Aesx(_) => false,
            #[cfg(feature = "cuda")]
            Impl::Cuda => false,
            Impl::OpenSsl | Impl::AwsLc | Impl::Ring | Impl::RustCrypto => true,
        }
    }

    /// Whether this implementation has the mode and key size.
    pub fn supports(self, mode: Mode, key_bits: u32) -> bool {
        if !mode.has_key_bits(key_bits) {
            return false;
        }
        match self {
            Impl::Aesx(_) => aesx_impl::supports(mode, key_bits),
            #[cfg(feature = "cuda")]
            Impl::Cuda => cuda_impl::supports(mode, key_bits),
            Impl::OpenSsl | Impl::AwsLc | Impl::Ring | Impl::RustCrypto => self
                .peer(mode)
                .is_some_and(|(supports, _)| supports(mode, key_bits)),
        }
    }

    /// A fresh runner for the case (key expanded, state at the start).
    pub fn runner(self, mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
        match self {
            Impl::Aesx(b) => aesx_impl::runner(b, mode, setup),
            #[cfg(feature = "cuda")]
            Impl::Cuda => cuda_impl::runner(mode, setup),
            Impl::OpenSsl | Impl::AwsLc | Impl::Ring | Impl::RustCrypto => match self.peer(mode) {
                Some((_, runner)) => runner(mode, setup),
                None => Err(format!("{self}: not a peer")),
            },
        }
    }

    /// The peer's runner file for `mode`: its `supports` and its `runner`
    /// (the CPU-only modes have their own file). `None` for aesx itself.
    fn peer(self, mode: Mode) -> Option<(SupportsFn, RunnerFn)> {
        Some(match self {
            Impl::OpenSsl if mode.cpu_only() => (more::openssl_supports, more::openssl_runner),
            Impl::RustCrypto if mode.cpu_only() => {
                (more::rustcrypto_supports, more::rustcrypto_runner)
            }
            Impl::OpenSsl => (peers::openssl_supports, peers::openssl_runner),
            Impl::AwsLc => (awslc::supports, awslc::runner),
            Impl::Ring => (peers::ring_supports, peers::ring_runner),
            Impl::RustCrypto => (peers::rustcrypto_supports, peers::rustcrypto_runner),
            Impl::Aesx(_) => return None,
            #[cfg(feature = "cuda")]
            Impl::Cuda => return None,
        })
    }
}

impl fmt::Display for Impl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Impl::Aesx(b) => write!(f, "aesx-{}", b.name()),
            #[cfg(feature = "cuda")]
            Impl::Cuda => f.write_str("aesx-cuda"),
            Impl::OpenSsl => f.write_str("openssl"),
            Impl::AwsLc => f.write_str("aws-lc-rs"),
            Impl::Ring => f.write_str("ring"),
            Impl::RustCrypto => f.write_str("rustcrypto"),
        }
    }
}
