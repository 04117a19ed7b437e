//! A CTR stream that makes keystream ahead for runs of short updates.
//!
//! aesx's CTR kernels are built for bulk: a call sets up several counter
//! blocks in wide registers, which a 16-byte update pays in full. Programs
//! that feed one stream in small pieces (record layers, `openssl speed` at 16
//! and 64 bytes) pay it per piece. From the second short update after a
//! (re)start, [`CtrStream`] asks aesx for [`AHEAD`] bytes of keystream at once
//! and serves the following short updates from them by XOR. The keystream is
//! the same bytes in the same order, so the output does not change; only
//! `Ctr`'s own position runs ahead of the stream by the unread bytes, which
//! [`CtrStream::position`] takes off. A long update, or a first short one,
//! goes straight to aesx (after the unread keystream is used up).

use aesx::{Ctr, BLOCK_LEN};

use super::Io;

/// Keystream made per refill: sixteen blocks, two rounds of the ymm kernel.
pub const AHEAD: usize = 16 * BLOCK_LEN;

/// Updates shorter than this count as short: up to here a refill of
/// [`AHEAD`] bytes costs less than the set-up it saves.
pub const SHORT: usize = 8 * BLOCK_LEN;

/// A CTR key and counter with keystream made ahead.
#[derive(Clone)]
pub struct CtrStream {
    ctr: Ctr,
    ks: [u8; AHEAD],
    /// The next unread byte of `ks` (`AHEAD`: none left).
    at: usize,
    /// Whether the last update was short: the next short one refills.
    last_short: bool,
}

impl Drop for CtrStream {
    fn drop(&mut self) {
        // Keystream is as secret as the key it came from.
        self.ks = [0; AHEAD];
    }
}

impl CtrStream {
    pub fn new(ctr: Ctr) -> Self {
        CtrStream {
            ctr,
            ks: [0; AHEAD],
            at: AHEAD,
            last_short: false,
        }
    }

    pub fn ctr(&self) -> &Ctr {
        &self.ctr
    }

    fn unread(&self) -> usize {
        AHEAD - self.at
    }

    /// The byte position of the stream (what the caller has consumed).
    pub fn position(&self) -> u128 {
        self.ctr.position() - self.unread() as u128
    }

    /// Moves the stream to byte `offset`, dropping keystream made ahead.
    pub fn seek(&mut self, offset: u128) {
        self.at = AHEAD;
        self.last_short = false;
        self.ctr.seek(offset);
    }

    /// XORs the next `len` bytes of keystream into `io` (input and output
    /// at offset 0).
    #[inline]
    pub fn apply(&mut self, io: &mut Io<'_>, len: usize) {
        let short = len < SHORT;
        let mut done = self.take(io, 0, len);
        if done < len && short && self.last_short {
            while done < len {
                self.ks = [0; AHEAD];
                self.ctr.apply_keystream(&mut self.ks);
                self.at = 0;
                done += self.take(io, done, len - done);
            }
        } else if done < len {
            match io {
                Io::Split { src, dst } => {
                    let r = self
                        .ctr
                        .apply_keystream_to(&src[done..len], &mut dst[done..len]);
                    debug_assert!(r.is_ok(), "equal lengths by construction");
                }
                Io::InPlace(buf) => self.ctr.apply_keystream(&mut buf[done..len]),
            }
        }
        self.last_short = short;
    }

    /// XORs up to `len` unread bytes of `ks` into `io` at `off`; returns how
    /// many.
    #[inline(always)]
    fn take(&mut self, io: &mut Io<'_>, off: usize, len: usize) -> usize {
        let n = len.min(self.unread());
        let ks = &self.ks[self.at..self.at + n];
        match io {
            Io::Split { src, dst } => xor_into(&mut dst[off..off + n], &src[off..off + n], ks),
            Io::InPlace(buf) => xor_in_place(&mut buf[off..off + n], ks),
        }
        self.at += n;
        n
    }
}

/// `dst = src ^ ks` (equal lengths), sixteen bytes at a time.
#[inline(always)]
fn xor_into(dst: &mut [u8], src: &[u8], ks: &[u8]) {
    let mut d = dst.chunks_exact_mut(BLOCK_LEN);
    let mut s = src.chunks_exact(BLOCK_LEN);
    let mut k = ks.chunks_exact(BLOCK_LEN);
    for ((d, s), k) in (&mut d).zip(&mut s).zip(&mut k) {
        let x = u128::from_ne_bytes(s.try_into().expect("16 bytes"))
            ^ u128::from_ne_bytes(k.try_into().expect("16 bytes"));
        d.copy_from_slice(&x.to_ne_bytes());
    }
    for ((d, s), k) in d
        .into_remainder()
        .iter_mut()
        .zip(s.remainder())
        .zip(k.remainder())
    {
        *d = s ^ k;
    }
}

/// `buf ^= ks` (equal lengths), sixteen bytes at a time.
#[inline(always)]
fn xor_in_place(buf: &mut [u8], ks: &[u8]) {
    let mut b = buf.chunks_exact_mut(BLOCK_LEN);
    let mut k = ks.chunks_exact(BLOCK_LEN);
    for (b, k) in (&mut b).zip(&mut k) {
        let x = u128::from_ne_bytes((&*b).try_into().expect("16 bytes"))
            ^ u128::from_ne_bytes(k.try_into().expect("16 bytes"));
        b.copy_from_slice(&x.to_ne_bytes());
    }
    for (b, k) in b.into_remainder().iter_mut().zip(k.remainder()) {
        *b ^= k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesx::Backend;

    /// Any sequence of update lengths and seeks gives the keystream of one
    /// plain `Ctr` over the same bytes, and the same position.
    #[test]
    fn matches_one_plain_stream() {
        let key = [7u8; 16];
        let iv = [0xffu8; 16]; // the counter wraps on the first block
        for backend in Backend::available() {
            let mut s = CtrStream::new(Ctr::with_backend(&key, &iv, backend).unwrap());
            let mut plain = Ctr::with_backend(&key, &iv, Backend::Soft).unwrap();
            let lens = [
                1, 15, 16, 17, 5, 127, 128, 300, 16, 16, 3, 64, 200, 1, 0, 255, 256, 16,
            ];
            for (i, &len) in lens.iter().cycle().take(120).enumerate() {
                if i % 37 == 36 {
                    let to = s.position() - 5;
                    s.seek(to);
                    plain.seek(to);
                }
                let src: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
                let mut want = src.clone();
                plain.apply_keystream(&mut want);
                let mut got = vec![0u8; len];
                if i % 2 == 0 {
                    s.apply(
                        &mut Io::Split {
                            src: &src,
                            dst: &mut got,
                        },
                        len,
                    );
                } else {
                    got.copy_from_slice(&src);
                    s.apply(&mut Io::InPlace(&mut got), len);
                }
                assert_eq!(got, want, "{backend} update {i} of {len} bytes");
                assert_eq!(s.position(), plain.position());
            }
        }
    }
}
