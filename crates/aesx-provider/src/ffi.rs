//! The slice of OpenSSL 3's core ABI the provider speaks, written by hand
//! from `openssl/core.h`, `core_dispatch.h` and `core_names.h` (3.0): no
//! libcrypto is linked; OpenSSL hands us every table at run time.

use core::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// `OSSL_DISPATCH`: one function of a table, `function_id` 0 ends it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct OsslDispatch {
    pub function_id: c_int,
    pub function: Option<unsafe extern "C" fn()>,
}

/// `OSSL_ALGORITHM`: names, property definition, dispatch table.
#[repr(C)]
pub struct OsslAlgorithm {
    pub algorithm_names: *const c_char,
    pub property_definition: *const c_char,
    pub implementation: *const OsslDispatch,
    pub algorithm_description: *const c_char,
}

/// `OSSL_PARAM`: a key, a type, a buffer and the size written back.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct OsslParam {
    pub key: *const c_char,
    pub data_type: c_uint,
    pub data: *mut c_void,
    pub data_size: usize,
    pub return_size: usize,
}

/// `OSSL_PARAM_UNMODIFIED`: `return_size` of a parameter nobody wrote.
pub const PARAM_UNMODIFIED: usize = usize::MAX;

pub const PARAM_INTEGER: c_uint = 1;
pub const PARAM_UNSIGNED_INTEGER: c_uint = 2;
pub const PARAM_UTF8_STRING: c_uint = 4;
pub const PARAM_OCTET_STRING: c_uint = 5;
pub const PARAM_UTF8_PTR: c_uint = 6;
pub const PARAM_OCTET_PTR: c_uint = 7;

// Provider functions (core_dispatch.h).
pub const FUNC_PROVIDER_TEARDOWN: c_int = 1024;
pub const FUNC_PROVIDER_GETTABLE_PARAMS: c_int = 1025;
/// `OSSL_FUNC_CORE_GET_PARAMS`, in the table the core passes to init.
pub const FUNC_CORE_GET_PARAMS: c_int = 2;
/// `OSSL_PROV_PARAM_CORE_VERSION`: the loading OpenSSL's version string.
pub const PROV_PARAM_CORE_VERSION: &CStr = c"openssl-version";
pub const FUNC_PROVIDER_GET_PARAMS: c_int = 1026;
pub const FUNC_PROVIDER_QUERY_OPERATION: c_int = 1027;

/// `OSSL_OP_CIPHER`.
pub const OP_CIPHER: c_int = 2;
/// `OSSL_OP_MAC`.
pub const OP_MAC: c_int = 3;

// `OSSL_FUNC_MAC_*` (core_dispatch.h).
pub const FUNC_MAC_NEWCTX: c_int = 1;
pub const FUNC_MAC_DUPCTX: c_int = 2;
pub const FUNC_MAC_FREECTX: c_int = 3;
pub const FUNC_MAC_INIT: c_int = 4;
pub const FUNC_MAC_UPDATE: c_int = 5;
pub const FUNC_MAC_FINAL: c_int = 6;
pub const FUNC_MAC_GET_CTX_PARAMS: c_int = 8;
pub const FUNC_MAC_SET_CTX_PARAMS: c_int = 9;
pub const FUNC_MAC_GETTABLE_CTX_PARAMS: c_int = 11;
pub const FUNC_MAC_SETTABLE_CTX_PARAMS: c_int = 12;

// `OSSL_MAC_PARAM_*` (core_names.h).
pub const MAC_PARAM_KEY: &CStr = c"key";
pub const MAC_PARAM_CIPHER: &CStr = c"cipher";
pub const MAC_PARAM_PROPERTIES: &CStr = c"properties";
pub const MAC_PARAM_SIZE: &CStr = c"size";
pub const MAC_PARAM_BLOCK_SIZE: &CStr = c"block-size";

// Cipher functions (core_dispatch.h).
pub const FUNC_CIPHER_NEWCTX: c_int = 1;
pub const FUNC_CIPHER_ENCRYPT_INIT: c_int = 2;
pub const FUNC_CIPHER_DECRYPT_INIT: c_int = 3;
pub const FUNC_CIPHER_UPDATE: c_int = 4;
pub const FUNC_CIPHER_FINAL: c_int = 5;
pub const FUNC_CIPHER_CIPHER: c_int = 6;
pub const FUNC_CIPHER_FREECTX: c_int = 7;
pub const FUNC_CIPHER_DUPCTX: c_int = 8;
pub const FUNC_CIPHER_GET_PARAMS: c_int = 9;
pub const FUNC_CIPHER_GET_CTX_PARAMS: c_int = 10;
pub const FUNC_CIPHER_SET_CTX_PARAMS: c_int = 11;
pub const FUNC_CIPHER_GETTABLE_PARAMS: c_int = 12;
pub const FUNC_CIPHER_GETTABLE_CTX_PARAMS: c_int = 13;
pub const FUNC_CIPHER_SETTABLE_CTX_PARAMS: c_int = 14;

