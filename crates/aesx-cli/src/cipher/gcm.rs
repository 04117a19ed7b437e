//! `--mode gcm`: AES-GCM with `--iv` of any non-zero length (12 bytes is the
//! usual), optional `--aad`, and `--tag-len` (16 by default; 15, 14, 13, 12,
//! 8 or 4). Encryption writes the ciphertext followed by the tag; decryption
//! takes the tag from the end of its input and releases nothing at all
//! unless the tag verifies.
//!
//! Both directions stream with bounded memory (a 256 KiB buffer). Decryption
//! holds back the last `tag_len` bytes it has read (they may be the tag) and
//! writes the unauthenticated plaintext to the output's temporary file: a
//! named output is published only once the tag verified, and deleted
//! otherwise. Standard output and devices cannot take bytes back, so for
//! them the plaintext is spooled to an unnamed temporary file in `$TMPDIR`
//! and copied out after verification ([`OutputOpts::hold_back`]). GCM caps
//! a message at 2^36 - 32 bytes.
//!
//! [`OutputOpts::hold_back`]: crate::file::output::OutputOpts

use std::io::Read;

use aesx::hazmat::GcmDecryptorHazmat;
use aesx::{Error, Gcm};
use zeroize::Zeroizing;

use super::{hex_arg, read_some, Op, Params, CHUNK};
use crate::file::output::Output;
use crate::CommandError;

/// A GCM encryption or decryption, ready to run.
pub struct GcmJob {
    gcm: Gcm,
    op: Op,
    iv: Vec<u8>,
    aad: Vec<u8>,
}

fn too_long(len: u64) -> CommandError {
    CommandError::failure(format!(
        "input of {len} bytes is longer than GCM allows (2^36 - 32 bytes of plaintext)"
    ))
}

impl GcmJob {
    fn tag_len(&self) -> usize {
        self.gcm.tag_len()
    }

    fn short_error(&self, len: u64) -> CommandError {
        CommandError::failure(format!(
            "the input is {len} bytes, shorter than the {}-byte GCM tag it must end with \
             (truncated, or not GCM output); nothing written",
            self.tag_len()
        ))
    }

    /// Refuses, before anything is read, an input of the wrong length.
    pub fn check_len(&self, len: u64) -> Result<(), CommandError> {
        let tag = self.tag_len() as u64;
        match self.op {
            Op::Encrypt if len > Gcm::MAX_PLAINTEXT_LEN => Err(too_long(len)),
            Op::Decrypt if len < tag => Err(self.short_error(len)),
            Op::Decrypt if len - tag > Gcm::MAX_PLAINTEXT_LEN => Err(too_long(len)),
            _ => Ok(()),
        }
    }

    /// Streams `input` through GCM into `out` (not committed).
    pub fn run(self, input: &mut dyn Read, out: &mut Output) -> Result<(), CommandError> {
        match self.op {
            Op::Encrypt => self.encrypt(input, out),
            Op::Decrypt => self.decrypt(input, out),
        }
    }

    fn encrypt(&self, input: &mut dyn Read, out: &mut Output) -> Result<(), CommandError> {
        let mut enc = self.gcm.encryptor(&self.iv)?;
        enc.aad(&self.aad)?;
        let mut buf = Zeroizing::new(vec![0u8; CHUNK]);
        let mut total = 0u64;
        loop {
            let n = read_some(input, &mut buf)?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total > Gcm::MAX_PLAINTEXT_LEN {
                return Err(too_long(total));
            }
            enc.encrypt_in_place(&mut buf[..n])?;
            out.write_all(&buf[..n])?;
        }
        out.write_all(enc.finish().as_bytes())
    }

    fn decrypt(&self, input: &mut dyn Read, out: &mut Output) -> Result<(), CommandError> {
        let tag_len = self.tag_len();
        let mut dec = GcmDecryptorHazmat::new(&self.gcm, &self.iv)?;
        dec.aad(&self.aad)?;
        // `held[..have]`: bytes read but not yet decrypted; the last
        // `tag_len` of them are kept back, as they may be the tag.
        let mut held = Zeroizing::new(vec![0u8; CHUNK + tag_len]);
        let mut have = 0;
        let mut total = 0u64;
        loop {
            let n = read_some(input, &mut held[have..])?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total.saturating_sub(tag_len as u64) > Gcm::MAX_PLAINTEXT_LEN {
                return Err(too_long(total));
            }
            have += n;
            if have == held.len() {
                let ready = have - tag_len;
                dec.decrypt_in_place(&mut held[..ready])?;
                out.write_all(&held[..ready])?;
                held.copy_within(ready..have, 0);
                have = tag_len;
            }
        }
        if have < tag_len {
            return Err(self.short_error(total));
        }
        let ready = have - tag_len;
        dec.decrypt_in_place(&mut held[..ready])?;
        out.write_all(&held[..ready])?;
        match dec.finish(&held[ready..have]) {
            Ok(()) => Ok(()),
            Err(Error::AuthenticationFailed) => Err(CommandError::failure(format!(
                "authentication failed: the {tag_len}-byte tag at the end of the input does \
                 not match (wrong key, IV, AAD or tag length, or altered data); nothing written"
            ))),
            Err(e) => Err(e.into()),
        }
    }
}

/// The GCM job for `p`.
pub fn job(p: &Params) -> Result<GcmJob, CommandError> {
    p.no_padding()?;
    let iv =
        p.iv.clone()
            .ok_or_else(|| CommandError::usage("--iv is required for gcm (12 bytes usual)"))?;
    if iv.is_empty() {
        return Err(CommandError::usage("--iv: gcm needs at least one byte"));
    }
    let aad = match &p.args.aad {
        Some(s) => hex_arg("--aad", s)?,
        None => Vec::new(),
    };
    let tag_len = p.args.tag_len.unwrap_or(16);
    let gcm = Gcm::with_backend(p.aes_key()?, p.backend)?
        .with_tag_len(tag_len)
        .map_err(|_| {
            CommandError::usage(format!(
                "--tag-len {tag_len}: GCM tags are 16, 15, 14, 13, 12, 8 or 4 bytes"
            ))
        })?;
    Ok(GcmJob {
        gcm,
        op: p.op,
        iv,
        aad,
    })
}
