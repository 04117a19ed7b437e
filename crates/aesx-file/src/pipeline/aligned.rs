//! Read buffers that start on a page boundary, made in safe code, so that
//! the kernel's copy into them never takes its slow misaligned path.

use std::io;

/// Alignment of the read buffers: a page, so that the kernel's copy into
/// them is never on its slow misaligned path.
pub const ALIGN: usize = 4096;

/// A byte buffer whose contents start on an [`ALIGN`] boundary, made in
/// safe code: an over-allocated `Vec` and the aligned window inside it.
pub struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes; running out of memory is an error.
    pub fn new(len: usize) -> io::Result<AlignedBuf> {
        let mut raw = Vec::new();
        raw.try_reserve_exact(len + ALIGN).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!(
                    "out of memory: cannot allocate a {} KiB buffer",
                    len.div_ceil(1024)
                ),
            )
        })?;
        raw.resize(len + ALIGN, 0);
        let start = raw.as_ptr().align_offset(ALIGN).min(ALIGN);
        Ok(AlignedBuf { raw, start, len })
    }

    /// The bytes in use.
    pub fn as_slice(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }

    /// All `capacity` bytes, to be filled.
    pub fn whole_mut(&mut self) -> &mut [u8] {
        let end = self.raw.len();
        &mut self.raw[self.start..end]
    }

    /// How many bytes are in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no byte is in use.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many bytes the buffer holds at most.
    pub fn capacity(&self) -> usize {
        self.raw.len() - self.start
    }

    /// Marks the first `len` bytes (at most the capacity) as in use.
    pub fn set_len(&mut self, len: usize) {
        self.len = len.min(self.capacity());
    }
}
