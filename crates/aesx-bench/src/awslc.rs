//! AWS-LC as a peer, through aws-lc-rs: AES-GCM (its `aead` module, the
//! ring-style API) and ECB, CBC and CTR (its `cipher` module). aws-lc-rs
//! has no XTS API, so it has no XTS rows.
//!
//! The `cipher` keys are scheduled once (an `AES_KEY` inside the
//! `EncryptingKey`) and every call passes the IV, so the state that runs on
//! from call to call lives here: CBC takes the last ciphertext block as the
//! next IV, CTR the next counter. CTR at sizes that are not whole blocks
//! keeps the rest of the last keystream block for the next call, as a
//! stream would: that costs one extra one-block call per message. ECB goes
//! block by block inside aws-lc-rs (it calls `AES_ecb_encrypt` per block).

use aws_lc_rs::aead::{
    Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM, AES_128_GCM_SIV, AES_192_GCM, AES_256_GCM,
    AES_256_GCM_SIV,
};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey, AES_128,
    AES_192, AES_256,
};
use aws_lc_rs::iv::FixedLength;

use super::cases::{Mode, Setup};
use super::peers::seal_separate_tag;
use super::runner::{aead_rows, calls, fixed_iv, Runner};

/// GCM, ECB (and one block per call), CBC and CTR, every AES key size.
pub fn supports(mode: Mode, key_bits: u32) -> bool {
    if mode.cpu_only() {
        return super::peers_siv_ccm_kw::awslc_supports(mode, key_bits);
    }
    !matches!(mode, Mode::XtsEnc | Mode::XtsDec) && mode.has_key_bits(key_bits)
}

fn err(what: &str) -> impl Fn(aws_lc_rs::error::Unspecified) -> String + '_ {
    move |_| format!("aws-lc-rs: {what} failed")
}

/// An aws-lc-rs key for the case.
pub fn runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    match mode {
        Mode::GcmEnc | Mode::GcmDec | Mode::GcmSivEnc | Mode::GcmSivDec => gcm_runner(mode, setup),
        Mode::Kw | Mode::Cmac => super::peers_siv_ccm_kw::awslc_runner(mode, setup),
        Mode::XtsEnc | Mode::XtsDec => Err("aws-lc-rs has no XTS API".into()),
        _ => cipher_runner(mode, setup),
    }
}

fn cipher_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let alg = match setup.key.len() {
        16 => &AES_128,
        24 => &AES_192,
        32 => &AES_256,
        n => return Err(format!("aws-lc-rs: no AES with a {n}-byte key")),
    };
    let key = || UnboundCipherKey::new(alg, &setup.key).map_err(err("key setup"));
    let iv = || fixed_iv::<16>(setup, "aws-lc-rs: IVs are 16 bytes");
    Ok(match mode {
        Mode::Block | Mode::Ecb => {
            let key = EncryptingKey::ecb(key()?).map_err(err("ECB key"))?;
            // `block`: one call into aws-lc-rs per 16-byte block.
            let per_block = mode == Mode::Block;
            calls(key, move |key, buf, len| {
                ecb(key, per_block, &mut buf[..len])
            })
        }
        Mode::CbcEnc => {
            let key = EncryptingKey::cbc(key()?).map_err(err("CBC key"))?;
            calls((key, iv()?), |(key, iv), buf, len| {
                cbc_encrypt(key, iv, &mut buf[..len])
            })
        }
        Mode::CbcDec => {
            let key = DecryptingKey::cbc(key()?).map_err(err("CBC key"))?;
            calls((key, iv()?), |(key, iv), buf, len| {
                cbc_decrypt(key, iv, &mut buf[..len])
            })
        }
        Mode::Ctr => {
            let ctr = AwsCtr {
                key: EncryptingKey::ctr(key()?).map_err(err("CTR key"))?,
                ctr: u128::from_be_bytes(iv()?),
                rest: [0; 16],
                used: 16,
            };
            calls(ctr, |ctr, buf, len| ctr.apply(&mut buf[..len]))
        }
        _ => return Err(format!("aws-lc-rs: no {mode} here")),
    })
}

fn ctx(iv: [u8; 16]) -> EncryptionContext {
    EncryptionContext::Iv128(FixedLength::from(iv))
}

