//! ECB, CBC (with or without PKCS#7), CTR and multi-buffer CBC encryption.

use core::ffi::c_int;

use aesx::{cbc_encrypt_many, Cbc, CbcJob, Ctr, Padding};
use zeroize::Zeroize;

use crate::buffers::{array, in_out, Io, Region, Resized};
use crate::keys::AesxKey;
use crate::status::{
    guard, OrCode, Status, AESX_ERR_INVALID_ARGUMENT, AESX_ERR_INVALID_LENGTH,
    AESX_ERR_NOT_BLOCK_ALIGNED, AESX_ERR_NULL_POINTER, AESX_ERR_OUTPUT_TOO_SMALL, AESX_ERR_OVERLAP,
};

/// No padding: the data must be a whole number of 16-byte blocks.
pub const AESX_PADDING_NONE: c_int = 0;
/// PKCS#7 padding: encryption always adds 1 to 16 bytes; decryption checks
/// and removes them (in constant time) or fails with AESX_ERR_BAD_PADDING.
pub const AESX_PADDING_PKCS7: c_int = 1;

const BLOCK: usize = 16;

/// A handle from C, borrowed for the call.
///
/// Requires: `p` NULL or a live handle.
pub(crate) unsafe fn handle<'a, T>(p: *const T) -> Status<&'a T> {
    // SAFETY: NULL or live, by the caller's contract.
    unsafe { p.as_ref() }.ok_or(AESX_ERR_NULL_POINTER)
}

fn padding_of(p: c_int) -> Status<Padding> {
    match p {
        AESX_PADDING_NONE => Ok(Padding::None),
        AESX_PADDING_PKCS7 => Ok(Padding::Pkcs7),
        _ => Err(AESX_ERR_INVALID_ARGUMENT),
    }
}

