//! Turning C pointers and lengths into Rust slices, with the ABI's rules:
//!
//! - a pointer may be NULL only when its length is 0;
//! - a length must fit in `isize` and not run past the end of the address
//!   space from its pointer;
//! - `out` is either exactly `in` (in place) or does not overlap it, and it
//!   overlaps no other input (key, IV, AAD, tag); anything else is
//!   [`AESX_ERR_OVERLAP`], reported before a byte is written.
//!
//! These checks are what makes forming the slices sound: Rust forbids a
//! `&mut [u8]` that overlaps any other live slice, so partial overlap cannot be
//! passed on to the library, and exact aliasing goes to its in-place methods.

use core::slice;

use crate::status::{Status, AESX_ERR_INVALID_LENGTH, AESX_ERR_NULL_POINTER, AESX_ERR_OVERLAP};

/// A memory region named by an argument: address and length.
#[derive(Clone, Copy)]
pub(crate) struct Region {
    addr: usize,
    len: usize,
}

impl Region {
    /// Checks `len` against `ptr` (see the module rules) and names the region.
    pub(crate) fn new<T>(ptr: *const T, len: usize) -> Status<Region> {
        if len == 0 {
            return Ok(Region { addr: 0, len: 0 });
        }
        if ptr.is_null() {
            return Err(AESX_ERR_NULL_POINTER);
        }
        let addr = ptr as usize;
        if len > isize::MAX as usize || addr.checked_add(len).is_none() {
            return Err(AESX_ERR_INVALID_LENGTH);
        }
        Ok(Region { addr, len })
    }

    fn overlaps(self, other: Region) -> bool {
        self.len != 0
            && other.len != 0
            && self.addr < other.addr + other.len
            && other.addr < self.addr + self.len
    }
}

/// Fails with [`AESX_ERR_OVERLAP`] if `out` overlaps any of `inputs`.
pub(crate) fn disjoint(out: Region, inputs: &[Region]) -> Status {
    if inputs.iter().any(|r| r.overlaps(out)) {
        Err(AESX_ERR_OVERLAP)
    } else {
        Ok(())
    }
}

/// `len` bytes to read at `ptr`.
///
/// # Safety
/// Unless `len` is 0, `ptr` must be valid for reads of `len` bytes for the
/// whole call, and nothing may write them meanwhile (the C caller's contract).
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Status<&'a [u8]> {
    Region::new(ptr, len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: non-NULL and a possible length (checked just above); validity
    // for `len` bytes is the caller's contract stated above.
    Ok(unsafe { slice::from_raw_parts(ptr, len) })
}

/// A fixed-size input (key-sized IV, tweak) copied out of C memory, so that
/// it cannot alias an output buffer.
///
/// # Safety
/// `ptr` must be NULL or valid for reads of `N` bytes.
pub(crate) unsafe fn array<const N: usize>(ptr: *const u8) -> Status<[u8; N]> {
    // SAFETY: `ptr` NULL or readable for `N` bytes (this function's contract): what
    // `input` requires for a length of `N`.
    let s = unsafe { input(ptr, N)? };
    let mut a = [0u8; N];
    a.copy_from_slice(s);
    Ok(a)
}

/// Input and output of one call, as the library takes them.
pub(crate) enum Io<'a> {
    /// `in == out`: one buffer of `max(in_len, out_len)` bytes.
    InPlace(&'a mut [u8]),
    /// Disjoint buffers.
    Split(&'a [u8], &'a mut [u8]),
}

