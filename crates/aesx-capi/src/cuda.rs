//! Data in NVIDIA GPU memory (aesx-cuda): GCM with detached tags, many GCM
//! messages in one launch, CTR, ECB, CBC decryption and XTS sectors on
//! device pointers, queued on the caller's CUDA stream.
//!
//! CUDA is loaded at run time: libaesx builds and runs without it, and
//! then every call here returns AESX_ERR_NO_DEVICE.

use core::ffi::{c_int, c_void};

use aesx_cuda::raw::{self, Overlap};
use aesx_cuda::{CudaAes, CudaError, CudaGcm, CudaXts, Gpu};

use crate::block_modes::handle;
use crate::buffers::{array, input, write, Region};
use crate::status::{code, guard, Status, AESX_ERR_INTERNAL, AESX_ERR_NULL_POINTER};
use crate::status::{AESX_ERR_DEVICE, AESX_ERR_NO_DEVICE, AESX_ERR_OVERLAP};
use crate::status::{AESX_ERR_INVALID_ARGUMENT, AESX_ERR_INVALID_LENGTH, AESX_ERR_KEY_LENGTH};
use crate::status::{AESX_ERR_NOT_BLOCK_ALIGNED, AESX_ERR_SECTOR_SIZE};

/// An AES key on a GPU for aesx_cuda_gcm_*, aesx_cuda_ctr,
/// aesx_cuda_ecb_* and aesx_cuda_cbc_decrypt (opaque).
pub struct AesxCudaKey {
    aes: CudaAes,
    gcm: CudaGcm,
}

/// An XTS key on a GPU for aesx_cuda_xts_* (opaque).
pub struct AesxCudaXtsKey {
    xts: CudaXts,
}

fn cuda_code(e: CudaError) -> c_int {
    match e {
        CudaError::Aes(e) => code(e),
        CudaError::NoDevice(_) | CudaError::NoNvrtc(_) => AESX_ERR_NO_DEVICE,
        CudaError::Driver(_) => AESX_ERR_DEVICE,
        _ => AESX_ERR_INTERNAL,
    }
}

/// A batch's layout error: a bad stride, no message, or a length that
/// does not hold `count` messages (also when `count` is so large that its
/// bytes cannot exist).
fn batch_code(e: raw::BatchError) -> c_int {
    match e {
        raw::BatchError::Stride { .. } => AESX_ERR_SECTOR_SIZE,
        raw::BatchError::Empty => AESX_ERR_INVALID_ARGUMENT,
        _ => AESX_ERR_INVALID_LENGTH,
    }
}

/// A key handle that is not NULL, not yet looked at: every call checks its
/// arguments before it reads a byte of the handle (or of a batch), and
/// only then takes it with [`handle`].
fn not_null<T>(p: *const T) -> Status<*const T> {
    if p.is_null() {
        Err(AESX_ERR_NULL_POINTER)
    } else {
        Ok(p)
    }
}

fn ptr_code(e: raw::PointerError) -> c_int {
    match e {
        raw::PointerError::Null => AESX_ERR_NULL_POINTER,
        raw::PointerError::Overlap => AESX_ERR_OVERLAP,
        _ => AESX_ERR_DEVICE,
    }
}

/// A C device pointer as the driver's address.
fn addr(p: *const c_void) -> u64 {
    p as usize as u64
}

/// A C stream (NULL: the legacy default stream).
fn stream_of(s: *mut c_void) -> Option<raw::CUstream> {
    (!s.is_null()).then_some(s.cast())
}

/// The GPUs opened so far (opening compiles or loads the kernels and runs
/// the self-test: once per process and device).
fn gpu(device: c_int) -> Status<Gpu> {
    use std::sync::Mutex;
    static GPUS: Mutex<Vec<Option<Gpu>>> = Mutex::new(Vec::new());
    let d = usize::try_from(device).map_err(|_| AESX_ERR_INVALID_ARGUMENT)?;
    let mut gpus = GPUS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(Some(g)) = gpus.get(d) {
        return Ok(g.clone());
    }
    let g = Gpu::new(d).map_err(cuda_code)?;
    if gpus.len() <= d {
        gpus.resize(d + 1, None);
    }
    gpus[d] = Some(g.clone());
    Ok(g)
}

