//! The peers' rows for the CPU-only modes: OpenSSL (GCM-SIV through
//! `EVP_CIPHER_fetch("AES-*-GCM-SIV")`, CCM, KW through `AES-*-WRAP`, CMAC
//! through an `EVP_PKEY` CMAC key), AWS-LC (GCM-SIV, KW and CMAC; it has no
//! CCM in aws-lc-rs) and RustCrypto (`aes-gcm-siv`, `ccm`, `cmac`,
//! `aes-kw`). No peer has XAES-256-GCM: its rows are compared with aesx's
//! own `gcm-enc`/`gcm-dec` at 256 bits.
//!
//! Same conventions as `peers.rs`: a keyed context per row, the nonce moved
//! on per sealed message, the `*-dec` rows opening one authentic message,
//! CMAC's tag and KW's integrity block reported through [`Runner::tag`]
//! (see `runner::kw_output`).

use aes::cipher::KeyInit;
use aws_lc_rs::key_wrap::{KeyEncryptionKey, KeyWrap as _};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;

use super::cases::{Mode, Setup};
use super::peers::{openssl_seal, rc_aead};
use super::runner::{fixed_iv, kw_output, opened, tagged_calls, Runner};

// ---------------------------------------------------------------- OpenSSL

/// OpenSSL has GCM-SIV, CCM, KW and CMAC (not XAES-256-GCM).
pub fn openssl_supports(mode: Mode, key_bits: u32) -> bool {
    mode.cpu_only() && !matches!(mode, Mode::XaesEnc | Mode::XaesDec) && mode.has_key_bits(key_bits)
}

fn ossl(e: openssl::error::ErrorStack) -> String {
    format!("openssl: {e}")
}

/// An OpenSSL runner for one of this file's rows.
pub fn openssl_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let bits = setup.key.len() * 8;
    if mode == Mode::Cmac {
        let cbc = match bits {
            128 => openssl::symm::Cipher::aes_128_cbc(),
            192 => openssl::symm::Cipher::aes_192_cbc(),
            256 => openssl::symm::Cipher::aes_256_cbc(),
            _ => return Err(format!("openssl: no CMAC with {bits}-bit keys")),
        };
        let key = openssl::pkey::PKey::cmac(&cbc, &setup.key).map_err(ossl)?;
        return Ok(tagged_calls(key, |key, buf, len| {
            let mut signer = openssl::sign::Signer::new_without_digest(key).map_err(ossl)?;
            signer.update(&buf[..len]).map_err(ossl)?;
            let mut tag = [0u8; 16];
            let n = signer.sign(&mut tag).map_err(ossl)?;
            if n != 16 {
                return Err(format!("openssl: CMAC gave {n} bytes"));
            }
            Ok(Some(tag))
        }));
    }
    let name = match mode {
        Mode::GcmSivEnc | Mode::GcmSivDec => format!("AES-{bits}-GCM-SIV"),
        Mode::CcmEnc | Mode::CcmDec => format!("AES-{bits}-CCM"),
        Mode::Kw => format!("AES-{bits}-WRAP"),
        _ => return Err(format!("openssl: no {mode} row")),
    };
    let cipher = Cipher::fetch(None, &name, None).map_err(ossl)?;
    let mut ctx = CipherCtx::new().map_err(ossl)?;
    let decrypt = mode.opens();
    if decrypt {
        ctx.decrypt_init(Some(&cipher), None, None).map_err(ossl)?;
    } else {
        ctx.encrypt_init(Some(&cipher), None, None).map_err(ossl)?;
    }
    let ccm = matches!(mode, Mode::CcmEnc | Mode::CcmDec);
    if ccm {
        // Both before the key: OpenSSL's CCM fixes M and L when the key is
        // set (a tag set later for decryption does not change M).
        ctx.set_iv_length(setup.iv.len()).map_err(ossl)?;
        ctx.set_tag_length(16).map_err(ossl)?;
    }
    if decrypt {
        ctx.decrypt_init(None, Some(&setup.key), None)
            .map_err(ossl)?;
    } else {
        ctx.encrypt_init(None, Some(&setup.key), None)
            .map_err(ossl)?;
    }
    Ok(Box::new(OsslRunner {
        ctx,
        mode,
        ccm,
        iv: setup.iv.clone(),
        aad: setup.aad.clone(),
        sealed: opened(mode, setup)?,
        out: Vec::new(),
        tag: None,
    }))
}

