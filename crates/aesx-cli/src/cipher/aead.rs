//! `--mode gcm-siv|xaes|ccm`: the one-shot AEADs without a stream (AES-GCM-SIV,
//! RFC 8452; XAES-256-GCM, c2sp.org; CCM, SP 800-38C). Encryption writes the
//! ciphertext followed by the tag, as `--mode gcm` and pyca/cryptography's
//! `encrypt` do; decryption takes the tag from the end of its input.
//!
//! GCM-SIV derives its counter from a MAC over the whole message, and CCM's
//! first MAC block carries the message length, which a pipe does not tell
//! in advance; XAES-256-GCM is GCM underneath, but the library offers it
//! one-shot. So the input is read whole (into zeroized memory), sealed or
//! opened in one call, and only then written: a decryption whose tag does
//! not verify writes nothing at all.
//!
//! [`Aead`] is also what `aesx cavp` calls, so the three
//! types are driven by one code path everywhere in the CLI.

use aesx::{Backend, Ccm, GcmSiv, Tag, Xaes256Gcm};
use zeroize::Zeroizing;

use super::{hex_arg, Op, Params, Whole};
use crate::CommandError;

/// The AEAD families of this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// AES-GCM-SIV (16- or 32-byte keys, 12-byte nonce, 16-byte tag).
    GcmSiv,
    /// XAES-256-GCM (32-byte key, 24-byte nonce, 16-byte tag).
    Xaes,
    /// CCM (16/24/32-byte keys, 7..=13-byte nonce, 4..=16-byte even tag).
    Ccm,
}

impl Kind {
    /// The `--mode` name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::GcmSiv => "gcm-siv",
            Kind::Xaes => "xaes",
            Kind::Ccm => "ccm",
        }
    }

    /// Whether `len` is a key length of this family.
    fn key_ok(self, len: usize) -> bool {
        match self {
            Kind::GcmSiv => matches!(len, 16 | 24 | 32),
            Kind::Xaes => len == 32,
            Kind::Ccm => matches!(len, 16 | 24 | 32),
        }
    }

    /// The key lengths, for messages.
    fn key_sizes(self) -> &'static str {
        match self {
            Kind::GcmSiv => "16, 24 or 32 bytes (32, 48 or 64 hex digits)",
            Kind::Xaes => "32 bytes (64 hex digits)",
            Kind::Ccm => "16, 24 or 32 bytes (32, 48 or 64 hex digits)",
        }
    }

    /// Whether `len` is a nonce length of this family.
    fn nonce_ok(self, len: usize) -> bool {
        match self {
            Kind::GcmSiv => len == 12,
            Kind::Xaes => len == 24,
            Kind::Ccm => (7..=13).contains(&len),
        }
    }

    /// The nonce lengths, for messages.
    fn nonce_sizes(self) -> &'static str {
        match self {
            Kind::GcmSiv => "12 bytes (24 hex digits)",
            Kind::Xaes => "24 bytes (48 hex digits)",
            Kind::Ccm => "7 to 13 bytes (14 to 26 hex digits)",
        }
    }

    /// The longest plaintext: GCM-SIV's 2^36 bytes, GCM's 2^36 - 32 for
    /// XAES (whose messages are GCM messages), and for CCM what its length
    /// field of `15 - nonce_len` bytes can count (capped at what a u64 holds).
    pub fn max_plaintext(self, nonce_len: usize) -> u64 {
        match self {
            Kind::GcmSiv => 1 << 36,
            Kind::Xaes => (1 << 36) - 32,
            Kind::Ccm => {
                let q = 15usize.saturating_sub(nonce_len);
                if q >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * q)) - 1
                }
            }
        }
    }
}

/// The library's three one-shot AEAD types. Their four calls have the
/// same names and signatures (the library keeps them alike), so [`each!`] lets
/// one code path drive all three.
enum Raw {
    GcmSiv(GcmSiv),
    Xaes(Xaes256Gcm),
    Ccm(Ccm),
}

/// `$call` on whichever type `$raw` holds, named `$a`.
macro_rules! each {
    ($raw:expr, $a:ident => $call:expr) => {
        match $raw {
            Raw::GcmSiv($a) => $call,
            Raw::Xaes($a) => $call,
            Raw::Ccm($a) => $call,
        }
    };
}

/// A one-shot AEAD of any of the three families, as the CLI drives it.
pub struct Aead {
    /// Its family.
    pub kind: Kind,
    /// Its tag length in bytes.
    pub tag_len: usize,
    raw: Raw,
}

impl Aead {
    /// The AEAD of `kind` with `key` on `backend`; `tag_len` is CCM's (the
    /// others' tags are 16 bytes, and another length is refused).
    pub fn new(kind: Kind, key: &[u8], tag_len: usize, backend: Backend) -> aesx::Result<Aead> {
        if kind != Kind::Ccm && tag_len != 16 {
            return Err(aesx::Error::InvalidTagLength { len: tag_len });
        }
        let raw = match kind {
            Kind::GcmSiv => Raw::GcmSiv(GcmSiv::with_backend(key, backend)?),
            Kind::Xaes => Raw::Xaes(Xaes256Gcm::with_backend(key, backend)?),
            Kind::Ccm => Raw::Ccm(Ccm::with_backend(key, tag_len, backend)?),
        };
        Ok(Aead { kind, tag_len, raw })
    }

