//! The peer libraries, run in the same process as aesx: OpenSSL (vendored,
//! through EVP), ring 0.17 and RustCrypto (`aes`, `cbc`, `ctr`, `xts-mode`,
//! `aes-gcm`).
//!
//! Each is used the way its documentation suggests for bulk data: one
//! keyed context whose state runs on from call to call, or, for XTS and GCM,
//! re-initialised per message with the next tweak or nonce only.

use aes::cipher::array::Array;
use aes::cipher::consts::U16;
use aes::cipher::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit,
    StreamCipher,
};
use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::{AeadInOut, AesGcm};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

use super::cases::{Mode, Setup};
use super::runner::{aead_rows, calls, fixed_iv, opened, Runner};

// ---------------------------------------------------------------- OpenSSL

/// OpenSSL has every mode the benchmark knows.
pub fn openssl_supports(mode: Mode, key_bits: u32) -> bool {
    openssl_cipher(mode, key_bits).is_some()
}

fn openssl_cipher(mode: Mode, key_bits: u32) -> Option<&'static CipherRef> {
    Some(match (mode, key_bits) {
        (Mode::Block | Mode::Ecb, 128) => Cipher::aes_128_ecb(),
        (Mode::Block | Mode::Ecb, 192) => Cipher::aes_192_ecb(),
        (Mode::Block | Mode::Ecb, 256) => Cipher::aes_256_ecb(),
        (Mode::CbcEnc | Mode::CbcDec, 128) => Cipher::aes_128_cbc(),
        (Mode::CbcEnc | Mode::CbcDec, 192) => Cipher::aes_192_cbc(),
        (Mode::CbcEnc | Mode::CbcDec, 256) => Cipher::aes_256_cbc(),
        (Mode::Ctr, 128) => Cipher::aes_128_ctr(),
        (Mode::Ctr, 192) => Cipher::aes_192_ctr(),
        (Mode::Ctr, 256) => Cipher::aes_256_ctr(),
        (Mode::XtsEnc | Mode::XtsDec, 128) => Cipher::aes_128_xts(),
        (Mode::XtsEnc | Mode::XtsDec, 256) => Cipher::aes_256_xts(),
        (Mode::GcmEnc | Mode::GcmDec, 128) => Cipher::aes_128_gcm(),
        (Mode::GcmEnc | Mode::GcmDec, 192) => Cipher::aes_192_gcm(),
        (Mode::GcmEnc | Mode::GcmDec, 256) => Cipher::aes_256_gcm(),
        _ => return None,
    })
}

/// An EVP context keyed for the case.
pub fn openssl_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let key_bits = (setup.key.len() / mode.spec().key_halves) as u32 * 8;
    let cipher = openssl_cipher(mode, key_bits)
        .ok_or_else(|| format!("openssl: no {mode} with {key_bits}-bit keys"))?;
    let e = |e: openssl::error::ErrorStack| format!("openssl: {e}");
    let mut ctx = CipherCtx::new().map_err(e)?;
    // XTS and GCM take their IV per message (below); the others once.
    let per_message = matches!(
        mode,
        Mode::XtsEnc | Mode::XtsDec | Mode::GcmEnc | Mode::GcmDec
    );
    let iv = (!setup.iv.is_empty() && !per_message).then_some(setup.iv.as_slice());
    let decrypt = matches!(mode, Mode::CbcDec | Mode::XtsDec | Mode::GcmDec);
    if decrypt {
        ctx.decrypt_init(Some(cipher), Some(&setup.key), iv)
            .map_err(e)?;
    } else {
        ctx.encrypt_init(Some(cipher), Some(&setup.key), iv)
            .map_err(e)?;
    }
    ctx.set_padding(false);
    if matches!(mode, Mode::GcmEnc | Mode::GcmDec) {
        ctx.set_iv_length(setup.iv.len()).map_err(e)?;
    }
    Ok(Box::new(OpenSslRunner {
        ctx,
        mode,
        decrypt,
        iv: setup.iv.clone(),
        aad: setup.aad.clone(),
        sealed: opened(mode, setup)?,
        tag: None,
    }))
}

