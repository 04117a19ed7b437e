//! One handle for the AEADs beside GCM: AES-GCM-SIV (RFC 8452),
//! XAES-256-GCM (c2sp.org) and AES-CCM (SP 800-38C), chosen by number when
//! the handle is made; the calls are those of GCM.

use core::ffi::c_int;

use aesx::{Backend, Ccm, Error, GcmSiv, Tag, Xaes256Gcm};

use crate::block_modes::handle;
use crate::buffers::Resized;
use crate::keys::{backend_id, destroy, keyed};
use crate::sealing::{self, Aead, Params};
use crate::status::{guard, OrCode, Status, AESX_ERR_INVALID_ARGUMENT, AESX_ERR_TAG_LENGTH};

/// AES-GCM-SIV (RFC 8452): 16- or 32-byte keys (and 24-byte ones, as
/// OpenSSL and pyca take them beyond the RFC), 12-byte nonces, 16-byte
/// tags, at most 2^36 bytes of plaintext and of AAD. Misuse-resistant: a
/// repeated nonce reveals only whether two messages were equal.
pub const AESX_AEAD_GCM_SIV: c_int = 1;
/// XAES-256-GCM (c2sp.org/XAES-256-GCM): 32-byte keys, 24-byte nonces
/// (random nonces are safe for about 2^80 messages), 16-byte tags.
pub const AESX_AEAD_XAES_256_GCM: c_int = 2;
/// AES-CCM (SP 800-38C, RFC 3610): 16-, 24- or 32-byte keys, tags of 4, 6,
/// 8, 10, 12, 14 or 16 bytes, nonces of 7 to 13 bytes; a message is shorter
/// than 2^(8 * (15 - nonce_len)) bytes (64 KiB with a 13-byte nonce).
pub const AESX_AEAD_CCM: c_int = 3;

enum Kind {
    Siv(GcmSiv),
    Xaes(Xaes256Gcm),
    Ccm(Ccm),
}

/// A keyed AEAD of one of the AESX_AEAD_* algorithms with a fixed tag
/// length. Create with aesx_aead_new, free with aesx_aead_free.
pub struct AesxAead {
    kind: Kind,
    tag_len: usize,
}

const _: () = {
    const fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<AesxAead>();
};

impl Aead for AesxAead {
    fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn check(&self, p: &Params<'_>, len: usize) -> aesx::Result<()> {
        let nonce = p.nonce;
        let (ok, expected) = match self.kind {
            Kind::Siv(_) => (nonce.len() == 12, 12),
            Kind::Xaes(_) => (nonce.len() == 24, 24),
            Kind::Ccm(_) => ((7..=13).contains(&nonce.len()), 13),
        };
        if !ok {
            return Err(Error::InvalidIvLength {
                expected,
                got: nonce.len(),
            });
        }
        let max = match self.kind {
            Kind::Siv(_) => 1u64 << 36,
            Kind::Xaes(_) => (1u64 << 36) - 32,
            // 15 - nonce bytes hold the length.
            Kind::Ccm(_) => (1u64 << (8 * (15 - nonce.len())).min(63)) - 1,
        };
        if len as u64 > max {
            return Err(Error::MessageTooLong);
        }
        if matches!(self.kind, Kind::Siv(_)) && p.aad.len() as u64 > 1 << 36 {
            return Err(Error::AadTooLong);
        }
        Ok(())
    }

    fn seal_in_place(&self, p: &Params<'_>, buf: &mut [u8]) -> aesx::Result<Tag> {
        let (nonce, aad) = (p.nonce, p.aad);
        match &self.kind {
            Kind::Siv(a) => a.seal_in_place_detached(nonce, aad, buf),
            Kind::Xaes(a) => a.seal_in_place_detached(nonce, aad, buf),
            Kind::Ccm(a) => a.seal_in_place_detached(nonce, aad, buf),
        }
    }