/// ECB-encrypts `len` bytes (a multiple of 16) from `in` to `out`.
///
/// `out` may equal `in` (in place); otherwise the two must not overlap.
/// ECB leaks equal blocks: use it only as a building block.
///
/// Requires: `key` a live handle; `in` readable and `out` writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_ecb_encrypt(
    key: *const AesxKey,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable and `out` writable for `len` bytes
    // (aesx_ecb_encrypt's contract).
    guard(|| unsafe { ecb(key, r#in, out, len, true) })
}

/// ECB-decrypts `len` bytes (a multiple of 16); as aesx_ecb_encrypt.
///
/// Requires: As aesx_ecb_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_ecb_decrypt(
    key: *const AesxKey,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `in` readable and `out` writable for `len` bytes
    // (aesx_ecb_decrypt's contract).
    guard(|| unsafe { ecb(key, r#in, out, len, false) })
}

unsafe fn ecb(key: *const AesxKey, inp: *const u8, out: *mut u8, len: usize, enc: bool) -> Status {
    // SAFETY: `key` NULL or a live handle, `inp` readable and `out` writable for `len` bytes (the
    // aesx_ecb_* calls' contract).
    let (key, io) = unsafe { (handle(key)?, in_out(inp, len, out, len, &[])?) };
    let aes = key.cbc.aes();
    match (io, enc) {
        (Io::InPlace(b), true) => aes.encrypt_blocks(b),
        (Io::InPlace(b), false) => aes.decrypt_blocks(b),
        (Io::Split(s, d), true) => aes.encrypt_blocks_to(s, d),
        (Io::Split(s, d), false) => aes.decrypt_blocks_to(s, d),
    }
    .or_code()
}

/// CBC-encrypts `in_len` bytes from `in` into `out`, which holds `out_cap`
/// bytes, under the 16-byte `iv`.
///
/// - `padding`: AESX_PADDING_NONE (`in_len` a multiple of 16) or
///   AESX_PADDING_PKCS7 (the output is `in_len / 16 * 16 + 16` bytes).
/// - `out_len`: receives the ciphertext length; may be NULL.
/// - In place: `out == in`, with room for the padding (`out_cap`).
///
/// Errors: AESX_ERR_NOT_BLOCK_ALIGNED, AESX_ERR_OUTPUT_TOO_SMALL, and the
/// argument errors.
///
/// Requires: `key` a live handle; `iv` readable for 16 bytes; `in` readable for
/// `in_len` bytes; `out` writable for `out_cap` bytes; `out_len` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cbc_encrypt(
    key: *const AesxKey,
    iv: *const u8,
    padding: c_int,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable for 16 bytes; `in` readable for `in_len` bytes;
    // `out` writable for `out_cap` bytes; `out_len` NULL or writable (aesx_cbc_encrypt's contract);
    // the IV is copied before `out` is borrowed, so it may be anywhere.
    guard(|| unsafe {
        let b = Resized::new(r#in, in_len, out, out_cap, out_len);
        cbc(key, iv, padding, b, CbcCall::encrypt)
    })
}

/// CBC-decrypts `in_len` bytes (a multiple of 16) from `in` into `out`,
/// which holds `out_cap >= in_len` bytes, under the 16-byte `iv`.
///
/// - `padding`: AESX_PADDING_NONE or AESX_PADDING_PKCS7 (checked in constant
///   time and removed; on AESX_ERR_BAD_PADDING the first `in_len` bytes of
///   `out` are zeroed, as the Rust library does).
/// - `out_len`: receives the plaintext length; may be NULL.
/// - In place: `out == in`.
///
/// Requires: As aesx_cbc_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_cbc_decrypt(
    key: *const AesxKey,
    iv: *const u8,
    padding: c_int,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable for 16 bytes; `in` readable for `in_len` bytes;
    // `out` writable for `out_cap` bytes; `out_len` NULL or writable (aesx_cbc_decrypt's contract);
    // the IV is copied first.
    guard(|| unsafe {
        let b = Resized::new(r#in, in_len, out, out_cap, out_len);
        cbc(key, iv, padding, b, CbcCall::decrypt)
    })
}

/// The key, IV and padding of one CBC call, checked before any buffer is
/// touched.
struct CbcCall<'a> {
    cbc: &'a Cbc,
    iv: [u8; BLOCK],
    pad: Padding,
}

/// Checks the key, IV and padding arguments, then runs `op` (encryption or
/// decryption) over the buffers of `b`.
///
/// Requires: `key` NULL or a live handle; `iv` NULL or readable for 16
/// bytes; as [`Resized::run`].
unsafe fn cbc<'k>(
    key: *const AesxKey,
    iv: *const u8,
    padding: c_int,
    b: Resized,
    op: fn(&CbcCall<'k>, Io<'_>, usize, usize) -> Status<usize>,
) -> Status {
    // SAFETY: `key` NULL or a live handle, `iv` NULL or readable for 16 bytes (cbc's contract); the
    // IV is copied before `out` is borrowed.
    let (key, iv, pad) = unsafe { (handle(key)?, array::<BLOCK>(iv)?, padding_of(padding)?) };
    let call = CbcCall {
        cbc: &key.cbc,
        iv,
        pad,
    };
    // SAFETY: `b`'s `inp` readable for `in_len` bytes, `out` writable for `out_cap` bytes,
    // `out_len` NULL or writable (cbc's contract, as Resized::run's).
    unsafe { b.run(&[], |io| op(&call, io, b.in_len, b.out_cap)) }
}

impl CbcCall<'_> {
    fn encrypt(&self, io: Io<'_>, in_len: usize, out_cap: usize) -> Status<usize> {
        let (cbc, iv, pad) = (self.cbc, &self.iv, self.pad);
        let buf = match io {
            Io::Split(src, dst) => return cbc.encrypt(iv, src, dst, pad).or_code(),
            Io::InPlace(buf) => buf,
        };
        if pad == Padding::None && !in_len.is_multiple_of(BLOCK) {
            return Err(AESX_ERR_NOT_BLOCK_ALIGNED);
        }
        let total = pad.padded_len(in_len);
        if out_cap < total {
            return Err(AESX_ERR_OUTPUT_TOO_SMALL);
        }
        // Whole blocks in place, then the padded last block through the
        // library's own padding (from a copy, since its input and output alias).
        let whole = in_len - in_len % BLOCK;
        let mut chain = *iv;
        cbc.encrypt_chained(&mut chain, &mut buf[..whole])
            .or_code()?;
        if pad == Padding::Pkcs7 {
            let mut tail = [0u8; BLOCK];
            let rem = in_len - whole;
            tail[..rem].copy_from_slice(&buf[whole..in_len]);
            let r = cbc.encrypt(&chain, &tail[..rem], &mut buf[whole..total], pad);
            tail.zeroize();
            r.or_code()?;
        }
        Ok(total)
    }

    fn decrypt(&self, io: Io<'_>, in_len: usize, out_cap: usize) -> Status<usize> {
        let (cbc, iv, pad) = (self.cbc, &self.iv, self.pad);
        let buf = match io {
            Io::Split(src, dst) => return cbc.decrypt(iv, src, dst, pad).or_code(),
            Io::InPlace(buf) => buf,
        };
        if !in_len.is_multiple_of(BLOCK) {
            return Err(AESX_ERR_NOT_BLOCK_ALIGNED);
        }
        if out_cap < in_len {
            return Err(AESX_ERR_OUTPUT_TOO_SMALL);
        }
        let buf = &mut buf[..in_len];
        if pad == Padding::None {
            cbc.decrypt_in_place(iv, buf).or_code()?;
            return Ok(in_len);
        }
        if in_len == 0 {
            // The library's answer for an empty padded message (bad padding).
            return cbc.decrypt(iv, &[], &mut [], pad).or_code();
        }
        // All but the last block in place; the last one from a copy through the
        // library's constant-time unpadding.
        let last = in_len - BLOCK;
        let mut ct = [0u8; BLOCK];
        ct.copy_from_slice(&buf[last..]);
        let mut chain = *iv;
        cbc.decrypt_chained(&mut chain, &mut buf[..last])
            .or_code()?;
        let r = cbc.decrypt(&chain, &ct, &mut buf[last..], pad);
        match r {
            Ok(n) => Ok(last + n),
            Err(e) => {
                buf.zeroize();
                Err(crate::status::code(e))
            }
        }
    }
}

/// CTR: XORs the keystream for the 16-byte initial counter block `iv`,
/// starting `offset` bytes into the stream, over `len` bytes from `in` to
/// `out`. Encryption and decryption are the same call.
///
/// The counter is the whole block, big-endian, incremented modulo 2^128 (for
/// RFC 3686 put nonce || IV || 00000001 in `iv`). `offset` lets a stream be
/// processed in pieces of any size without state: pass the byte position of
/// `in` in the stream. `out` may equal `in`; otherwise they must not overlap.
///
/// Requires: `key` a live handle; `iv` readable for 16 bytes; `in` readable and `out`
/// writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_ctr_xor(
    key: *const AesxKey,
    iv: *const u8,
    offset: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
) -> c_int {
    // SAFETY: `key` a live handle; `iv` readable for 16 bytes; `in` readable and `out` writable for
    // `len` bytes (aesx_ctr_xor's contract).
    unsafe { ctr_xor(key, iv, offset, r#in, out, len, 1) }
}

/// aesx_ctr_xor over up to `threads` threads (see `crate::parallel`).
pub(crate) unsafe fn ctr_xor(
    key: *const AesxKey,
    iv: *const u8,
    offset: u64,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    threads: usize,
) -> c_int {
    guard(|| {
        // SAFETY: `key` NULL or a live handle, `iv` NULL or readable for 16 bytes, `in` readable
        // and `out` writable for `len` bytes (aesx_ctr_xor's contract); the IV is copied first.
        let (key, iv, io) = unsafe {
            (
                handle(key)?,
                array::<BLOCK>(iv)?,
                in_out(r#in, len, out, len, &[])?,
            )
        };
        // The per-call Ctr is a copy of the expanded key, so that the handle
        // stays immutable and shareable between threads.
        let mut ctr = Ctr::from_aes(key.cbc.aes().clone(), &iv)
            .or_code()?
            .with_threads(threads);
        ctr.seek(u128::from(offset));
        match io {
            Io::InPlace(b) => {
                ctr.apply_keystream(b);
                Ok(())
            }
            Io::Split(s, d) => ctr.apply_keystream_to(s, d).or_code(),
        }
    })
}

/// One message of aesx_cbc_encrypt_many.
#[repr(C)]
pub struct AesxCbcJob {
    /// The key (jobs may use different keys, sizes and backends).
    pub key: *const AesxKey,
    /// The IV on entry; on success, the last ciphertext block (the IV that
    /// continues the chain).
    pub iv: [u8; 16],
    /// The message, encrypted in place; no padding is added.
    pub data: *mut u8,
    /// Its length, a multiple of 16 (0 is allowed).
    pub len: usize,
}

/// CBC-encrypts `n` independent messages in place in one call, interleaving
/// them across the vector lanes (CBC encryption of one message is serial; of
/// many, it is not). The result equals aesx_cbc_encrypt with
/// AESX_PADDING_NONE on each message, and each job's `iv` is updated.
///
/// The messages must not overlap each other or the `jobs` array
/// (AESX_ERR_OVERLAP). If any message is not a multiple of 16 bytes
/// (AESX_ERR_NOT_BLOCK_ALIGNED) or any argument is bad, nothing is written.
///
/// Requires: `jobs` readable and writable for `n` elements; each job's `key` a live
/// handle and `data` readable and writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cbc_encrypt_many(jobs: *mut AesxCbcJob, n: usize) -> c_int {
    guard(|| {
        let bytes = n
            .checked_mul(core::mem::size_of::<AesxCbcJob>())
            .ok_or(AESX_ERR_INVALID_LENGTH)?;
        Region::new(jobs, bytes)?;
        let mut seen: Vec<(usize, usize)> = Vec::with_capacity(n + 1);
        if bytes != 0 {
            seen.push((jobs as usize, bytes));
        }
        let mut copies = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: `jobs` is valid for `n` elements (caller's contract,
            // pointer and length checked above); read unaligned-safe by value.
            let job = unsafe { jobs.add(i).read_unaligned() };
            // SAFETY: live handle or NULL, by the caller's contract.
            let key = unsafe { handle(job.key)? };
            Region::new(job.data, job.len)?;
            if job.len != 0 {
                seen.push((job.data as usize, job.len));
            }
            copies.push((key, job.iv, job.data, job.len));
        }
        // No two regions (messages, the job array) may overlap: the messages
        // become `&mut` slices, which Rust requires to be exclusive.
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
            return Err(AESX_ERR_OVERLAP);
        }
        let mut lib_jobs: Vec<CbcJob<'_>> = copies
            .iter()
            .map(|&(key, iv, data, len)| CbcJob {
                key: key.cbc.aes(),
                iv,
                data: if len == 0 {
                    &mut []
                } else {
                    // SAFETY: non-NULL, a possible length, valid by the
                    // caller's contract, and disjoint from every other slice
                    // made here and from the job array (checked above).
                    unsafe { core::slice::from_raw_parts_mut(data, len) }
                },
            })
            .collect();
        cbc_encrypt_many(&mut lib_jobs).or_code()?;
        let ivs: Vec<[u8; 16]> = lib_jobs.iter().map(|j| j.iv).collect();
        drop(lib_jobs);
        for (i, iv) in ivs.into_iter().enumerate() {
            // SAFETY: in bounds of the caller's array (n elements); no slice
            // over it is live (the data slices were dropped and are disjoint
            // from it anyway).
            unsafe { core::ptr::addr_of_mut!((*jobs.add(i)).iv).write_unaligned(iv) };
        }
        Ok(())
    })
}