/// Whether CUDA device `device` (0 for the first) can be used: AESX_OK, or
/// AESX_ERR_NO_DEVICE (no driver, no such device, no NVRTC). The first call
/// for a device compiles (or loads cached) kernels and self-tests them,
/// which may take NVRTC tens of seconds; later calls are immediate.
#[no_mangle]
pub extern "C" fn aesx_cuda_available(device: c_int) -> c_int {
    guard(|| gpu(device).map(|_| ()))
}

/// Makes an AES key (16, 24 or 32 bytes) on CUDA device `device` for
/// the GCM, CTR, ECB and CBC calls below. Free it with aesx_cuda_key_free.
///
/// Errors: AESX_ERR_KEY_LENGTH (checked first), AESX_ERR_NO_DEVICE.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_key_new(
    key: *const u8,
    key_len: usize,
    device: c_int,
    out: *mut *mut AesxCudaKey,
) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(AESX_ERR_NULL_POINTER);
        }
        // SAFETY: the caller's contract for `out`.
        unsafe { out.write(core::ptr::null_mut()) };
        // SAFETY: the caller's contract for `key`.
        let k = unsafe { input(key, key_len) }?;
        if !matches!(k.len(), 16 | 24 | 32) {
            return Err(AESX_ERR_KEY_LENGTH);
        }
        let g = gpu(device)?;
        let aes = CudaAes::new(&g, k).map_err(cuda_code)?;
        let gcm = CudaGcm::new(&g, k).map_err(cuda_code)?;
        // SAFETY: the caller's contract for `out`.
        unsafe { out.write(Box::into_raw(Box::new(AesxCudaKey { aes, gcm }))) };
        Ok(())
    })
}

/// Frees a key from aesx_cuda_key_new (its schedule on the GPU is zeroed
/// first). NULL is a no-op. No other thread may be using it, and work queued
/// with it must be done (synchronise the streams first).
///
/// Requires: `key` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_key_free(key: *mut AesxCudaKey) {
    if !key.is_null() {
        let _ = guard(|| {
            // SAFETY: a live handle from aesx_cuda_key_new (the caller's contract).
            drop(unsafe { Box::from_raw(key) });
            Ok(())
        });
    }
}

/// Makes an XTS key (32 or 64 bytes: data key then tweak key) on CUDA
/// device `device`. Equal halves are accepted here and refused for
/// encryption. Free it with aesx_cuda_xts_key_free.
///
/// Errors: AESX_ERR_KEY_LENGTH (checked first), AESX_ERR_NO_DEVICE.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_xts_key_new(
    key: *const u8,
    key_len: usize,
    device: c_int,
    out: *mut *mut AesxCudaXtsKey,
) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(AESX_ERR_NULL_POINTER);
        }
        // SAFETY: the caller's contract for `out`.
        unsafe { out.write(core::ptr::null_mut()) };
        // SAFETY: the caller's contract for `key`.
        let k = unsafe { input(key, key_len) }?;
        if !matches!(k.len(), 32 | 64) {
            return Err(AESX_ERR_KEY_LENGTH);
        }
        let g = gpu(device)?;
        let xts = CudaXts::new(&g, k).map_err(cuda_code)?;
        // SAFETY: the caller's contract for `out`.
        unsafe { out.write(Box::into_raw(Box::new(AesxCudaXtsKey { xts }))) };
        Ok(())
    })
}

/// Frees a key from aesx_cuda_xts_key_new; as aesx_cuda_key_free.
///
/// Requires: `key` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_xts_key_free(key: *mut AesxCudaXtsKey) {
    if !key.is_null() {
        let _ = guard(|| {
            // SAFETY: a live handle from aesx_cuda_xts_key_new (the caller's contract).
            drop(unsafe { Box::from_raw(key) });
            Ok(())
        });
    }
}

/// Checks a device pair (see `raw::check_buffers`); returns the addresses.
fn pair(inp: *const c_void, out: *mut c_void, len: usize, overlap: Overlap) -> Status<(u64, u64)> {
    let (s, d) = (addr(inp), addr(out.cast_const()));
    raw::check_buffers(s, d, len, overlap).map_err(ptr_code)?;
    Ok((s, d))
}

