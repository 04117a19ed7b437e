//! The cipher operation: the algorithm table OpenSSL queries, one dispatch
//! table per algorithm, and the entry points, which check every pointer
//! and length from OpenSSL before turning them into slices.

use core::ffi::{c_char, c_int, c_void, CStr};
use core::ptr;

mod ccm_wrap;

use crate::block::{BlockCtx, Io, Mode};
use crate::ccm::CcmCtx;
use crate::entry::{ctx_mut, dispatch, guard, DispatchTable, DISPATCH_END};
use crate::ffi::{
    self, DupCtx, Final, FreeCtx, GetCtxParams, GetParams, Gettable, GettableCtx, Init, NewCtx,
    OsslAlgorithm, OsslDispatch, OsslParam, SetCtxParams, Update,
};
use crate::gcm::GcmCtx;
use crate::gcm_siv::GcmSivCtx;
use crate::params::{self, ParamList};
use crate::wrap::WrapCtx;
use crate::xts::XtsCtx;

/// What an algorithm is: its mode and its fixed lengths and flags.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Block(Mode),
    Gcm,
    GcmSiv,
    Xts,
    Ccm,
    /// Key wrap: KWP (`pad`) or KW, with the inverse cipher or not.
    Wrap {
        pad: bool,
        inverse: bool,
    },
}

pub(crate) struct AlgInfo {
    kind: Kind,
    keylen: usize,
}

impl AlgInfo {
    fn mode(&self) -> u64 {
        match self.kind {
            Kind::Block(Mode::Ecb) => ffi::MODE_ECB,
            Kind::Block(Mode::Cbc) => ffi::MODE_CBC,
            Kind::Block(Mode::Ctr) => ffi::MODE_CTR,
            Kind::Gcm => ffi::MODE_GCM,
            Kind::GcmSiv => ffi::MODE_GCM_SIV,
            Kind::Xts => ffi::MODE_XTS,
            Kind::Ccm => ffi::MODE_CCM,
            Kind::Wrap { .. } => ffi::MODE_WRAP,
        }
    }

    fn ivlen(&self) -> usize {
        match self.kind {
            Kind::Block(Mode::Ecb) => 0,
            Kind::Block(_) | Kind::Xts => 16,
            Kind::Gcm => crate::gcm::IV_DEFAULT,
            Kind::GcmSiv => crate::gcm_siv::NONCE_LEN,
            Kind::Ccm => crate::ccm::IV_REPORTED,
            Kind::Wrap { pad, .. } => {
                if pad {
                    4
                } else {
                    8
                }
            }
        }
    }

    fn block_size(&self) -> usize {
        match self.kind {
            Kind::Block(Mode::Ecb | Mode::Cbc) => 16,
            Kind::Wrap { .. } => 8,
            _ => 1,
        }
    }

    fn aead(&self) -> bool {
        matches!(self.kind, Kind::Gcm | Kind::GcmSiv | Kind::Ccm)
    }

    fn custom_iv(&self) -> bool {
        matches!(
            self.kind,
            Kind::Gcm | Kind::GcmSiv | Kind::Xts | Kind::Ccm | Kind::Wrap { .. }
        )
    }
}

/// A context as OpenSSL holds it (boxed; the pointer is its `algctx`).
#[derive(Clone)]
pub(crate) struct Ctx {
    inner: Inner,
    /// The updated IV of a block context, kept here so that an
    /// `OCTET_PTR` request can point at it.
    iv_out: [u8; 16],
}

// The contexts live boxed behind OpenSSL's pointer; the GCM one being
// larger costs nothing worth a second allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Inner {
    Block(BlockCtx),
    Gcm(GcmCtx),
    GcmSiv(GcmSivCtx),
    Xts(XtsCtx),
    Ccm(CcmCtx),
    Wrap(WrapCtx),
}

fn newctx(info: &AlgInfo) -> *mut c_void {
    let Some(backend) = crate::loader::backend() else {
        return ptr::null_mut();
    };
    let inner = match info.kind {
        Kind::Block(mode) => Inner::Block(BlockCtx::new(mode, info.keylen, backend)),
        Kind::Gcm => Inner::Gcm(GcmCtx::new(info.keylen, backend)),
        Kind::GcmSiv => Inner::GcmSiv(GcmSivCtx::new(info.keylen, backend)),
        Kind::Xts => Inner::Xts(XtsCtx::new(info.keylen, backend)),
        Kind::Ccm => Inner::Ccm(CcmCtx::new(info.keylen, backend)),
        Kind::Wrap { pad, inverse } => {
            Inner::Wrap(WrapCtx::new(info.keylen, pad, inverse, backend))
        }
    };
    Box::into_raw(Box::new(Ctx {
        inner,
        iv_out: [0; 16],
    })) as *mut c_void
}

/// `ossl_cipher_generic_get_params` for one algorithm.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
unsafe fn alg_get_params(info: &AlgInfo, params: *mut OsslParam) -> c_int {
    let ints = [
        (ffi::CIPHER_MODE, info.mode()),
        (ffi::CIPHER_KEYLEN, info.keylen as u64),
        (ffi::CIPHER_IVLEN, info.ivlen() as u64),
        (ffi::CIPHER_BLOCK_SIZE, info.block_size() as u64),
        (ffi::CIPHER_AEAD, info.aead() as u64),
        (ffi::CIPHER_CUSTOM_IV, info.custom_iv() as u64),
        (ffi::CIPHER_CTS, 0),
        (ffi::CIPHER_TLS1_MULTIBLOCK, 0),
        (ffi::CIPHER_HAS_RAND_KEY, 0),
        (ffi::CIPHER_ENCRYPT_THEN_MAC, 0),
    ];
    for (key, v) in ints {
        // SAFETY: the caller's contract.
        if !unsafe { params::put_u64(params, key, v) } {
            return 0;
        }
    }
    1
}

// The parameter lists are those of the default provider of the OpenSSL
// that loaded us: 3.0's, and from 3.6 on (`core_is_3_6`) its additions:
// `encrypt-then-mac` for every cipher, `tls-mac` as an octet string,
// GCM's `iv-generated`, and CCM without the TLS IV-generation keys. The
// releases between were not compared and get 3.0's.

static ALG_GETTABLE: ParamList<10> = ParamList([
    params::uint(ffi::CIPHER_MODE),
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::size_t(ffi::CIPHER_BLOCK_SIZE),
    params::int(ffi::CIPHER_AEAD),
    params::int(ffi::CIPHER_CUSTOM_IV),
    params::int(ffi::CIPHER_CTS),
    params::int(ffi::CIPHER_TLS1_MULTIBLOCK),
    params::int(ffi::CIPHER_HAS_RAND_KEY),
    params::END,
]);

