//! A pair of equal-length buffers that may be one and the same.
//!
//! Kernels read input and write output through raw pointers so that one
//! kernel serves both in-place (`src == dst`) and out-of-place calls without a
//! copy. Safe constructors guarantee the only aliasing is exact: either the two
//! pointers are equal, or the regions are disjoint (Rust's borrow rules forbid
//! a `&[u8]` overlapping a live `&mut [u8]`). Kernels must read a block (or a
//! batch of blocks) before writing the same positions.

use core::marker::PhantomData;

use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

/// Input and output of one kernel call; `len` bytes each.
pub struct InOut<'a> {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    _borrow: PhantomData<(&'a [u8], &'a mut [u8])>,
}

// SAFETY: an `InOut` stands for a shared borrow of its input and an
// exclusive borrow of its output (the `PhantomData` says so), both of which
// are `Send`; the safe constructors and `split_at` hand out pieces whose
// outputs are disjoint, so moving one to another thread gives that thread
// sole access to its output, as sending the `&mut [u8]` would.
unsafe impl Send for InOut<'_> {}

impl<'a> InOut<'a> {
    /// Processes `buf` in place.
    #[inline]
    pub fn in_place(buf: &'a mut [u8]) -> Self {
        let len = buf.len();
        let p = buf.as_mut_ptr();
        InOut {
            src: p,
            dst: p,
            len,
            _borrow: PhantomData,
        }
    }