fn ecb(key: &EncryptingKey, per_block: bool, buf: &mut [u8]) -> Result<(), String> {
    let e = err("ECB");
    if per_block {
        for b in buf.chunks_exact_mut(16) {
            key.less_safe_encrypt(b, EncryptionContext::None)
                .map_err(&e)?;
        }
    } else {
        key.less_safe_encrypt(buf, EncryptionContext::None)
            .map_err(e)?;
    }
    Ok(())
}

/// CBC encryption; the last ciphertext block is the next call's IV.
fn cbc_encrypt(key: &EncryptingKey, iv: &mut [u8; 16], buf: &mut [u8]) -> Result<(), String> {
    let len = buf.len();
    key.less_safe_encrypt(buf, ctx(*iv))
        .map_err(err("CBC encryption"))?;
    if len >= 16 {
        iv.copy_from_slice(&buf[len - 16..len]);
    }
    Ok(())
}

/// CBC decryption; the last ciphertext block is the next call's IV.
fn cbc_decrypt(key: &DecryptingKey, iv: &mut [u8; 16], buf: &mut [u8]) -> Result<(), String> {
    let len = buf.len();
    let mut next = *iv;
    if len >= 16 {
        next.copy_from_slice(&buf[len - 16..len]);
    }
    key.decrypt(buf, DecryptionContext::Iv128(FixedLength::from(*iv)))
        .map_err(err("CBC decryption"))?;
    *iv = next;
    Ok(())
}

/// CTR as one stream over all calls: `ctr` is the next counter block,
/// `rest[used..]` the unused keystream of the block before it.
struct AwsCtr {
    key: EncryptingKey,
    ctr: u128,
    rest: [u8; 16],
    used: usize,
}

impl AwsCtr {
    /// The next `buf.len()` bytes of the stream.
    fn apply(&mut self, buf: &mut [u8]) -> Result<(), String> {
        let e = err("CTR");
        let len = buf.len();
        // The rest of the previous call's last keystream block.
        let head = (16 - self.used).min(len);
        for (b, k) in buf[..head].iter_mut().zip(&self.rest[self.used..]) {
            *b ^= k;
        }
        self.used += head;
        let body = &mut buf[head..];
        if body.is_empty() {
            return Ok(());
        }
        let whole = body.len() / 16;
        let tail = body.len() % 16;
        self.key
            .less_safe_encrypt(body, ctx(self.ctr.to_be_bytes()))
            .map_err(&e)?;
        self.ctr = self.ctr.wrapping_add(whole as u128);
        if tail > 0 {
            // aws-lc-rs used this counter for the partial block; keep the
            // keystream bytes it did not use.
            self.rest = [0; 16];
            self.key
                .less_safe_encrypt(&mut self.rest, ctx(self.ctr.to_be_bytes()))
                .map_err(e)?;
            self.used = tail;
            self.ctr = self.ctr.wrapping_add(1);
        }
        Ok(())
    }
}

fn gcm_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let siv = matches!(mode, Mode::GcmSivEnc | Mode::GcmSivDec);
    let alg = match (siv, setup.key.len()) {
        (false, 16) => &AES_128_GCM,
        (false, 24) => &AES_192_GCM,
        (false, 32) => &AES_256_GCM,
        (true, 16) => &AES_128_GCM_SIV,
        (true, 32) => &AES_256_GCM_SIV,
        (_, n) => return Err(format!("aws-lc-rs: no {mode} with a {n}-byte key")),
    };
    let key = LessSafeKey::new(UnboundKey::new(alg, &setup.key).map_err(err("GCM key"))?);
    let nonce: [u8; 12] = fixed_iv(setup, "aws-lc-rs: nonces are 12 bytes")?;
    aead_rows(
        key,
        nonce,
        mode,
        setup,
        seal_separate_tag!(aws_lc_rs, err("GCM seal")),
        |key, nonce, aad, ct, tag, buf| {
            // Out of place, like OpenSSL's and RustCrypto's rows (ring
            // opens only in place and pays for a copy).
            let nonce = Nonce::assume_unique_for_key(*nonce);
            key.open_separate_gather(nonce, Aad::from(aad), ct, tag, buf)
                .map_err(|_| String::from("aws-lc-rs: tag did not verify"))
        },
    )
}