struct OsslRunner {
    ctx: CipherCtx,
    mode: Mode,
    ccm: bool,
    iv: Vec<u8>,
    aad: Vec<u8>,
    sealed: Option<(Vec<u8>, [u8; 16])>,
    /// KW's output (8 bytes longer than its input).
    out: Vec<u8>,
    tag: Option<[u8; 16]>,
}

impl Runner for OsslRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        if self.mode == Mode::Kw {
            self.ctx.encrypt_init(None, None, None).map_err(ossl)?;
            self.out.resize(len + 16, 0);
            let n = self
                .ctx
                .cipher_update(&buf[..len], Some(&mut self.out))
                .map_err(ossl)?;
            self.tag = Some(kw_output(&self.out[..n], buf, len)?);
            return Ok(());
        }
        match &self.sealed {
            None => {
                let data_len = self.ccm.then_some(len);
                let tag = openssl_seal(&mut self.ctx, &self.iv, data_len, &self.aad, buf, len);
                self.tag = Some(tag.map_err(ossl)?);
                self.mode.next_iv(&mut self.iv);
            }
            Some((ct, tag)) => {
                self.ctx
                    .decrypt_init(None, None, Some(&self.iv))
                    .map_err(ossl)?;
                // Both take the tag before the data (GCM-SIV's tag is its
                // counter's start; CCM verifies inside the update).
                self.ctx.set_tag(tag).map_err(ossl)?;
                if self.ccm {
                    self.ctx.set_data_len(len).map_err(ossl)?;
                }
                if !self.aad.is_empty() {
                    self.ctx.cipher_update(&self.aad, None).map_err(ossl)?;
                }
                let bad = |e| format!("openssl: {} tag did not verify ({e})", self.mode);
                self.ctx
                    .cipher_update(&ct[..len], Some(&mut buf[..]))
                    .map_err(bad)?;
                if !self.ccm {
                    self.ctx.cipher_final(&mut [0u8; 32]).map_err(bad)?;
                }
            }
        }
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

// ---------------------------------------------------------------- AWS-LC

/// aws-lc-rs has AES-GCM-SIV (128/256), KW (128/256) and CMAC.
pub fn awslc_supports(mode: Mode, key_bits: u32) -> bool {
    match mode {
        Mode::GcmSivEnc | Mode::GcmSivDec | Mode::Kw => matches!(key_bits, 128 | 256),
        Mode::Cmac => mode.has_key_bits(key_bits),
        _ => false,
    }
}

/// An aws-lc-rs runner for KW or CMAC (GCM-SIV goes through `awslc.rs`'s
/// AEAD runner).
pub fn awslc_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    use aws_lc_rs::{cmac, key_wrap};
    let bad = |_| String::from("aws-lc-rs: bad key");
    match (mode, setup.key.len()) {
        (Mode::Kw, n) => {
            let alg = match n {
                16 => &key_wrap::AES_128,
                32 => &key_wrap::AES_256,
                _ => return Err(format!("aws-lc-rs: no KW with a {n}-byte key")),
            };
            // `KeyEncryptionKey::wrap` takes the key by value, so each call
            // builds one (an AES key schedule, as its API asks of every
            // wrap); `out` is the wrapped data (8 bytes longer).
            let state = (setup.key.clone(), Vec::new());
            Ok(tagged_calls(state, move |(key, out), buf, len| {
                let kek = KeyEncryptionKey::new(alg, key)
                    .map_err(|_| String::from("aws-lc-rs: bad KW key"))?;
                out.resize(len + 8, 0);
                let n = kek
                    .wrap(&buf[..len], out)
                    .map_err(|_| String::from("aws-lc-rs: KW wrap failed"))?
                    .len();
                Ok(Some(kw_output(&out[..n], buf, len)?))
            }))
        }
        (Mode::Cmac, n) => {
            let alg = match n {
                16 => cmac::AES_128,
                24 => cmac::AES_192,
                32 => cmac::AES_256,
                _ => return Err(format!("aws-lc-rs: no CMAC with a {n}-byte key")),
            };
            let key = cmac::Key::new(alg, &setup.key).map_err(bad)?;
            Ok(tagged_calls(key, |key, buf, len| {
                let tag = cmac::sign(key, &buf[..len])
                    .map_err(|_| String::from("aws-lc-rs: CMAC failed"))?;
                Ok(tag.as_ref().try_into().ok())
            }))
        }
        _ => Err(format!("aws-lc-rs: no {mode} row")),
    }
}

// ---------------------------------------------------------------- RustCrypto

/// RustCrypto has GCM-SIV, CCM, CMAC and KW (not XAES-256-GCM).
pub fn rustcrypto_supports(mode: Mode, key_bits: u32) -> bool {
    openssl_supports(mode, key_bits)
}

