//! The entry points' work for CCM and key wrap: OpenSSL's pointers and
//! lengths checked and turned into slices for [`CcmCtx`] and [`WrapCtx`].

use core::ptr;

use crate::block::Fail;
use crate::ccm::CcmCtx;
use crate::cipher::{input, make_io};
use crate::ffi::{self, OsslParam};
use crate::params;
use crate::wrap::WrapCtx;

/// `ccm_stream_update` (and the one-shot `cipher`): a length declaration
/// (no input, no output), the AAD (no output), the data, or a TLS record;
/// the output length.
///
/// # Safety
/// `inp` holds `inl` readable bytes and `out` `outsize` writable ones.
pub(super) unsafe fn ccm_update(
    c: &mut CcmCtx,
    out: *mut u8,
    outsize: usize,
    inp: *const u8,
    inl: usize,
) -> Result<usize, Fail> {
    if outsize < inl {
        return Err(Fail::OutputBufferTooSmall);
    }
    if c.tls_pending() {
        if inp.is_null() || !ptr::eq(out as *const u8, inp) || inl > isize::MAX as usize {
            return Err(Fail::Unsupported);
        }
        // SAFETY: one in-place buffer of inl bytes (the caller's contract).
        let rec = unsafe { core::slice::from_raw_parts_mut(out, inl) };
        return c.tls_record(rec);
    }
    match (inp.is_null(), out.is_null()) {
        // As OpenSSL's final: nothing to do.
        (true, false) => Ok(0),
        (true, true) => c.set_len(inl).map(|()| inl),
        (false, true) => {
            // SAFETY: the caller's contract for the input.
            let aad = unsafe { input(inp, inl) }.ok_or(Fail::Unsupported)?;
            c.aad(aad).map(|()| inl)
        }
        (false, false) => {
            let mut copy = Vec::new();
            // SAFETY: the caller's contract for both buffers.
            let io = unsafe { make_io(out, inl, inp, inl, &mut copy) }.ok_or(Fail::Unsupported)?;
            c.crypt(io, inl).map(|()| inl)
        }
    }
}

/// CCM's context parameters asked for.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
pub(super) unsafe fn ccm_get(c: &mut CcmCtx, params: *mut OsslParam) -> bool {
    // SAFETY: for every call: `params` per the contract; an element
    // `locate` returns is valid; OCTET_PTRs point into the boxed context.
    unsafe {
        let iv_ok = |c: &CcmCtx, key| {
            params::locate(params, key).is_none_or(|p| {
                (c.ivlen() <= (*p).data_size || (*p).data_type == ffi::PARAM_OCTET_PTR)
                    && params::set_octets(p, c.iv())
            })
        };
        params::put_u64(params, ffi::CIPHER_IVLEN, c.ivlen() as u64)
            && params::put_u64(params, ffi::CIPHER_AEAD_TAGLEN, c.taglen() as u64)
            && iv_ok(c, ffi::CIPHER_IV)
            && iv_ok(c, ffi::CIPHER_UPDATED_IV)
            && params::put_u64(params, ffi::CIPHER_KEYLEN, c.keylen as u64)
            && params::put_u64(
                params,
                ffi::CIPHER_AEAD_TLS1_AAD_PAD,
                c.tls_aad_pad() as u64,
            )
            && params::locate(params, ffi::CIPHER_AEAD_TAG).is_none_or(|p| {
                (*p).data_type == ffi::PARAM_OCTET_STRING
                    && match c.get_tag((*p).data_size) {
                        Ok(tag) => params::set_octets(p, tag),
                        Err(_) => false,
                    }
            })
    }
}