struct OpenSslRunner {
    ctx: CipherCtx,
    mode: Mode,
    decrypt: bool,
    /// The next tweak or nonce (XTS, GCM).
    iv: Vec<u8>,
    aad: Vec<u8>,
    /// gcm-dec: the message opened every call.
    sealed: Option<(Vec<u8>, [u8; 16])>,
    tag: Option<[u8; 16]>,
}

impl OpenSslRunner {
    fn restart(&mut self) -> Result<(), openssl::error::ErrorStack> {
        if self.decrypt {
            self.ctx.decrypt_init(None, None, Some(&self.iv))
        } else {
            self.ctx.encrypt_init(None, None, Some(&self.iv))
        }
    }
}

impl Runner for OpenSslRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let e = |e: openssl::error::ErrorStack| format!("openssl: {e}");
        match self.mode {
            Mode::Block => {
                // One EVP_CipherUpdate per 16-byte block.
                let mut off = 0;
                while off + 16 <= len {
                    self.ctx
                        .cipher_update_inplace(&mut buf[off..], 16)
                        .map_err(e)?;
                    off += 16;
                }
            }
            Mode::Ecb | Mode::CbcEnc | Mode::CbcDec | Mode::Ctr => {
                let n = self.ctx.cipher_update_inplace(buf, len).map_err(e)?;
                if n != len {
                    return Err(format!("openssl: wrote {n} of {len} bytes"));
                }
            }
            Mode::XtsEnc | Mode::XtsDec => {
                self.restart().map_err(e)?;
                self.ctx.cipher_update_inplace(buf, len).map_err(e)?;
                Mode::XtsEnc.next_iv(&mut self.iv);
            }
            Mode::GcmEnc => {
                let tag = openssl_seal(&mut self.ctx, &self.iv, None, &self.aad, buf, len);
                self.tag = Some(tag.map_err(e)?);
                Mode::GcmEnc.next_iv(&mut self.iv);
            }
            Mode::GcmDec => {
                self.restart().map_err(e)?;
                let Some((ct, tag)) = &self.sealed else {
                    return Err("openssl: no sealed message".into());
                };
                if !self.aad.is_empty() {
                    self.ctx.cipher_update(&self.aad, None).map_err(e)?;
                }
                self.ctx
                    .cipher_update(&ct[..len], Some(&mut buf[..]))
                    .map_err(e)?;
                self.ctx.set_tag(tag).map_err(e)?;
                self.ctx
                    .cipher_final(&mut [0u8; 32])
                    .map_err(|_| String::from("openssl: GCM tag did not verify"))?;
            }
            // GCM-SIV, CCM, KW and CMAC rows run in `peers_siv_ccm_kw.rs`.
            other => return Err(format!("openssl: no {other} row here")),
        }
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// One EVP AEAD message sealed in place under `iv` (GCM, and GCM-SIV and
/// CCM in `peers_siv_ccm_kw.rs`): CCM needs the message's length
/// (`data_len`) before the associated data. Returns the 16-byte tag.
pub(super) fn openssl_seal(
    ctx: &mut CipherCtx,
    iv: &[u8],
    data_len: Option<usize>,
    aad: &[u8],
    buf: &mut [u8],
    len: usize,
) -> Result<[u8; 16], openssl::error::ErrorStack> {
    ctx.encrypt_init(None, None, Some(iv))?;
    if let Some(n) = data_len {
        ctx.set_data_len(n)?;
    }
    if !aad.is_empty() {
        ctx.cipher_update(aad, None)?;
    }
    ctx.cipher_update_inplace(buf, len)?;
    ctx.cipher_final(&mut [0u8; 32])?;
    let mut tag = [0u8; 16];
    ctx.tag(&mut tag)?;
    Ok(tag)
}

// ---------------------------------------------------------------- ring

/// ring 0.17 exposes AES only inside its AEADs: AES-128-GCM and AES-256-GCM.
pub fn ring_supports(mode: Mode, key_bits: u32) -> bool {
    matches!(mode, Mode::GcmEnc | Mode::GcmDec) && matches!(key_bits, 128 | 256)
}