static ALG_GETTABLE_3_6: ParamList<11> = ParamList([
    params::uint(ffi::CIPHER_MODE),
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::size_t(ffi::CIPHER_BLOCK_SIZE),
    params::int(ffi::CIPHER_AEAD),
    params::int(ffi::CIPHER_CUSTOM_IV),
    params::int(ffi::CIPHER_CTS),
    params::int(ffi::CIPHER_TLS1_MULTIBLOCK),
    params::int(ffi::CIPHER_HAS_RAND_KEY),
    params::int(ffi::CIPHER_ENCRYPT_THEN_MAC),
    params::END,
]);

static BLOCK_GETTABLE_CTX: ParamList<8> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::uint(ffi::CIPHER_PADDING),
    params::uint(ffi::CIPHER_NUM),
    params::octets(ffi::CIPHER_IV),
    params::octets(ffi::CIPHER_UPDATED_IV),
    params::octet_ptr(ffi::CIPHER_TLS_MAC),
    params::END,
]);

static BLOCK_GETTABLE_CTX_3_6: ParamList<8> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::uint(ffi::CIPHER_PADDING),
    params::uint(ffi::CIPHER_NUM),
    params::octets(ffi::CIPHER_IV),
    params::octets(ffi::CIPHER_UPDATED_IV),
    params::octets(ffi::CIPHER_TLS_MAC),
    params::END,
]);

static BLOCK_SETTABLE_CTX: ParamList<6> = ParamList([
    params::uint(ffi::CIPHER_PADDING),
    params::uint(ffi::CIPHER_NUM),
    params::uint(ffi::CIPHER_USE_BITS),
    params::uint(ffi::CIPHER_TLS_VERSION),
    params::size_t(ffi::CIPHER_TLS_MAC_SIZE),
    params::END,
]);

static GCM_GETTABLE_CTX: ParamList<9> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::size_t(ffi::CIPHER_AEAD_TAGLEN),
    params::octets(ffi::CIPHER_IV),
    params::octets(ffi::CIPHER_UPDATED_IV),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::size_t(ffi::CIPHER_AEAD_TLS1_AAD_PAD),
    params::octets(ffi::CIPHER_AEAD_TLS1_GET_IV_GEN),
    params::END,
]);

static GCM_GETTABLE_CTX_3_6: ParamList<10> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::size_t(ffi::CIPHER_AEAD_TAGLEN),
    params::octets(ffi::CIPHER_IV),
    params::octets(ffi::CIPHER_UPDATED_IV),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::size_t(ffi::CIPHER_AEAD_TLS1_AAD_PAD),
    params::octets(ffi::CIPHER_AEAD_TLS1_GET_IV_GEN),
    params::uint(ffi::CIPHER_AEAD_IV_GENERATED),
    params::END,
]);

static CCM_GETTABLE_CTX_3_6: ParamList<8> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_IVLEN),
    params::size_t(ffi::CIPHER_AEAD_TAGLEN),
    params::octets(ffi::CIPHER_IV),
    params::octets(ffi::CIPHER_UPDATED_IV),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::size_t(ffi::CIPHER_AEAD_TLS1_AAD_PAD),
    params::END,
]);

static XTS_SETTABLE_CTX: ParamList<2> =
    ParamList([params::size_t(ffi::CIPHER_KEYLEN), params::END]);

static GCM_SETTABLE_CTX: ParamList<6> = ParamList([
    params::size_t(ffi::CIPHER_IVLEN),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::octets(ffi::CIPHER_AEAD_TLS1_AAD),
    params::octets(ffi::CIPHER_AEAD_TLS1_IV_FIXED),
    params::octets(ffi::CIPHER_AEAD_TLS1_SET_IV_INV),
    params::END,
]);

static CCM_SETTABLE_CTX_3_6: ParamList<5> = ParamList([
    params::size_t(ffi::CIPHER_IVLEN),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::octets(ffi::CIPHER_AEAD_TLS1_AAD),
    params::octets(ffi::CIPHER_AEAD_TLS1_IV_FIXED),
    params::END,
]);

// AES-GCM-SIV's lists (`cipher_aes_gcm_siv.c`; 3.2 and later).
static SIV_GETTABLE_CTX: ParamList<4> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::size_t(ffi::CIPHER_AEAD_TAGLEN),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::END,
]);

static SIV_SETTABLE_CTX: ParamList<4> = ParamList([
    params::size_t(ffi::CIPHER_KEYLEN),
    params::uint(ffi::CIPHER_SPEED),
    params::octets(ffi::CIPHER_AEAD_TAG),
    params::END,
]);

/// `a` for OpenSSL 3.0 to 3.5, `b` from 3.6 on.
fn by_release<const N: usize, const M: usize>(
    a: &'static ParamList<N>,
    b: &'static ParamList<M>,
) -> *const OsslParam {
    if crate::loader::core_is_3_6() {
        b.as_ptr()
    } else {
        a.as_ptr()
    }
}

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    by_release(&ALG_GETTABLE, &ALG_GETTABLE_3_6)
}
unsafe extern "C" fn block_gettable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    by_release(&BLOCK_GETTABLE_CTX, &BLOCK_GETTABLE_CTX_3_6)
}
unsafe extern "C" fn block_settable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    BLOCK_SETTABLE_CTX.as_ptr()
}
unsafe extern "C" fn xts_settable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    XTS_SETTABLE_CTX.as_ptr()
}
unsafe extern "C" fn gcm_gettable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    by_release(&GCM_GETTABLE_CTX, &GCM_GETTABLE_CTX_3_6)
}
unsafe extern "C" fn siv_gettable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    SIV_GETTABLE_CTX.as_ptr()
}
unsafe extern "C" fn siv_settable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    SIV_SETTABLE_CTX.as_ptr()
}
unsafe extern "C" fn ccm_gettable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    by_release(&GCM_GETTABLE_CTX, &CCM_GETTABLE_CTX_3_6)
}
unsafe extern "C" fn ccm_settable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    by_release(&GCM_SETTABLE_CTX, &CCM_SETTABLE_CTX_3_6)
}
unsafe extern "C" fn gcm_settable_ctx(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    GCM_SETTABLE_CTX.as_ptr()
}

/// `len` bytes at `p` as a slice; None for NULL with a length, or a
/// length that no allocation can have.
///
/// # Safety
/// A non-NULL `p` points to `len` readable bytes valid for `'a`.
unsafe fn input<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if p.is_null() || len > isize::MAX as usize || (p as usize).checked_add(len).is_none() {
        return None;
    }
    // SAFETY: checked non-NULL, length in range; readable by the contract.
    Some(unsafe { core::slice::from_raw_parts(p, len) })
}

