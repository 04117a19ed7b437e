//! Shared pieces of the fuzz targets: a reader that turns the fuzzer's bytes
//! into parameters, the backends to compare, and OpenSSL's answers.

use aesx::Backend;
use openssl::symm::{Cipher, Crypter, Mode};

/// Consumes the fuzzer's input front to back; running out yields zeros and
/// empty slices, so every input maps to some case.
pub struct Bytes<'a>(pub &'a [u8]);

impl<'a> Bytes<'a> {
    /// One byte.
    pub fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }

    /// Up to `n` bytes (fewer at the end of the input).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (a, b) = self.0.split_at(n.min(self.0.len()));
        self.0 = b;
        a
    }

    /// Exactly `N` bytes, zero-filled at the end of the input.
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        let t = self.take(N);
        a[..t.len()].copy_from_slice(t);
        a
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.array())
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }

    /// A little-endian `u128`.
    pub fn u128(&mut self) -> u128 {
        u128::from_le_bytes(self.array())
    }

    /// A length-prefixed slice (one length byte, so at most 255 bytes).
    pub fn short(&mut self) -> &'a [u8] {
        let n = self.u8() as usize;
        self.take(n)
    }

    /// Everything left.
    pub fn rest(self) -> &'a [u8] {
        self.0
    }

    /// The usual start of a differential target's input: a selector byte,
    /// an AES key of the length it picks ([`aes_key_len`]), and a reader
    /// for the rest; `None` when the input ends before the key does.
    pub fn with_aes_key(data: &'a [u8]) -> Option<(u8, Vec<u8>, Bytes<'a>)> {
        let mut b = Bytes(data);
        let sel = b.u8();
        let key = b.take(aes_key_len(sel));
        (key.len() == aes_key_len(sel)).then(|| (sel, key.to_vec(), b))
    }
}

/// A suite selector byte and the rest of the input as text, for the
/// `aesx cavp` targets; `None` when there is no byte or the rest is not
/// UTF-8.
pub fn selector_and_text(data: &[u8]) -> Option<(u8, &str)> {
    let (&sel, rest) = data.split_first()?;
    Some((sel, std::str::from_utf8(rest).ok()?))
}

/// Runs one `aesx cavp` suite over `text` on every backend; whatever it
/// accepts, it cannot count more results than records times backends.
pub fn run_cavp_suite(suite: aesx_cli::cavp::Suite, text: &str) {
    let mut report = aesx_cli::cavp::Report::default();
    if aesx_cli::cavp::run_suite(suite, text, &backends(), &mut report).is_ok() {
        assert!(report.passed + report.failed <= (report.records * backends().len()) as u64);
    }
}

/// Every backend this machine runs (the soft one always among them).
pub fn backends() -> Vec<Backend> {
    Backend::available().iter().collect()
}

/// An AES key length from a selector byte.
pub fn aes_key_len(sel: u8) -> usize {
    [16, 24, 32][(sel % 3) as usize]
}

/// The modes compared with OpenSSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode2 {
    /// ECB.
    Ecb,
    /// CBC.
    Cbc,
    /// CTR with a 128-bit counter.
    Ctr,
    /// XTS (the key is both halves).
    Xts,
}

/// OpenSSL's cipher for `mode` and a key of `key_len` bytes.
pub fn ossl_cipher(mode: Mode2, key_len: usize) -> Cipher {
    match (mode, key_len) {
        (Mode2::Ecb, 16) => Cipher::aes_128_ecb(),
        (Mode2::Ecb, 24) => Cipher::aes_192_ecb(),
        (Mode2::Ecb, 32) => Cipher::aes_256_ecb(),
        (Mode2::Cbc, 16) => Cipher::aes_128_cbc(),
        (Mode2::Cbc, 24) => Cipher::aes_192_cbc(),
        (Mode2::Cbc, 32) => Cipher::aes_256_cbc(),
        (Mode2::Ctr, 16) => Cipher::aes_128_ctr(),
        (Mode2::Ctr, 24) => Cipher::aes_192_ctr(),
        (Mode2::Ctr, 32) => Cipher::aes_256_ctr(),
        (Mode2::Xts, 32) => Cipher::aes_128_xts(),
        (Mode2::Xts, 64) => Cipher::aes_256_xts(),
        _ => unreachable!("no such cipher: {mode:?} with a {key_len}-byte key"),
    }
}

/// OpenSSL over `data` in one call; `None` where OpenSSL refuses (bad
/// padding, a length XTS does not take).
pub fn ossl(
    mode: Mode2,
    encrypt: bool,
    key: &[u8],
    iv: Option<&[u8]>,
    pad: bool,
    data: &[u8],
) -> Option<Vec<u8>> {
    let m = if encrypt {
        Mode::Encrypt
    } else {
        Mode::Decrypt
    };
    let mut c = Crypter::new(ossl_cipher(mode, key.len()), m, key, iv).ok()?;
    c.pad(pad);
    let mut out = vec![0u8; data.len() + 32];
    let mut n = c.update(data, &mut out).ok()?;
    n += c.finalize(&mut out[n..]).ok()?;
    out.truncate(n);
    Some(out)
}