/// The sealing call of `aead_rows` for ring or aws-lc-rs (crate `$krate`),
/// whose `aead` modules have one API: seals in place and returns the tag,
/// `$err` mapping the crate's error.
macro_rules! seal_separate_tag {
    ($krate:ident, $err:expr) => {
        |key, nonce, aad, buf| {
            let nonce = $krate::aead::Nonce::assume_unique_for_key(*nonce);
            let tag = key
                .seal_in_place_separate_tag(nonce, $krate::aead::Aad::from(aad), buf)
                .map_err($err)?;
            Ok(tag.as_ref().try_into().ok())
        }
    };
}
pub(super) use seal_separate_tag;

/// A ring AES-GCM key for the case.
pub fn ring_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey, AES_128_GCM, AES_256_GCM};
    if !matches!(mode, Mode::GcmEnc | Mode::GcmDec) {
        return Err(format!("ring has no {mode} API (only AES-GCM)"));
    }
    let alg = match setup.key.len() {
        16 => &AES_128_GCM,
        32 => &AES_256_GCM,
        n => return Err(format!("ring: no AES-GCM with a {n}-byte key")),
    };
    let key = LessSafeKey::new(
        UnboundKey::new(alg, &setup.key).map_err(|_| String::from("ring: bad key"))?,
    );
    let nonce: [u8; 12] = fixed_iv(setup, "ring: nonces are 12 bytes")?;
    aead_rows(
        key,
        nonce,
        mode,
        setup,
        seal_separate_tag!(ring, |_| String::from("ring: seal failed")),
        |key, nonce, aad, ct, tag, buf| {
            let nonce = Nonce::assume_unique_for_key(*nonce);
            // ring opens in place only: the copy is part of its call.
            buf.copy_from_slice(ct);
            key.open_in_place_separate_tag(nonce, Aad::from(aad), Tag::from(*tag), buf, 0..)
                .map_err(|_| String::from("ring: GCM tag did not verify"))?;
            Ok(())
        },
    )
}

// ---------------------------------------------------------------- RustCrypto

/// RustCrypto has every mode for every key size the mode defines.
pub fn rustcrypto_supports(mode: Mode, key_bits: u32) -> bool {
    mode.has_key_bits(key_bits)
}

/// Builds the runner for one concrete key type (the crates are generic over
/// it, with a different type per key size).
macro_rules! rc_runner {
    ($aes:ty, $mode:expr, $setup:expr) => {{
        let bad = |_| String::from("rustcrypto: bad key or IV length");
        let r: Box<dyn Runner> = match $mode {
            Mode::Block => rc_blocks(
                <$aes>::new_from_slice(&$setup.key).map_err(bad)?,
                |aes, blocks| {
                    for b in blocks {
                        aes.encrypt_block(b);
                    }
                },
            ),
            Mode::Ecb => rc_blocks(
                <$aes>::new_from_slice(&$setup.key).map_err(bad)?,
                |aes, blocks| aes.encrypt_blocks(blocks),
            ),
            Mode::CbcEnc => rc_blocks(
                cbc::Encryptor::<$aes>::new_from_slices(&$setup.key, &$setup.iv).map_err(bad)?,
                |cbc, blocks| cbc.encrypt_blocks(blocks),
            ),
            Mode::CbcDec => rc_blocks(
                cbc::Decryptor::<$aes>::new_from_slices(&$setup.key, &$setup.iv).map_err(bad)?,
                |cbc, blocks| cbc.decrypt_blocks(blocks),
            ),
            Mode::Ctr => calls(
                ctr::Ctr128BE::<$aes>::new_from_slices(&$setup.key, &$setup.iv).map_err(bad)?,
                |ctr, buf, len| {
                    ctr.try_apply_keystream(&mut buf[..len])
                        .map_err(|_| String::from("rustcrypto: CTR keystream exhausted"))
                },
            ),
            Mode::XtsEnc | Mode::XtsDec => {
                let (k1, k2) = $setup.key.split_at($setup.key.len() / 2);
                let xts = xts_mode::Xts128::new(
                    <$aes>::new_from_slice(k1).map_err(bad)?,
                    <$aes>::new_from_slice(k2).map_err(bad)?,
                );
                let tweak: [u8; 16] = fixed_iv($setup, "rustcrypto: XTS tweaks are 16 bytes")?;
                let decrypt = $mode == Mode::XtsDec;
                calls((xts, tweak), move |(xts, tweak), buf, len| {
                    rc_xts(xts, tweak, decrypt, &mut buf[..len])
                })
            }
            Mode::GcmEnc | Mode::GcmDec => rc_aead(
                AesGcm::<$aes, aes::cipher::consts::U12>::new_from_slice(&$setup.key)
                    .map_err(bad)?,
                fixed_iv($setup, "rustcrypto: GCM nonces are 12 bytes here")?,
                $mode,
                $setup,
            )?,
            // GCM-SIV, CCM, KW and CMAC rows run in `peers_siv_ccm_kw.rs`.
            other => return Err(format!("rustcrypto: no {other} row here")),
        };
        Ok(r)
    }};
}

