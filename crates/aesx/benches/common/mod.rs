//! Shared by the benchmarks that race OpenSSL's EVP interface.

use openssl::cipher::CipherRef;
use openssl::cipher_ctx::CipherCtx;

/// An EVP context for `cipher`, set up to encrypt or decrypt; with a key,
/// its schedule is expanded once and each message then sets only its IV.
pub fn evp(cipher: &CipherRef, key: Option<&[u8]>, encrypt: bool) -> CipherCtx {
    let mut ctx = CipherCtx::new().unwrap();
    if encrypt {
        ctx.encrypt_init(Some(cipher), key, None).unwrap();
    } else {
        ctx.decrypt_init(Some(cipher), key, None).unwrap();
    }
    ctx
}
