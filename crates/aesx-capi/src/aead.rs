//! GCM (one-shot seal and open, tag detached or appended) and RFC 4106 ESP
//! with the plaintext's one's-complement checksum.

use core::ffi::c_int;

use aesx::Esp;
use zeroize::Zeroize;

use crate::block_modes::handle;
use crate::buffers::{disjoint, in_out, input, store, write, Io, Region, Resized};
use crate::keys::{AesxEspKey, AesxKey};
use crate::sealing::{self, tag_copy, Params};
use crate::status::{
    code, guard, Status, AESX_ERR_AAD_LENGTH, AESX_ERR_IV_LENGTH, AESX_ERR_MESSAGE_TOO_LONG,
    AESX_ERR_TAG_LENGTH,
};

/// AES-GCM encryption with a detached tag.
///
/// - `iv`, `iv_len`: the nonce, any length from 1 byte (12 bytes is the fast
///   and recommended size; other lengths go through GHASH as SP 800-38D
///   says). Never reuse a nonce with the same key.
/// - `aad`, `aad_len`: associated data, authenticated but not encrypted (may
///   be NULL with length 0).
/// - `in`, `out`, `len`: plaintext in, ciphertext out; `out` may equal `in`,
///   otherwise they must not overlap; `len` at most 2^36 - 32.
/// - `tag`, `tag_len`: receives the tag; 16, 15, 14, 13, 12, 8 or 4 bytes
///   (a short tag is the full tag's first bytes).
///
/// `out` and `tag` must not overlap the IV, the AAD or each other.
///
/// Requires: `key` a live handle; every pointer valid for its length (reads for
/// inputs, writes for `out` and `tag`).
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_seal(
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
    // `out` and `tag`) (aesx_gcm_seal's contract).
    guard(|| unsafe {
        let gcm = handle(key)?.gcm(tag_len)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::seal_detached(gcm, &p, r#in, out, len, tag, tag_len)
    })
}

/// AES-GCM decryption with a detached tag: checks `tag` (`tag_len` bytes, as
/// for aesx_gcm_seal) in constant time and decrypts `len` bytes from `in`
/// to `out`.
///
/// On AESX_ERR_AUTH_FAILED no plaintext is released: the `len` bytes of
/// `out` are zeroed. `out` may equal `in`, otherwise they must not overlap;
/// `out` must not overlap the IV or the AAD.
///
/// Requires: As aesx_gcm_seal (`tag` is read, not written).
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_open(
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
    // writes for `out`) (aesx_gcm_open's contract).
    guard(|| unsafe {
        let gcm = handle(key)?.gcm(tag_len)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::open_detached(gcm, &p, r#in, out, len, tag, tag_len)
    })
}

/// AES-GCM encryption with the tag appended: writes ciphertext followed by
/// the `tag_len`-byte tag to `out`, which holds `out_cap >= in_len + tag_len`
/// bytes, and stores `in_len + tag_len` in `*out_len` (may be NULL).
///
/// In place: `out == in` with room for the tag after the plaintext. IV, AAD
/// and tag length as for aesx_gcm_seal.
///
/// Requires: `key` a live handle; `in` readable for `in_len` bytes, `out` writable for
/// `out_cap` bytes; `iv`, `aad` readable for their lengths; `out_len` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_seal_append(
    key: *const AesxKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    tag_len: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable for `in_len` bytes, `out` writable for `out_cap`
    // bytes; `iv`, `aad` readable for their lengths; `out_len` NULL or writable
    // (aesx_gcm_seal_append's contract).
    guard(|| unsafe {
        let gcm = handle(key)?.gcm(tag_len)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::seal_append(gcm, &p, Resized::new(r#in, in_len, out, out_cap, out_len))
    })
}

/// AES-GCM decryption of ciphertext followed by its `tag_len`-byte tag
/// (`in_len` bytes in all): checks the tag in constant time, writes the
/// plaintext (`in_len - tag_len` bytes) to `out`, which holds `out_cap`
/// bytes, and stores its length in `*out_len` (may be NULL).
///
/// On AESX_ERR_AUTH_FAILED (also for input shorter than the tag) nothing is
/// released, exactly as the Rust library does: out of place, all `out_cap`
/// bytes of `out` are zeroed; in place (`out == in`), all `in_len` bytes of
/// the buffer, tag included.
///
/// Requires: As aesx_gcm_seal_append.
#[no_mangle]
pub unsafe extern "C" fn aesx_gcm_open_append(
    key: *const AesxKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    tag_len: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable for `in_len` bytes, `out` writable for `out_cap`
    // bytes; `iv`, `aad` readable for their lengths; `out_len` NULL or writable
    // (aesx_gcm_open_append's contract).
    guard(|| unsafe {
        let gcm = handle(key)?.gcm(tag_len)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        sealing::open_append(gcm, &p, Resized::new(r#in, in_len, out, out_cap, out_len))
    })
}

/// The ESP packet buffer: `out` itself, after copying the input there when
/// the call is out of place.
///
/// The library's ESP works in place, so an out-of-place call copies first;
/// RFC 4106's fixed argument rules (8-byte IV, 8- or 12-byte AAD, GCM's
/// length limit) are checked before that copy, so that a call refused for
/// its arguments leaves `out` untouched, as every other call does.
fn packet<'a>(io: Io<'a>, iv: &[u8], aad: &[u8]) -> Status<(&'a mut [u8], bool)> {
    match io {
        Io::InPlace(b) => Ok((b, false)),
        Io::Split(s, d) => {
            if iv.len() != 8 {
                return Err(AESX_ERR_IV_LENGTH);
            }
            if aad.len() != 8 && aad.len() != 12 {
                return Err(AESX_ERR_AAD_LENGTH);
            }
            if s.len() as u64 > (1 << 36) - 32 {
                return Err(AESX_ERR_MESSAGE_TOO_LONG);
            }
            d.copy_from_slice(s);
            Ok((d, true))
        }
    }
}

/// Runs one ESP operation over the packet buffer (see [`packet`]). On an
/// error, a buffer that holds a copy of the input is zeroed, so that no
/// plaintext copy is left behind (the library zeroes what it decrypted).
fn in_packet<T>(
    io: Io<'_>,
    p: &Params<'_>,
    op: impl FnOnce(&mut [u8]) -> aesx::Result<T>,
) -> Status<T> {
    let (buf, copied) = packet(io, p.nonce, p.aad)?;
    op(&mut *buf).map_err(|e| {
        if copied {
            buf.zeroize();
        }
        code(e)
    })
}

/// The ESP context of a call whose ICV is `tag_len` bytes (the context's).
///
/// Requires: `key` NULL or a live handle.
unsafe fn esp_key<'a>(key: *const AesxEspKey, tag_len: usize) -> Status<&'a Esp> {
    // SAFETY: `key` NULL or a live handle (esp_key's contract).
    let esp = unsafe { &handle(key)?.esp };
    if tag_len != esp.tag_len() {
        return Err(AESX_ERR_TAG_LENGTH);
    }
    Ok(esp)
}

/// RFC 4106 ESP encryption of one packet payload: GCM under nonce = salt ||
/// `iv`, with the ESP header as AAD.
///
/// - `iv`, `iv_len`: the 8-byte per-packet IV (never reuse one per key);
/// - `aad`, `aad_len`: SPI and sequence number, 8 bytes (or 12 with an
///   extended sequence number);
/// - `in`, `out`, `len`: payload in, ciphertext out (`out` may equal `in`,
///   otherwise no overlap);
/// - `tag`, `tag_len`: receives the ICV; `tag_len` must be the context's;
/// - `checksum`: if not NULL, receives the 64-bit one's-complement sum of the
///   plaintext (see aesx_ones_complement_checksum), computed in the same pass.
///
/// Requires: `key` a live handle; every pointer valid for its length; `checksum` NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_esp_seal(
    key: *const AesxEspKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
    checksum: *mut u64,
) -> c_int {
    // SAFETY: `key` a live handle; every pointer valid for its length; `checksum` NULL or writable
    // (aesx_esp_seal's contract).
    guard(|| unsafe {
        let esp = esp_key(key, tag_len)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        disjoint(Region::new(tag, tag_len)?, &p.with(Region::new(out, len)?))?;
        let io = in_out(r#in, len, out, len, &p.regions)?;
        let (t, sum) = in_packet(io, &p, |buf| {
            if checksum.is_null() {
                esp.seal_in_place(p.nonce, p.aad, buf).map(|t| (t, 0))
            } else {
                esp.seal_in_place_with_checksum(p.nonce, p.aad, buf)
            }
        })?;
        write(tag, t.as_bytes())?;
        store(checksum, sum);
        Ok(())
    })
}

/// RFC 4106 ESP decryption: checks the ICV `tag` (`tag_len` bytes, the
/// context's length) in constant time, decrypts `len` bytes from `in` to
/// `out`, and stores the one's-complement checksum of the plaintext in
/// `*checksum` (if not NULL). IV and AAD as for aesx_esp_seal.
///
/// On AESX_ERR_AUTH_FAILED the `len` bytes of `out` are zeroed and no
/// checksum is stored.
///
/// Requires: As aesx_esp_seal (`tag` is read, not written).
#[no_mangle]
pub unsafe extern "C" fn aesx_esp_open(
    key: *const AesxEspKey,
    iv: *const u8,
    iv_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *const u8,
    tag_len: usize,
    checksum: *mut u64,
) -> c_int {
    // SAFETY: `key` a live handle; every pointer valid for its length (`tag` read); `checksum` NULL
    // or writable (aesx_esp_open's contract).
    guard(|| unsafe {
        let esp = esp_key(key, tag_len)?;
        let t = tag_copy(tag, tag_len)?;
        let p = Params::new(iv, iv_len, aad, aad_len)?;
        let io = in_out(r#in, len, out, len, &p.regions)?;
        let sum = in_packet(io, &p, |buf| {
            esp.open_in_place(p.nonce, p.aad, buf, &t[..tag_len])
        })?;
        store(checksum, sum);
        Ok(())
    })
}

/// The 64-bit one's-complement sum of `data`, read as little-endian 64-bit
/// words (the last one zero-padded), with end-around carry: the value
/// aesx_esp_seal and aesx_esp_open return. Its 8 little-endian bytes are the
/// `CS` field of AArch64cryptolib's test files (`ffffeeeeddddccccbbbbaaaa`
/// sums to bytes `babb9999deddcccc`). The sum of no bytes is 0.
///
/// Requires: `data` readable for `len` bytes; `sum` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_ones_complement_checksum(
    data: *const u8,
    len: usize,
    sum: *mut u64,
) -> c_int {
    guard(|| {
        Region::new(sum, 1)?;
        // SAFETY: `data` readable for `len` bytes; `sum` writable (aesx_ones_complement_checksum's
        // contract).
        let data = unsafe { input(data, len)? };
        // SAFETY: non-NULL (checked), writable by the caller's contract.
        unsafe { store(sum, aesx::ones_complement_checksum(data)) };
        Ok(())
    })
}

/// A plain reference for the tests: the integer sum of the words folded to
/// 64 bits (2^64 is 1 modulo 2^64 - 1, so folding the carries back in is
/// end-around carry).
#[cfg(test)]
pub(crate) fn ones_complement(data: &[u8]) -> u64 {
    let mut total = 0u128;
    for w in data.chunks(8) {
        let mut word = [0u8; 8];
        word[..w.len()].copy_from_slice(w);
        total += u128::from(u64::from_le_bytes(word));
    }
    while total >> 64 != 0 {
        total = (total & u128::from(u64::MAX)) + (total >> 64);
    }
    total as u64
}
