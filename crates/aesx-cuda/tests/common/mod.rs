//! Helpers shared by the integration tests: CPU references built on aesx
//! and OpenSSL, and readers for the NIST vector files.
#![allow(dead_code)]

use std::path::PathBuf;

use aesx::{Aes, Backend};
use rand::RngCore;

/// The repository's `vectors/` directory.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// Sections of a CAVP .rsp file as lists of (key, value) records, with the
/// bracketed header lines of the section as the first fields of each record.
pub fn rsp_records(text: &str) -> Vec<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut header: Vec<(String, String)> = Vec::new();
    let mut cur: Vec<(String, String)> = Vec::new();
    let mut in_header = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !in_header {
                header.clear();
                in_header = true;
            }
            let (k, v) = h.split_once('=').unwrap_or((h, ""));
            header.push((k.trim().to_string(), v.trim().to_string()));
            continue;
        }
        in_header = false;
        if cur.is_empty() {
            cur.extend(header.iter().cloned());
        }
        match line.split_once('=') {
            Some((k, v)) => cur.push((k.trim().to_string(), v.trim().to_string())),
            None => cur.push((line.to_string(), String::new())),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

pub fn field<'a>(rec: &'a [(String, String)], key: &str) -> Option<&'a str> {
    rec.iter()
        .rev()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

pub fn hexfield(rec: &[(String, String)], key: &str) -> Vec<u8> {
    hex::decode(field(rec, key).unwrap_or("")).expect("hex field")
}

pub fn random(rng: &mut impl RngCore, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Runs `case` on every AES key length (16, 24 and 32 bytes) with every
/// item, key length outermost (the case grid of the mode tests), each time
/// with a fresh random key of that length from `rng`, which the case then
/// draws its own inputs from.
pub fn per_random_key<R: RngCore, T: Clone>(
    rng: &mut R,
    items: impl IntoIterator<Item = T>,
    mut case: impl FnMut(&mut R, &[u8], T),
) {
    let items: Vec<T> = items.into_iter().collect();
    for klen in [16, 24, 32] {
        for item in &items {
            let key = random(rng, klen);
            case(rng, &key, item.clone());
        }
    }
}

pub fn soft(key: &[u8]) -> Aes {
    Aes::with_backend(key, Backend::Soft).expect("soft backend")
}

/// XTS on whole sectors with aesx's soft block cipher and the IEEE 1619
/// tweak rule written out: the reference for the GPU's sector API (itself
/// checked against OpenSSL in `emulated_xts.rs`).
pub fn xts_reference(
    key: &[u8],
    first_sector: u128,
    sector: usize,
    data: &[u8],
    decrypt: bool,
) -> Vec<u8> {
    let (k1, k2) = key.split_at(key.len() / 2);
    let (k1, k2) = (soft(k1), soft(k2));
    aesx_cuda::testing::sectors_on_cpu(&k1, &k2, first_sector, sector, data, decrypt)
}

/// AES-GCM encryption with OpenSSL: (ciphertext, 16-byte tag).
pub fn openssl_gcm_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use openssl::symm::{encrypt_aead, Cipher};
    let cipher = match key.len() {
        16 => Cipher::aes_128_gcm(),
        24 => Cipher::aes_192_gcm(),
        _ => Cipher::aes_256_gcm(),
    };
    let mut tag = vec![0u8; 16];
    let ct = encrypt_aead(cipher, key, Some(nonce), aad, pt, &mut tag).expect("openssl gcm");
    (ct, tag)
}

/// AES-XTS with OpenSSL over one data unit with a 16-byte tweak.
pub fn openssl_xts(key: &[u8], tweak: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    use openssl::symm::{Cipher, Crypter, Mode};
    let cipher = if key.len() == 32 {
        Cipher::aes_128_xts()
    } else {
        Cipher::aes_256_xts()
    };
    let mode = if decrypt {
        Mode::Decrypt
    } else {
        Mode::Encrypt
    };
    let mut c = Crypter::new(cipher, mode, key, Some(tweak)).expect("openssl xts");
    let mut out = vec![0u8; data.len() + 32];
    let n = c.update(data, &mut out).expect("xts update");
    let m = c.finalize(&mut out[n..]).expect("xts final");
    out.truncate(n + m);
    out
}
