//! OpenSSL as the reference the differential tests hold every backend to:
//! ECB, CBC and CTR in one call, and EVP contexts for the other modes.

use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

/// The modes compared with OpenSSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
}

/// OpenSSL over `data` in one call, with PKCS#7 padding when `pad`; `iv` is
/// ignored for ECB. The cipher is fetched by its OpenSSL name
/// (`AES-128-CBC`), so the key length picks the AES variant.
pub fn crypt(mode: Mode, encrypt: bool, key: &[u8], iv: &[u8], pad: bool, data: &[u8]) -> Vec<u8> {
    let name = format!("AES-{}-{mode:?}", key.len() * 8).to_uppercase();
    let cipher = Cipher::fetch(None, &name, None).unwrap();
    let iv = (mode != Mode::Ecb).then_some(iv);
    let mut c = evp(&cipher, key, iv, encrypt);
    c.set_padding(pad);
    let mut out = vec![0u8; data.len() + 32];
    let n = c.cipher_update(data, Some(&mut out)).unwrap();
    let m = c.cipher_final(&mut out[n..]).unwrap();
    out.truncate(n + m);
    out
}

/// An EVP context for `cipher` under `key`, set up to encrypt or decrypt.
pub fn evp(cipher: &CipherRef, key: &[u8], iv: Option<&[u8]>, encrypt: bool) -> CipherCtx {
    let mut c = CipherCtx::new().unwrap();
    match encrypt {
        true => c.encrypt_init(Some(cipher), Some(key), iv),
        false => c.decrypt_init(Some(cipher), Some(key), iv),
    }
    .unwrap();
    c
}
