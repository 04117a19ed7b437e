//! The peer libraries, run in the same process as aesx: OpenSSL (vendored,
//! through EVP), ring 0.17 and RustCrypto (`aes`, `cbc`, `ctr`).
//!
//! Each is used the way its documentation suggests for bulk data: one
//! keyed context whose state runs on from call to call.

use aes::cipher::array::Array;
use aes::cipher::consts::U16;
use aes::cipher::{
    BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit, StreamCipher,
};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

use super::cases::{Mode, Setup};
use super::impls::Runner;

// ---------------------------------------------------------------- OpenSSL

/// OpenSSL has every mode the benchmark knows.
pub fn openssl_supports(_mode: Mode, key_bits: u32) -> bool {
    matches!(key_bits, 128 | 192 | 256)
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
        _ => return None,
    })
}

/// An EVP context keyed for the case.
pub fn openssl_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let key_bits = setup.key.len() as u32 * 8;
    let cipher = openssl_cipher(mode, key_bits)
        .ok_or_else(|| format!("openssl: no {mode} with {key_bits}-bit keys"))?;
    let e = |e: openssl::error::ErrorStack| format!("openssl: {e}");
    let mut ctx = CipherCtx::new().map_err(e)?;
    let iv = (!setup.iv.is_empty()).then_some(setup.iv.as_slice());
    if mode == Mode::CbcDec {
        ctx.decrypt_init(Some(cipher), Some(&setup.key), iv)
            .map_err(e)?;
    } else {
        ctx.encrypt_init(Some(cipher), Some(&setup.key), iv)
            .map_err(e)?;
    }
    ctx.set_padding(false);
    Ok(Box::new(OpenSslRunner {
        ctx,
        per_block: mode == Mode::Block,
    }))
}

struct OpenSslRunner {
    ctx: CipherCtx,
    /// `block` mode: one EVP_CipherUpdate per 16-byte block.
    per_block: bool,
}

impl Runner for OpenSslRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let e = |e: openssl::error::ErrorStack| format!("openssl: {e}");
        if self.per_block {
            let mut off = 0;
            while off + 16 <= len {
                self.ctx
                    .cipher_update_inplace(&mut buf[off..], 16)
                    .map_err(e)?;
                off += 16;
            }
            return Ok(());
        }
        let n = self.ctx.cipher_update_inplace(buf, len).map_err(e)?;
        if n != len {
            return Err(format!("openssl: wrote {n} of {len} bytes"));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- ring

/// ring 0.17 exposes AES only inside its AEADs (GCM); none of the raw modes.
pub fn ring_supports(_mode: Mode, _key_bits: u32) -> bool {
    false
}

/// ring has no raw AES API for any mode the benchmark runs today.
pub fn ring_runner(mode: Mode, _setup: &Setup) -> Result<Box<dyn Runner>, String> {
    Err(format!("ring has no {mode} API (only AES-GCM)"))
}

// ---------------------------------------------------------------- RustCrypto

/// RustCrypto has every raw mode for every key size.
pub fn rustcrypto_supports(_mode: Mode, key_bits: u32) -> bool {
    matches!(key_bits, 128 | 192 | 256)
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
        };
        Ok(r)
    }};
}

/// A RustCrypto runner for the case.
pub fn rustcrypto_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    match setup.key.len() {
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
