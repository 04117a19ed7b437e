//! The bodies of the one-shot AEAD calls, written once for every AEAD the
//! interface has (GCM, GCM-SIV, XAES-256-GCM, CCM): detached or appended
//! tag, in place or out of place, with the ABI's argument, overlap and
//! zeroing rules.

use aesx::{Error, Gcm, Tag};
use zeroize::Zeroize;

use crate::buffers::{disjoint, in_out, input, write, Io, Region, Resized};
use crate::status::{code, OrCode, Status, AESX_ERR_OUTPUT_TOO_SMALL, AESX_ERR_TAG_LENGTH};

/// The longest tag any mode here produces.
pub(crate) const MAX_TAG: usize = 16;

/// What the calls need from a keyed AEAD with a fixed tag length.
pub(crate) trait Aead {
    fn tag_len(&self) -> usize;

    /// The argument checks (nonce length, limits) that the library would
    /// make, made before a byte of the output is written.
    fn check(&self, p: &Params<'_>, len: usize) -> aesx::Result<()>;

    fn seal_in_place(&self, p: &Params<'_>, buf: &mut [u8]) -> aesx::Result<Tag>;

    fn open_in_place(&self, p: &Params<'_>, buf: &mut [u8], tag: &[u8]) -> aesx::Result<()>;

    /// Out of place: a copy, then in place. `dst` is zeroed on failure, so
    /// that no plaintext copy is left behind.
    fn seal_to(&self, p: &Params<'_>, src: &[u8], dst: &mut [u8]) -> aesx::Result<Tag> {
        self.check(p, src.len())?;
        dst.copy_from_slice(src);
        self.seal_in_place(p, dst).inspect_err(|_| dst.zeroize())
    }

    /// As `seal_to`, opening.
    fn open_to(&self, p: &Params<'_>, src: &[u8], tag: &[u8], dst: &mut [u8]) -> aesx::Result<()> {
        self.check(p, src.len())?;
        dst.copy_from_slice(src);
        self.open_in_place(p, dst, tag)
            .inspect_err(|_| dst.zeroize())
    }
}

impl Aead for Gcm {
    fn tag_len(&self) -> usize {
        Gcm::tag_len(self)
    }

    fn check(&self, _: &Params<'_>, _: usize) -> aesx::Result<()> {
        // GCM's own out-of-place calls (below) check before writing.
        Ok(())
    }

    fn seal_in_place(&self, p: &Params<'_>, buf: &mut [u8]) -> aesx::Result<Tag> {
        self.seal_in_place_detached(p.nonce, p.aad, buf)
    }

    fn open_in_place(&self, p: &Params<'_>, buf: &mut [u8], tag: &[u8]) -> aesx::Result<()> {
        self.open_in_place_detached(p.nonce, p.aad, buf, tag)
    }

    fn seal_to(&self, p: &Params<'_>, src: &[u8], dst: &mut [u8]) -> aesx::Result<Tag> {
        self.seal_to_detached(p.nonce, p.aad, src, dst)
    }

    fn open_to(&self, p: &Params<'_>, src: &[u8], tag: &[u8], dst: &mut [u8]) -> aesx::Result<()> {
        self.open_to_detached(p.nonce, p.aad, src, tag, dst)
    }
}

/// The nonce and AAD arguments of one call: their slices and regions (which
/// the output must not overlap).
pub(crate) struct Params<'a> {
    pub(crate) nonce: &'a [u8],
    pub(crate) aad: &'a [u8],
    pub(crate) regions: [Region; 2],
}

impl<'a> Params<'a> {
    /// Requires: `nonce` and `aad` readable for their lengths for the call.
    pub(crate) unsafe fn new(
        nonce: *const u8,
        nonce_len: usize,
        aad: *const u8,
        aad_len: usize,
    ) -> Status<Params<'a>> {
        let regions = [Region::new(nonce, nonce_len)?, Region::new(aad, aad_len)?];
        // SAFETY: `nonce` and `aad` readable for their lengths for the call (new's contract).
        let (nonce, aad) = unsafe { (input(nonce, nonce_len)?, input(aad, aad_len)?) };
        Ok(Params {
            nonce,
            aad,
            regions,
        })
    }

    /// The regions an output must not overlap: the nonce, the AAD and
    /// `other`.
    pub(crate) fn with(&self, other: Region) -> [Region; 3] {
        [self.regions[0], self.regions[1], other]
    }
}

/// Copies a tag to read out of C memory, so that it cannot alias the output.
///
/// Requires: `tag` readable for `len` bytes (NULL only if `len` is 0).
pub(crate) unsafe fn tag_copy(tag: *const u8, len: usize) -> Status<[u8; MAX_TAG]> {
    if len > MAX_TAG {
        return Err(AESX_ERR_TAG_LENGTH);
    }
    // SAFETY: `tag` readable for `len` bytes (NULL only if `len` is 0) (tag_copy's contract).
    let t = unsafe { input(tag, len)? };
    let mut a = [0u8; MAX_TAG];
    a[..len].copy_from_slice(t);
    Ok(a)
}

/// Seal with a detached tag of exactly `a.tag_len()` bytes.
///
/// Requires: `inp`/`out` valid for `len` bytes and `tag` for `tag_len`
/// (reads and writes as their roles say), for the whole call.
pub(crate) unsafe fn seal_detached(
    a: &dyn Aead,
    p: &Params<'_>,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
) -> Status {
    if tag_len != a.tag_len() {
        return Err(AESX_ERR_TAG_LENGTH);
    }
    let rt = Region::new(tag, tag_len)?;
    disjoint(rt, &p.with(Region::new(out, len)?))?;
    // SAFETY: `inp`/`out` valid for `len` bytes and `tag` for `tag_len` (reads and writes as their
    // roles say), for the whole call (seal_detached's contract).
    let io = unsafe { in_out(inp, len, out, len, &p.regions)? };
    let t = match io {
        Io::InPlace(b) => a.seal_in_place(p, b),
        Io::Split(s, d) => a.seal_to(p, s, d),
    }
    .or_code()?;
    // SAFETY: `inp`/`out` valid for `len` bytes and `tag` for `tag_len` (reads and writes as their
    // roles say), for the whole call (seal_detached's contract); `tag` overlaps nothing (checked).
    unsafe { write(tag, t.as_bytes()) }
}

/// Open with a detached tag; on a failed tag the `len` bytes of `out` are
/// zeroed (the library's rule).
///
/// Requires: as [`seal_detached`], `tag` read.
pub(crate) unsafe fn open_detached(
    a: &dyn Aead,
    p: &Params<'_>,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    tag: *const u8,
    tag_len: usize,
) -> Status {
    if tag_len != a.tag_len() {
        return Err(AESX_ERR_TAG_LENGTH);
    }
    // SAFETY: `inp` readable and `out` writable for `len` bytes, `tag` readable for `tag_len` bytes
    // (open_detached's contract).
    let (t, io) = unsafe {
        (
            tag_copy(tag, tag_len)?,
            in_out(inp, len, out, len, &p.regions)?,
        )
    };
    let t = &t[..tag_len];
    match io {
        Io::InPlace(b) => a.open_in_place(p, b, t),
        Io::Split(s, d) => a.open_to(p, s, t, d),
    }
    .or_code()
}

/// Seal with the tag after the ciphertext, into `b.out_cap` bytes at
/// `b.out` (`out == inp` works in place); stores the length written.
///
/// Requires: as [`Resized::run`].
pub(crate) unsafe fn seal_append(a: &dyn Aead, p: &Params<'_>, b: Resized) -> Status {
    let tl = a.tag_len();
    let body = |io: Io<'_>| {
        let total = b.in_len.checked_add(tl).ok_or(AESX_ERR_OUTPUT_TOO_SMALL)?;
        if b.out_cap < total {
            return Err(AESX_ERR_OUTPUT_TOO_SMALL);
        }
        let (t, rest) = match io {
            Io::Split(s, d) => {
                let (body, rest) = d.split_at_mut(b.in_len);
                (a.seal_to(p, s, body), rest)
            }
            Io::InPlace(buf) => {
                let (body, rest) = buf.split_at_mut(b.in_len);
                (a.seal_in_place(p, body), rest)
            }
        };
        rest[..tl].copy_from_slice(t.or_code()?.as_bytes());
        Ok(total)
    };
    // SAFETY: `b`'s `inp` readable for `in_len` bytes, `out` writable for `out_cap` bytes,
    // `out_len` NULL or writable (seal_append's contract, as Resized::run's).
    unsafe { b.run(&p.regions, body) }
}