    fn open_in_place(&self, p: &Params<'_>, buf: &mut [u8], tag: &[u8]) -> aesx::Result<()> {
        let (nonce, aad) = (p.nonce, p.aad);
        match &self.kind {
            Kind::Siv(a) => a.open_in_place_detached(nonce, aad, buf, tag),
            Kind::Xaes(a) => a.open_in_place_detached(nonce, aad, buf, tag),
            Kind::Ccm(a) => a.open_in_place_detached(nonce, aad, buf, tag),
        }
    }
}

impl AesxAead {
    fn backend(&self) -> Backend {
        match &self.kind {
            Kind::Siv(a) => a.backend(),
            Kind::Xaes(a) => a.backend(),
            Kind::Ccm(a) => a.backend(),
        }
    }

    fn make(alg: c_int, key: &[u8], tag_len: usize, b: Backend) -> Status<Self> {
        let kind = match alg {
            AESX_AEAD_GCM_SIV | AESX_AEAD_XAES_256_GCM if tag_len != 16 => {
                return Err(AESX_ERR_TAG_LENGTH)
            }
            AESX_AEAD_GCM_SIV => Kind::Siv(GcmSiv::with_backend(key, b).or_code()?),
            AESX_AEAD_XAES_256_GCM => Kind::Xaes(Xaes256Gcm::with_backend(key, b).or_code()?),
            AESX_AEAD_CCM => Kind::Ccm(Ccm::with_backend(key, tag_len, b).or_code()?),
            _ => return Err(AESX_ERR_INVALID_ARGUMENT),
        };
        Ok(AesxAead { kind, tag_len })
    }
}

/// Makes an AEAD context.
///
/// - `alg`: AESX_AEAD_GCM_SIV, AESX_AEAD_XAES_256_GCM or AESX_AEAD_CCM (else
///   AESX_ERR_INVALID_ARGUMENT);
/// - `key`, `key_len`: the key (lengths as the algorithm says, else
///   AESX_ERR_KEY_LENGTH); copied;
/// - `tag_len`: the tag length, 16 for GCM-SIV and XAES-256-GCM, 4 to 16
///   and even for CCM (else AESX_ERR_TAG_LENGTH);
/// - `backend`, `out` as for aesx_key_new.
///
/// Free with aesx_aead_free.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_new(
    alg: c_int,
    key: *const u8,
    key_len: usize,
    tag_len: usize,
    backend: c_int,
    out: *mut *mut AesxAead,
) -> c_int {
    // SAFETY: `key` readable for `key_len` bytes; `out` writable (aesx_aead_new's contract).
    unsafe {
        keyed(key, key_len, backend, out, |k, b| {
            AesxAead::make(alg, k, tag_len, b)
        })
    }
}

/// Zeroizes and frees an AEAD context. NULL is a no-op.
///
/// Requires: `aead` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_free(aead: *mut AesxAead) {
    // SAFETY: `aead` NULL or a live handle, not used afterwards (aesx_aead_free's contract).
    unsafe { destroy(aead) }
}

/// The AESX_BACKEND_* value an AEAD context runs on, or
/// AESX_ERR_NULL_POINTER.
///
/// Requires: `aead` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_backend(aead: *const AesxAead) -> c_int {
    // SAFETY: `aead` NULL or a live handle (aesx_aead_backend's contract).
    unsafe { backend_id(aead, AesxAead::backend) }
}

/// The tag length of an AEAD context in bytes (what `tag_len` must be in
/// its calls), or AESX_ERR_NULL_POINTER.
///
/// Requires: `aead` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_tag_len(aead: *const AesxAead) -> c_int {
    // SAFETY: `aead` NULL or a live handle (aesx_aead_tag_len's contract).
    unsafe { handle(aead) }.map_or_else(|e| e, |a| a.tag_len as c_int)
}

