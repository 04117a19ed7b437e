//! Batches of whole chunks, spread over threads: [`Sealer`] and [`Opener`]
//! keep the chunk counter and, for the opener, a sticky state (once it has
//! failed it keeps failing; once it has seen the final chunk any further
//! data is an error).

use super::chunk::ChunkCipher;
use super::{PayloadError, CHUNK_LEN, ENC_CHUNK_LEN, MAX_CHUNKS, TAG_LEN};

/// Splits `out` into chunks of `stride` bytes (the last may be shorter),
/// hands contiguous runs of them to up to `threads` scoped threads (the
/// caller's included) as `f(chunk_indices, run)`, and returns the
/// results in order. Safe code only: the runs are disjoint `&mut` slices.
fn par_chunks<T: Send>(
    out: &mut [u8],
    stride: usize,
    n_chunks: usize,
    threads: usize,
    f: impl Fn(std::ops::Range<usize>, &mut [u8]) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, n_chunks.max(1));
    if threads == 1 {
        return vec![f(0..n_chunks, out)];
    }
    let per = n_chunks.div_ceil(threads);
    let mut runs = Vec::with_capacity(threads);
    let mut rest = out;
    let mut first = 0;
    while first < n_chunks {
        let take = (per * stride).min(rest.len());
        let (a, b) = rest.split_at_mut(take);
        runs.push((first..(first + per).min(n_chunks), a));
        rest = b;
        first += per;
    }
    std::thread::scope(|s| {
        let f = &f;
        let mut it = runs.into_iter();
        let head = it.next();
        let handles: Vec<_> = it.map(|(i, run)| s.spawn(move || f(i, run))).collect();
        let mut results = Vec::with_capacity(threads);
        if let Some((i, run)) = head {
            results.push(f(i, run));
        }
        for h in handles {
            match h.join() {
                Ok(v) => results.push(v),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        results
    })
}

/// Encrypts a message chunk by chunk, in batches.
pub struct Sealer {
    cipher: ChunkCipher,
    next: u64,
    finished: bool,
}

impl Sealer {
    /// A sealer that starts at chunk 0.
    pub fn new(cipher: ChunkCipher) -> Self {
        Self::at(cipher, 0)
    }

    /// A sealer that starts at chunk `index` (a range of a file sealed on
    /// its own).
    pub fn at(cipher: ChunkCipher, index: u64) -> Self {
        Sealer {
            cipher,
            next: index,
            finished: false,
        }
    }

    /// Encrypted length of a batch of `pt_len` plaintext bytes.
    pub fn sealed_len(pt_len: usize, last: bool) -> usize {
        let full = pt_len / CHUNK_LEN;
        let rem = pt_len % CHUNK_LEN;
        if last {
            full * ENC_CHUNK_LEN + rem + TAG_LEN
        } else {
            full * ENC_CHUNK_LEN
        }
    }

    /// Encrypts `pt` into `out` (cleared and filled) on `threads` threads.
    /// Unless `last`, `pt` must be whole chunks; when `last` its tail (possibly
    /// empty) becomes the final short chunk and the sealer is done.
    pub fn seal_batch(
        &mut self,
        pt: &[u8],
        last: bool,
        out: &mut Vec<u8>,
        threads: usize,
    ) -> Result<(), PayloadError> {
        if self.finished {
            return Err(PayloadError::TrailingData);
        }
        let n_chunks = seal_batch_at(&self.cipher, self.next, pt, last, out, threads)?;
        self.next += n_chunks;
        self.finished = last;
        Ok(())
    }
}

/// Encrypts `pt` as chunks `first`.. into `out` (cleared and filled) on
/// `threads` threads, and returns how many chunks it sealed. Unless `last`,
/// `pt` must be whole chunks; when `last` its tail (possibly empty) becomes
/// the final short chunk. [`Sealer`] keeps the counter across calls; this
/// is the stateless form for batches sealed out of order (the
/// [`pipeline`](crate::pipeline)'s workers).
pub fn seal_batch_at(
    cipher: &ChunkCipher,
    first: u64,
    pt: &[u8],
    last: bool,
    out: &mut Vec<u8>,
    threads: usize,
) -> Result<u64, PayloadError> {
    if !last && !pt.len().is_multiple_of(CHUNK_LEN) {
        return Err(PayloadError::Io(
            "internal: partial chunk in a batch".into(),
        ));
    }
    let n_chunks = pt.len() / CHUNK_LEN + usize::from(last);
    if first.saturating_add(n_chunks as u64) > MAX_CHUNKS {
        return Err(PayloadError::TooManyChunks);
    }
    // Every byte is overwritten below: resizing a recycled buffer
    // without clearing it first saves a memset per batch.
    out.resize(Sealer::sealed_len(pt.len(), last), 0);
    let results = par_chunks(out, ENC_CHUNK_LEN, n_chunks, threads, |idx, run| {
        for (i, o) in idx.zip(run.chunks_mut(ENC_CHUNK_LEN)) {
            let p0 = i * CHUNK_LEN;
            let p1 = (p0 + CHUNK_LEN).min(pt.len());
            cipher.seal_chunk(first + i as u64, &pt[p0..p1], o)?;
        }
        Ok(())
    });
    results.into_iter().collect::<Result<(), PayloadError>>()?;
    Ok(n_chunks as u64)
}

/// Where an opener stands.
#[derive(Clone, Debug)]
enum OpenState {
    Running,
    Finished,
    Failed(PayloadError),
}

/// Decrypts a message chunk by chunk, in batches; it releases only chunks
/// whose tags verified, and remembers its first error.
pub struct Opener {
    cipher: ChunkCipher,
    next: u64,
    state: OpenState,
}

/// A batch that failed: its first `valid` plaintext bytes verified (they are
/// the longest verified prefix) and may be released; nothing after them may.
#[derive(Debug)]
pub struct BatchError {
    /// Verified plaintext bytes at the start of the output.
    pub valid: usize,
    /// What failed.
    pub error: PayloadError,
}

impl BatchError {
    /// The error to report for the batch `ct` that failed: the failing
    /// chunk is the one right after the verified prefix, and
    /// [`explain_failure`](super::explain_failure) tells an appended file
    /// from a modified one.
    pub fn explain(self, cipher: &ChunkCipher, ct: &[u8]) -> PayloadError {
        let i = self.valid / CHUNK_LEN;
        let chunk = &ct[(i * ENC_CHUNK_LEN).min(ct.len())..((i + 1) * ENC_CHUNK_LEN).min(ct.len())];
        super::explain_failure(cipher, self.error, chunk)
    }
}

impl Opener {
    /// An opener that starts at chunk 0.
    pub fn new(cipher: ChunkCipher) -> Self {
        Self::at(cipher, 0)
    }

    /// An opener that starts at chunk `index` (random access).
    pub fn at(cipher: ChunkCipher, index: u64) -> Self {
        Opener {
            cipher,
            next: index,
            state: OpenState::Running,
        }
    }

    /// Whether the final chunk has been opened.
    pub fn is_finished(&self) -> bool {
        matches!(self.state, OpenState::Finished)
    }

    /// Opens a batch: `ct` is whole encrypted chunks (16400 bytes each) and,
    /// when `at_eof` (no byte follows `ct` in the stream), ends with the
    /// final short chunk. The plaintext replaces the contents of `pt`.
    ///
    /// After an error every later call fails with the same error; after the
    /// final chunk, any further ciphertext is [`PayloadError::TrailingData`].
    pub fn open_batch(
        &mut self,
        ct: &[u8],
        at_eof: bool,
        pt: &mut Vec<u8>,
        threads: usize,
    ) -> Result<(), BatchError> {
        let fail = |error| BatchError { valid: 0, error };
        match &self.state {
            OpenState::Failed(e) => {
                pt.clear();
                return Err(fail(e.clone()));
            }
            OpenState::Finished if ct.is_empty() => {
                pt.clear();
                return Ok(());
            }
            OpenState::Finished => {
                pt.clear();
                self.state = OpenState::Failed(PayloadError::TrailingData);
                return Err(fail(PayloadError::TrailingData));
            }
            OpenState::Running => {}
        }
        match open_batch_at(&self.cipher, self.next, ct, at_eof, pt, threads) {
            Ok(n_chunks) => {
                self.next += n_chunks;
                if at_eof {
                    // At the end, success means the final chunk verified.
                    self.state = OpenState::Finished;
                }
                Ok(())
            }
            Err(e) => {
                self.state = OpenState::Failed(e.error.clone());
                Err(e)
            }
        }
    }
}

/// Opens `ct` as encrypted chunks `first`.. into `pt` (its contents
/// replaced) on `threads` threads, and returns how many chunks it opened.
/// `ct` is whole encrypted chunks (16400 bytes each) and, when `at_eof` (no
/// byte follows `ct` in the stream), ends with the final short chunk.
///
/// On failure the error carries the verified prefix; every byte after it
/// is zero. [`Opener`] adds the sticky state across calls; this is the
/// stateless form for batches opened out of order (the
/// [`pipeline`](crate::pipeline)'s workers).
pub fn open_batch_at(
    cipher: &ChunkCipher,
    first: u64,
    ct: &[u8],
    at_eof: bool,
    pt: &mut Vec<u8>,
    threads: usize,
) -> Result<u64, BatchError> {
    let fail = |error| BatchError { valid: 0, error };
    let full = ct.len() / ENC_CHUNK_LEN;
    let rem = ct.len() % ENC_CHUNK_LEN;
    let shape = if !at_eof {
        if rem != 0 {
            Err(PayloadError::Io(
                "internal: partial chunk in a batch".into(),
            ))
        } else {
            Ok(full)
        }
    } else if rem == 0 {
        // The final chunk is always shorter than a full one (possibly
        // just a tag): ending on a boundary means it was cut off. The
        // full chunks before it are still released, as the spec allows.
        Err(PayloadError::Truncated)
    } else if rem < TAG_LEN {
        Err(PayloadError::TruncatedInTag)
    } else {
        Ok(full + 1)
    };
    let (n_chunks, end_err) = match shape {
        Ok(n) => (n, None),
        Err(e @ PayloadError::Io(_)) => {
            pt.clear();
            return Err(fail(e));
        }
        // Truncated streams: the full chunks before the cut still open.
        Err(e) => (full, Some(e)),
    };
    if first.saturating_add(n_chunks as u64) > MAX_CHUNKS {
        pt.clear();
        return Err(fail(PayloadError::TooManyChunks));
    }
    let has_final = at_eof && end_err.is_none();
    let pt_len = if has_final {
        full * CHUNK_LEN + rem - TAG_LEN
    } else {
        n_chunks * CHUNK_LEN
    };
    // Without clearing first: a recycled buffer keeps its old bytes
    // until each chunk overwrites its own range, and every range not
    // overwritten by a verified chunk is wiped on failure below.
    pt.resize(pt_len, 0);
    // Each run stops at its first failing chunk and reports it.
    let results = par_chunks(pt, CHUNK_LEN, n_chunks, threads, |idx, run| {
        // Walk the indices, not chunks_mut: an empty final chunk has no
        // plaintext bytes and so no slice of its own.
        let mut rest = run;
        for i in idx {
            let c0 = i * ENC_CHUNK_LEN;
            let c1 = (c0 + ENC_CHUNK_LEN).min(ct.len());
            let (o, r) = rest.split_at_mut((c1 - c0 - TAG_LEN).min(rest.len()));
            rest = r;
            let last = has_final && i + 1 == n_chunks;
            if let Err(e) = cipher.open_chunk(first + i as u64, &ct[c0..c1], o, last) {
                return Err((i, e));
            }
        }
        Ok(())
    });
    let first_err = results.into_iter().filter_map(|r| r.err()).next();
    if let Some((i, e)) = first_err {
        // Wipe everything after the verified prefix: chunks after the
        // failing one may have been opened by other threads.
        let valid = i * CHUNK_LEN;
        pt[valid..].fill(0);
        return Err(BatchError { valid, error: e });
    }
    match end_err {
        Some(e) => Err(BatchError {
            valid: pt.len(),
            error: e,
        }),
        None => Ok(n_chunks as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::{open_header, seal_header, Suite, PAYLOAD_HEADER_LEN, SALT_LEN};
    use aesx::Backend;

    fn cipher() -> ChunkCipher {
        let (_, c) = seal_header(
            Suite::Aes256Gcm,
            &[7u8; 32],
            b"ctx",
            &[1u8; SALT_LEN],
            Backend::fastest(),
        )
        .unwrap();
        c
    }

    #[test]
    fn batches_split_across_threads_match_one_thread() {
        for len in [
            0,
            1,
            CHUNK_LEN - 1,
            CHUNK_LEN,
            CHUNK_LEN + 1,
            7 * CHUNK_LEN + 3,
        ] {
            let pt: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let mut a = Vec::new();
            let mut b = Vec::new();
            Sealer::new(cipher())
                .seal_batch(&pt, true, &mut a, 1)
                .unwrap();
            Sealer::new(cipher())
                .seal_batch(&pt, true, &mut b, 3)
                .unwrap();
            assert_eq!(a, b);
            let mut out = Vec::new();
            Opener::new(cipher())
                .open_batch(&a, true, &mut out, 4)
                .unwrap();
            assert_eq!(out, pt);
        }
    }

    #[test]
    fn failing_chunk_releases_only_the_prefix_and_sticks() {
        let pt = vec![5u8; 5 * CHUNK_LEN + 10];
        let mut ct = Vec::new();
        Sealer::new(cipher())
            .seal_batch(&pt, true, &mut ct, 2)
            .unwrap();
        ct[3 * ENC_CHUNK_LEN + 5] ^= 1;
        let mut o = Opener::new(cipher());
        let mut out = Vec::new();
        let e = o.open_batch(&ct, true, &mut out, 3).unwrap_err();
        assert_eq!(e.valid, 3 * CHUNK_LEN);
        assert_eq!(
            e.error,
            PayloadError::ChunkAuth {
                index: 3,
                last: false
            }
        );
        assert!(out[e.valid..].iter().all(|&b| b == 0));
        let again = o.open_batch(&[], true, &mut out, 1).unwrap_err();
        assert_eq!(again.error, e.error);
        assert_eq!(again.valid, 0);
    }

    #[test]
    fn every_bit_position_of_a_multi_chunk_payload_is_authenticated() {
        // Three chunks (two full, one short): flip one bit of every byte of
        // salt, commitment, bodies and tags, in turn.
        let pt: Vec<u8> = (0..2 * CHUNK_LEN + 40).map(|i| (i % 253) as u8).collect();
        let salt = [3u8; SALT_LEN];
        let key = [8u8; 32];
        let (h, c) =
            seal_header(Suite::Aes256Gcm, &key, b"hdr", &salt, Backend::fastest()).unwrap();
        let mut body = Vec::new();
        Sealer::new(c.clone())
            .seal_batch(&pt, true, &mut body, 2)
            .unwrap();
        for i in 0..PAYLOAD_HEADER_LEN {
            let mut bad = h;
            bad[i] ^= 0x10;
            let r = open_header(Suite::Aes256Gcm, &key, b"hdr", &bad, Backend::fastest());
            assert_eq!(r.err(), Some(PayloadError::CommitmentMismatch), "byte {i}");
        }
        let mut out = Vec::new();
        for i in 0..body.len() {
            body[i] ^= 0x01;
            let e = Opener::new(c.clone())
                .open_batch(&body, true, &mut out, 2)
                .unwrap_err();
            let chunk = (i / ENC_CHUNK_LEN) as u64;
            assert_eq!(
                e.error,
                PayloadError::ChunkAuth {
                    index: chunk,
                    last: chunk == 2
                },
                "byte {i}"
            );
            assert_eq!(e.valid, chunk as usize * CHUNK_LEN, "byte {i}");
            body[i] ^= 0x01;
        }
        Opener::new(c).open_batch(&body, true, &mut out, 2).unwrap();
        assert_eq!(out, pt);
    }
}