/// The [`Io`] of a call with `inl` bytes at `inp` and `outn` bytes of
/// output to `out`: in place when the pointers are equal, through a copy
/// of the input when the ranges overlap otherwise.
///
/// # Safety
/// `inp` has `inl` readable bytes, `out` `outn` writable ones (the larger
/// of the two when they are equal), valid for `'a`.
// Inlined: returned through memory, the `Io` costs a store-forwarding stall
// on every update (a sixth of a 16-byte CTR update in a profile).
#[inline(always)]
unsafe fn make_io<'a>(
    out: *mut u8,
    outn: usize,
    inp: *const u8,
    inl: usize,
    copy: &'a mut Vec<u8>,
) -> Option<Io<'a>> {
    // SAFETY: the caller's contract for the input.
    let src = unsafe { input(inp, inl) }?;
    if outn == 0 {
        return Some(Io::Split { src, dst: &mut [] });
    }
    let both = outn.max(inl);
    if out.is_null() || both > isize::MAX as usize || (out as usize).checked_add(both).is_none() {
        return None;
    }
    if inl > 0 && ptr::eq(out as *const u8, inp) {
        // SAFETY: equal pointers: one buffer of max(inl, outn) bytes that
        // the caller lets us read and write; no other slice aliases it.
        return Some(Io::InPlace(unsafe {
            core::slice::from_raw_parts_mut(out, both)
        }));
    }
    let (o, i) = (out as usize, inp as usize);
    let overlap = inl > 0 && o < i + inl && i < o + outn;
    let src: &'a [u8] = if overlap {
        copy.extend_from_slice(src);
        copy
    } else {
        src
    };
    // SAFETY: non-NULL, in range, writable by the contract; it does not
    // overlap `src` (checked, or `src` is our copy).
    let dst = unsafe { core::slice::from_raw_parts_mut(out, outn) };
    Some(Io::Split { src, dst })
}

/// `OSSL_FUNC_cipher_encrypt_init` / `decrypt_init`.
unsafe fn init(
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    iv: *const u8,
    ivlen: usize,
    params: *const OsslParam,
    enc: bool,
) -> c_int {
    // SAFETY: OpenSSL passes the context it got from us.
    let Some(ctx) = (unsafe { ctx_mut::<Ctx>(vctx) }) else {
        return 0;
    };
    let key = if key.is_null() {
        None
    } else {
        // SAFETY: OpenSSL's key buffer holds keylen bytes.
        match unsafe { input(key, keylen) } {
            Some(k) => Some(k),
            None => return 0,
        }
    };
    let iv = if iv.is_null() {
        None
    } else {
        // SAFETY: OpenSSL's IV buffer holds ivlen bytes.
        match unsafe { input(iv, ivlen) } {
            Some(v) => Some(v),
            None => return 0,
        }
    };
    let r = match &mut ctx.inner {
        Inner::Block(b) => b.init(key, iv, enc),
        Inner::Gcm(g) => g.init(key, iv, enc),
        Inner::GcmSiv(g) => g.init(key, iv, enc),
        Inner::Xts(x) => x.init(key, iv, enc),
        Inner::Ccm(c) => c.init(key, iv, enc),
        Inner::Wrap(w) => w.init(key, iv, enc),
    };
    // SAFETY: `params` is NULL or OpenSSL's terminated array.
    (r.is_ok() && unsafe { set_ctx_params_of(ctx, params) }) as c_int
}

unsafe extern "C" fn encrypt_init(
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    iv: *const u8,
    ivlen: usize,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL's arguments, checked inside.
    guard(0, || unsafe {
        init(vctx, key, keylen, iv, ivlen, params, true)
    })
}

unsafe extern "C" fn decrypt_init(
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    iv: *const u8,
    ivlen: usize,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL's arguments, checked inside.
    guard(0, || unsafe {
        init(vctx, key, keylen, iv, ivlen, params, false)
    })
}

unsafe extern "C" fn update(
    vctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
    inp: *const u8,
    inl: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes the context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<Ctx>(vctx) }) else {
            return 0;
        };
        if outl.is_null() {
            return 0;
        }
        let mut copy = Vec::new();
        let n = match &mut ctx.inner {
            Inner::Block(b) if b.tls_version() > 0 => {
                // One TLS record, in place (OpenSSL refuses anything else).
                if inp.is_null() || !ptr::eq(out as *const u8, inp) || outsize < inl {
                    return 0;
                }
                let room = outsize.min(inl.saturating_add(16));
                if room > isize::MAX as usize || (out as usize).checked_add(room).is_none() {
                    return 0;
                }
                // SAFETY: OpenSSL's in-place buffer: `inl` bytes of record
                // and `outsize` bytes of room, of which we take at most a
                // block beyond the record.
                let buf = unsafe { core::slice::from_raw_parts_mut(out, room) };
                match b.tls_record(buf, inl) {
                    Ok(n) => n,
                    Err(_) => return 0,
                }
            }
            Inner::Block(b) => {
                let Ok(n) = b.update_len(inl) else {
                    return 0;
                };
                if n > outsize {
                    return 0;
                }
                // SAFETY: OpenSSL's buffers: `inp` holds inl bytes, `out`
                // outsize >= n (and inl + block size when in place).
                let Some(io) = (unsafe { make_io(out, n, inp, inl, &mut copy) }) else {
                    return 0;
                };
                match b.update(io, inl) {
                    Ok(n) => n,
                    Err(_) => return 0,
                }
            }
            Inner::Gcm(g) => {
                if inl == 0 {
                    0
                } else if g.tls_pending() {
                    if outsize < inl {
                        return 0;
                    }
                    // SAFETY: OpenSSL's buffers of inl bytes each.
                    match unsafe { tls_record(g, out, inp, inl) } {
                        Some(n) => n,
                        None => return 0,
                    }
                } else if out.is_null() {
                    // SAFETY: OpenSSL's AAD buffer of inl bytes.
                    let Some(aad) = (unsafe { input(inp, inl) }) else {
                        return 0;
                    };
                    if g.aad(aad).is_err() {
                        return 0;
                    }
                    inl
                } else {
                    if outsize < inl {
                        return 0;
                    }
                    // SAFETY: as for the block modes, with n = inl.
                    let Some(io) = (unsafe { make_io(out, inl, inp, inl, &mut copy) }) else {
                        return 0;
                    };
                    if g.crypt(io, inl).is_err() {
                        return 0;
                    }
                    inl
                }
            }
            // SAFETY: OpenSSL's buffers of inl and outsize bytes.
            Inner::GcmSiv(g) => match unsafe { siv_update(g, out, outsize, inp, inl) } {
                Some(n) => n,
                None => return 0,
            },
            Inner::Xts(x) => {
                if outsize < inl || inp.is_null() {
                    return 0;
                }
                // SAFETY: as for the block modes, with n = inl.
                let Some(io) = (unsafe { make_io(out, inl, inp, inl, &mut copy) }) else {
                    return 0;
                };
                if x.crypt(io, inl).is_err() {
                    return 0;
                }
                inl
            }
            // SAFETY: OpenSSL's buffers of inl and outsize bytes.
            Inner::Ccm(c) => match unsafe { ccm_wrap::ccm_update(c, out, outsize, inp, inl) } {
                Ok(n) => n,
                Err(_) => return 0,
            },
            // SAFETY: OpenSSL's buffers (see `wrap_update` for `out`).
            Inner::Wrap(w) => match unsafe { ccm_wrap::wrap_update(w, out, outsize, inp, inl) } {
                Ok(n) => n,
                Err(_) => return 0,
            },
        };
        // SAFETY: checked non-NULL; OpenSSL's size_t to write.
        unsafe { *outl = n };
        1
    })
}

