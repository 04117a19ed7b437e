//! The table's file I/O: reading an input file whole, writing an output,
//! the plain copy the end-to-end times are held against, and AES-256-ECB
//! end to end (read, pad, crypt, write) on either side.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use super::side::{Dir, Side, KEY};

/// AES-256-ECB end to end: read `input` into `buf`, pad (encrypting) or
/// check and strip the padding (decrypting), crypt, write `output`.
pub(super) fn ecb_e2e(
    side: &dyn Side,
    dir: Dir,
    buf: &mut [u8],
    input: &Path,
    output: &Path,
) -> Result<(), String> {
    let len = read_into(buf, input)?;
    let n = match dir {
        Dir::Enc => {
            let pad = 16 - len % 16;
            buf[len..len + pad].fill(pad as u8);
            side.ecb(&KEY, dir, &mut buf[..len + pad])?;
            len + pad
        }
        Dir::Dec => {
            if len == 0 || !len.is_multiple_of(16) {
                return Err(format!("{}: not whole blocks", input.display()));
            }
            side.ecb(&KEY, dir, &mut buf[..len])?;
            let pad = usize::from(buf[len - 1]);
            if !(1..=16).contains(&pad)
                || buf[len - pad..len].iter().any(|&b| usize::from(b) != pad)
            {
                return Err(format!("{}: bad padding", input.display()));
            }
            len - pad
        }
    };
    write_from(&buf[..n], output)
}

/// Reads the whole file into the start of `buf` (16 bytes to spare, for
/// the padding); its length.
pub(super) fn read_into(buf: &mut [u8], input: &Path) -> Result<usize, String> {
    let e = |e: std::io::Error| format!("reading {}: {e}", input.display());
    let mut f = File::open(input).map_err(e)?;
    let len = f.metadata().map_err(e)?.len() as usize;
    if len + 16 > buf.len() {
        return Err(format!("internal: {} outgrew its buffer", input.display()));
    }
    f.read_exact(&mut buf[..len]).map_err(e)?;
    Ok(len)
}

pub(super) fn write_from(data: &[u8], output: &Path) -> Result<(), String> {
    let e = |e: std::io::Error| format!("writing {}: {e}", output.display());
    File::create(output).map_err(e)?.write_all(data).map_err(e)
}

/// The plain copy the end-to-end times are held against: the same reads
/// and writes, no cipher.
pub(super) fn copy(buf: &mut [u8], input: &Path, output: &Path) -> Result<(), String> {
    let len = read_into(buf, input)?;
    write_from(&buf[..len], output)
}