/// Open ciphertext followed by its tag (`b.in_len` bytes) into
/// `b.out_cap` bytes at `b.out`; stores the plaintext length. On a failed
/// tag (also for input shorter than the tag) nothing is released: out of
/// place all `out_cap` bytes of `out` are zeroed, in place all `in_len`
/// bytes.
///
/// Requires: as [`Resized::run`].
pub(crate) unsafe fn open_append(a: &dyn Aead, p: &Params<'_>, b: Resized) -> Status {
    let (tl, in_len) = (a.tag_len(), b.in_len);
    let ct_len = in_len.checked_sub(tl);
    let body = |io: Io<'_>| {
        if ct_len.is_some_and(|n| b.out_cap < n) {
            return Err(AESX_ERR_OUTPUT_TOO_SMALL);
        }
        let r = match (io, ct_len) {
            (Io::Split(_, d), None) => {
                d.zeroize();
                Err(Error::AuthenticationFailed)
            }
            (Io::InPlace(buf), None) => {
                buf[..in_len].zeroize();
                Err(Error::AuthenticationFailed)
            }
            (Io::Split(s, d), Some(n)) => {
                let (ct, tag) = s.split_at(n);
                let r = a.open_to(p, ct, tag, &mut d[..n]);
                if r == Err(Error::AuthenticationFailed) {
                    d.zeroize();
                }
                r
            }
            (Io::InPlace(buf), Some(n)) => {
                let (ct, tag) = buf[..in_len].split_at_mut(n);
                let mut t = [0u8; MAX_TAG];
                t[..tl].copy_from_slice(tag);
                let r = a.open_in_place(p, ct, &t[..tl]);
                if r == Err(Error::AuthenticationFailed) {
                    tag.zeroize();
                }
                r
            }
        };
        r.map_err(code)?;
        Ok(ct_len.unwrap_or(0))
    };
    // SAFETY: `b`'s `inp` readable for `in_len` bytes, `out` writable for `out_cap` bytes,
    // `out_len` NULL or writable (open_append's contract, as Resized::run's).
    unsafe { b.run(&p.regions, body) }
}