/// A RustCrypto runner for the case.
pub fn rustcrypto_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    match setup.key.len() / mode.spec().key_halves {
        16 => rc_runner!(aes::Aes128, mode, setup),
        24 => rc_runner!(aes::Aes192, mode, setup),
        32 => rc_runner!(aes::Aes256, mode, setup),
        n => Err(format!("rustcrypto: no AES with a {n}-byte key")),
    }
}

/// A row whose call is one pass of `pass` over the message's blocks.
fn rc_blocks<S, F>(state: S, mut pass: F) -> Box<dyn Runner>
where
    S: Send + 'static,
    F: FnMut(&mut S, &mut [Array<u8, U16>]) + Send + 'static,
{
    calls(state, move |state, buf, len| {
        pass(
            state,
            Array::<u8, U16>::slice_as_chunks_mut(&mut buf[..len]).0,
        );
        Ok(())
    })
}

/// One XTS data unit, then the next sector's tweak.
fn rc_xts<C>(
    xts: &mut xts_mode::Xts128<C>,
    tweak: &mut [u8; 16],
    decrypt: bool,
    buf: &mut [u8],
) -> Result<(), String>
where
    C: BlockCipherEncrypt<BlockSize = U16> + BlockCipherDecrypt<BlockSize = U16>,
{
    // xts-mode panics below one block; the modes table keeps such sizes
    // away, and this keeps the promise local.
    if buf.len() < 16 {
        return Err("rustcrypto: XTS needs at least 16 bytes".into());
    }
    let t = Array::from(*tweak);
    if decrypt {
        xts.decrypt_sector(buf, t);
    } else {
        xts.encrypt_sector(buf, t);
    }
    Mode::XtsEnc.next_iv(tweak);
    Ok(())
}

/// A RustCrypto AEAD with 12-byte nonces and 16-byte tags (AES-GCM here;
/// AES-GCM-SIV and CCM in `peers_siv_ccm_kw.rs`): sealing in place,
/// opening out of place.
pub(super) fn rc_aead<A>(
    aead: A,
    nonce: [u8; 12],
    mode: Mode,
    setup: &Setup,
) -> Result<Box<dyn Runner>, String>
where
    A: AeadInOut<NonceSize = aes::cipher::consts::U12, TagSize = U16> + Send + 'static,
{
    aead_rows(
        aead,
        nonce,
        mode,
        setup,
        |aead, nonce, aad, buf| {
            let tag = aead
                .encrypt_inout_detached(&Array::from(*nonce), aad, InOutBuf::from(buf))
                .map_err(|_| String::from("rustcrypto: seal failed"))?;
            Ok(Some(tag.into()))
        },
        |aead, nonce, aad, ct, tag, buf| {
            let io = InOutBuf::new(ct, buf)
                .map_err(|_| String::from("rustcrypto: buffer lengths differ"))?;
            aead.decrypt_inout_detached(&Array::from(*nonce), aad, io, &Array::from(*tag))
                .map_err(|_| String::from("rustcrypto: tag did not verify"))
        },
    )
}
