//! `--mode kw|kwp`: AES key wrap (RFC 3394, NIST SP 800-38F KW) and key
//! wrap with padding (RFC 5649, KWP). `encrypt` wraps the input, `decrypt`
//! unwraps it; the bytes are pyca/cryptography's `aes_key_wrap` and
//! `aes_key_wrap_with_padding` (and OpenSSL's `id-aes*-wrap[-pad]`).
//!
//! Key wrap is a whole-message transform (every output block depends on
//! every input block), so the input is read whole and the output written
//! only after the unwrap's integrity check passed: a failed unwrap writes
//! nothing.

use aesx::KeyWrap;
use zeroize::Zeroizing;

use super::{Op, Params, Whole};
use crate::CommandError;

/// KW (RFC 3394) or KWP (RFC 5649).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Input a multiple of 8 bytes, at least 16.
    Kw,
    /// Input of 1 to 2^32 - 1 bytes, padded.
    Kwp,
}

/// KW's or KWP's length rule for an input of `len` bytes to `op`, as one
/// line, or `None` if the length is allowed.
pub fn length_problem(v: Variant, op: Op, len: u64) -> Option<String> {
    match (v, op) {
        (Variant::Kw, Op::Encrypt) if len < 16 || !len.is_multiple_of(8) => Some(format!(
            "kw wraps a multiple of 8 bytes, at least 16; the input is {len} bytes \
             (--mode kwp takes any length)"
        )),
        (Variant::Kw, Op::Decrypt) if len < 24 || !len.is_multiple_of(8) => Some(format!(
            "a kw-wrapped key is a multiple of 8 bytes, at least 24; the input is {len} bytes"
        )),
        (Variant::Kwp, Op::Encrypt) if len == 0 || len > u64::from(u32::MAX) => Some(format!(
            "kwp wraps 1 to 2^32 - 1 bytes; the input is {len} bytes"
        )),
        (Variant::Kwp, Op::Decrypt) if len < 16 || !len.is_multiple_of(8) => Some(format!(
            "a kwp-wrapped key is a multiple of 8 bytes, at least 16; the input is {len} bytes"
        )),
        _ => None,
    }
}

struct WrapJob {
    kw: KeyWrap,
    variant: Variant,
    op: Op,
}

impl Whole for WrapJob {
    fn max_input(&self) -> u64 {
        match (self.variant, self.op) {
            (Variant::Kwp, Op::Encrypt) => u64::from(u32::MAX),
            (Variant::Kwp, Op::Decrypt) => u64::from(u32::MAX) + 16,
            (Variant::Kw, _) => u64::MAX,
        }
    }

    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        match length_problem(self.variant, self.op, len) {
            Some(msg) => Err(CommandError::failure(format!("{msg}; nothing written"))),
            None => Ok(()),
        }
    }

    fn run(&self, input: &[u8]) -> Result<Zeroizing<Vec<u8>>, CommandError> {
        self.check_len(input.len() as u64)?;
        let r = match (self.variant, self.op) {
            (Variant::Kw, Op::Encrypt) => self.kw.wrap(input),
            (Variant::Kw, Op::Decrypt) => self.kw.unwrap(input),
            (Variant::Kwp, Op::Encrypt) => self.kw.wrap_pad(input),
            (Variant::Kwp, Op::Decrypt) => self.kw.unwrap_pad(input),
        };
        match r {
            Ok(out) => Ok(Zeroizing::new(out)),
            Err(aesx::Error::AuthenticationFailed) => Err(CommandError::failure(
                "unwrap failed: the integrity check does not pass (wrong key or mode, or \
                 altered data); nothing written",
            )),
            Err(e) => Err(e.into()),
        }
    }
}

/// The job for `variant` from the command line.
pub fn job(variant: Variant, p: &Params) -> Result<Box<dyn Whole>, CommandError> {
    p.no_padding()?;
    p.no_iv()?;
    Ok(Box::new(WrapJob {
        kw: KeyWrap::with_backend(p.aes_key()?, p.backend)?,
        variant,
        op: p.op,
    }))
}