unsafe extern "C" fn final_(
    vctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes the context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<Ctx>(vctx) }) else {
            return 0;
        };
        if outl.is_null() {
            return 0;
        }
        let n = match &mut ctx.inner {
            Inner::Block(b) => {
                let room = if out.is_null() { 0 } else { outsize.min(16) };
                let mut last = [0u8; 16];
                let Ok(n) = b.finalize(&mut last[..room]) else {
                    return 0;
                };
                if n > 0 {
                    // SAFETY: out is non-NULL (room > 0) with outsize >= n
                    // writable bytes; `last` is ours.
                    unsafe { ptr::copy_nonoverlapping(last.as_ptr(), out, n) };
                }
                n
            }
            Inner::Gcm(g) => match g.finalize() {
                Ok(()) => 0,
                Err(_) => return 0,
            },
            Inner::GcmSiv(g) => match g.finish() {
                Ok(()) => 0,
                Err(_) => return 0,
            },
            // Every update was a whole data unit.
            Inner::Xts(_) => 0,
            // The data update did the work (and checked the tag).
            Inner::Ccm(c) if c.final_ok() => 0,
            Inner::Ccm(_) => return 0,
            Inner::Wrap(_) => 0,
        };
        // SAFETY: checked non-NULL.
        unsafe { *outl = n };
        1
    })
}

unsafe extern "C" fn cipher(
    vctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
    inp: *const u8,
    inl: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes the context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<Ctx>(vctx) }) else {
            return 0;
        };
        if outl.is_null() || outsize < inl {
            return 0;
        }
        let mut copy = Vec::new();
        let ok = match &mut ctx.inner {
            Inner::Block(b) => {
                // SAFETY: OpenSSL's buffers of inl and outsize >= inl bytes.
                match unsafe { make_io(out, inl, inp, inl, &mut copy) } {
                    Some(io) => b.cipher(io, inl).is_ok(),
                    None => false,
                }
            }
            Inner::Gcm(g) => {
                if g.tls_pending() {
                    // SAFETY: OpenSSL's buffers of inl bytes each.
                    unsafe { tls_record(g, out, inp, inl) }.is_some()
                } else if inp.is_null() {
                    g.finalize().is_ok()
                } else if out.is_null() {
                    // SAFETY: OpenSSL's AAD buffer of inl bytes.
                    match unsafe { input(inp, inl) } {
                        Some(aad) => g.aad(aad).is_ok(),
                        None => false,
                    }
                } else {
                    // SAFETY: as for the block modes.
                    match unsafe { make_io(out, inl, inp, inl, &mut copy) } {
                        Some(io) => g.crypt(io, inl).is_ok(),
                        None => false,
                    }
                }
            }
            // SAFETY: OpenSSL's buffers of inl and outsize >= inl bytes.
            Inner::GcmSiv(g) => unsafe { siv_update(g, out, outsize, inp, inl) }.is_some(),
            // SAFETY: OpenSSL's buffers of inl and outsize >= inl bytes.
            Inner::Xts(x) => match unsafe { make_io(out, inl, inp, inl, &mut copy) } {
                Some(io) if !inp.is_null() => x.crypt(io, inl).is_ok(),
                _ => false,
            },
            // SAFETY: OpenSSL's buffers of inl and outsize >= inl bytes.
            Inner::Ccm(c) => unsafe { ccm_wrap::ccm_update(c, out, outsize, inp, inl) }.is_ok(),
            // SAFETY: OpenSSL's buffers (see `wrap_update` for `out`).
            Inner::Wrap(w) => match unsafe { ccm_wrap::wrap_update(w, out, outsize, inp, inl) } {
                Ok(n) => {
                    // SAFETY: checked non-NULL.
                    unsafe { *outl = n };
                    return 1;
                }
                Err(_) => false,
            },
        };
        if ok {
            // SAFETY: checked non-NULL.
            unsafe { *outl = inl };
        }
        ok as c_int
    })
}

/// An AES-GCM-SIV update or one-shot call: no input is the final's
/// answer (as OpenSSL's `aes_gcm_siv_cipher` gives it), no output is AAD,
/// else the whole message. Returns the output length, or None when refused.
///
/// # Safety
/// A non-NULL `inp` points to `inl` readable bytes, a non-NULL `out` to
/// `outsize` writable ones.
unsafe fn siv_update(
    g: &mut GcmSivCtx,
    out: *mut u8,
    outsize: usize,
    inp: *const u8,
    inl: usize,
) -> Option<usize> {
    if inp.is_null() {
        return g.finish().ok().map(|()| 0);
    }
    // SAFETY: the caller's contract for `inp`.
    let data = unsafe { input(inp, inl) }?;
    if out.is_null() {
        return g.aad(data).ok().map(|()| inl);
    }
    if outsize < inl {
        return None;
    }
    let mut copy = Vec::new();
    // SAFETY: the caller's contract: `inl` bytes in, `outsize >= inl` out.
    let io = unsafe { make_io(out, inl, inp, inl, &mut copy) }?;
    g.crypt(io, inl).ok().map(|()| inl)
}

/// `ossl_aes_gcm_siv_get_ctx_params`: the tag (16 bytes, after a sealed
/// message, as an octet string only), its length, the key length.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
unsafe fn siv_get(g: &GcmSivCtx, params: *mut OsslParam) -> bool {
    use crate::gcm_siv::TAG_LEN;
    // SAFETY: the caller's contract for `params`.
    unsafe {
        params::locate(params, ffi::CIPHER_AEAD_TAG).is_none_or(|p| {
            (*p).data_type != ffi::PARAM_OCTET_STRING
                || g.get_tag((*p).data_size)
                    .is_ok_and(|t| params::set_octets(p, t))
        }) && params::put_u64(params, ffi::CIPHER_AEAD_TAGLEN, TAG_LEN as u64)
            && params::put_u64(params, ffi::CIPHER_KEYLEN, g.keylen as u64)
    }
}