macro_rules! rc19 {
    ($aes:ty, $mode:expr, $setup:expr) => {{
        let bad = |_| String::from("rustcrypto: bad key length");
        let nonce = || fixed_iv::<12>($setup, "rustcrypto: nonces are 12 bytes here");
        let r: Box<dyn Runner> = match $mode {
            Mode::GcmSivEnc | Mode::GcmSivDec => rc_aead(
                aes_gcm_siv::AesGcmSiv::<$aes>::new_from_slice(&$setup.key).map_err(bad)?,
                nonce()?,
                $mode,
                $setup,
            )?,
            Mode::CcmEnc | Mode::CcmDec => rc_aead(
                ccm::Ccm::<$aes, ccm::consts::U16, ccm::consts::U12>::new_from_slice(&$setup.key)
                    .map_err(bad)?,
                nonce()?,
                $mode,
                $setup,
            )?,
            Mode::Cmac => tagged_calls(
                <cmac::Cmac<$aes> as cmac::KeyInit>::new_from_slice(&$setup.key).map_err(bad)?,
                |mac, buf, len| {
                    cmac::Mac::update(mac, &buf[..len]);
                    let tag = cmac::Mac::finalize_reset(mac).into_bytes();
                    Ok(tag.as_slice().try_into().ok())
                },
            ),
            Mode::Kw => {
                let kw = aes_kw::AesKw::<$aes>::new_from_slice(&$setup.key).map_err(bad)?;
                // `out`: the wrapped data (8 bytes longer).
                tagged_calls((kw, Vec::new()), |(kw, out), buf, len| {
                    out.resize(len + 8, 0);
                    let n = kw
                        .wrap_key(&buf[..len], out)
                        .map_err(|e| format!("rustcrypto: KW: {e}"))?
                        .len();
                    Ok(Some(kw_output(&out[..n], buf, len)?))
                })
            }
            _ => return Err(format!("rustcrypto: no {} row here", $mode)),
        };
        Ok(r)
    }};
}

/// A RustCrypto runner for one of this file's rows.
pub fn rustcrypto_runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    match setup.key.len() {
        16 => rc19!(aes::Aes128, mode, setup),
        24 => rc19!(aes::Aes192, mode, setup),
        32 => rc19!(aes::Aes256, mode, setup),
        n => Err(format!("rustcrypto: no AES with a {n}-byte key")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::{honesty_check, small_cases};
    use super::super::impls::Impl;
    use super::super::plan::setup_for;

    /// Every row of this file's modes, on every implementation that has it,
    /// gives aesx-soft's bytes (tags, CMAC and KW's integrity block
    /// included) on its first two calls.
    #[test]
    fn every_new_row_matches_aesx_soft() {
        let mut checked = std::collections::BTreeMap::new();
        for case in small_cases(|m| m.cpu_only()) {
            let (key_bits, size) = (case.key_bits, case.size);
            let impls: Vec<Impl> = Impl::all_available()
                .into_iter()
                .filter(|i| i.supports(case.mode, key_bits))
                .collect();
            let setup = setup_for(&case).unwrap();
            honesty_check(&impls, &case, &setup, None)
                .unwrap_or_else(|e| panic!("{} AES-{key_bits} {size}: {e}", case.mode));
            for i in impls.iter().filter(|i| i.is_peer()) {
                *checked
                    .entry((case.mode.name(), i.to_string()))
                    .or_insert(0) += 1;
            }
        }
        let n = |m: &str, p: &str| checked.get(&(m, p.to_string())).copied().unwrap_or(0);
        for m in ["gcm-siv-enc", "gcm-siv-dec"] {
            assert_eq!(n(m, "openssl"), 8, "{m}");
            assert_eq!(n(m, "aws-lc-rs"), 8, "{m}");
            assert_eq!(n(m, "rustcrypto"), 8, "{m}");
        }
        for m in ["ccm-enc", "ccm-dec"] {
            assert_eq!(n(m, "openssl"), 12, "{m}");
            assert_eq!(n(m, "rustcrypto"), 12, "{m}");
            assert_eq!(n(m, "aws-lc-rs"), 0, "{m}");
        }
        assert_eq!(n("cmac", "openssl") + n("cmac", "aws-lc-rs"), 24);
        assert_eq!(n("cmac", "rustcrypto"), 12);
        assert_eq!(n("kw", "openssl") + n("kw", "rustcrypto"), 18);
        assert_eq!(n("kw", "aws-lc-rs"), 6);
        assert_eq!(n("xaes-enc", "openssl") + n("xaes-dec", "rustcrypto"), 0);
    }
}