/// Pairs `in_len` bytes of input with `out_len` bytes of output under the
/// overlap rule; `others` are the call's other inputs, which `out` must not
/// overlap either.
///
/// # Safety
/// `inp` valid for reads of `in_len` bytes and `out` for reads and writes of
/// `out_len` bytes (unless the length is 0), for the whole call, and no other
/// thread touches them meanwhile.
pub(crate) unsafe fn in_out<'a>(
    inp: *const u8,
    in_len: usize,
    out: *mut u8,
    out_len: usize,
    others: &[Region],
) -> Status<Io<'a>> {
    let ri = Region::new(inp, in_len)?;
    let ro = Region::new(out, out_len)?;
    disjoint(ro, others)?;
    if in_len != 0 && out_len != 0 && core::ptr::eq(inp, out) {
        let len = in_len.max(out_len);
        // SAFETY: the same memory is valid for `in_len` bytes (as input) and
        // `out_len` bytes (as output), so for the larger; it is the only slice
        // made over it, and it overlaps none of `others` (checked above).
        return Ok(Io::InPlace(unsafe { slice::from_raw_parts_mut(out, len) }));
    }
    if ri.overlaps(ro) {
        return Err(AESX_ERR_OVERLAP);
    }
    // SAFETY: both regions checked (non-NULL unless empty, possible lengths)
    // and disjoint, so the shared and the exclusive slice never alias;
    // validity is the caller's contract above.
    unsafe {
        let src: &[u8] = if in_len == 0 {
            &[]
        } else {
            slice::from_raw_parts(inp, in_len)
        };
        let dst: &mut [u8] = if out_len == 0 {
            &mut []
        } else {
            slice::from_raw_parts_mut(out, out_len)
        };
        Ok(Io::Split(src, dst))
    }
}

/// The buffers of a call whose output length varies (padding, an appended
/// tag, key wrap): `in_len` bytes at `inp`, room for `out_cap` bytes at
/// `out`, and where to store the length written (`out_len`, NULL if not
/// wanted).
#[derive(Clone, Copy)]
pub(crate) struct Resized {
    pub(crate) inp: *const u8,
    pub(crate) in_len: usize,
    pub(crate) out: *mut u8,
    pub(crate) out_cap: usize,
    pub(crate) out_len: *mut usize,
}

impl Resized {
    /// Names the buffers of a call; nothing is checked until [`Resized::run`].
    pub(crate) fn new(
        inp: *const u8,
        in_len: usize,
        out: *mut u8,
        out_cap: usize,
        out_len: *mut usize,
    ) -> Resized {
        Resized {
            inp,
            in_len,
            out,
            out_cap,
            out_len,
        }
    }

    /// Pairs the buffers under the overlap rule (`out` must not overlap
    /// `others` either), runs `f`, and stores the length it returns.
    ///
    /// # Safety
    /// As for [`in_out`] with `out_len = out_cap`; `out_len` NULL or valid
    /// for a write.
    pub(crate) unsafe fn run(
        self,
        others: &[Region],
        f: impl FnOnce(Io<'_>) -> Status<usize>,
    ) -> Status {
        // SAFETY: `inp` readable for `in_len` bytes and `out` writable for `out_cap` bytes (run's
        // contract, as in_out's).
        let io = unsafe { in_out(self.inp, self.in_len, self.out, self.out_cap, others)? };
        let n = f(io)?;
        // SAFETY: `out_len` NULL or valid for a write (run's contract).
        unsafe { store(self.out_len, n) };
        Ok(())
    }
}

/// Writes `bytes` to C memory at `out` (NULL only if `bytes` is empty).
///
/// # Safety
/// `out` valid for writes of `bytes.len()` bytes, overlapping no live slice.
pub(crate) unsafe fn write(out: *mut u8, bytes: &[u8]) -> Status {
    Region::new(out, bytes.len())?;
    if !bytes.is_empty() {
        // SAFETY: non-NULL, valid for the length (caller's contract), and
        // `bytes` is a Rust-owned copy that does not overlap it.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
    }
    Ok(())
}

/// Stores `value` through an optional out-pointer (NULL: not wanted).
///
/// # Safety
/// `ptr` NULL or valid for a write of one `T`.
pub(crate) unsafe fn store<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL, and valid by the caller's contract.
        unsafe { ptr.write_unaligned(value) };
    }
}