/// The input key of every file target: the key file `seeds/file.key` holds
/// it in hex, so `aesx encrypt -k` makes seeds these targets can open.
pub const FILE_KEY: [u8; 32] = [0x42; 32];

/// The payload of an aesx file with header `header`, salt `salt` and
/// plaintext `pt`, sealed under [`FILE_KEY`] (deterministic for a salt).
pub fn seal_file(header: &[u8], salt: &[u8; 24], pt: &[u8]) -> Vec<u8> {
    use aesx_file::payload::{seal_header, Sealer, Suite};
    let (ph, cipher) = seal_header(
        Suite::Aes256Gcm,
        &FILE_KEY,
        header,
        salt,
        Backend::fastest(),
    )
    .expect("sealing a valid header");
    let mut out = ph.to_vec();
    let mut body = Vec::new();
    Sealer::new(cipher)
        .seal_batch(pt, true, &mut body, 1)
        .expect("sealing a short message");
    out.extend_from_slice(&body);
    out
}

/// Opens a payload (salt, commitment, then chunks) one chunk per batch, as
/// a streaming reader would, peeking past a full chunk to tell whether it
/// is the last: the verified plaintext, and the first error. The batch
/// path (all chunks at once, on threads) must agree with it.
pub fn open_chunkwise(
    input_key: &[u8],
    context: &[u8],
    payload: &[u8],
) -> (Vec<u8>, Result<(), aesx_file::payload::PayloadError>) {
    use aesx_file::payload::{open_header, Opener, Suite, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN};
    let n = payload.len().min(PAYLOAD_HEADER_LEN);
    let cipher = match open_header(
        Suite::Aes256Gcm,
        input_key,
        context,
        &payload[..n],
        Backend::fastest(),
    ) {
        Ok(c) => c,
        Err(e) => return (Vec::new(), Err(e)),
    };
    let mut opener = Opener::new(cipher);
    let (mut out, mut pt) = (Vec::new(), Vec::new());
    let mut rest = &payload[n..];
    loop {
        let at_eof = rest.len() <= ENC_CHUNK_LEN;
        let (chunk, tail) = rest.split_at(rest.len().min(ENC_CHUNK_LEN));
        if let Err(e) = opener.open_batch(chunk, at_eof, &mut pt, 1) {
            out.extend_from_slice(&pt[..e.valid]);
            return (out, Err(e.error));
        }
        out.extend_from_slice(&pt);
        if at_eof {
            return (out, Ok(()));
        }
        rest = tail;
    }
}

/// A plaintext of `len` bytes from a seed byte (not all-equal, so that
/// chunks differ).
pub fn plaintext(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// Applies the fuzzer's edits to a file: each edit is an operation byte, a
/// position and an argument; the edits an attacker makes (flip, cut, extend,
/// delete, duplicate, move or swap whole chunks).
pub fn apply_edits(file: &mut Vec<u8>, edits: &mut Bytes<'_>, chunk: usize) {
    for _ in 0..4 {
        if edits.0.is_empty() {
            return;
        }
        let op = edits.u8();
        let pos = edits.u16() as usize;
        let arg = edits.u8();
        let n = file.len();
        let at = if n == 0 { 0 } else { pos % (n + 1) };
        match op % 8 {
            0 if at < n => file[at] ^= 1 << (arg % 8),
            1 => file.truncate(at),
            2 => file.extend(std::iter::repeat_n(arg, 1 + arg as usize % 40)),
            3 => {
                let end = (at + 1 + arg as usize).min(n);
                file.drain(at..end);
            }
            4 => file.insert(at, arg),
            // Whole-chunk edits, on chunk boundaries after the 56-byte
            // salt and commitment.
            5..=7 => {
                let chunks = n.saturating_sub(56).div_ceil(chunk);
                if chunks == 0 {
                    continue;
                }
                let span = |i: usize| 56 + i * chunk..(56 + (i + 1) * chunk).min(n);
                let a = span(pos % chunks);
                let b = span(arg as usize % chunks);
                let piece = file[a.clone()].to_vec();
                match op % 8 {
                    5 => {
                        // Duplicate chunk a after itself.
                        let end = a.end;
                        file.splice(end..end, piece);
                    }
                    6 => {
                        // Swap chunks a and b (when the same length).
                        if a.len() == b.len() && a != b {
                            let other = file[b.clone()].to_vec();
                            file[a].copy_from_slice(&other);
                            file[b].copy_from_slice(&piece);
                        }
                    }
                    _ => {
                        // Drop chunk a.
                        file.drain(a);
                    }
                }
            }
            _ => {}
        }
    }
}
