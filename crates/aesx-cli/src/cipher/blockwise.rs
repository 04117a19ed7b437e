//! Streaming for block modes (ECB, CBC): gathers whole blocks, holds back
//! what padding needs at the end, and applies or checks PKCS#7 there.
//!
//! On encryption a partial block (< 16 bytes) waits for more input. On
//! decryption with padding the last whole block waits too, since only at
//! the end of the input is it known to be the one carrying the padding.

use aesx::{Padding, BLOCK_LEN};

use super::{Op, Stream};
use crate::CommandError;

/// What a block mode supplies: whole blocks, and the padded final piece.
pub trait BlockOp {
    /// Processes whole blocks in place, continuing any chain.
    fn blocks(&mut self, op: Op, buf: &mut [u8]) -> aesx::Result<()>;
    /// The final piece under PKCS#7 (the only padding that has one): on
    /// encryption the < 16 leftover bytes, padded into `out`; on decryption
    /// the last block, unpadded into `out`. Returns the bytes written to
    /// `out`.
    fn last(&mut self, op: Op, piece: &[u8], out: &mut [u8]) -> aesx::Result<usize>;
}

/// A block mode as a [`Stream`].
pub struct Blockwise<B> {
    inner: B,
    op: Op,
    padding: Padding,
    mode: String,
    /// Input not yet processed: a partial block, or the held-back last block.
    pending: Vec<u8>,
    /// Input bytes seen, for messages.
    total: u64,
}

impl<B: BlockOp> Blockwise<B> {
    pub fn new(inner: B, op: Op, padding: Padding, mode: &str) -> Self {
        Blockwise {
            inner,
            op,
            padding,
            mode: mode.to_string(),
            pending: Vec::with_capacity(2 * BLOCK_LEN),
            total: 0,
        }
    }

    fn holds_last_block(&self) -> bool {
        self.op == Op::Decrypt && self.padding == Padding::Pkcs7
    }

    fn length_error(&self, len: u64) -> CommandError {
        let what = match self.op {
            Op::Encrypt => "input",
            Op::Decrypt => "ciphertext",
        };
        let hint = match (self.op, self.padding) {
            (Op::Encrypt, Padding::None) => " (use --padding pkcs7 to pad it)",
            _ => "",
        };
        CommandError::failure(format!(
            "{what} is {len} bytes, not a whole number of 16-byte blocks{hint}"
        ))
    }
}

impl<B: BlockOp> Stream for Blockwise<B> {
    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        let whole = len.is_multiple_of(BLOCK_LEN as u64);
        match (self.op, self.padding) {
            (Op::Encrypt, Padding::Pkcs7) => Ok(()),
            (_, Padding::None) | (Op::Decrypt, _) if !whole => Err(self.length_error(len)),
            (Op::Decrypt, Padding::Pkcs7) if len == 0 => Err(empty_error()),
            _ => Ok(()),
        }
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
        self.total += input.len() as u64;
        let start = out.len();
        out.extend_from_slice(&self.pending);
        out.extend_from_slice(input);
        self.pending.clear();
        let have = out.len() - start;
        let mut keep = have % BLOCK_LEN;
        if keep == 0 && self.holds_last_block() {
            keep = BLOCK_LEN.min(have);
        }
        let ready = have - keep;
        self.pending.extend_from_slice(&out[start + ready..]);
        out.truncate(start + ready);
        self.inner.blocks(self.op, &mut out[start..])?;
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError> {
        let pending = std::mem::take(&mut self.pending);
        match (self.op, self.padding) {
            (_, Padding::None) => {
                if !pending.is_empty() {
                    return Err(self.length_error(self.total));
                }
                Ok(())
            }
            (Op::Encrypt, Padding::Pkcs7) => {
                let mut last = [0u8; BLOCK_LEN];
                let n = self.inner.last(self.op, &pending, &mut last)?;
                out.extend_from_slice(&last[..n]);
                Ok(())
            }
            (Op::Decrypt, Padding::Pkcs7) => {
                if self.total == 0 {
                    return Err(empty_error());
                }
                if pending.len() != BLOCK_LEN {
                    return Err(self.length_error(self.total));
                }
                let mut last = [0u8; BLOCK_LEN];
                let n = self
                    .inner
                    .last(self.op, &pending, &mut last)
                    .map_err(|e| match e {
                        aesx::Error::BadPadding => CommandError::failure(format!(
                            "bad padding on decryption ({}: wrong key or IV, or corrupted \
                             or unpadded input)",
                            self.mode
                        )),
                        e => e.into(),
                    })?;
                out.extend_from_slice(&last[..n]);
                Ok(())
            }
        }
    }
}

fn empty_error() -> CommandError {
    CommandError::failure("ciphertext is empty; PKCS#7 padded ciphertext is at least one block")
}
