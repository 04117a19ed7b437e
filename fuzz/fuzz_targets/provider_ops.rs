//! The OpenSSL provider's cipher entry points driven as OpenSSL drives
//! them, through the dispatch tables `OSSL_provider_init` hands out: for
//! one of its algorithms, a sequence of inits (keys and IVs of any length,
//! or none), updates (split, in place, AAD with no output, any `outsize`
//! the buffer allows), finals, one-shot calls, parameter sets and gets
//! (padding, num, ivlen, tag, the TLS parameters, ...), duplications and
//! re-inits. The oracle is the sanitizer and the provider's own promises:
//! no crash, no read or write outside the buffers, an output length never
//! beyond what the call may write.
#![no_main]

use core::ffi::{c_int, c_uint, c_void, CStr};
use core::ptr;

use aesx_fuzz::Bytes;
use aesx_provider::ffi::{
    self, DupCtx, Final, FreeCtx, GetCtxParams, Init, NewCtx, OsslAlgorithm, OsslDispatch,
    OsslParam, SetCtxParams, Update,
};
use libfuzzer_sys::fuzz_target;

/// One algorithm's entry points.
struct Alg {
    newctx: NewCtx,
    einit: Init,
    dinit: Init,
    update: Update,
    final_: Final,
    cipher: Option<Update>,
    free: FreeCtx,
    dup: DupCtx,
    get: GetCtxParams,
    set: SetCtxParams,
}

/// The function with id `id` of a dispatch table, as type `T`.
///
/// # Safety
/// `table` is a terminated dispatch table and `T` the function type the id
/// stands for.
unsafe fn find<T: Copy>(table: *const OsslDispatch, id: c_int) -> Option<T> {
    let mut p = table;
    // SAFETY: the table is terminated by function_id 0.
    unsafe {
        while (*p).function_id != 0 {
            if (*p).function_id == id {
                let f = (*p).function?;
                return Some(core::mem::transmute_copy::<unsafe extern "C" fn(), T>(&f));
            }
            p = p.add(1);
        }
    }
    None
}

/// Every cipher the provider offers, loaded once.
fn algorithms() -> &'static [Alg] {
    static ALGS: std::sync::OnceLock<Vec<Alg>> = std::sync::OnceLock::new();
    ALGS.get_or_init(|| {
        let mut out: *const OsslDispatch = ptr::null();
        let mut provctx: *mut c_void = ptr::null_mut();
        // SAFETY: the provider's entry point with slots to fill.
        let ok = unsafe {
            aesx_provider::OSSL_provider_init(ptr::null(), ptr::null(), &mut out, &mut provctx)
        };
        assert_eq!(ok, 1);
        type Query = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const OsslAlgorithm;
        // SAFETY: the provider's terminated table; the id's type.
        let query: Query = unsafe { find(out, ffi::FUNC_PROVIDER_QUERY_OPERATION) }.unwrap();
        let mut no_cache = 0;
        // SAFETY: as OpenSSL calls it.
        let mut a = unsafe { query(provctx, ffi::OP_CIPHER, &mut no_cache) };
        let mut algs = Vec::new();
        // SAFETY: a list ended by NULL names; each implementation a
        // terminated table whose ids have the types above.
        unsafe {
            while !(*a).algorithm_names.is_null() {
                let t = (*a).implementation;
                algs.push(Alg {
                    newctx: find(t, ffi::FUNC_CIPHER_NEWCTX).unwrap(),
                    einit: find(t, ffi::FUNC_CIPHER_ENCRYPT_INIT).unwrap(),
                    dinit: find(t, ffi::FUNC_CIPHER_DECRYPT_INIT).unwrap(),
                    update: find(t, ffi::FUNC_CIPHER_UPDATE).unwrap(),
                    final_: find(t, ffi::FUNC_CIPHER_FINAL).unwrap(),
                    cipher: find(t, ffi::FUNC_CIPHER_CIPHER),
                    free: find(t, ffi::FUNC_CIPHER_FREECTX).unwrap(),
                    dup: find(t, ffi::FUNC_CIPHER_DUPCTX).unwrap(),
                    get: find(t, ffi::FUNC_CIPHER_GET_CTX_PARAMS).unwrap(),
                    set: find(t, ffi::FUNC_CIPHER_SET_CTX_PARAMS).unwrap(),
                });
                a = a.add(1);
            }
        }
        algs
    })
}

