//! `--mode ecb`: no IV; PKCS#7 padding by default (as `openssl enc`).

use aesx::{Ecb, Padding};

use super::blockwise::{BlockOp, Blockwise};
use super::{Op, Params, Stream};
use crate::CommandError;

impl BlockOp for Ecb {
    fn blocks(&mut self, op: Op, buf: &mut [u8]) -> aesx::Result<()> {
        match op {
            Op::Encrypt => self.encrypt_in_place(buf),
            Op::Decrypt => self.decrypt_in_place(buf),
        }
    }

    fn last(&mut self, op: Op, piece: &[u8], out: &mut [u8]) -> aesx::Result<usize> {
        match op {
            Op::Encrypt => self.encrypt(piece, out, Padding::Pkcs7),
            Op::Decrypt => self.decrypt(piece, out, Padding::Pkcs7),
        }
    }
}

/// The ECB stream for `p`.
pub fn stream(p: &Params) -> Result<Box<dyn Stream>, CommandError> {
    p.no_iv()?;
    let ecb = Ecb::with_backend(p.aes_key()?, p.backend)?;
    let padding = p.padding.unwrap_or(Padding::Pkcs7);
    Ok(Box::new(Blockwise::new(ecb, p.op, padding, &p.mode)))
}
