//! AES-GCM-SIV (RFC 8452) on an AES key handle, with the arguments, checks
//! and failure rules of the GCM calls, and its `_threads` forms (the
//! library's `GcmSiv::with_threads`; see docs/C.md, "One message on many
//! cores").

use core::ffi::{c_int, c_uint};

use aesx::{GcmSiv, Tag};

use crate::block_modes::handle;
use crate::keys::AesxKey;
use crate::parallel::count;
use crate::sealing::{self, Aead, Params};
use crate::status::{guard, Status};

impl Aead for GcmSiv {
    fn tag_len(&self) -> usize {
        GcmSiv::TAG_LEN
    }

    fn check(&self, _: &Params<'_>, _: usize) -> aesx::Result<()> {
        // GCM-SIV's own out-of-place calls (below) check before writing.
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

/// GCM-SIV on the handle's AES key (the key-generating key), split over up
/// to `threads` threads where the message is long enough.
///
/// Requires: `key` NULL or a live handle.
unsafe fn siv(key: *const AesxKey, threads: c_uint) -> Status<GcmSiv> {
    // SAFETY: `key` NULL or a live handle (siv's contract).
    let aes = unsafe { handle(key)? }.cbc.aes().clone();
    let siv = GcmSiv::from(aes);
    // 0 and 1 both mean one thread (the library holds counts to 1..=64).
    Ok(siv.with_threads(count(threads)))
}

/// AES-GCM-SIV encryption (RFC 8452) with a detached tag, under the AES key
/// of `key` (16, 24 or 32 bytes; 24-byte keys as OpenSSL and pyca derive
/// them, beyond the RFC).
///
/// - `iv`, `iv_len`: the nonce, 12 bytes (else AESX_ERR_IV_LENGTH).
///   Misuse-resistant: a repeated nonce reveals only whether two messages
///   (with their AAD) were equal.
/// - `aad`, `aad_len`: associated data (may be NULL with length 0), at most
///   2^36 bytes (else AESX_ERR_AAD_LENGTH).
/// - `in`, `out`, `len`: plaintext in, ciphertext out; `out` may equal `in`,
///   otherwise they must not overlap; `len` at most 2^36 (else
///   AESX_ERR_MESSAGE_TOO_LONG).
/// - `tag`, `tag_len`: receives the tag; `tag_len` 16 (else
///   AESX_ERR_TAG_LENGTH).
///
/// `out` and `tag` must not overlap the IV, the AAD or each other. Nothing
/// is written when an argument is refused.
///
/// Requires: `key` a live handle; every pointer valid for its length (reads for
/// inputs, writes for `out` and `tag`).
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_siv_seal(
    key: *const AesxKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; every pointer valid for its length (reads for inputs, writes for
    // `out` and `tag`) (aesx_gcm_siv_seal's contract).
    unsafe {
        aesx_gcm_siv_seal_threads(
            key, iv, iv_len, aad, aad_len, r#in, out, len, tag, tag_len, 1,
        )
    }
}

/// AES-GCM-SIV decryption with a detached tag: decrypts `len` bytes from
/// `in` to `out` with `tag` (16 bytes) as the counter, recomputes the tag
/// over the plaintext and compares the two in constant time.
///
/// On AESX_ERR_AUTH_FAILED no plaintext is released: the `len` bytes of
/// `out` are zeroed. `out` may equal `in`, otherwise they must not overlap;
/// `out` must not overlap the IV or the AAD. Other arguments as
/// aesx_gcm_siv_seal.
///
/// Requires: As aesx_gcm_siv_seal (`tag` is read, not written).
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_siv_open(
    key: *const AesxKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *const u8,
    tag_len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; every pointer valid for its length (reads for inputs and `tag`,
    // writes for `out`) (aesx_gcm_siv_open's contract).
    unsafe {
        aesx_gcm_siv_open_threads(
            key, iv, iv_len, aad, aad_len, r#in, out, len, tag, tag_len, 1,
        )
    }
}

/// aesx_gcm_siv_seal over up to `threads` threads: a message of at least
/// AESX_MIN_SEGMENT bytes per extra thread is hashed in segments, one per
/// thread (POLYVAL sums combined with powers of H), then encrypted in
/// counter ranges from the tag; a shorter one runs on the calling thread.
/// Output and tag are the bytes aesx_gcm_siv_seal gives. `threads` 0 and 1
/// mean one thread; more than 64 are held to 64. Arguments and errors as
/// aesx_gcm_siv_seal.
///
/// Requires: As aesx_gcm_siv_seal.
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_siv_seal_threads(
    key: *const AesxKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
    threads: c_uint,
) -> c_int {
    // SAFETY: `key` a live handle; every pointer valid for its length (reads for inputs, writes for
    // `out` and `tag`) (aesx_gcm_siv_seal_threads's contract).
    guard(|| unsafe {
        let siv = siv(key, threads)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::seal_detached(&siv, &p, r#in, out, len, tag, tag_len)
    })
}

/// aesx_gcm_siv_open over up to `threads` threads, as
/// aesx_gcm_siv_seal_threads: each segment is decrypted and hashed on its
/// thread, then the tag over the whole plaintext is checked; on
/// AESX_ERR_AUTH_FAILED the `len` bytes of `out` are zeroed, as
/// aesx_gcm_siv_open does, so no plaintext is released.
///
/// Requires: As aesx_gcm_siv_open.
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_siv_open_threads(
    key: *const AesxKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *const u8,
    tag_len: usize,
    threads: c_uint,
) -> c_int {
    // SAFETY: `key` a live handle; every pointer valid for its length (reads for inputs and `tag`,
    // writes for `out`) (aesx_gcm_siv_open_threads's contract).
    guard(|| unsafe {
        let siv = siv(key, threads)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::open_detached(&siv, &p, r#in, out, len, tag, tag_len)
    })
}
