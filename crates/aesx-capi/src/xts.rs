//! XTS (IEEE 1619, SP 800-38E): one data unit with its tweak, or runs of
//! consecutive sectors.

use core::ffi::c_int;

use crate::block_modes::handle;
use crate::buffers::{array, in_out, Io};
use crate::keys::AesxXtsKey;
use crate::status::{guard, OrCode, Status};
use aesx::Xts;

/// XTS-encrypts one data unit of `len` bytes (16 bytes to 2^24 bytes; a
/// partial last block is handled by ciphertext stealing) under the 16-byte
/// `tweak`. `out` may equal `in`; otherwise they must not overlap.
///
/// Errors: AESX_ERR_DATA_UNIT_LENGTH, AESX_ERR_XTS_EQUAL_KEY_HALVES, and the
/// argument errors.
///
/// Requires: `key` a live handle; `tweak` readable for 16 bytes; `in` readable and
/// `out` writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_encrypt(
    key: *const AesxXtsKey,
    tweak: *const u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `tweak` readable for 16 bytes; `in` readable and `out` writable
    // for `len` bytes (aesx_xts_encrypt's contract).
    guard(|| unsafe { unit(key, tweak, r#in, out, len, true) })
}

/// XTS-decrypts one data unit; as aesx_xts_encrypt.
///
/// Requires: As aesx_xts_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_decrypt(
    key: *const AesxXtsKey,
    tweak: *const u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `tweak` readable for 16 bytes; `in` readable and `out` writable
    // for `len` bytes (aesx_xts_decrypt's contract).
    guard(|| unsafe { unit(key, tweak, r#in, out, len, false) })
}

unsafe fn unit(
    key: *const AesxXtsKey,
    tweak: *const u8,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    enc: bool,
) -> Status {
    // SAFETY: `key` NULL or a live handle, `tweak` NULL or readable for 16 bytes, `inp` readable
    // and `out` writable for `len` bytes (aesx_xts_encrypt/decrypt's contract); the tweak is copied
    // first.
    let (key, tweak, io) = unsafe {
        (
            handle(key)?,
            array::<16>(tweak)?,
            in_out(inp, len, out, len, &[])?,
        )
    };
    let x = &key.xts;
    match (io, enc) {
        (Io::InPlace(b), true) => x.encrypt(&tweak, b),
        (Io::InPlace(b), false) => x.decrypt(&tweak, b),
        (Io::Split(s, d), true) => x.encrypt_to(&tweak, s, d),
        (Io::Split(s, d), false) => x.decrypt_to(&tweak, s, d),
    }
    .or_code()
}

/// XTS-encrypts `len` bytes holding consecutive sectors of `sector_size`
/// bytes, numbered from `first_sector`; each sector's tweak is its number as
/// a 128-bit little-endian value (the usual disk layout, as dm-crypt's
/// `plain64`).
///
/// `sector_size` is a multiple of 16 from 16 to 2^24 (512 and 4096 are the
/// usual ones), else AESX_ERR_SECTOR_SIZE; `len` must be a whole number of
/// sectors, else AESX_ERR_PARTIAL_SECTOR; `len == 0` does nothing. `out` may
/// equal `in`; otherwise they must not overlap.
///
/// Requires: `key` a live handle; `in` readable and `out` writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_encrypt_sectors(
    key: *const AesxXtsKey,
    sector_size: usize,
    first_sector: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable and `out` writable for `len` bytes
    // (aesx_xts_encrypt_sectors's contract).
    guard(|| unsafe { sectors(key, sector_size, first_sector, r#in, out, len, true, 1) })
}

/// XTS-decrypts consecutive sectors; as aesx_xts_encrypt_sectors.
///
/// Requires: As aesx_xts_encrypt_sectors.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_decrypt_sectors(
    key: *const AesxXtsKey,
    sector_size: usize,
    first_sector: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable and `out` writable for `len` bytes
    // (aesx_xts_decrypt_sectors's contract).
    guard(|| unsafe { sectors(key, sector_size, first_sector, r#in, out, len, false, 1) })
}

/// Consecutive sectors in direction `enc`, split over up to `threads`
/// threads when the run is long enough to gain from it.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sectors(
    key: *const AesxXtsKey,
    sector_size: usize,
    first: u64,
    inp: *const u8,
    out: *mut u8,
    len: usize,
    enc: bool,
    threads: usize,
) -> Status {
    // SAFETY: `key` NULL or a live handle, `inp` readable and `out` writable for `len` bytes (the
    // aesx_xts_*_sectors calls' contract).
    let (key, io) = unsafe { (handle(key)?, in_out(inp, len, out, len, &[])?) };
    let x = aesx::parallel::for_call(&key.xts, threads, len, Xts::with_threads);
    let (x, first) = (&*x, u128::from(first));
    match (io, enc) {
        (Io::InPlace(b), true) => x.encrypt_sectors(sector_size, first, b),
        (Io::InPlace(b), false) => x.decrypt_sectors(sector_size, first, b),
        (Io::Split(s, d), true) => x.encrypt_sectors_to(sector_size, first, s, d),
        (Io::Split(s, d), false) => x.decrypt_sectors_to(sector_size, first, s, d),
    }
    .or_code()
}