/// `ossl_aes_gcm_siv_set_ctx_params`: the tag to check (an octet string of
/// 16 bytes), `speed`, and the key length, which cannot change.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
unsafe fn siv_set(g: &mut GcmSivCtx, params: *const OsslParam) -> bool {
    // SAFETY: the caller's contract for `params`.
    unsafe {
        if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TAG) {
            if (*p).data_type != ffi::PARAM_OCTET_STRING {
                return false;
            }
            match params::get_octets(p) {
                Some(t) if g.set_tag(t).is_ok() => {}
                _ => return false,
            }
        }
        if let Some(p) = params::locate(params, ffi::CIPHER_SPEED) {
            match params::get_u64(p) {
                Some(v) => g.set_speed(v != 0),
                None => return false,
            }
        }
        params::locate(params, ffi::CIPHER_KEYLEN)
            .is_none_or(|p| params::get_u64(p) == Some(g.keylen as u64))
    }
}

/// A TLS 1.2 record announced by `tlsaad`: `inl` bytes that must be given
/// in place (`out == inp`, as OpenSSL requires); the bytes that come out,
/// or None when refused (the record's AAD is used up either way).
///
/// # Safety
/// A non-NULL `out` equal to `inp` points to `inl` readable and writable
/// bytes.
unsafe fn tls_record(g: &mut GcmCtx, out: *mut u8, inp: *const u8, inl: usize) -> Option<usize> {
    if out.is_null() || !ptr::eq(out as *const u8, inp) || inl > isize::MAX as usize {
        let _ = g.tls_record(&mut []);
        return None;
    }
    // SAFETY: the caller's contract: one in-place buffer of inl bytes.
    let rec = unsafe { core::slice::from_raw_parts_mut(out, inl) };
    g.tls_record(rec).ok()
}

unsafe extern "C" fn newctx_dup(vctx: *mut c_void) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: OpenSSL passes the context it got from us.
        match unsafe { ctx_mut::<Ctx>(vctx) } {
            Some(ctx) => Box::into_raw(Box::new(ctx.clone())) as *mut c_void,
            None => ptr::null_mut(),
        }
    })
}

unsafe extern "C" fn freectx(vctx: *mut c_void) {
    guard((), || {
        if !vctx.is_null() {
            // SAFETY: a pointer from Box::into_raw in newctx/dupctx, freed
            // once (OpenSSL calls freectx once per context).
            drop(unsafe { Box::from_raw(vctx as *mut Ctx) });
        }
    })
}

/// Writes the context parameters asked for; false on the first failure.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
unsafe fn get_ctx_params_of(ctx: &mut Ctx, params: *mut OsslParam) -> bool {
    // SAFETY: for every call below: `params` per the contract; an element
    // `locate` returns is valid; the octets we point OCTET_PTRs at live
    // in the boxed context.
    unsafe {
        match &mut ctx.inner {
            Inner::Block(b) => {
                ctx.iv_out = b.updated_iv();
                let ivlen = b.ivlen();
                params::put_u64(params, ffi::CIPHER_IVLEN, ivlen as u64)
                    && params::put_u64(params, ffi::CIPHER_PADDING, b.padding() as u64)
                    && params::locate(params, ffi::CIPHER_IV)
                        .is_none_or(|p| params::set_octets(p, b.original_iv()))
                    && params::locate(params, ffi::CIPHER_UPDATED_IV)
                        .is_none_or(|p| params::set_octets(p, &ctx.iv_out[..ivlen]))
                    && params::put_u64(params, ffi::CIPHER_NUM, b.num() as u64)
                    && params::put_u64(params, ffi::CIPHER_KEYLEN, b.keylen as u64)
                    && params::locate(params, ffi::CIPHER_TLS_MAC)
                        .is_none_or(|p| params::set_octets(p, b.tls_mac()))
            }
            Inner::Gcm(g) => {
                let iv_ok = |key: &CStr| {
                    params::locate(params, key).is_none_or(|p| match g.iv() {
                        Some(iv)
                            if iv.len() <= (*p).data_size
                                || (*p).data_type == ffi::PARAM_OCTET_PTR =>
                        {
                            params::set_octets(p, iv)
                        }
                        _ => false,
                    })
                };
                params::put_u64(params, ffi::CIPHER_IVLEN, g.ivlen() as u64)
                    && params::put_u64(params, ffi::CIPHER_KEYLEN, g.keylen as u64)
                    && params::put_u64(params, ffi::CIPHER_AEAD_IV_GENERATED, g.iv_random as u64)
                    && params::put_u64(params, ffi::CIPHER_AEAD_TAGLEN, g.taglen() as u64)
                    && iv_ok(ffi::CIPHER_IV)
                    && iv_ok(ffi::CIPHER_UPDATED_IV)
                    && params::locate(params, ffi::CIPHER_AEAD_TAG).is_none_or(|p| {
                        match g.get_tag((*p).data_size) {
                            Ok(tag) => params::set_octets(p, tag),
                            Err(_) => false,
                        }
                    })
                    && params::put_u64(
                        params,
                        ffi::CIPHER_AEAD_TLS1_AAD_PAD,
                        g.tls_aad_pad() as u64,
                    )
                    && params::locate(params, ffi::CIPHER_AEAD_TLS1_GET_IV_GEN).is_none_or(|p| {
                        let p = &mut *p;
                        if p.data_type != ffi::PARAM_OCTET_STRING
                            || p.data.is_null()
                            || p.data_size > isize::MAX as usize
                        {
                            return false;
                        }
                        // SAFETY (within the block above): OpenSSL's
                        // non-NULL buffer of data_size writable bytes.
                        let out = core::slice::from_raw_parts_mut(p.data as *mut u8, p.data_size);
                        g.tls_iv_gen(out).is_ok()
                    })
            }
            Inner::Xts(x) => {
                // The generic parameters; padding is on, as OpenSSL's
                // newctx leaves it, and never used.
                params::put_u64(params, ffi::CIPHER_IVLEN, 16)
                    && params::put_u64(params, ffi::CIPHER_PADDING, 1)
                    && params::locate(params, ffi::CIPHER_IV)
                        .is_none_or(|p| params::set_octets(p, x.iv()))
                    && params::locate(params, ffi::CIPHER_UPDATED_IV)
                        .is_none_or(|p| params::set_octets(p, x.updated_iv()))
                    && params::put_u64(params, ffi::CIPHER_NUM, 0)
                    && params::put_u64(params, ffi::CIPHER_KEYLEN, x.keylen as u64)
            }
            Inner::GcmSiv(g) => siv_get(g, params),
            Inner::Ccm(c) => ccm_wrap::ccm_get(c, params),
            Inner::Wrap(w) => ccm_wrap::wrap_get(w, params),
        }
    }
}