/// ECB-encrypts `len` bytes (whole blocks) of device memory from `in` to
/// `out` (equal, or not overlapping), queued on `stream` (a CUstream /
/// cudaStream_t; NULL: the legacy default stream). Returns once queued.
///
/// Errors: AESX_ERR_NOT_BLOCK_ALIGNED, AESX_ERR_OVERLAP, AESX_ERR_DEVICE
/// (misaligned or not device memory of the key's GPU), AESX_ERR_NULL_POINTER.
///
/// Requires: `key` a live handle; `in` and `out` device memory of the key's
/// GPU (primary context: cudaMalloc, cuMemAlloc, CuPy, PyTorch) of `len`
/// bytes, 16-byte aligned, alive and not touched by other streams until the
/// work is done; `stream` NULL or a live stream of that device.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_ecb_encrypt(
    key: *const AesxCudaKey,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
) -> c_int {
    // SAFETY: `key` a live handle; `in`, `out` `len` bytes of the key's GPU memory, 16-byte
    // aligned, untouched by other streams until the work is done; `stream` NULL or a live stream of
    // that device (aesx_cuda_ecb_encrypt's contract).
    guard(|| unsafe { ecb(key, r#in, out, len, stream, false) })
}

/// ECB-decrypts; as aesx_cuda_ecb_encrypt.
///
/// Requires: As aesx_cuda_ecb_encrypt.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_ecb_decrypt(
    key: *const AesxCudaKey,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
) -> c_int {
    // SAFETY: `key` a live handle; `in`, `out` `len` bytes of the key's GPU memory, 16-byte
    // aligned, untouched by other streams until the work is done; `stream` NULL or a live stream of
    // that device (aesx_cuda_ecb_decrypt's contract).
    guard(|| unsafe { ecb(key, r#in, out, len, stream, true) })
}

unsafe fn ecb(
    key: *const AesxCudaKey,
    inp: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
    decrypt: bool,
) -> Status {
    let key = not_null(key)?;
    if !len.is_multiple_of(16) {
        return Err(AESX_ERR_NOT_BLOCK_ALIGNED);
    }
    let (s, d) = pair(inp, out, len, Overlap::SameOrDisjoint)?;
    // SAFETY: not NULL, so live (the caller's contract).
    let k = unsafe { handle(key) }?;
    let st = stream_of(stream);
    // SAFETY: the caller's contract (device memory of len bytes, alive until the
    // work is done; the stream live or NULL).
    unsafe {
        if decrypt {
            k.aes.ecb_decrypt_raw(s, d, len, st)
        } else {
            k.aes.ecb_encrypt_raw(s, d, len, st)
        }
    }
    .map_err(cuda_code)
}

/// CTR over `len` bytes (any length) of device memory from `in` to `out`
/// (equal, or not overlapping) from the 16-byte initial counter block
/// `counter` (host memory; a 128-bit big-endian counter, wrapping), queued
/// on `stream`. Encryption and decryption are the same call.
///
/// Errors: as aesx_cuda_ecb_encrypt (no block alignment needed).
///
/// Requires: As aesx_cuda_ecb_encrypt; `counter` readable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_ctr(
    key: *const AesxCudaKey,
    counter: *const u8,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
) -> c_int {
    guard(|| {
        let key = not_null(key)?;
        // SAFETY: the caller's contract (16 readable bytes, or NULL).
        let c = unsafe { array::<16>(counter) }?;
        let (s, d) = pair(r#in, out, len, Overlap::SameOrDisjoint)?;
        // SAFETY: not NULL, so live (the caller's contract).
        let k = unsafe { handle(key) }?;
        // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
        // streams until the work is done; `stream` live or NULL (the caller's contract).
        unsafe { k.aes.ctr_apply_raw(&c, s, d, len, stream_of(stream)) }.map_err(cuda_code)
    })
}

/// CBC-decrypts `len` bytes (whole blocks) of device memory from `in` into
/// `out`, which must not overlap `in` (every block is decrypted in
/// parallel), with the 16-byte `iv` (host memory), queued on `stream`.
///
/// Errors: as aesx_cuda_ecb_encrypt; `out == in` is AESX_ERR_OVERLAP.
///
/// Requires: As aesx_cuda_ecb_encrypt; `iv` readable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_cbc_decrypt(
    key: *const AesxCudaKey,
    iv: *const u8,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
) -> c_int {
    guard(|| {
        let key = not_null(key)?;
        // SAFETY: the caller's contract (16 readable bytes, or NULL).
        let iv = unsafe { array::<16>(iv) }?;
        if !len.is_multiple_of(16) {
            return Err(AESX_ERR_NOT_BLOCK_ALIGNED);
        }
        let (s, d) = pair(r#in, out, len, Overlap::Disjoint)?;
        // SAFETY: not NULL, so live (the caller's contract).
        let k = unsafe { handle(key) }?;
        // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
        // streams until the work is done; `stream` live or NULL (the caller's contract).
        unsafe { k.aes.cbc_decrypt_raw(&iv, s, d, len, stream_of(stream)) }.map_err(cuda_code)
    })
}

/// XTS-encrypts `len` bytes of device memory holding consecutive sectors of
/// `sector_size` bytes numbered from `first_sector` (the tweak is the
/// sector number, 128-bit little-endian), from `in` to `out` (equal, or not
/// overlapping), queued on `stream`.
///
/// Errors, in the order of aesx_xts_encrypt_sectors: AESX_ERR_SECTOR_SIZE,
/// AESX_ERR_PARTIAL_SECTOR, then as aesx_cuda_ecb_encrypt, then
/// AESX_ERR_XTS_EQUAL_KEY_HALVES.
///
/// Requires: As aesx_cuda_ecb_encrypt, with an XTS key handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_xts_encrypt_sectors(
    key: *const AesxCudaXtsKey,
    sector_size: usize,
    first_sector: u64,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
) -> c_int {
    // SAFETY: `key` a live XTS handle; `in`, `out` `len` bytes of the key's GPU memory, 16-byte
    // aligned, untouched by other streams until the work is done; `stream` NULL or a live stream of
    // that device (aesx_cuda_xts_encrypt_sectors's contract).
    guard(|| unsafe {
        xts(
            key,
            sector_size,
            first_sector,
            r#in,
            out,
            len,
            stream,
            false,
        )
    })
}

/// XTS-decrypts consecutive sectors; as aesx_cuda_xts_encrypt_sectors.
///
/// Requires: As aesx_cuda_xts_encrypt_sectors.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_xts_decrypt_sectors(
    key: *const AesxCudaXtsKey,
    sector_size: usize,
    first_sector: u64,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
) -> c_int {
    // SAFETY: `key` a live XTS handle; `in`, `out` `len` bytes of the key's GPU memory, 16-byte
    // aligned, untouched by other streams until the work is done; `stream` NULL or a live stream of
    // that device (aesx_cuda_xts_decrypt_sectors's contract).
    guard(|| unsafe { xts(key, sector_size, first_sector, r#in, out, len, stream, true) })
}

#[allow(clippy::too_many_arguments)]
unsafe fn xts(
    key: *const AesxCudaXtsKey,
    sector_size: usize,
    first: u64,
    inp: *const c_void,
    out: *mut c_void,
    len: usize,
    stream: *mut c_void,
    decrypt: bool,
) -> Status {
    let key = not_null(key)?;
    raw::check_sector_args(len, sector_size).map_err(code)?;
    let first = u128::from(first);
    raw::check_sector_numbers(first, len, sector_size).map_err(code)?;
    let (s, d) = pair(inp, out, len, Overlap::SameOrDisjoint)?;
    // SAFETY: not NULL, so live (the caller's contract).
    let k = unsafe { handle(key) }?;
    let st = stream_of(stream);
    // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
    // streams until the work is done; `stream` live or NULL (the caller's contract).
    unsafe {
        if decrypt {
            k.xts.decrypt_sectors_raw(first, sector_size, s, d, len, st)
        } else {
            k.xts.encrypt_sectors_raw(first, sector_size, s, d, len, st)
        }
    }
    .map_err(cuda_code)
}

/// AES-GCM-encrypts `len` bytes of device memory from `in` to `out` (equal,
/// or not overlapping) with `nonce` and `aad` (host memory), queued on
/// `stream`, and writes the tag to `tag` (host memory, `tag_len` bytes: 16,
/// 15, 14, 13, 12, 8 or 4). Waits for its own work (the tag needs the GHASH
/// digest on the host), not for the whole device.
///
/// Errors: AESX_ERR_EMPTY_NONCE, AESX_ERR_TAG_LENGTH,
/// AESX_ERR_MESSAGE_TOO_LONG, AESX_ERR_AAD_TOO_LONG, and as
/// aesx_cuda_ecb_encrypt.
///
/// Requires: As aesx_cuda_ecb_encrypt; `nonce` and `aad` readable for their
/// lengths; `tag` writable for `tag_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_gcm_seal(
    key: *const AesxCudaKey,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
    stream: *mut c_void,
) -> c_int {
    guard(|| {
        let key = not_null(key)?;
        // SAFETY: the caller's contract (readable host inputs, or NULL with 0).
        let (n, a) = unsafe { (input(nonce, nonce_len)?, input(aad, aad_len)?) };
        raw::check_gcm_args(n, a.len(), len, Some(tag_len)).map_err(code)?;
        if tag.is_null() {
            return Err(AESX_ERR_NULL_POINTER);
        }
        let (s, d) = pair(r#in, out, len, Overlap::SameOrDisjoint)?;
        // SAFETY: not NULL, so live (the caller's contract).
        let k = unsafe { handle(key) }?;
        // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
        // streams until the work is done; `stream` live or NULL (the caller's contract).
        let t = unsafe { k.gcm.seal_raw(n, a, s, d, len, stream_of(stream)) }.map_err(cuda_code)?;
        // SAFETY: the caller's contract for `tag` (tag_len writable bytes).
        unsafe { write(tag, &t[..tag_len]) }
    })
}

/// Verifies `tag` (host memory, `tag_len` bytes) over `len` bytes of
/// ciphertext in device memory at `in` and decrypts them into `out` (equal,
/// or not overlapping), queued on `stream`. On AESX_ERR_AUTH_FAILED `out`
/// is zeroed (queued on `stream` before the call returns) and no plaintext
/// was produced. Waits for the digest, not for the decryption.
///
/// Errors: AESX_ERR_AUTH_FAILED, and as aesx_cuda_gcm_seal.
///
/// Requires: As aesx_cuda_gcm_seal, with `tag` readable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_gcm_open(
    key: *const AesxCudaKey,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const c_void,
    out: *mut c_void,
    len: usize,
    tag: *const u8,
    tag_len: usize,
    stream: *mut c_void,
) -> c_int {
    guard(|| {
        let key = not_null(key)?;
        // SAFETY: the caller's contract (readable host inputs, or NULL with 0).
        let (n, a, t) = unsafe {
            (
                input(nonce, nonce_len)?,
                input(aad, aad_len)?,
                input(tag, tag_len)?,
            )
        };
        raw::check_gcm_args(n, a.len(), len, Some(t.len())).map_err(code)?;
        let (s, d) = pair(r#in, out, len, Overlap::SameOrDisjoint)?;
        // SAFETY: not NULL, so live (the caller's contract).
        let k = unsafe { handle(key) }?;
        // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
        // streams until the work is done; `stream` live or NULL (the caller's contract).
        unsafe { k.gcm.open_raw(n, a, s, d, len, t, stream_of(stream)) }.map_err(cuda_code)
    })
}

/// `count` blocks of `N` host bytes (the nonces or tags of a batch), after
/// [`batch`] checked `count` against the buffer.
///
/// # Safety
/// `p` NULL or readable for `count * N` bytes.
unsafe fn blocks<const N: usize>(p: *const u8, count: usize) -> Status<Vec<[u8; N]>> {
    let bytes = count.checked_mul(N).ok_or(AESX_ERR_INVALID_LENGTH)?;
    // SAFETY: this function's contract (the length is checked against the
    // address space before a byte is read).
    let b = unsafe { input(p, bytes) }?;
    Ok(b.chunks_exact(N)
        .map(|c| {
            let mut n = [0u8; N];
            n.copy_from_slice(c);
            n
        })
        .collect())
}

/// The checks of a batch that need no memory: the key handle not NULL,
/// the layout (`count` messages every `stride` bytes in `len` bytes, in
/// overflow-safe arithmetic), then the host regions of `count` nonces (12
/// bytes each) and `count` entries of `per` bytes of the output named
/// `out` (tags when sealing, verdicts when opening): all before a byte of
/// anything is read.
fn batch(
    key: *const AesxCudaKey,
    count: usize,
    stride: usize,
    len: usize,
    nonces: *const u8,
    out: *const u8,
    per: usize,
) -> Status<*const AesxCudaKey> {
    let key = not_null(key)?;
    raw::check_many_args(count, stride, len).map_err(batch_code)?;
    let region = |p: *const u8, each: usize| -> Status {
        let bytes = count.checked_mul(each).ok_or(AESX_ERR_INVALID_LENGTH)?;
        Region::new(p, bytes).map(|_| ())
    };
    region(nonces, 12)?;
    region(out, per)?;
    Ok(key)
}

/// Seals `count` GCM messages of one device buffer in place in one launch:
/// message `i` is the `stride` bytes at `buf + i * stride` (`stride` a
/// multiple of 16, at most 16384; only the last message shorter, possibly
/// empty, so `len` is from `(count - 1) * stride` to `count * stride`),
/// with the 12-byte nonce at `nonces + 12 * i` and the same `aad` for all.
/// Writes the 16-byte tags to `tags` (`16 * count` host bytes). Waits for
/// its own work.
///
/// Errors: AESX_ERR_SECTOR_SIZE (a bad stride), AESX_ERR_INVALID_ARGUMENT
/// (`count` 0), AESX_ERR_INVALID_LENGTH (`len` does not hold `count`
/// messages, or `count` is too large for its nonces and tags to exist),
/// and as aesx_cuda_gcm_seal. `count`, `stride` and `len` are checked
/// against each other, in arithmetic that cannot overflow, before a byte of
/// `nonces`, `aad` or `key` is read.
///
/// Requires: As aesx_cuda_ecb_encrypt for `buf` (in place); `nonces`
/// readable for `12 * count` bytes, `aad` for `aad_len`; `tags` writable
/// for `16 * count` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_gcm_seal_many(
    key: *const AesxCudaKey,
    nonces: *const u8,
    count: usize,
    aad: *const u8,
    aad_len: usize,
    stride: usize,
    buf: *mut c_void,
    len: usize,
    tags: *mut u8,
    stream: *mut c_void,
) -> c_int {
    guard(|| {
        let key = batch(key, count, stride, len, nonces, tags.cast_const(), 16)?;
        let (p, _) = pair(buf, buf, len, Overlap::SameOrDisjoint)?;
        // SAFETY: the caller's contract (readable host inputs of the lengths
        // checked by `batch`, or NULL with 0).
        let (ns, a) = unsafe { (blocks::<12>(nonces, count)?, input(aad, aad_len)?) };
        // SAFETY: not NULL, so live (the caller's contract).
        let k = unsafe { handle(key) }?;
        // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
        // streams until the work is done; `stream` live or NULL (the caller's contract).
        let t = unsafe {
            k.gcm
                .seal_many_raw(&ns, a, stride, p, len, stream_of(stream))
        }
        .map_err(cuda_code)?;
        let flat: Vec<u8> = t.concat();
        // SAFETY: the caller's contract for `tags` (16 * count writable bytes).
        unsafe { write(tags, &flat) }
    })
}

/// Opens `count` messages laid out as for aesx_cuda_gcm_seal_many, in
/// place, against their tags (`16 * count` host bytes). Writes a verdict
/// per message to `ok` (`count` bytes: 1 verified, 0 not): the messages
/// that verified are decrypted (queued on `stream`), every other one is
/// zeroed, and none is decrypted before its own tag verified. Returns
/// AESX_OK when all verified, AESX_ERR_AUTH_FAILED when any did not.
///
/// Errors: as aesx_cuda_gcm_seal_many, and AESX_ERR_AUTH_FAILED.
///
/// Requires: As aesx_cuda_gcm_seal_many, with `tags` readable and `ok`
/// writable for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cuda_gcm_open_many(
    key: *const AesxCudaKey,
    nonces: *const u8,
    count: usize,
    aad: *const u8,
    aad_len: usize,
    stride: usize,
    buf: *mut c_void,
    len: usize,
    tags: *const u8,
    ok: *mut u8,
    stream: *mut c_void,
) -> c_int {
    guard(|| {
        let key = batch(key, count, stride, len, nonces, ok.cast_const(), 1)?;
        let tag_bytes = count.checked_mul(16).ok_or(AESX_ERR_INVALID_LENGTH)?;
        Region::new(tags, tag_bytes)?;
        let (p, _) = pair(buf, buf, len, Overlap::SameOrDisjoint)?;
        // SAFETY: the caller's contract (readable host inputs of the lengths
        // checked above, or NULL with 0).
        let (ns, a, ts) = unsafe {
            (
                blocks::<12>(nonces, count)?,
                input(aad, aad_len)?,
                blocks::<16>(tags, count)?,
            )
        };
        // SAFETY: not NULL, so live (the caller's contract).
        let k = unsafe { handle(key) }?;
        // SAFETY: `in`/`out` `len` bytes of this key's device memory, untouched by other
        // streams until the work is done; `stream` live or NULL (the caller's contract).
        let v = unsafe {
            k.gcm
                .open_many_raw(&ns, a, stride, p, len, &ts, stream_of(stream))
        }
        .map_err(cuda_code)?;
        let flat: Vec<u8> = v.iter().map(|&b| u8::from(b)).collect();
        // SAFETY: the caller's contract for `ok` (count writable bytes).
        unsafe { write(ok, &flat) }?;
        if v.iter().all(|&b| b) {
            Ok(())
        } else {
            Err(crate::status::AESX_ERR_AUTH_FAILED)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_gpu() -> bool {
        aesx_cuda::device_count().is_err()
    }

    #[test]
    fn without_a_gpu_keys_cannot_be_made_but_arguments_are_checked_first() {
        if !no_gpu() {
            return;
        }
        assert_eq!(aesx_cuda_available(0), AESX_ERR_NO_DEVICE);
        assert_eq!(aesx_cuda_available(-1), AESX_ERR_INVALID_ARGUMENT);
        let mut k: *mut AesxCudaKey = core::ptr::dangling_mut();
        let key = [7u8; 16];
        // SAFETY: valid host buffers and out-pointers.
        unsafe {
            assert_eq!(
                aesx_cuda_key_new(key.as_ptr(), 15, 0, &mut k),
                crate::status::AESX_ERR_KEY_LENGTH
            );
            assert!(k.is_null());
            assert_eq!(
                aesx_cuda_key_new(key.as_ptr(), 16, 0, &mut k),
                AESX_ERR_NO_DEVICE
            );
            assert!(k.is_null());
            let mut x: *mut AesxCudaXtsKey = core::ptr::null_mut();
            assert_eq!(
                aesx_cuda_xts_key_new(key.as_ptr(), 16, 0, &mut x),
                crate::status::AESX_ERR_KEY_LENGTH
            );
            assert_eq!(
                aesx_cuda_xts_key_new([1u8; 32].as_ptr(), 32, 0, &mut x),
                AESX_ERR_NO_DEVICE
            );
            assert_eq!(
                aesx_cuda_key_new(key.as_ptr(), 16, 0, core::ptr::null_mut()),
                AESX_ERR_NULL_POINTER
            );
            aesx_cuda_key_free(core::ptr::null_mut());
            aesx_cuda_xts_key_free(core::ptr::null_mut());
        }
    }

    #[test]
    fn a_null_key_is_refused_before_anything_else() {
        let p = 4096 as *mut c_void;
        // SAFETY: NULL key handles are checked before any other argument is used.
        unsafe {
            assert_eq!(
                aesx_cuda_ecb_encrypt(core::ptr::null(), p, p, 16, core::ptr::null_mut()),
                AESX_ERR_NULL_POINTER
            );
            let mut tag = [0u8; 16];
            let n = [0u8; 12];
            assert_eq!(
                aesx_cuda_gcm_seal(
                    core::ptr::null(),
                    n.as_ptr(),
                    12,
                    core::ptr::null(),
                    0,
                    p,
                    p,
                    16,
                    tag.as_mut_ptr(),
                    16,
                    core::ptr::null_mut()
                ),
                AESX_ERR_NULL_POINTER
            );
        }
    }

    #[test]
    fn batches_are_checked_before_a_byte_is_read() {
        // A dangling key handle (never dereferenced: every call below fails
        // its argument checks first) and one nonce's worth of host bytes.
        let key = core::ptr::NonNull::<AesxCudaKey>::dangling()
            .as_ptr()
            .cast_const();
        let nonce = [0u8; 12];
        let tag = [0u8; 16];
        let mut tags = [0u8; 16];
        let mut ok = [0u8; 1];
        let d = 4096 as *mut c_void;
        let null = core::ptr::null_mut();
        // SAFETY: every pointer is valid for what the arguments claim of
        // it, or the call is expected to refuse before using it.
        unsafe {
            for count in [
                2,
                1000,
                usize::MAX / 12 + 1,
                usize::MAX / 16 + 2,
                usize::MAX,
            ] {
                let n = nonce.as_ptr();
                let t = tags.as_mut_ptr();
                assert_eq!(
                    aesx_cuda_gcm_seal_many(key, n, count, n, 0, 64, d, 16, t, null),
                    AESX_ERR_INVALID_LENGTH,
                    "count {count}"
                );
                let (tg, o) = (tag.as_ptr(), ok.as_mut_ptr());
                assert_eq!(
                    aesx_cuda_gcm_open_many(key, n, count, n, 0, 64, d, 16, tg, o, null),
                    AESX_ERR_INVALID_LENGTH,
                    "count {count}"
                );
            }
            // The largest count whose layout fits: its nonces cannot exist.
            let count = usize::MAX / 16 + 1;
            assert_eq!(
                aesx_cuda_gcm_seal_many(
                    key,
                    nonce.as_ptr(),
                    count,
                    core::ptr::null(),
                    0,
                    16,
                    d,
                    usize::MAX - 15,
                    tags.as_mut_ptr(),
                    null
                ),
                AESX_ERR_INVALID_LENGTH
            );
            let mut seal = |count: usize, stride: usize, len: usize| {
                aesx_cuda_gcm_seal_many(
                    key,
                    nonce.as_ptr(),
                    count,
                    core::ptr::null(),
                    0,
                    stride,
                    d,
                    len,
                    tags.as_mut_ptr(),
                    core::ptr::null_mut(),
                )
            };
            assert_eq!(seal(0, 64, 0), AESX_ERR_INVALID_ARGUMENT);
            assert_eq!(seal(1, 16400, 16), crate::status::AESX_ERR_SECTOR_SIZE);
            assert_eq!(seal(usize::MAX, 0, 16), crate::status::AESX_ERR_SECTOR_SIZE);
            assert_eq!(seal(1, 64, 65), AESX_ERR_INVALID_LENGTH);
            assert_eq!(seal(2, 64, 129), AESX_ERR_INVALID_LENGTH);
            assert_eq!(seal(3, 64, 127), AESX_ERR_INVALID_LENGTH);
        }
    }

    #[test]
    fn one_shot_arguments_are_checked_before_the_key_is_read() {
        let key = core::ptr::NonNull::<AesxCudaKey>::dangling()
            .as_ptr()
            .cast_const();
        let xkey = core::ptr::NonNull::<AesxCudaXtsKey>::dangling()
            .as_ptr()
            .cast_const();
        let (a, b) = (4096 as *mut c_void, 8192 as *mut c_void);
        let s = core::ptr::null_mut();
        let iv = [0u8; 16];
        // SAFETY: a dangling key is never read: each call refuses its arguments before it
        // dereferences the key.
        unsafe {
            assert_eq!(
                aesx_cuda_ecb_encrypt(key, a, b, 17, s),
                crate::status::AESX_ERR_NOT_BLOCK_ALIGNED
            );
            assert_eq!(
                aesx_cuda_ecb_decrypt(key, a, a.wrapping_byte_add(16), 64, s),
                AESX_ERR_OVERLAP
            );
            assert_eq!(
                aesx_cuda_ctr(key, iv.as_ptr(), a.wrapping_byte_add(8), b, 64, s),
                AESX_ERR_DEVICE
            );
            assert_eq!(
                aesx_cuda_cbc_decrypt(key, iv.as_ptr(), a, a, 64, s),
                AESX_ERR_OVERLAP
            );
            assert_eq!(
                aesx_cuda_xts_encrypt_sectors(xkey, 512, 0, a, b, 1000, s),
                crate::status::AESX_ERR_PARTIAL_SECTOR
            );
            assert_eq!(
                aesx_cuda_xts_decrypt_sectors(xkey, 1 << 25, 0, a, b, 1 << 25, s),
                crate::status::AESX_ERR_SECTOR_SIZE
            );
            assert_eq!(
                aesx_cuda_gcm_open(
                    key,
                    iv.as_ptr(),
                    0,
                    core::ptr::null(),
                    0,
                    a,
                    b,
                    16,
                    iv.as_ptr(),
                    16,
                    s
                ),
                crate::status::AESX_ERR_EMPTY_NONCE
            );
        }
    }

    #[test]
    fn statuses_map() {
        assert_eq!(
            cuda_code(CudaError::NoDevice("x".into())),
            AESX_ERR_NO_DEVICE
        );
        assert_eq!(
            cuda_code(CudaError::NoNvrtc("x".into())),
            AESX_ERR_NO_DEVICE
        );
        assert_eq!(cuda_code(CudaError::Driver("x".into())), AESX_ERR_DEVICE);
        assert_eq!(
            cuda_code(CudaError::Aes(aesx::Error::AuthenticationFailed)),
            crate::status::AESX_ERR_AUTH_FAILED
        );
        assert_eq!(ptr_code(raw::PointerError::Overlap), AESX_ERR_OVERLAP);
        assert_eq!(
            ptr_code(raw::PointerError::Misaligned { ptr: 1 }),
            AESX_ERR_DEVICE
        );
        assert_eq!(crate::status::AESX_OK, 0);
    }
}