// EVP_CIPH_*_MODE (evp.h), reported as the "mode" parameter.
pub const MODE_ECB: u64 = 0x1;
pub const MODE_CBC: u64 = 0x2;
pub const MODE_CTR: u64 = 0x5;
pub const MODE_GCM: u64 = 0x6;
pub const MODE_CCM: u64 = 0x7;
pub const MODE_XTS: u64 = 0x10001;
pub const MODE_WRAP: u64 = 0x10002;
/// `EVP_CIPH_GCM_SIV_MODE` (OpenSSL 3.2 and later).
pub const MODE_GCM_SIV: u64 = 0x10005;

// Parameter names (core_names.h).
pub const PROV_NAME: &CStr = c"name";
pub const PROV_VERSION: &CStr = c"version";
pub const PROV_BUILDINFO: &CStr = c"buildinfo";
pub const PROV_STATUS: &CStr = c"status";
/// Ours: bytes aesx has encrypted or decrypted in this process (uint64).
pub const PROV_AESX_BYTES: &CStr = c"aesx-bytes";
/// Ours: the aesx backend new keys run on (utf8).
pub const PROV_AESX_BACKEND: &CStr = c"aesx-backend";

pub const CIPHER_MODE: &CStr = c"mode";
pub const CIPHER_KEYLEN: &CStr = c"keylen";
pub const CIPHER_IVLEN: &CStr = c"ivlen";
pub const CIPHER_BLOCK_SIZE: &CStr = c"blocksize";
pub const CIPHER_AEAD: &CStr = c"aead";
pub const CIPHER_CUSTOM_IV: &CStr = c"custom-iv";
pub const CIPHER_CTS: &CStr = c"cts";
pub const CIPHER_TLS1_MULTIBLOCK: &CStr = c"tls-multi";
pub const CIPHER_HAS_RAND_KEY: &CStr = c"has-randkey";
/// AES-GCM-SIV: more than one message per init (`OSSL_CIPHER_PARAM_SPEED`).
pub const CIPHER_SPEED: &CStr = c"speed";
/// Reported from OpenSSL 3.6 on (always 0 here: no stitched MAC).
pub const CIPHER_ENCRYPT_THEN_MAC: &CStr = c"encrypt-then-mac";
/// GCM, from OpenSSL 3.6 on: whether the provider drew the IV at random.
pub const CIPHER_AEAD_IV_GENERATED: &CStr = c"iv-generated";
pub const CIPHER_PADDING: &CStr = c"padding";
pub const CIPHER_NUM: &CStr = c"num";
pub const CIPHER_IV: &CStr = c"iv";
pub const CIPHER_UPDATED_IV: &CStr = c"updated-iv";
pub const CIPHER_AEAD_TAG: &CStr = c"tag";
pub const CIPHER_AEAD_TAGLEN: &CStr = c"taglen";
pub const CIPHER_USE_BITS: &CStr = c"use-bits";
pub const CIPHER_TLS_VERSION: &CStr = c"tls-version";
pub const CIPHER_TLS_MAC_SIZE: &CStr = c"tls-mac-size";
pub const CIPHER_TLS_MAC: &CStr = c"tls-mac";
pub const CIPHER_AEAD_TLS1_AAD: &CStr = c"tlsaad";
pub const CIPHER_AEAD_TLS1_AAD_PAD: &CStr = c"tlsaadpad";
pub const CIPHER_AEAD_TLS1_IV_FIXED: &CStr = c"tlsivfixed";
pub const CIPHER_AEAD_TLS1_GET_IV_GEN: &CStr = c"tlsivgen";
pub const CIPHER_AEAD_TLS1_SET_IV_INV: &CStr = c"tlsivinv";

/// `OSSL_provider_init`'s `provctx` and every `newctx`'s first argument.
pub type ProvCtx = *mut c_void;

// The C signatures of the cipher entry points (`OSSL_FUNC_cipher_*_fn` in
// core_dispatch.h), as the dispatch tables hold them.
pub type NewCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
pub type Init = unsafe extern "C" fn(
    *mut c_void,
    *const u8,
    usize,
    *const u8,
    usize,
    *const OsslParam,
) -> c_int;
pub type Update =
    unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize, *const u8, usize) -> c_int;
pub type Final = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;
/// `OSSL_FUNC_mac_init_fn`.
pub type MacInit = unsafe extern "C" fn(*mut c_void, *const u8, usize, *const OsslParam) -> c_int;
/// `OSSL_FUNC_mac_update_fn`.
pub type MacUpdate = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int;
pub type FreeCtx = unsafe extern "C" fn(*mut c_void);
pub type DupCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
pub type GetParams = unsafe extern "C" fn(*mut OsslParam) -> c_int;
pub type GetCtxParams = unsafe extern "C" fn(*mut c_void, *mut OsslParam) -> c_int;
pub type SetCtxParams = unsafe extern "C" fn(*mut c_void, *const OsslParam) -> c_int;
pub type Gettable = unsafe extern "C" fn(*mut c_void) -> *const OsslParam;
pub type GettableCtx = unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const OsslParam;
