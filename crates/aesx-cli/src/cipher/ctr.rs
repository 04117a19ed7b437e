//! `--mode ctr`: the IV is the whole initial counter block, incremented as
//! a 128-bit big-endian number (as `openssl enc -aes-*-ctr`); no padding,
//! any length.

use aesx::Ctr;

use super::{Params, Stream};
use crate::CommandError;

struct CtrStream(Ctr);

impl Stream for CtrStream {
    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
        let start = out.len();
        out.extend_from_slice(input);
        self.0.apply_keystream(&mut out[start..]);
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<u8>) -> Result<(), CommandError> {
        Ok(())
    }
}

/// The CTR stream for `p`.
pub fn stream(p: &Params) -> Result<Box<dyn Stream>, CommandError> {
    p.no_padding()?;
    let iv = p.iv16()?;
    let ctr = Ctr::with_backend(p.aes_key()?, &iv, p.backend)?;
    Ok(Box::new(CtrStream(ctr)))
}
