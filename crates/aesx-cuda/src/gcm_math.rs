//! The host's share of GCM: J0 from the nonce, GHASH of the associated
//! data, the combination of the GPU's ciphertext digests into the tag.
//!
//! The GPU returns, for each chunk of ciphertext, D = P(C_chunk; H) (see
//! plan.rs for P). Chunks are joined with Horner's rule on whole chunks:
//! P(C; H) = P(C_1..C_k-1; H) * H^(blocks of C_k) + P(C_k; H). Then, with
//! c = ceil(len(C) / 16) and L the length block,
//!   S = ((GHASH(A) * H^c + P(C; H) * H) + L) * H
//! which is GHASH_H(A || 0* || C || 0* || L) of SP 800-38D.

use crate::gf;

/// The hash subkey H = E_K(0^128) in normal form.
pub fn hash_subkey(encrypt_block: impl Fn(&mut [u8; 16])) -> u128 {
    let mut zero = [0u8; 16];
    encrypt_block(&mut zero);
    gf::from_gcm_block(&zero)
}

/// J0 for a nonce: nonce || 0^31 || 1 for 96-bit nonces, else
/// GHASH(nonce || 0* || 0^64 || [len(nonce)]_64).
pub fn j0(h: u128, nonce: &[u8]) -> [u8; 16] {
    if nonce.len() == 12 {
        let mut j = [0u8; 16];
        j[..12].copy_from_slice(nonce);
        j[15] = 1;
        return j;
    }
    let mut len_block = [0u8; 16];
    len_block[8..].copy_from_slice(&((nonce.len() as u64) * 8).to_be_bytes());
    let p = gf::mul(gf::poly_eval_gcm_bytes(nonce, h), h) ^ gf::from_gcm_block(&len_block);
    gf::to_gcm_block(gf::mul(p, h))
}

/// Appends the digest of the next chunk (of `chunk_len` bytes) to the
/// running P(C; H).
pub fn append_chunk_digest(acc: u128, h: u128, chunk_len: u64, chunk_digest: u128) -> u128 {
    gf::mul(acc, gf::pow(h, chunk_len.div_ceil(16))) ^ chunk_digest
}

/// S = GHASH_H(A || 0* || C || 0* || L) from P(C; H), to be XORed with
/// E_K(J0) for the tag.
pub fn ghash_with_lengths(h: u128, aad: &[u8], ct_len: u64, ct_digest: u128) -> [u8; 16] {
    let ghash_a = gf::mul(gf::poly_eval_gcm_bytes(aad, h), h);
    let c = ct_len.div_ceil(16);
    let y = gf::mul(ghash_a, gf::pow(h, c)) ^ gf::mul(ct_digest, h);
    let mut len_block = [0u8; 16];
    len_block[..8].copy_from_slice(&((aad.len() as u64) * 8).to_be_bytes());
    len_block[8..].copy_from_slice(&(ct_len * 8).to_be_bytes());
    gf::to_gcm_block(gf::mul(y ^ gf::from_gcm_block(&len_block), h))
}

/// Tag lengths SP 800-38D allows.
pub fn check_tag_len(len: usize) -> Result<(), aesx::Error> {
    match len {
        4 | 8 | 12..=16 => Ok(()),
        _ => Err(aesx::Error::InvalidTagLength { len }),
    }
}

/// SP 800-38D limits: plaintext at most 2^36 - 32 bytes, AAD at most 2^61 - 1
/// bytes, a non-empty nonce.
pub fn check_limits(nonce: &[u8], aad_len: usize, len: usize) -> Result<(), aesx::Error> {
    if nonce.is_empty() {
        return Err(aesx::Error::EmptyNonce);
    }
    if (len as u64) > (1u64 << 36) - 32 {
        return Err(aesx::Error::MessageTooLong);
    }
    if (aad_len as u64) >= (1u64 << 61) {
        return Err(aesx::Error::AadTooLong);
    }
    Ok(())
}
