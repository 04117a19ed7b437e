//! OpenSSL's answer for ECB, CBC and CTR in one call, the reference the
//! differential tests hold every backend to.

use openssl::symm::{Cipher, Crypter};

/// The modes compared with OpenSSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
}

/// OpenSSL's cipher for `mode` with a key of `key_len` bytes.
pub fn cipher(mode: Mode, key_len: usize) -> Cipher {
    match (mode, key_len) {
        (Mode::Ecb, 16) => Cipher::aes_128_ecb(),
        (Mode::Ecb, 24) => Cipher::aes_192_ecb(),
        (Mode::Ecb, 32) => Cipher::aes_256_ecb(),
        (Mode::Cbc, 16) => Cipher::aes_128_cbc(),
        (Mode::Cbc, 24) => Cipher::aes_192_cbc(),
        (Mode::Cbc, 32) => Cipher::aes_256_cbc(),
        (Mode::Ctr, 16) => Cipher::aes_128_ctr(),
        (Mode::Ctr, 24) => Cipher::aes_192_ctr(),
        (Mode::Ctr, 32) => Cipher::aes_256_ctr(),
        _ => unreachable!("no such cipher: {mode:?} with a {key_len}-byte key"),
    }
}

/// OpenSSL over `data` in one call, with PKCS#7 padding when `pad`; `iv` is
/// ignored for ECB.
pub fn crypt(mode: Mode, encrypt: bool, key: &[u8], iv: &[u8], pad: bool, data: &[u8]) -> Vec<u8> {
    let m = if encrypt {
        openssl::symm::Mode::Encrypt
    } else {
        openssl::symm::Mode::Decrypt
    };
    let iv = (mode != Mode::Ecb).then_some(iv);
    let mut c = Crypter::new(cipher(mode, key.len()), m, key, iv).unwrap();
    c.pad(pad);
    let mut out = vec![0u8; data.len() + 32];
    let mut n = c.update(data, &mut out).unwrap();
    n += c.finalize(&mut out[n..]).unwrap();
    out.truncate(n);
    out
}