fn param(key: &'static CStr, data_type: c_uint, data: *mut c_void, size: usize) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type,
        data,
        data_size: size,
        return_size: ffi::PARAM_UNMODIFIED,
    }
}

const END: OsslParam = OsslParam {
    key: ptr::null(),
    data_type: 0,
    data: ptr::null_mut(),
    data_size: 0,
    return_size: 0,
};

/// Room beyond the input that every output buffer has: a block for the
/// block modes' held-back data and padding, 8 more for key wrap's length
/// rounding, more for slack.
const SLACK: usize = 40;

fuzz_target!(|data: &[u8]| {
    let algs = algorithms();
    let mut b = Bytes(data);
    let alg = &algs[b.u8() as usize % algs.len()];
    // SAFETY (for every call below): the entry points are called as OpenSSL
    // calls them: the context they returned, buffers of the sizes passed
    // (the output with SLACK bytes beyond any outsize given), terminated
    // parameter arrays whose data match their types and sizes.
    unsafe {
        let mut ctx = (alg.newctx)(ptr::null_mut());
        assert!(!ctx.is_null());
        for _ in 0..24 {
            if b.0.is_empty() {
                break;
            }
            match b.u8() % 8 {
                0 | 1 => {
                    let sel = b.u8();
                    let klen = b.u8() as usize % 70;
                    let key = b.take(klen).to_vec();
                    let ivlen = b.u8() as usize % 20;
                    let iv = b.take(ivlen).to_vec();
                    let kp = if sel & 1 != 0 {
                        key.as_ptr()
                    } else {
                        ptr::null()
                    };
                    let ip = if sel & 2 != 0 {
                        iv.as_ptr()
                    } else {
                        ptr::null()
                    };
                    let init = if sel & 4 != 0 { alg.einit } else { alg.dinit };
                    init(ctx, kp, key.len(), ip, iv.len(), ptr::null());
                }
                2 | 3 => {
                    let sel = b.u8();
                    let n = b.u16() as usize % 300;
                    let input = b.take(n).to_vec();
                    let n = input.len();
                    let outsize = if sel & 8 != 0 {
                        n + (b.u8() as usize % 24)
                    } else {
                        n / 2
                    };
                    let mut outl = usize::MAX;
                    let f = if sel & 16 != 0 {
                        alg.cipher.unwrap_or(alg.update)
                    } else {
                        alg.update
                    };
                    match sel % 3 {
                        // AAD, or with no input either (CCM's length
                        // declaration): no output buffer
                        0 => {
                            let ip = if sel & 32 != 0 {
                                ptr::null()
                            } else {
                                input.as_ptr()
                            };
                            f(ctx, ptr::null_mut(), &mut outl, outsize, ip, n);
                        }
                        // in place
                        1 => {
                            let mut buf = input.clone();
                            buf.resize(n.max(outsize) + SLACK, 0);
                            let p = buf.as_mut_ptr();
                            if f(ctx, p, &mut outl, outsize, p, n) == 1 {
                                assert!(outl <= outsize.max(n) + SLACK - 16, "outl {outl}");
                            }
                        }
                        _ => {
                            let mut out = vec![0u8; outsize + SLACK];
                            let ip = if n == 0 && sel & 32 != 0 {
                                ptr::null()
                            } else {
                                input.as_ptr()
                            };
                            if f(ctx, out.as_mut_ptr(), &mut outl, outsize, ip, n) == 1 {
                                assert!(outl <= outsize + SLACK - 16, "outl {outl}");
                            }
                        }
                    }
                }
                4 => {
                    let mut out = [0u8; 16 + SLACK];
                    let mut outl = usize::MAX;
                    let outsize = b.u8() as usize % 17;
                    if (alg.final_)(ctx, out.as_mut_ptr(), &mut outl, outsize) == 1 {
                        assert!(outl <= 16, "final outl {outl}");
                    }
                }
                5 => {
                    // one parameter set
                    let sel = b.u8();
                    let v = b.u8() as u64;
                    let mut u32v = if sel % 10 == 7 {
                        // the versions libssl sets
                        [0x0300, 0x0301, 0x0302, 0x0303, 0xfefd, 0][(v % 6) as usize]
                    } else {
                        (v % 130) as u32
                    };
                    let mut sz = (v % 130) as usize;
                    let len = b.u8() as usize % 24;
                    let mut bytes = b.take(len).to_vec();
                    let bp = bytes.as_mut_ptr() as *mut c_void;
                    let u = &mut u32v as *mut u32 as *mut c_void;
                    let s = &mut sz as *mut usize as *mut c_void;
                    let (uint, size, oct) = (
                        ffi::PARAM_UNSIGNED_INTEGER,
                        ffi::PARAM_UNSIGNED_INTEGER,
                        ffi::PARAM_OCTET_STRING,
                    );
                    let p = match sel % 10 {
                        0 => param(ffi::CIPHER_PADDING, uint, u, 4),
                        1 => param(ffi::CIPHER_NUM, uint, u, 4),
                        2 => param(ffi::CIPHER_IVLEN, size, s, 8),
                        3 => param(ffi::CIPHER_AEAD_TAG, oct, bp, bytes.len()),
                        4 => param(ffi::CIPHER_AEAD_TAG, oct, ptr::null_mut(), len),
                        5 => param(ffi::CIPHER_AEAD_TLS1_AAD, oct, bp, bytes.len()),
                        6 => param(ffi::CIPHER_AEAD_TLS1_IV_FIXED, oct, bp, bytes.len()),
                        7 => param(ffi::CIPHER_TLS_VERSION, uint, u, 4),
                        8 => param(ffi::CIPHER_TLS_MAC_SIZE, size, s, 8),
                        _ => param(ffi::CIPHER_AEAD_TLS1_SET_IV_INV, oct, bp, bytes.len()),
                    };
                    let mut ps = [p, END];
                    (alg.set)(ctx, ps.as_mut_ptr());
                }
                6 => {
                    // one parameter get into a buffer of some size
                    let sel = b.u8();
                    let size = b.u8() as usize % 40;
                    let mut buf = vec![0u8; size];
                    let mut slot: *const c_void = ptr::null();
                    let mut n = 0usize;
                    let bp = buf.as_mut_ptr() as *mut c_void;
                    let oct = ffi::PARAM_OCTET_STRING;
                    let p = match sel % 6 {
                        0 => param(ffi::CIPHER_IV, oct, bp, size),
                        1 => param(ffi::CIPHER_UPDATED_IV, oct, bp, size),
                        2 => param(ffi::CIPHER_AEAD_TAG, oct, bp, size),
                        3 => param(ffi::CIPHER_AEAD_TLS1_GET_IV_GEN, oct, bp, size),
                        4 => param(
                            ffi::CIPHER_TLS_MAC,
                            ffi::PARAM_OCTET_PTR,
                            &mut slot as *mut _ as *mut c_void,
                            0,
                        ),
                        _ => param(
                            ffi::CIPHER_AEAD_TLS1_AAD_PAD,
                            ffi::PARAM_UNSIGNED_INTEGER,
                            &mut n as *mut usize as *mut c_void,
                            8,
                        ),
                    };
                    let mut ps = [p, END];
                    if (alg.get)(ctx, ps.as_mut_ptr()) == 1 && sel % 6 == 4 && !slot.is_null() {
                        // the MAC points at readable bytes of the size told
                        let mac = core::slice::from_raw_parts(slot as *const u8, ps[0].return_size);
                        std::hint::black_box(mac.iter().fold(0u8, |a, &x| a ^ x));
                    }
                }
                _ => {
                    let d = (alg.dup)(ctx);
                    assert!(!d.is_null());
                    (alg.free)(ctx);
                    ctx = d;
                }
            }
        }
        (alg.free)(ctx);
    }
});
