//! CTR as one stream across calls of any length over a bulk CTR that takes
//! whole blocks from a given counter (the GPU's): `aesx cipher --backend
//! cuda` and the benchmark's GPU row both feed it. Host logic only, tested
//! here against aesx's CTR.

/// The position in the keystream: the next counter block, and the unused
/// bytes of the keystream block before it (`ks[used..]`).
pub struct CtrStream {
    next: u128,
    ks: [u8; 16],
    used: usize,
}

impl core::fmt::Debug for CtrStream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CtrStream").finish_non_exhaustive()
    }
}

impl CtrStream {
    /// The stream from the initial counter block `iv` (a 128-bit
    /// big-endian counter, wrapping modulo 2^128).
    pub fn new(iv: &[u8; 16]) -> CtrStream {
        CtrStream {
            next: u128::from_be_bytes(*iv),
            ks: [0; 16],
            used: 16,
        }
    }

    /// XORs the next `buf.len()` keystream bytes into `buf`. `bulk(counter,
    /// blocks)` applies CTR from `counter` to whole blocks (it also makes the
    /// keystream block of a partial tail, over zeros); the rest of that block
    /// is kept for the next call.
    pub fn apply<E>(
        &mut self,
        buf: &mut [u8],
        mut bulk: impl FnMut(&[u8; 16], &mut [u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let head = (16 - self.used).min(buf.len());
        for (b, k) in buf[..head].iter_mut().zip(&self.ks[self.used..]) {
            *b ^= k;
        }
        self.used += head;
        let rest = &mut buf[head..];
        let whole = rest.len() / 16 * 16;
        if whole > 0 {
            bulk(&self.next.to_be_bytes(), &mut rest[..whole])?;
            self.next = self.next.wrapping_add((whole / 16) as u128);
        }
        let tail = &mut rest[whole..];
        if !tail.is_empty() {
            self.ks = [0; 16];
            bulk(&self.next.to_be_bytes(), &mut self.ks)?;
            self.next = self.next.wrapping_add(1);
            for (b, k) in tail.iter_mut().zip(&self.ks) {
                *b ^= k;
            }
            self.used = tail.len();
        }
        Ok(())
    }

    /// Forgets the kept keystream (at the end of a stream).
    pub fn wipe(&mut self) {
        self.ks = core::hint::black_box([0; 16]);
        self.used = 16;
    }
}

impl Drop for CtrStream {
    fn drop(&mut self) {
        self.wipe();
    }
}

#[cfg(test)]
mod tests {
    use super::CtrStream;

    #[test]
    fn pieces_of_any_length_match_one_ctr_pass() {
        let key = [0x42u8; 16];
        let mut iv = [0xffu8; 16];
        iv[15] = 0xfd; // the counter wraps modulo 2^128 within the data
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 37 + 11) as u8).collect();
        let mut want = data.clone();
        aesx::Ctr::with_backend(&key, &iv, aesx::Backend::Soft)
            .unwrap()
            .apply_keystream(&mut want);
        for cuts in [&[1usize, 15, 16, 17, 33][..], &[0, 48, 5, 11, 7], &[999]] {
            let mut s = CtrStream::new(&iv);
            let mut got = data.clone();
            let mut at = 0usize;
            for &n in cuts.iter().chain([&usize::MAX]) {
                let end = at.saturating_add(n).min(got.len());
                s.apply(&mut got[at..end], |c, blocks| {
                    // Whole blocks only, as the GPU's bulk CTR takes them.
                    assert!(blocks.len().is_multiple_of(16));
                    aesx::Ctr::with_backend(&key, c, aesx::Backend::Soft)?.apply_keystream(blocks);
                    Ok::<(), aesx::Error>(())
                })
                .unwrap();
                at = end;
            }
            assert_eq!(got, want, "cuts {cuts:?}");
        }
    }
}