/// Applies the context parameters given; false on the first failure.
///
/// # Safety
/// `params` is NULL or OpenSSL's terminated array.
unsafe fn set_ctx_params_of(ctx: &mut Ctx, params: *const OsslParam) -> bool {
    // SAFETY: for every call below: `params` per the contract; an element
    // `locate` returns is valid, its data readable for its size.
    unsafe {
        match &mut ctx.inner {
            Inner::Block(b) => {
                if let Some(p) = params::locate(params, ffi::CIPHER_PADDING) {
                    match params::get_u64(p) {
                        Some(v) if v <= u32::MAX as u64 => b.set_padding(v != 0),
                        _ => return false,
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_NUM) {
                    match params::get_u64(p).and_then(|v| u32::try_from(v).ok()) {
                        Some(v) if b.set_num(v).is_ok() => {}
                        _ => return false,
                    }
                }
                // `use-bits` only means something to CFB1: checked, unused.
                if let Some(p) = params::locate(params, ffi::CIPHER_USE_BITS) {
                    if params::get_u64(p)
                        .and_then(|v| u32::try_from(v).ok())
                        .is_none()
                    {
                        return false;
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_TLS_VERSION) {
                    match params::get_u64(p).and_then(|v| u32::try_from(v).ok()) {
                        Some(v) => b.set_tls_version(v),
                        None => return false,
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_TLS_MAC_SIZE) {
                    match params::get_u64(p).and_then(|v| usize::try_from(v).ok()) {
                        Some(v) => b.set_tls_mac_size(v),
                        None => return false,
                    }
                }
                true
            }
            Inner::Gcm(g) => {
                if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TAG) {
                    match params::get_octets(p) {
                        Some(tag) if g.set_tag(tag).is_ok() => {}
                        _ => return false,
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_IVLEN) {
                    match params::get_u64(p).and_then(|v| usize::try_from(v).ok()) {
                        Some(v) if g.set_ivlen(v).is_ok() => {}
                        _ => return false,
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TLS1_AAD) {
                    match params::get_octets(p) {
                        Some(aad) if g.tls_set_aad(aad).is_ok() => {}
                        _ => return false,
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TLS1_IV_FIXED) {
                    // Length -1 (`EVP_CTRL_GCM_SET_IV_FIXED`, -1): the whole
                    // IV, `ivlen` bytes at `data`.
                    let whole = (*p).data_size == usize::MAX
                        && (*p).data_type == ffi::PARAM_OCTET_STRING
                        && !(*p).data.is_null();
                    let ok = if whole {
                        // SAFETY: that caller's contract: ivlen bytes.
                        let iv = core::slice::from_raw_parts((*p).data as *const u8, g.ivlen());
                        g.tls_restore_iv(iv).is_ok()
                    } else {
                        params::get_octets(p).is_some_and(|f| g.tls_set_fixed(f).is_ok())
                    };
                    if !ok {
                        return false;
                    }
                }
                if let Some(p) = params::locate(params, ffi::CIPHER_AEAD_TLS1_SET_IV_INV) {
                    match params::get_octets(p) {
                        Some(inv) if g.tls_iv_inv(inv).is_ok() => {}
                        _ => return false,
                    }
                }
                true
            }
            // `aes_xts_set_ctx_params`: only `keylen`, which cannot change.
            Inner::Xts(x) => params::locate(params, ffi::CIPHER_KEYLEN)
                .is_none_or(|p| params::get_u64(p) == Some(x.keylen as u64)),
            Inner::GcmSiv(g) => siv_set(g, params),
            Inner::Ccm(c) => ccm_wrap::ccm_set(c, params),
            Inner::Wrap(w) => ccm_wrap::wrap_set(w, params),
        }
    }
}

unsafe extern "C" fn get_ctx_params(vctx: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes the context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<Ctx>(vctx) }) else {
            return 0;
        };
        // SAFETY: OpenSSL's terminated array (or NULL).
        (unsafe { get_ctx_params_of(ctx, params) }) as c_int
    })
}

unsafe extern "C" fn set_ctx_params(vctx: *mut c_void, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes the context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<Ctx>(vctx) }) else {
            return 0;
        };
        // SAFETY: OpenSSL's terminated array (or NULL).
        (unsafe { set_ctx_params_of(ctx, params) }) as c_int
    })
}

/// The one-shot `cipher` entry (`EVP_Cipher`): OpenSSL flags a cipher that
/// has one `EVP_CIPH_FLAG_CUSTOM_CIPHER`; key wrap has none, as the
/// default provider's.
const ONE_SHOT: OsslDispatch = dispatch!(ffi::FUNC_CIPHER_CIPHER, cipher, Update);

/// One algorithm: its info, `newctx`, `get_params` and dispatch table
/// (ending with `$one_shot`: [`ONE_SHOT`], or the terminator).
macro_rules! algorithm {
    ($m:ident, $kind:expr, $keylen:expr, $gettable_ctx:path, $settable_ctx:path) => {
        algorithm!($m, $kind, $keylen, $gettable_ctx, $settable_ctx, ONE_SHOT);
    };
    ($m:ident, $kind:expr, $keylen:expr, $gettable_ctx:path, $settable_ctx:path, $one_shot:expr) => {
        mod $m {
            use crate::cipher::*;

            pub(super) static INFO: AlgInfo = AlgInfo {
                kind: $kind,
                keylen: $keylen,
            };

            unsafe extern "C" fn newctx(_provctx: *mut c_void) -> *mut c_void {
                guard(ptr::null_mut(), || crate::cipher::newctx(&INFO))
            }

            unsafe extern "C" fn get_params(params: *mut OsslParam) -> c_int {
                // SAFETY: OpenSSL's terminated array (or NULL).
                guard(0, || unsafe { alg_get_params(&INFO, params) })
            }

            pub(super) static DISPATCH: DispatchTable<15> = DispatchTable([
                dispatch!(ffi::FUNC_CIPHER_NEWCTX, newctx, NewCtx),
                dispatch!(ffi::FUNC_CIPHER_ENCRYPT_INIT, encrypt_init, Init),
                dispatch!(ffi::FUNC_CIPHER_DECRYPT_INIT, decrypt_init, Init),
                dispatch!(ffi::FUNC_CIPHER_UPDATE, update, Update),
                dispatch!(ffi::FUNC_CIPHER_FINAL, final_, Final),
                dispatch!(ffi::FUNC_CIPHER_FREECTX, freectx, FreeCtx),
                dispatch!(ffi::FUNC_CIPHER_DUPCTX, newctx_dup, DupCtx),
                dispatch!(ffi::FUNC_CIPHER_GET_PARAMS, get_params, GetParams),
                dispatch!(
                    ffi::FUNC_CIPHER_GET_CTX_PARAMS,
                    get_ctx_params,
                    GetCtxParams
                ),
                dispatch!(
                    ffi::FUNC_CIPHER_SET_CTX_PARAMS,
                    set_ctx_params,
                    SetCtxParams
                ),
                dispatch!(ffi::FUNC_CIPHER_GETTABLE_PARAMS, gettable_params, Gettable),
                dispatch!(
                    ffi::FUNC_CIPHER_GETTABLE_CTX_PARAMS,
                    $gettable_ctx,
                    GettableCtx
                ),
                dispatch!(
                    ffi::FUNC_CIPHER_SETTABLE_CTX_PARAMS,
                    $settable_ctx,
                    GettableCtx
                ),
                $one_shot,
                DISPATCH_END,
            ]);
        }
    };
}

