//! A streaming decryptor as an [`io::Read`], for the tests: the payload one
//! chunk at a time through the library's [`Opener`], a second way through
//! the format to hold the batch path against (the Wycheproof vectors'
//! "sequential reader").

use std::io::{self, Read};

use aesx::Backend;
use aesx_file::payload::{
    open_header, read_full, ChunkCipher, Opener, PayloadError, Suite, ENC_CHUNK_LEN,
    PAYLOAD_HEADER_LEN,
};

/// It reads the payload (after the
/// caller's own header) from `inner` one chunk at a time and returns only
/// verified plaintext. Errors are sticky: once a read fails, every later read
/// fails too, so that a truncated stream never looks like a clean end.
pub struct DecryptReader<R> {
    inner: R,
    opener: Opener,
    ct: Vec<u8>,
    pt: Vec<u8>,
    pos: usize,
    /// One byte read ahead to tell whether a full chunk is the last data.
    peek: Option<u8>,
    error: Option<PayloadError>,
}

impl<R: Read> DecryptReader<R> {
    /// Reads and checks the salt and commitment from `inner`.
    pub fn new(
        mut inner: R,
        suite: Suite,
        input_key: &[u8],
        context: &[u8],
        backend: Backend,
    ) -> Result<Self, PayloadError> {
        suite.check_key(input_key)?;
        let mut h = [0u8; PAYLOAD_HEADER_LEN];
        let n = read_full(&mut inner, &mut h).map_err(|e| PayloadError::Io(e.to_string()))?;
        let cipher = open_header(suite, input_key, context, &h[..n], backend)?;
        Ok(Self::from_cipher(inner, cipher))
    }

    /// Raw mode: the chunks alone, with a given cipher.
    pub fn from_cipher(inner: R, cipher: ChunkCipher) -> Self {
        DecryptReader {
            inner,
            opener: Opener::new(cipher),
            ct: vec![0u8; ENC_CHUNK_LEN + 1],
            pt: Vec::new(),
            pos: 0,
            peek: None,
            error: None,
        }
    }

    fn refill(&mut self) -> Result<(), PayloadError> {
        let io = |e: io::Error| PayloadError::Io(e.to_string());
        let mut len = 0;
        if let Some(b) = self.peek.take() {
            self.ct[0] = b;
            len = 1;
        }
        len += read_full(&mut self.inner, &mut self.ct[len..ENC_CHUNK_LEN + 1]).map_err(io)?;
        let at_eof = len <= ENC_CHUNK_LEN;
        let take = len.min(ENC_CHUNK_LEN);
        if !at_eof {
            self.peek = Some(self.ct[ENC_CHUNK_LEN]);
        }
        self.pos = 0;
        let mut pt = std::mem::take(&mut self.pt);
        let r = self.opener.open_batch(&self.ct[..take], at_eof, &mut pt, 1);
        self.pt = pt;
        r.map_err(|e| {
            self.pt.truncate(e.valid);
            e.error
        })
    }
}

impl<R: Read> Read for DecryptReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.pos < self.pt.len() {
                let n = buf.len().min(self.pt.len() - self.pos);
                buf[..n].copy_from_slice(&self.pt[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if let Some(e) = &self.error {
                return Err(io::Error::new(io::ErrorKind::InvalidData, e.clone()));
            }
            if self.opener.is_finished() && self.peek.is_none() {
                return Ok(0);
            }
            if let Err(e) = self.refill() {
                self.error = Some(e);
            }
        }
    }
}
