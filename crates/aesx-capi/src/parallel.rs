//! One large call on several threads: GCM seal and open, CTR and XTS
//! sectors split over up to `threads` threads, with the bytes of one thread
//! (the library's `with_threads`; see docs/C.md, "One message on many
//! cores").

use core::ffi::{c_int, c_uint};

use aesx::parallel::for_call;

use crate::block_modes::{ctr_xor, handle};
use crate::keys::{AesxKey, AesxXtsKey};
use crate::sealing::{self, Params};
use crate::status::guard;

/// The shortest segment one thread is given, in bytes: a call shorter than
/// two of them runs on the calling thread alone.
pub const AESX_MIN_SEGMENT: usize = 131072;

/// The most threads one call uses.
pub const AESX_MAX_THREADS: c_uint = 64;

/// A C `threads` argument as the library's count (which holds it to 1..=64).
pub(crate) fn count(threads: c_uint) -> usize {
    usize::try_from(threads).unwrap_or(usize::MAX)
}

/// aesx_gcm_seal over up to `threads` threads: a message of at least
/// AESX_MIN_SEGMENT bytes per extra thread is split into counter ranges,
/// one per thread, whose GHASH sums are combined with powers of H; a
/// shorter one runs on the calling thread. Output and tag are the bytes
/// aesx_gcm_seal gives. `threads` 0 and 1 mean one thread; more than 64 are
/// held to 64. Arguments and errors as aesx_gcm_seal.
///
/// Requires: As aesx_gcm_seal.
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_seal_threads(
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
    // `out` and `tag`) (aesx_gcm_seal_threads's contract).
    guard(|| unsafe {
        let gcm = handle(key)?.gcm(tag_len)?;
        let gcm = for_call(gcm, count(threads), len, aesx::Gcm::with_threads);
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::seal_detached(&*gcm, &p, r#in, out, len, tag, tag_len)
    })
}

/// aesx_gcm_open over up to `threads` threads, as aesx_gcm_seal_threads:
/// every segment is decrypted into `out`, then the tag over the whole
/// ciphertext is checked; on AESX_ERR_AUTH_FAILED the `len` bytes of `out`
/// are zeroed, as aesx_gcm_open does, so no plaintext is released.
///
/// Requires: As aesx_gcm_open.
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_open_threads(
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
    // writes for `out`) (aesx_gcm_open_threads's contract).
    guard(|| unsafe {
        let gcm = handle(key)?.gcm(tag_len)?;
        let gcm = for_call(gcm, count(threads), len, aesx::Gcm::with_threads);
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::open_detached(&*gcm, &p, r#in, out, len, tag, tag_len)
    })
}

/// aesx_ctr_xor over up to `threads` threads: the whole blocks of a call of
/// at least AESX_MIN_SEGMENT bytes per extra thread are split into counter
/// ranges (the 128-bit counter plus the blocks before each, wrapping as
/// aesx_ctr_xor does). Same bytes as aesx_ctr_xor; `threads` as for
/// aesx_gcm_seal_threads.
///
/// Requires: As aesx_ctr_xor.
#[no_mangle]
pub unsafe extern "C" fn aesx_ctr_xor_threads(
    key: *const AesxKey,
    iv: *const u8,
    offset: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    threads: c_uint,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable for 16 bytes; `in` readable and `out` writable for
    // `len` bytes (aesx_ctr_xor_threads's contract).
    unsafe { ctr_xor(key, iv, offset, r#in, out, len, count(threads)) }
}

/// aesx_xts_encrypt_sectors over up to `threads` threads, split at sector
/// boundaries (each thread from its own sector number). Same bytes as
/// aesx_xts_encrypt_sectors; `threads` as for aesx_gcm_seal_threads.
///
/// Requires: As aesx_xts_encrypt_sectors.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_encrypt_sectors_threads(
    key: *const AesxXtsKey,
    sector_size: usize,
    first_sector: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    threads: c_uint,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable and `out` writable for `len` bytes
    // (aesx_xts_encrypt_sectors_threads's contract).
    guard(|| unsafe {
        crate::xts::sectors(
            key,
            sector_size,
            first_sector,
            r#in,
            out,
            len,
            true,
            count(threads),
        )
    })
}

/// aesx_xts_decrypt_sectors over up to `threads` threads, as
/// aesx_xts_encrypt_sectors_threads.
///
/// Requires: As aesx_xts_decrypt_sectors.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_decrypt_sectors_threads(
    key: *const AesxXtsKey,
    sector_size: usize,
    first_sector: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    threads: c_uint,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable and `out` writable for `len` bytes
    // (aesx_xts_decrypt_sectors_threads's contract).
    guard(|| unsafe {
        crate::xts::sectors(
            key,
            sector_size,
            first_sector,
            r#in,
            out,
            len,
            false,
            count(threads),
        )
    })
}