algorithm!(
    aes128ecb,
    Kind::Block(Mode::Ecb),
    16,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes192ecb,
    Kind::Block(Mode::Ecb),
    24,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes256ecb,
    Kind::Block(Mode::Ecb),
    32,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes128cbc,
    Kind::Block(Mode::Cbc),
    16,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes192cbc,
    Kind::Block(Mode::Cbc),
    24,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes256cbc,
    Kind::Block(Mode::Cbc),
    32,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes128ctr,
    Kind::Block(Mode::Ctr),
    16,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes192ctr,
    Kind::Block(Mode::Ctr),
    24,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes256ctr,
    Kind::Block(Mode::Ctr),
    32,
    block_gettable_ctx,
    block_settable_ctx
);
algorithm!(
    aes128xts,
    Kind::Xts,
    32,
    block_gettable_ctx,
    xts_settable_ctx
);
algorithm!(
    aes256xts,
    Kind::Xts,
    64,
    block_gettable_ctx,
    xts_settable_ctx
);
algorithm!(aes128gcm, Kind::Gcm, 16, gcm_gettable_ctx, gcm_settable_ctx);
algorithm!(aes192gcm, Kind::Gcm, 24, gcm_gettable_ctx, gcm_settable_ctx);
algorithm!(aes256gcm, Kind::Gcm, 32, gcm_gettable_ctx, gcm_settable_ctx);
// CCM's parameter lists are GCM's (`ossl_cipher_aead_*_ctx_params`).
algorithm!(aes128ccm, Kind::Ccm, 16, ccm_gettable_ctx, ccm_settable_ctx);
algorithm!(
    aes128gcmsiv,
    Kind::GcmSiv,
    16,
    siv_gettable_ctx,
    siv_settable_ctx
);
algorithm!(
    aes192gcmsiv,
    Kind::GcmSiv,
    24,
    siv_gettable_ctx,
    siv_settable_ctx
);
algorithm!(
    aes256gcmsiv,
    Kind::GcmSiv,
    32,
    siv_gettable_ctx,
    siv_settable_ctx
);
algorithm!(aes192ccm, Kind::Ccm, 24, ccm_gettable_ctx, ccm_settable_ctx);
algorithm!(aes256ccm, Kind::Ccm, 32, ccm_gettable_ctx, ccm_settable_ctx);
const KW: Kind = Kind::Wrap {
    pad: false,
    inverse: false,
};
const KWP: Kind = Kind::Wrap {
    pad: true,
    inverse: false,
};
const KW_INV: Kind = Kind::Wrap {
    pad: false,
    inverse: true,
};
const KWP_INV: Kind = Kind::Wrap {
    pad: true,
    inverse: true,
};
algorithm!(
    aes128wrap,
    KW,
    16,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes192wrap,
    KW,
    24,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes256wrap,
    KW,
    32,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes128wrappad,
    KWP,
    16,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes192wrappad,
    KWP,
    24,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes256wrappad,
    KWP,
    32,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes128wrapinv,
    KW_INV,
    16,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes192wrapinv,
    KW_INV,
    24,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes256wrapinv,
    KW_INV,
    32,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes128wrappadinv,
    KWP_INV,
    16,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes192wrappadinv,
    KWP_INV,
    24,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);
algorithm!(
    aes256wrappadinv,
    KWP_INV,
    32,
    block_gettable_ctx,
    block_settable_ctx,
    DISPATCH_END
);

/// The provider's property definition.
pub(crate) const PROPERTY: &CStr = c"provider=aesx";

const fn alg(names: &'static CStr, table: &'static DispatchTable<15>) -> OsslAlgorithm {
    OsslAlgorithm {
        algorithm_names: names.as_ptr(),
        property_definition: PROPERTY.as_ptr(),
        implementation: table.0.as_ptr(),
        algorithm_description: ptr::null(),
    }
}

#[repr(transparent)]
struct AlgList<const N: usize>([OsslAlgorithm; N]);

// SAFETY: immutable, pointing only at 'static strings and tables.
unsafe impl<const N: usize> Sync for AlgList<N> {}

