//! The peer libraries, run in the same process as aesx: OpenSSL (vendored,
//! through EVP), ring 0.17 and RustCrypto (`aes`, `cbc`, `ctr`, `xts-mode`,
//! `aes-gcm`).
//!
//! Each is used the way its documentation suggests for bulk data: one
//! keyed context whose state runs on from call to call, or, for XTS,
//! re-initialised per data unit with the next tweak only.

use aes::cipher::array::Array;
use aes::cipher::consts::U16;
use aes::cipher::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit,
    StreamCipher,
};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

use super::cases::{Mode, Setup};
use super::impls::Runner;

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
    // XTS takes its tweak per data unit (below); the others once.
    let per_message = matches!(mode, Mode::XtsEnc | Mode::XtsDec);
    let iv = (!setup.iv.is_empty() && !per_message).then_some(setup.iv.as_slice());
    let decrypt = matches!(mode, Mode::CbcDec | Mode::XtsDec);
    if decrypt {
        ctx.decrypt_init(Some(cipher), Some(&setup.key), iv)
            .map_err(e)?;
    } else {
        ctx.encrypt_init(Some(cipher), Some(&setup.key), iv)
            .map_err(e)?;
    }
    ctx.set_padding(false);
    Ok(Box::new(OpenSslRunner {
        ctx,
        mode,
        decrypt,
        iv: setup.iv.as_slice().try_into().unwrap_or([0; 16]),
    }))
}

struct OpenSslRunner {
    ctx: CipherCtx,
    mode: Mode,
    decrypt: bool,
    /// The next tweak (XTS).
    iv: [u8; 16],
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
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- ring

/// ring 0.17 exposes AES only inside its AEADs (AES-GCM), which aesx does
/// not have yet; none of the raw modes.
pub fn ring_supports(_mode: Mode, _key_bits: u32) -> bool {
    false
}

/// ring has no raw AES API for any mode the benchmark runs today.
pub fn ring_runner(mode: Mode, _setup: &Setup) -> Result<Box<dyn Runner>, String> {
    Err(format!("ring has no {mode} API (only AES-GCM)"))
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
            Mode::Block => Box::new(RcBlock(<$aes>::new_from_slice(&$setup.key).map_err(bad)?)),
            Mode::Ecb => Box::new(RcEcb(<$aes>::new_from_slice(&$setup.key).map_err(bad)?)),
            Mode::CbcEnc => Box::new(RcCbcEnc(
                cbc::Encryptor::<$aes>::new_from_slices(&$setup.key, &$setup.iv).map_err(bad)?,
            )),
            Mode::CbcDec => Box::new(RcCbcDec(
                cbc::Decryptor::<$aes>::new_from_slices(&$setup.key, &$setup.iv).map_err(bad)?,
            )),
            Mode::Ctr => Box::new(RcCtr(
                ctr::Ctr128BE::<$aes>::new_from_slices(&$setup.key, &$setup.iv).map_err(bad)?,
            )),
            Mode::XtsEnc | Mode::XtsDec => {
                let (k1, k2) = $setup.key.split_at($setup.key.len() / 2);
                Box::new(RcXts {
                    xts: xts_mode::Xts128::new(
                        <$aes>::new_from_slice(k1).map_err(bad)?,
                        <$aes>::new_from_slice(k2).map_err(bad)?,
                    ),
                    tweak: $setup
                        .iv
                        .as_slice()
                        .try_into()
                        .map_err(|_| String::from("rustcrypto: XTS tweaks are 16 bytes"))?,
                    decrypt: $mode == Mode::XtsDec,
                })
            }
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

fn blocks(buf: &mut [u8]) -> &mut [Array<u8, U16>] {
    Array::<u8, U16>::slice_as_chunks_mut(buf).0
}

struct RcBlock<C>(C);

impl<C: BlockCipherEncrypt<BlockSize = U16> + Send> Runner for RcBlock<C> {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        for b in blocks(&mut buf[..len]) {
            self.0.encrypt_block(b);
        }
        Ok(())
    }
}

struct RcEcb<C>(C);

impl<C: BlockCipherEncrypt<BlockSize = U16> + Send> Runner for RcEcb<C> {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0.encrypt_blocks(blocks(&mut buf[..len]));
        Ok(())
    }
}

struct RcCbcEnc<M>(M);

impl<M: BlockModeEncrypt<BlockSize = U16> + Send> Runner for RcCbcEnc<M> {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0.encrypt_blocks(blocks(&mut buf[..len]));
        Ok(())
    }
}

struct RcCbcDec<M>(M);

impl<M: BlockModeDecrypt<BlockSize = U16> + Send> Runner for RcCbcDec<M> {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0.decrypt_blocks(blocks(&mut buf[..len]));
        Ok(())
    }
}

struct RcCtr<S>(S);

impl<S: StreamCipher + Send> Runner for RcCtr<S> {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0
            .try_apply_keystream(&mut buf[..len])
            .map_err(|_| String::from("rustcrypto: CTR keystream exhausted"))
    }
}

struct RcXts<C> {
    xts: xts_mode::Xts128<C>,
    tweak: [u8; 16],
    decrypt: bool,
}

impl<C> Runner for RcXts<C>
where
    C: BlockCipherEncrypt<BlockSize = U16> + BlockCipherDecrypt<BlockSize = U16> + Send,
{
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        // xts-mode panics below one block; the modes table keeps such sizes
        // away, and this keeps the promise local.
        if len < 16 {
            return Err("rustcrypto: XTS needs at least 16 bytes".into());
        }
        let tweak = Array::from(self.tweak);
        if self.decrypt {
            self.xts.decrypt_sector(&mut buf[..len], tweak);
        } else {
            self.xts.encrypt_sector(&mut buf[..len], tweak);
        }
        Mode::XtsEnc.next_iv(&mut self.tweak);
        Ok(())
    }
}
