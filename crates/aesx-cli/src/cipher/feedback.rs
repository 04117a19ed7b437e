//! `--mode cfb|cfb8|ofb`: the legacy feedback modes, 16-byte IV, no
//! padding, any length; the same bytes as `openssl enc -aes-*-cfb`
//! (CFB128), `-cfb8` and `-ofb`.

use aesx::{Cfb, Cfb8, Ofb};

use super::{Op, Params, Stream};
use crate::CommandError;

/// Which feedback mode.
#[derive(Clone, Copy)]
pub enum Kind {
    Cfb,
    Cfb8,
    Ofb,
}

enum Feedback {
    Cfb(Cfb),
    Cfb8(Cfb8),
    Ofb(Ofb),
}

struct FeedbackStream {
    mode: Feedback,
    encrypt: bool,
}

impl Stream for FeedbackStream {
    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
        let start = out.len();
        out.extend_from_slice(input);
        let buf = &mut out[start..];
        match (&mut self.mode, self.encrypt) {
            (Feedback::Cfb(c), true) => c.encrypt(buf),
            (Feedback::Cfb(c), false) => c.decrypt(buf),
            (Feedback::Cfb8(c), true) => c.encrypt(buf),
            (Feedback::Cfb8(c), false) => c.decrypt(buf),
            (Feedback::Ofb(o), _) => o.apply_keystream(buf),
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<u8>) -> Result<(), CommandError> {
        Ok(())
    }
}

/// The CFB, CFB8 or OFB stream for `p`.
pub fn stream(kind: Kind, p: &Params) -> Result<Box<dyn Stream>, CommandError> {
    p.no_padding()?;
    let iv = p.iv16()?;
    let (key, b) = (p.aes_key()?, p.backend);
    let mode = match kind {
        Kind::Cfb => Feedback::Cfb(Cfb::with_backend(key, &iv, b)?),
        Kind::Cfb8 => Feedback::Cfb8(Cfb8::with_backend(key, &iv, b)?),
        Kind::Ofb => Feedback::Ofb(Ofb::with_backend(key, &iv, b)?),
    };
    Ok(Box::new(FeedbackStream {
        mode,
        encrypt: p.op == Op::Encrypt,
    }))
}
