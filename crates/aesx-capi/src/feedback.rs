//! CFB128, CFB8 and OFB (SP 800-38A): the legacy feedback modes, any
//! length, no padding, no integrity.

use core::ffi::c_int;

use aesx::{Cfb, Cfb8, Ofb};

use crate::block_modes::handle;
use crate::buffers::{array, in_out, write, Io, Region};
use crate::keys::AesxKey;
use crate::status::{guard, OrCode, Status};

const BLOCK: usize = 16;

/// Which call: the mode and, for CFB, the direction.
#[derive(Clone, Copy)]
enum Call {
    Cfb(bool),
    Cfb8(bool),
    Ofb,
}

/// The shared body: reads the 16-byte `iv`, runs the mode over the
/// buffers, and writes back the IV that continues the stream when there
/// is one (CFB and OFB: after a whole number of blocks; CFB8: always).
///
/// Requires: as the public calls.
unsafe fn run(
    call: Call,
    key: *const AesxKey,
    iv: *mut u8,
    inp: *const u8,
    out: *mut u8,
    len: usize,
) -> Status {
    // SAFETY: `key` NULL or a live handle, `iv` NULL or valid for 16 bytes, `inp` readable and
    // `out` writable for `len` bytes (the aesx_cfb*/ofb calls' contract); the IV is copied first,
    // and the output must not overlap it (checked as one of `others`).
    let (key, start, io) = unsafe {
        (
            handle(key)?,
            array::<BLOCK>(iv)?,
            in_out(inp, len, out, len, &[Region::new(iv, BLOCK)?])?,
        )
    };
    // A per-call copy of the expanded key: the handle stays immutable and
    // shareable between threads (as for CTR).
    let aes = key.cbc.aes().clone();
    let next = match call {
        Call::Cfb(enc) => {
            let mut c = Cfb::from_aes(aes, &start).or_code()?;
            match (io, enc) {
                (Io::InPlace(b), true) => c.encrypt(b),
                (Io::InPlace(b), false) => c.decrypt(b),
                (Io::Split(s, d), true) => c.encrypt_to(s, d).or_code()?,
                (Io::Split(s, d), false) => c.decrypt_to(s, d).or_code()?,
            }
            c.next_iv()
        }
        Call::Cfb8(enc) => {
            let mut c = Cfb8::from_aes(aes, &start).or_code()?;
            match (io, enc) {
                (Io::InPlace(b), true) => c.encrypt(b),
                (Io::InPlace(b), false) => c.decrypt(b),
                (Io::Split(s, d), true) => c.encrypt_to(s, d).or_code()?,
                (Io::Split(s, d), false) => c.decrypt_to(s, d).or_code()?,
            }
            Some(c.next_iv())
        }
        Call::Ofb => {
            let mut o = Ofb::from_aes(aes, &start).or_code()?;
            match io {
                Io::InPlace(b) => o.apply_keystream(b),
                Io::Split(s, d) => o.apply_keystream_to(s, d).or_code()?,
            }
            o.next_iv()
        }
    };
    if let Some(mut n) = next {
        // SAFETY: `iv` is writable for 16 bytes (caller's contract) and
        // overlaps neither buffer (checked above).
        let r = unsafe { write(iv, &n) };
        zeroize::Zeroize::zeroize(&mut n);
        r?;
    }
    Ok(())
}

/// CFB128-encrypts `len` bytes (any length) from `in` to `out` under the
/// 16-byte IV at `iv`; the same bytes as `openssl enc -aes-*-cfb`.
///
/// To continue one stream over several calls, pass the same `iv` array
/// again: after a call whose `len` is a multiple of 16 it holds the IV that
/// continues the stream (the last ciphertext block); after any other length
/// it is left as it was and the stream cannot be continued (end it there).
/// `out` may equal `in`; otherwise they must not overlap, and neither may
/// overlap `iv`. CFB has no integrity: pair it with a MAC.
///
/// Requires: `key` a live handle; `iv` readable and writable for 16 bytes;
/// `in` readable and `out` writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cfb_encrypt(
    key: *const AesxKey,
    iv: *mut u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable and writable for 16 bytes; `in` readable and `out`
    // writable for `len` bytes (aesx_cfb_encrypt's contract).
    guard(|| unsafe { run(Call::Cfb(true), key, iv, r#in, out, len) })
}

/// CFB128-decrypts `len` bytes; `iv` as for aesx_cfb_encrypt. Decryption
/// runs the backend's wide kernels (it parallelises; encryption cannot).
///
/// Requires: as aesx_cfb_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_cfb_decrypt(
    key: *const AesxKey,
    iv: *mut u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable and writable for 16 bytes; `in` readable and `out`
    // writable for `len` bytes (aesx_cfb_decrypt's contract).
    guard(|| unsafe { run(Call::Cfb(false), key, iv, r#in, out, len) })
}

/// CFB8-encrypts `len` bytes (8-bit feedback: one AES call per byte; the
/// same bytes as `openssl enc -aes-*-cfb8`). On success `iv` holds the IV
/// that continues the stream (the last 16 ciphertext bytes) after any
/// length. Buffers as for aesx_cfb_encrypt.
///
/// Requires: as aesx_cfb_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_cfb8_encrypt(
    key: *const AesxKey,
    iv: *mut u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable and writable for 16 bytes; `in` readable and `out`
    // writable for `len` bytes (aesx_cfb8_encrypt's contract).
    guard(|| unsafe { run(Call::Cfb8(true), key, iv, r#in, out, len) })
}

/// CFB8-decrypts `len` bytes (through the wide kernels); `iv` as for
/// aesx_cfb8_encrypt.
///
/// Requires: as aesx_cfb_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_cfb8_decrypt(
    key: *const AesxKey,
    iv: *mut u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable and writable for 16 bytes; `in` readable and `out`
    // writable for `len` bytes (aesx_cfb8_decrypt's contract).
    guard(|| unsafe { run(Call::Cfb8(false), key, iv, r#in, out, len) })
}

/// OFB: XORs the keystream of the 16-byte IV at `iv` over `len` bytes from
/// `in` to `out`; encryption and decryption are the same call (`openssl
/// enc -aes-*-ofb`). After a call whose `len` is a multiple of 16, `iv`
/// holds the IV that continues the stream (the last keystream block: keep
/// it as secret as the key); after any other length it is left as it was.
/// Never reuse an IV under one key. Buffers as for aesx_cfb_encrypt.
///
/// Requires: as aesx_cfb_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_ofb_xor(
    key: *const AesxKey,
    iv: *mut u8,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable and writable for 16 bytes; `in` readable and `out`
    // writable for `len` bytes (aesx_ofb_xor's contract).
    guard(|| unsafe { run(Call::Ofb, key, iv, r#in, out, len) })
}
