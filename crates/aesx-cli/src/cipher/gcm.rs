//! `--mode gcm`: AES-GCM with `--iv` of any non-zero length (12 bytes is the
//! usual), optional `--aad`, and `--tag-len` (16 by default; 15, 14, 13, 12,
//! 8 or 4). Encryption writes the ciphertext followed by the tag; decryption
//! takes the tag from the end of its input and writes nothing at all unless
//! the tag verifies.
//!
//! Unlike the other modes, GCM holds the whole message in memory: nothing
//! may be written before the tag is checked (standard output cannot be taken
//! back), and the message is then sealed or opened in one call. GCM itself
//! caps a message at 2^36 - 32 bytes.

use aesx::{Error, Gcm};

use super::{hex_arg, Op, Params, Stream};
use crate::CliError;

struct GcmStream {
    gcm: Gcm,
    op: Op,
    iv: Vec<u8>,
    aad: Vec<u8>,
    data: Vec<u8>,
}

impl Drop for GcmStream {
    fn drop(&mut self) {
        // Plaintext (encryption input, or decryption output) is wiped.
        self.data.fill(0);
    }
}

impl GcmStream {
    fn limit(&self) -> u64 {
        match self.op {
            Op::Encrypt => Gcm::MAX_PLAINTEXT_LEN,
            Op::Decrypt => Gcm::MAX_PLAINTEXT_LEN + self.gcm.tag_len() as u64,
        }
    }
}

impl Stream for GcmStream {
    fn check_len(&self, len: u64) -> Result<(), CliError> {
        if len > self.limit() {
            return Err(CliError::failure(format!(
                "input of {len} bytes is longer than GCM allows (2^36 - 32 bytes of plaintext)"
            )));
        }
        Ok(())
    }

    fn update(&mut self, input: &[u8], _out: &mut Vec<u8>) -> Result<(), CliError> {
        self.check_len(self.data.len() as u64 + input.len() as u64)?;
        self.data.extend_from_slice(input);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CliError> {
        match self.op {
            Op::Encrypt => {
                out.extend_from_slice(&self.gcm.seal(&self.iv, &self.aad, &self.data)?);
            }
            Op::Decrypt => {
                let tag_len = self.gcm.tag_len();
                match self.gcm.open_in_place(&self.iv, &self.aad, &mut self.data) {
                    Ok(pt) => out.extend_from_slice(pt),
                    Err(Error::AuthenticationFailed) => {
                        return Err(CliError::failure(format!(
                            "authentication failed: the {tag_len}-byte tag at the end of the \
                             input does not match (wrong key, IV, AAD or tag length, or \
                             altered data); nothing written"
                        )))
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    }
}

/// The GCM stream for `p`.
pub fn stream(p: &Params) -> Result<Box<dyn Stream>, CliError> {
    p.no_padding()?;
    let iv =
        p.iv.clone()
            .ok_or_else(|| CliError::usage("--iv is required for gcm (12 bytes usual)"))?;
    if iv.is_empty() {
        return Err(CliError::usage("--iv: gcm needs at least one byte"));
    }
    let aad = match &p.args.aad {
        Some(s) => hex_arg("--aad", s)?,
        None => Vec::new(),
    };
    let tag_len = p.args.tag_len.unwrap_or(16);
    let gcm = Gcm::with_backend(p.aes_key()?, p.backend)?
        .with_tag_len(tag_len)
        .map_err(|_| {
            CliError::usage(format!(
                "--tag-len {tag_len}: GCM tags are 16, 15, 14, 13, 12, 8 or 4 bytes"
            ))
        })?;
    Ok(Box::new(GcmStream {
        gcm,
        op: p.op,
        iv,
        aad,
        data: Vec::new(),
    }))
}
