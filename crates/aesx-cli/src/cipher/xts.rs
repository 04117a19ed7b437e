//! `--mode xts`: XTS-AES (IEEE 1619) with a 32- or 64-byte key (two AES keys:
//! data key, then tweak key).
//!
//! Two shapes:
//! - one data unit (the whole input, 16 bytes to 16 MiB, ciphertext stealing
//!   for a partial last block) with `--tweak HEX` (16 bytes) or `--sector N`
//!   (the tweak is N as a 128-bit little-endian number, IEEE 1619's
//!   data-unit sequence number);
//! - with `--sector-size S`: a disk image of consecutive S-byte sectors,
//!   numbered from `--sector N` (default 0); streamed sector by sector, the
//!   output as long as the input, which must be a whole number of sectors.

use aesx::Xts;

use super::{hex_arg, Op, Params, Stream};
use crate::CommandError;

enum Shape {
    /// One data unit with this (unencrypted) tweak.
    Unit([u8; 16]),
    /// Sectors of `size` bytes; `next` is the number of the next one, `None`
    /// once sector 2^128 - 1 (the last there is) has been processed.
    Sectors { size: usize, next: Option<u128> },
}

struct XtsStream {
    xts: Xts,
    op: Op,
    shape: Shape,
    /// Input not yet processed (the whole unit, or a partial sector).
    buf: Vec<u8>,
    /// Bytes seen so far, for messages.
    seen: u64,
}

impl XtsStream {
    fn sectors(&mut self, size: usize, next: u128, data: &mut [u8]) -> Result<(), CommandError> {
        match self.op {
            Op::Encrypt => self.xts.encrypt_sectors(size, next, data)?,
            Op::Decrypt => self.xts.decrypt_sectors(size, next, data)?,
        }
        Ok(())
    }
}

impl Stream for XtsStream {
    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        match self.shape {
            Shape::Unit(_) => {
                if len < Xts::MIN_DATA_UNIT_LEN as u64 || len > Xts::MAX_DATA_UNIT_LEN as u64 {
                    return Err(CommandError::failure(format!(
                        "xts: the input ({len} bytes) is one data unit and must be 16 bytes \
                         to 16 MiB (use --sector-size for a disk image)"
                    )));
                }
            }
            Shape::Sectors { size, .. } => {
                if !len.is_multiple_of(size as u64) {
                    return Err(CommandError::failure(format!(
                        "xts: the input ({len} bytes) is not a whole number of {size}-byte sectors"
                    )));
                }
            }
        }
        Ok(())
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
        self.seen += input.len() as u64;
        // A data unit gathers up to 16 MiB: out of memory is an error line.
        self.buf.try_reserve(input.len()).map_err(|_| {
            CommandError::failure(format!(
                "out of memory: cannot hold {} bytes of the data unit",
                self.buf.len() + input.len()
            ))
        })?;
        self.buf.extend_from_slice(input);
        match self.shape {
            Shape::Unit(_) => {
                if self.buf.len() > Xts::MAX_DATA_UNIT_LEN {
                    return Err(CommandError::failure(
                        "xts: the input is longer than one data unit may be (16 MiB); \
                         use --sector-size for a disk image",
                    ));
                }
            }
            Shape::Sectors { size, next } => {
                let count = self.buf.len() / size;
                if count > 0 {
                    let next = next.ok_or_else(|| {
                        CommandError::failure("xts: sector numbers pass 2^128 - 1")
                    })?;
                    // The last sector of this batch must exist: next + count - 1.
                    let last = next.checked_add(count as u128 - 1).ok_or_else(|| {
                        CommandError::failure("xts: sector numbers pass 2^128 - 1")
                    })?;
                    let mut whole: Vec<u8> = self.buf.drain(..count * size).collect();
                    self.sectors(size, next, &mut whole)?;
                    out.extend_from_slice(&whole);
                    self.shape = Shape::Sectors {
                        size,
                        next: last.checked_add(1),
                    };
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError> {
        match self.shape {
            Shape::Unit(tweak) => {
                let mut unit = std::mem::take(&mut self.buf);
                match self.op {
                    Op::Encrypt => self.xts.encrypt(&tweak, &mut unit)?,
                    Op::Decrypt => self.xts.decrypt(&tweak, &mut unit)?,
                }
                out.extend_from_slice(&unit);
            }
            Shape::Sectors { size, .. } => {
                if !self.buf.is_empty() {
                    return Err(CommandError::failure(format!(
                        "xts: the input ({} bytes) is not a whole number of {size}-byte sectors",
                        self.seen
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The XTS stream for `p`.
pub fn stream(p: &Params) -> Result<Box<dyn Stream>, CommandError> {
    p.no_iv()?;
    p.no_padding()?;
    let a = p.args;
    if !matches!(p.key.len(), 32 | 64) {
        return Err(CommandError::usage(format!(
            "--key: {} bytes; XTS keys are 32 or 64 bytes (64 or 128 hex digits: data key, then tweak key)",
            p.key.len()
        )));
    }
    let shape = match (a.tweak.as_deref(), a.sector, a.sector_size) {
        (Some(_), _, Some(_)) => {
            return Err(CommandError::usage(
                "--tweak cannot be used with --sector-size (sector tweaks come from --sector)",
            ))
        }
        (Some(_), Some(_), None) => {
            return Err(CommandError::usage(
                "give either --tweak or --sector, not both",
            ))
        }
        (Some(t), None, None) => {
            let t = hex_arg("--tweak", t)?;
            Shape::Unit(t.as_slice().try_into().map_err(|_| {
                CommandError::usage(format!(
                    "--tweak: {} bytes; XTS tweaks are 16 bytes (32 hex digits)",
                    t.len()
                ))
            })?)
        }
        (None, Some(n), None) => Shape::Unit(Xts::sector_tweak(n)),
        (None, None, None) => {
            return Err(CommandError::usage(
                "xts needs --tweak HEX or --sector N (or --sector-size S for a disk image)",
            ))
        }
        (None, n, Some(size)) => {
            if size < 16 || !size.is_multiple_of(16) || size > Xts::MAX_DATA_UNIT_LEN {
                return Err(CommandError::usage(format!(
                    "--sector-size {size}: must be a multiple of 16 from 16 to 16777216"
                )));
            }
            Shape::Sectors {
                size,
                next: Some(n.unwrap_or(0)),
            }
        }
    };
    let xts = Xts::with_backend(&p.key, p.backend)?;
    Ok(Box::new(XtsStream {
        xts,
        op: p.op,
        shape,
        buf: Vec::new(),
        seen: 0,
    }))
}