    /// Reads `src`, writes `dst`; the lengths must be equal.
    #[inline]
    pub fn new(src: &'a [u8], dst: &'a mut [u8]) -> Result<Self> {
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch {
                input: src.len(),
                output: dst.len(),
            });
        }
        Ok(InOut {
            src: src.as_ptr(),
            dst: dst.as_mut_ptr(),
            len: src.len(),
            _borrow: PhantomData,
        })
    }

    /// Wraps raw input and output pointers, `len` bytes each.
    ///
    /// # Safety
    ///
    /// `src` must be valid for `len` bytes of reads and `dst` for `len` bytes
    /// of writes for `'a`, nothing else may access the output for `'a`, and
    /// the two regions must be either the same memory (`src == dst`) or
    /// disjoint: the invariant the safe constructors guarantee.
    #[cfg(feature = "rustcrypto")]
    #[inline]
    pub unsafe fn from_raw(src: *const u8, dst: *mut u8, len: usize) -> Self {
        InOut {
            src,
            dst,
            len,
            _borrow: PhantomData,
        }
    }

    /// Zeroes the whole output (a failed decryption releases nothing).
    #[cfg(feature = "rustcrypto")]
    pub fn zero_out(&mut self) {
        for i in 0..self.len {
            // SAFETY: i < len, inside the output region; volatile so the
            // wipe of unauthenticated plaintext is not optimised away.
            unsafe { core::ptr::write_volatile(self.dst.add(i), 0) };
        }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is nothing to process.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of whole blocks.
    #[inline]
    pub fn blocks(&self) -> usize {
        self.len / BLOCK_LEN
    }

    /// Start of the input. Valid for `len()` bytes of reads.
    #[inline]
    pub fn src_ptr(&self) -> *const u8 {
        self.src
    }

    /// The input as a slice, for a reader that is done with it before
    /// anything is written (GCM-SIV hashes the plaintext, then encrypts it).
    #[inline]
    pub fn input(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `src` is valid for `len` (> 0) bytes of reads for 'a. The
        // output is written only through `&mut self`: the writing methods,
        // or a pointer from `dst_ptr`, which a kernel must not write through
        // while it holds this slice. So even in place the bytes do not
        // change while this borrow of `self` lives.
        unsafe { core::slice::from_raw_parts(self.src, self.len) }
    }

    /// The output as a slice, for a reader of what was written (GCM-SIV
    /// hashes the plaintext its decryption wrote).
    ///
    /// # Safety
    /// Every byte of the output must have been written (the output may be
    /// memory that was uninitialised before).
    #[inline]
    pub unsafe fn written_output(&mut self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `dst` is valid for `len` (> 0) bytes for 'a, nothing else
        // accesses it (the constructors' contract), the caller has written
        // all of it, and `&mut self` keeps this type from writing while the
        // slice lives.
        unsafe { core::slice::from_raw_parts(self.dst, self.len) }
    }

    /// Start of the output. Valid for `len()` bytes of writes.
    #[inline]
    pub fn dst_ptr(&mut self) -> *mut u8 {
        self.dst
    }

    /// A shorter-lived view of the same buffers.
    #[inline]
    pub fn reborrow(&mut self) -> InOut<'_> {
        InOut {
            src: self.src,
            dst: self.dst,
            len: self.len,
            _borrow: PhantomData,
        }
    }

    /// Splits into `[0, mid)` and `[mid, len)`. `mid` is clamped to `len`.
    #[inline]
    pub fn split_at(self, mid: usize) -> (InOut<'a>, InOut<'a>) {
        let mid = mid.min(self.len);
        // SAFETY: mid <= len, so both halves stay inside the original regions,
        // and they do not overlap each other.
        let (src2, dst2) = unsafe { (self.src.add(mid), self.dst.add(mid)) };
        (
            InOut {
                src: self.src,
                dst: self.dst,
                len: mid,
                _borrow: PhantomData,
            },
            InOut {
                src: src2,
                dst: dst2,
                len: self.len - mid,
                _borrow: PhantomData,
            },
        )
    }

    /// Splits off the whole blocks; the second part is the partial tail.
    #[inline]
    pub fn split_blocks(self) -> (InOut<'a>, InOut<'a>) {
        let whole = self.len - self.len % BLOCK_LEN;
        self.split_at(whole)
    }

    /// Copies input block `i` out.
    #[inline]
    pub fn read_block(&self, i: usize) -> Block {
        assert!((i + 1) * BLOCK_LEN <= self.len);
        let mut b = [0u8; BLOCK_LEN];
        // SAFETY: the assert keeps the read inside the input region.
        unsafe {
            core::ptr::copy_nonoverlapping(self.src.add(i * BLOCK_LEN), b.as_mut_ptr(), BLOCK_LEN)
        };
        b
    }

    /// Writes output block `i`.
    #[inline]
    pub fn write_block(&mut self, i: usize, b: &Block) {
        assert!((i + 1) * BLOCK_LEN <= self.len);
        // SAFETY: the assert keeps the write inside the output region; `b` is
        // a local array and cannot overlap the output.
        unsafe {
            core::ptr::copy_nonoverlapping(b.as_ptr(), self.dst.add(i * BLOCK_LEN), BLOCK_LEN)
        };
    }

    /// Copies the first `n` input bytes to `out[..n]`.
    #[inline]
    pub fn read_into(&self, out: &mut [u8]) {
        let n = out.len();
        assert!(n <= self.len);
        // SAFETY: n <= len bytes of input are readable; `out` is a distinct
        // exclusive borrow and cannot overlap the input.
        unsafe { core::ptr::copy_nonoverlapping(self.src, out.as_mut_ptr(), n) };
    }

    /// Writes `data` to the first `data.len()` output bytes.
    #[inline]
    pub fn write_from(&mut self, data: &[u8]) {
        let n = data.len();
        assert!(n <= self.len);
        // SAFETY: n <= len bytes of output are writable. `data` is a shared
        // borrow distinct from this InOut's regions (callers pass locals).
        unsafe { core::ptr::copy(data.as_ptr(), self.dst, n) };
    }

    /// out = in XOR `ks` over the first `ks.len()` bytes.
    #[inline]
    pub fn xor_from(&mut self, ks: &[u8]) {
        let n = ks.len();
        assert!(n <= self.len);
        for (i, k) in ks.iter().enumerate() {
            // SAFETY: i < n <= len, inside both regions. Each byte is read
            // before it is written, so exact aliasing (in place) is fine.
            unsafe { *self.dst.add(i) = *self.src.add(i) ^ k };
        }
    }
}