    /// `ct || tag`.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> aesx::Result<Vec<u8>> {
        each!(&self.raw, a => a.seal(nonce, aad, pt))
    }

    /// The plaintext of `ct || tag`, or an error with nothing released.
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> aesx::Result<Vec<u8>> {
        each!(&self.raw, a => a.open(nonce, aad, ct_and_tag))
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> aesx::Result<Tag> {
        each!(&self.raw, a => a.seal_in_place_detached(nonce, aad, buf))
    }

    /// Decrypts `buf` in place if `tag` verifies (else `buf` is zeroed).
    pub fn open_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> aesx::Result<()> {
        each!(&self.raw, a => a.open_in_place_detached(nonce, aad, buf, tag))
    }
}

/// A sealing or opening of one whole input.
struct AeadJob {
    kind: Kind,
    aead: Aead,
    op: Op,
    nonce: Vec<u8>,
    aad: Vec<u8>,
}

impl AeadJob {
    fn too_long(&self, len: u64) -> CommandError {
        CommandError::failure(format!(
            "input of {len} bytes is longer than {} allows with this nonce ({} bytes of \
             plaintext); nothing written",
            self.kind.name(),
            self.kind.max_plaintext(self.nonce.len())
        ))
    }
}

impl Whole for AeadJob {
    fn max_input(&self) -> u64 {
        let max = self.kind.max_plaintext(self.nonce.len());
        match self.op {
            Op::Encrypt => max,
            Op::Decrypt => max.saturating_add(self.aead.tag_len as u64),
        }
    }

    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        let tag = self.aead.tag_len as u64;
        let max = self.kind.max_plaintext(self.nonce.len());
        match self.op {
            Op::Encrypt if len > max => Err(self.too_long(len)),
            Op::Decrypt if len < tag => Err(CommandError::failure(format!(
                "the input is {len} bytes, shorter than the {tag}-byte {} tag it must end \
                 with (truncated, or not {} output); nothing written",
                self.kind.name(),
                self.kind.name()
            ))),
            Op::Decrypt if len - tag > max => Err(self.too_long(len - tag)),
            _ => Ok(()),
        }
    }

    fn run(&self, input: &[u8]) -> Result<Zeroizing<Vec<u8>>, CommandError> {
        self.check_len(input.len() as u64)?;
        let r = match self.op {
            Op::Encrypt => self.aead.seal(&self.nonce, &self.aad, input),
            Op::Decrypt => self.aead.open(&self.nonce, &self.aad, input),
        };
        match r {
            Ok(out) => Ok(Zeroizing::new(out)),
            Err(aesx::Error::AuthenticationFailed) => Err(CommandError::failure(format!(
                "authentication failed: the {}-byte tag at the end of the input does not \
                 match (wrong key, nonce, AAD or tag length, or altered data); nothing written",
                self.aead.tag_len
            ))),
            Err(aesx::Error::MessageTooLong) => Err(self.too_long(input.len() as u64)),
            Err(e) => Err(e.into()),
        }
    }
}

/// The job for `kind` from the command line.
pub fn job(kind: Kind, p: &Params) -> Result<Box<dyn Whole>, CommandError> {
    let name = kind.name();
    p.no_padding()?;
    if !kind.key_ok(p.key.len()) {
        return Err(CommandError::usage(format!(
            "--key: {} bytes; {name} keys are {}",
            p.key.len(),
            kind.key_sizes()
        )));
    }
    let nonce = p.iv.clone().ok_or_else(|| {
        CommandError::usage(format!(
            "--iv (the nonce) is required for {name}: {}",
            kind.nonce_sizes()
        ))
    })?;
    if !kind.nonce_ok(nonce.len()) {
        return Err(CommandError::usage(format!(
            "--iv: {} bytes; the {name} nonce is {}",
            nonce.len(),
            kind.nonce_sizes()
        )));
    }
    let tag_len = match (kind, p.args.tag_len) {
        (Kind::Ccm, Some(t)) if !(4..=16).contains(&t) || t % 2 != 0 => {
            return Err(CommandError::usage(format!(
                "--tag-len {t}: CCM tags are 4, 6, 8, 10, 12, 14 or 16 bytes"
            )))
        }
        (Kind::Ccm, Some(t)) => t,
        (_, Some(t)) if t != 16 => {
            return Err(CommandError::usage(format!(
                "--tag-len {t}: {name} tags are always 16 bytes"
            )))
        }
        _ => 16,
    };
    let aad = match &p.args.aad {
        Some(s) => hex_arg("--aad", s)?,
        None => Vec::new(),
    };
    Ok(Box::new(AeadJob {
        kind,
        aead: Aead::new(kind, &p.key, tag_len, p.backend)?,
        op: p.op,
        nonce,
        aad,
    }))
}