/// CCM's settable parameters: `tag` (its length alone when it carries no
/// bytes), `ivlen`, `tlsaad`, `tlsivfixed`.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
pub(super) unsafe fn ccm_set(c: &mut CcmCtx, params: *const OsslParam) -> bool {
    // SAFETY: for every call: `params` per the contract; an element
    // `locate` returns is valid, its data readable for its size.
    unsafe {
        if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TAG) {
            let p = &*p;
            if p.data_type != ffi::PARAM_OCTET_STRING {
                return false;
            }
            let tag = if p.data.is_null() || p.data_size > 16 {
                None
            } else {
                Some(core::slice::from_raw_parts(
                    p.data as *const u8,
                    p.data_size,
                ))
            };
            if c.set_tag(p.data_size, tag).is_err() {
                return false;
            }
        }
        if let Some(p) = params::locate(params, ffi::CIPHER_IVLEN) {
            match params::get_u64(p).and_then(|v| usize::try_from(v).ok()) {
                Some(v) if c.set_ivlen(v).is_ok() => {}
                _ => return false,
            }
        }
        if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TLS1_AAD) {
            match params::get_octets(p) {
                Some(aad) if c.tls_set_aad(aad).is_ok() => {}
                _ => return false,
            }
        }
        if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TLS1_IV_FIXED) {
            match params::get_octets(p) {
                Some(f) if c.tls_set_fixed(f).is_ok() => {}
                _ => return false,
            }
        }
        true
    }
}

/// `aes_wrap_cipher`: the whole input wrapped or unwrapped in one update;
/// with no output buffer, the output length it would have. As the default
/// provider, it trusts `out` to hold the wrapped length (the input rounded
/// up to 8, plus 8), which EVP's `outsize` (input + 8) understates for
/// KWP inputs that are not a multiple of 8.
///
/// # Safety
/// `inp` holds `inl` readable bytes; a non-NULL `out` has room for the
/// output length.
pub(super) unsafe fn wrap_update(
    w: &mut WrapCtx,
    out: *mut u8,
    outsize: usize,
    inp: *const u8,
    inl: usize,
) -> Result<usize, Fail> {
    if inl == 0 {
        return Ok(0);
    }
    if outsize < inl || inp.is_null() {
        return Err(Fail::OutputBufferTooSmall);
    }
    let need = w.out_len(inl)?;
    if out.is_null() {
        return Ok(need);
    }
    if need > isize::MAX as usize || (out as usize).checked_add(need).is_none() {
        return Err(Fail::OutputBufferTooSmall);
    }
    // SAFETY: the caller's contract; copied first, since OpenSSL lets the
    // two overlap (in place).
    let src = unsafe { input(inp, inl) }
        .ok_or(Fail::Unsupported)?
        .to_vec();
    // SAFETY: the caller's contract: room for `need` bytes at `out`.
    let dst = unsafe { core::slice::from_raw_parts_mut(out, need) };
    w.update(&src, dst)
}

/// Key wrap's context parameters: the generic ones.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
pub(super) unsafe fn wrap_get(w: &WrapCtx, params: *mut OsslParam) -> bool {
    // SAFETY: as for `ccm_get`.
    unsafe {
        params::put_u64(params, ffi::CIPHER_IVLEN, w.ivlen() as u64)
            && params::put_u64(params, ffi::CIPHER_PADDING, w.pad as u64)
            && params::locate(params, ffi::CIPHER_IV).is_none_or(|p| params::set_octets(p, w.iv()))
            && params::locate(params, ffi::CIPHER_UPDATED_IV)
                .is_none_or(|p| params::set_octets(p, w.iv()))
            && params::put_u64(params, ffi::CIPHER_NUM, 0)
            && params::put_u64(params, ffi::CIPHER_KEYLEN, w.keylen as u64)
    }
}

/// `aes_wrap_set_ctx_params`: only `keylen`, which cannot change.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
pub(super) unsafe fn wrap_set(w: &WrapCtx, params: *const OsslParam) -> bool {
    // SAFETY: as for `ccm_set`.
    unsafe {
        params::locate(params, ffi::CIPHER_KEYLEN)
            .is_none_or(|p| params::get_u64(p) == Some(w.keylen as u64))
    }
}
