//! `--mode cbc`: 16-byte IV; PKCS#7 padding by default (as `openssl enc`).

use aesx::{Block, Cbc, Padding};

use super::blockwise::{BlockOp, Blockwise};
use super::{Op, Params, Stream};
use crate::CommandError;

/// CBC with its running chain value (the IV for the next block).
struct Chained {
    cbc: Cbc,
    chain: Block,
}

impl BlockOp for Chained {
    fn blocks(&mut self, op: Op, buf: &mut [u8]) -> aesx::Result<()> {
        match op {
            Op::Encrypt => self.cbc.encrypt_chained(&mut self.chain, buf),
            Op::Decrypt => self.cbc.decrypt_chained(&mut self.chain, buf),
        }
    }

    fn last(&mut self, op: Op, piece: &[u8], out: &mut [u8]) -> aesx::Result<usize> {
        match op {
            Op::Encrypt => self.cbc.encrypt(&self.chain, piece, out, Padding::Pkcs7),
            Op::Decrypt => self.cbc.decrypt(&self.chain, piece, out, Padding::Pkcs7),
        }
    }
}

/// The CBC stream for `p`.
pub fn stream(p: &Params) -> Result<Box<dyn Stream>, CommandError> {
    let chain = p.iv16()?;
    let cbc = Cbc::with_backend(p.aes_key()?, p.backend)?;
    let padding = p.padding.unwrap_or(Padding::Pkcs7);
    Ok(Box::new(Blockwise::new(
        Chained { cbc, chain },
        p.op,
        padding,
        &p.mode,
    )))
}