/// Encrypts `len` bytes from `in` to `out` (`out` may equal `in`, otherwise
/// no overlap) and writes the tag (`tag_len` bytes, the context's) to
/// `tag`. `nonce` is the algorithm's length (AESX_ERR_IV_LENGTH otherwise);
/// never reuse a nonce under one key (GCM-SIV forgives it, only revealing
/// equal messages). `aad` may be NULL with length 0. `out` and `tag` must not
/// overlap the nonce, the AAD or each other. Errors about the arguments
/// (lengths, limits, overlap) come before anything is written.
///
/// Requires: `aead` a live handle; every pointer valid for its length (reads
/// for inputs, writes for `out` and `tag`).
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_seal(
    aead: *const AesxAead,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
) -> c_int {
    // SAFETY: `aead` a live handle; every pointer valid for its length (reads for inputs, writes
    // for `out` and `tag`) (aesx_aead_seal's contract).
    guard(|| unsafe {
        let a = handle(aead)?;
        let p = Params::new(nonce, nonce_len, aad, aad_len)?;
        sealing::seal_detached(a, &p, r#in, out, len, tag, tag_len)
    })
}

/// Checks `tag` (`tag_len` bytes, the context's) in constant time and
/// decrypts `len` bytes from `in` to `out`. On AESX_ERR_AUTH_FAILED no
/// plaintext is released: the `len` bytes of `out` are zeroed. Arguments as
/// for aesx_aead_seal.
///
/// Requires: As aesx_aead_seal (`tag` is read, not written).
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_open(
    aead: *const AesxAead,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    out: *mut u8,
    len: usize,
    tag: *const u8,
    tag_len: usize,
) -> c_int {
    // SAFETY: `aead` a live handle; every pointer valid for its length (reads for inputs and `tag`,
    // writes for `out`) (aesx_aead_open's contract).
    guard(|| unsafe {
        let a = handle(aead)?;
        let p = Params::new(nonce, nonce_len, aad, aad_len)?;
        sealing::open_detached(a, &p, r#in, out, len, tag, tag_len)
    })
}

/// Encryption with the tag appended: writes the ciphertext and the tag
/// (`in_len` + the context's tag length bytes) to `out`, which holds
/// `out_cap` bytes, and stores that length in `*out_len` (may be NULL). In
/// place: `out == in` with room for the tag. As aesx_gcm_seal_append.
///
/// Requires: `aead` a live handle; `in` readable for `in_len` bytes, `out`
/// writable for `out_cap` bytes; `nonce`, `aad` readable for their lengths;
/// `out_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_seal_append(
    aead: *const AesxAead,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `aead` a live handle; `in` readable for `in_len` bytes, `out` writable for `out_cap`
    // bytes; `nonce`, `aad` readable for their lengths; `out_len` NULL or writable
    // (aesx_aead_seal_append's contract).
    guard(|| unsafe {
        let a = handle(aead)?;
        let p = Params::new(nonce, nonce_len, aad, aad_len)?;
        sealing::seal_append(a, &p, Resized::new(r#in, in_len, out, out_cap, out_len))
    })
}

/// Decryption of ciphertext followed by its tag (`in_len` bytes): checks
/// the tag in constant time, writes the plaintext to `out` (`out_cap`
/// bytes) and stores its length in `*out_len` (may be NULL). On
/// AESX_ERR_AUTH_FAILED (also for input shorter than the tag) nothing is
/// released: out of place all `out_cap` bytes of `out` are zeroed, in place
/// all `in_len` bytes. As aesx_gcm_open_append.
///
/// Requires: As aesx_aead_seal_append.
#[no_mangle]
pub unsafe extern "C" fn aesx_aead_open_append(
    aead: *const AesxAead,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `aead` a live handle; `in` readable for `in_len` bytes, `out` writable for `out_cap`
    // bytes; `nonce`, `aad` readable for their lengths; `out_len` NULL or writable
    // (aesx_aead_open_append's contract).
    guard(|| unsafe {
        let a = handle(aead)?;
        let p = Params::new(nonce, nonce_len, aad, aad_len)?;
        sealing::open_append(a, &p, Resized::new(r#in, in_len, out, out_cap, out_len))
    })
}