/// The names, aliases and OIDs are the default provider's
/// (`providers/defltprov.c`, `implementations/include/prov/names.h`).
static ALGORITHMS: AlgList<33> = AlgList([
    alg(c"AES-256-ECB:2.16.840.1.101.3.4.1.41", &aes256ecb::DISPATCH),
    alg(c"AES-192-ECB:2.16.840.1.101.3.4.1.21", &aes192ecb::DISPATCH),
    alg(c"AES-128-ECB:2.16.840.1.101.3.4.1.1", &aes128ecb::DISPATCH),
    alg(
        c"AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42",
        &aes256cbc::DISPATCH,
    ),
    alg(
        c"AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22",
        &aes192cbc::DISPATCH,
    ),
    alg(
        c"AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2",
        &aes128cbc::DISPATCH,
    ),
    alg(c"AES-256-CTR", &aes256ctr::DISPATCH),
    alg(c"AES-192-CTR", &aes192ctr::DISPATCH),
    alg(c"AES-128-CTR", &aes128ctr::DISPATCH),
    alg(
        c"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46",
        &aes256gcm::DISPATCH,
    ),
    alg(
        c"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26",
        &aes192gcm::DISPATCH,
    ),
    alg(
        c"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6",
        &aes128gcm::DISPATCH,
    ),
    alg(c"AES-256-XTS:1.3.111.2.1619.0.1.2", &aes256xts::DISPATCH),
    alg(c"AES-128-XTS:1.3.111.2.1619.0.1.1", &aes128xts::DISPATCH),
    alg(
        c"AES-256-CCM:id-aes256-CCM:2.16.840.1.101.3.4.1.47",
        &aes256ccm::DISPATCH,
    ),
    alg(
        c"AES-192-CCM:id-aes192-CCM:2.16.840.1.101.3.4.1.27",
        &aes192ccm::DISPATCH,
    ),
    alg(
        c"AES-128-CCM:id-aes128-CCM:2.16.840.1.101.3.4.1.7",
        &aes128ccm::DISPATCH,
    ),
    alg(c"AES-128-GCM-SIV", &aes128gcmsiv::DISPATCH),
    alg(c"AES-192-GCM-SIV", &aes192gcmsiv::DISPATCH),
    alg(c"AES-256-GCM-SIV", &aes256gcmsiv::DISPATCH),
    alg(
        c"AES-256-WRAP:id-aes256-wrap:AES256-WRAP:2.16.840.1.101.3.4.1.45",
        &aes256wrap::DISPATCH,
    ),
    alg(
        c"AES-192-WRAP:id-aes192-wrap:AES192-WRAP:2.16.840.1.101.3.4.1.25",
        &aes192wrap::DISPATCH,
    ),
    alg(
        c"AES-128-WRAP:id-aes128-wrap:AES128-WRAP:2.16.840.1.101.3.4.1.5",
        &aes128wrap::DISPATCH,
    ),
    alg(
        c"AES-256-WRAP-PAD:id-aes256-wrap-pad:AES256-WRAP-PAD:2.16.840.1.101.3.4.1.48",
        &aes256wrappad::DISPATCH,
    ),
    alg(
        c"AES-192-WRAP-PAD:id-aes192-wrap-pad:AES192-WRAP-PAD:2.16.840.1.101.3.4.1.28",
        &aes192wrappad::DISPATCH,
    ),
    alg(
        c"AES-128-WRAP-PAD:id-aes128-wrap-pad:AES128-WRAP-PAD:2.16.840.1.101.3.4.1.8",
        &aes128wrappad::DISPATCH,
    ),
    alg(
        c"AES-256-WRAP-INV:AES256-WRAP-INV",
        &aes256wrapinv::DISPATCH,
    ),
    alg(
        c"AES-192-WRAP-INV:AES192-WRAP-INV",
        &aes192wrapinv::DISPATCH,
    ),
    alg(
        c"AES-128-WRAP-INV:AES128-WRAP-INV",
        &aes128wrapinv::DISPATCH,
    ),
    alg(
        c"AES-256-WRAP-PAD-INV:AES256-WRAP-PAD-INV",
        &aes256wrappadinv::DISPATCH,
    ),
    alg(
        c"AES-192-WRAP-PAD-INV:AES192-WRAP-PAD-INV",
        &aes192wrappadinv::DISPATCH,
    ),
    alg(
        c"AES-128-WRAP-PAD-INV:AES128-WRAP-PAD-INV",
        &aes128wrappadinv::DISPATCH,
    ),
    OsslAlgorithm {
        algorithm_names: ptr::null::<c_char>(),
        property_definition: ptr::null(),
        implementation: ptr::null(),
        algorithm_description: ptr::null(),
    },
]);

/// The cipher algorithms, for `query_operation`.
pub(crate) fn algorithms() -> *const OsslAlgorithm {
    ALGORITHMS.0.as_ptr()
}

/// Every algorithm's info, for tests.
#[cfg(test)]
fn infos() -> [&'static AlgInfo; 32] {
    [
        &aes256ecb::INFO,
        &aes192ecb::INFO,
        &aes128ecb::INFO,
        &aes256cbc::INFO,
        &aes192cbc::INFO,
        &aes128cbc::INFO,
        &aes256ctr::INFO,
        &aes192ctr::INFO,
        &aes128ctr::INFO,
        &aes256gcm::INFO,
        &aes192gcm::INFO,
        &aes128gcm::INFO,
        &aes256xts::INFO,
        &aes128xts::INFO,
        &aes256ccm::INFO,
        &aes192ccm::INFO,
        &aes128ccm::INFO,
        &aes128gcmsiv::INFO,
        &aes192gcmsiv::INFO,
        &aes256gcmsiv::INFO,
        &aes256wrap::INFO,
        &aes192wrap::INFO,
        &aes128wrap::INFO,
        &aes256wrappad::INFO,
        &aes192wrappad::INFO,
        &aes128wrappad::INFO,
        &aes256wrapinv::INFO,
        &aes192wrapinv::INFO,
        &aes128wrapinv::INFO,
        &aes256wrappadinv::INFO,
        &aes192wrappadinv::INFO,
        &aes128wrappadinv::INFO,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_match_the_infos() {
        for (a, info) in ALGORITHMS.0.iter().zip(infos()) {
            // SAFETY: 'static C strings of the table.
            let names = unsafe { CStr::from_ptr(a.algorithm_names) }
                .to_str()
                .unwrap();
            let first = names.split(':').next().unwrap();
            let bits = first[4..7].parse::<usize>().unwrap();
            let keys = if matches!(info.kind, Kind::Xts) { 2 } else { 1 };
            assert_eq!(bits / 8 * keys, info.keylen, "{names}");
            let mode = match info.kind {
                Kind::Block(Mode::Ecb) => "ECB",
                Kind::Block(Mode::Cbc) => "CBC",
                Kind::Block(Mode::Ctr) => "CTR",
                Kind::Gcm => "GCM",
                Kind::GcmSiv => "GCM-SIV",
                Kind::Xts => "XTS",
                Kind::Ccm => "CCM",
                Kind::Wrap { pad, inverse } => match (pad, inverse) {
                    (false, false) => "WRAP",
                    (true, false) => "WRAP-PAD",
                    (false, true) => "WRAP-INV",
                    (true, true) => "WRAP-PAD-INV",
                },
            };
            assert!(first.ends_with(mode), "{names}");
        }
        assert!(ALGORITHMS.0[infos().len()].algorithm_names.is_null());
    }

    #[test]
    fn overlapping_buffers_are_copied_equal_ones_in_place() {
        let mut buf = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let p = buf.as_mut_ptr();
        let mut copy = Vec::new();
        // SAFETY: all ranges lie inside `buf`.
        unsafe {
            assert!(matches!(make_io(p, 4, p, 4, &mut copy), Some(Io::InPlace(b)) if b.len() == 4));
            assert!(matches!(make_io(p, 6, p, 4, &mut copy), Some(Io::InPlace(b)) if b.len() == 6));
            match make_io(p.add(2), 4, p, 4, &mut copy) {
                Some(Io::Split { src, .. }) => assert_eq!(src, &[1, 2, 3, 4]),
                _ => panic!("split expected"),
            }
            assert_eq!(copy, [1, 2, 3, 4]);
            assert!(make_io(ptr::null_mut(), 4, p, 4, &mut copy).is_none());
            assert!(make_io(p, 4, ptr::null(), 4, &mut copy).is_none());
            assert!(matches!(
                make_io(ptr::null_mut(), 0, ptr::null(), 0, &mut copy),
                Some(Io::Split { .. })
            ));
        }
    }
}
