//! # aesx
//!
//! AES-128/192/256 in block, ECB, CBC, CTR, XTS, GCM, GCM-SIV, XAES-256-GCM
//! and IPsec ESP modes, on a constant-time portable backend and on hardware
//! backends (AES-NI, VAES with AVX2 or AVX-512, the ARMv8 Crypto Extensions)
//! chosen at run time.
//!
//! Two ways in:
//!
//! - **The inherent API**: one type per mode ([`Aes`], [`Ecb`], [`Cbc`],
//!   [`Ctr`], [`Xts`], [`Gcm`], [`GcmSiv`], [`Xaes256Gcm`], [`Esp`]) taking
//!   keys, IVs and nonces as byte slices and returning [`Result`] with a
//!   typed [`Error`] for every caller mistake.
//! - **RustCrypto's traits** (feature `rustcrypto`, on by default):
//!   [`Aes128`], [`Aes192`], [`Aes256`] implement `cipher` 0.5's `KeyInit`,
//!   `BlockCipherEncrypt` and `BlockCipherDecrypt`, so they drop into `ctr`,
//!   `cbc`, `xts-mode` and any generic code; [`Aes128Gcm`], [`Aes192Gcm`],
//!   [`Aes256Gcm`] implement `aead` 0.6's `KeyInit`, `AeadCore` and
//!   `AeadInOut` (and so `Aead` with `alloc`), as `aes-gcm`'s types do;
//!   [`Aes128GcmSiv`], [`Aes256GcmSiv`] (as `aes-gcm-siv`'s) and
//!   [`Xaes256Gcm`] (24-byte nonces) implement the same traits.
//!   [`Aes128Ccm<M, N>`](Aes128Ccm) (and 192/256) do the same for CCM with
//!   typenum tag and nonce sizes, as `ccm::Ccm<Aes128, M, N>` does.
//!
//! Every key type zeroizes its key material on drop, and no `Debug` output
//! shows keys, keystream, IVs or salts.
//!
//! ## Block cipher and ECB
//!
//! ```
//! use aesx::{Aes, Ecb, Padding};
//!
//! let aes = Aes::new(&[0x42u8; 16]).unwrap();
//! let mut block = [0u8; 16];
//! aes.encrypt_block(&mut block);
//! aes.decrypt_block(&mut block);
//! assert_eq!(block, [0u8; 16]);
//!
//! // ECB leaks equal blocks; it is here for interoperability.
//! let ecb = Ecb::new(&[0x42u8; 32]).unwrap();
//! let ct = ecb.encrypt_vec(b"sixteen byte msg", Padding::None).unwrap();
//! assert_eq!(ecb.decrypt_vec(&ct, Padding::None).unwrap(), b"sixteen byte msg");
//! ```
//!
//! ## CBC
//!
//! ```
//! use aesx::{Cbc, Padding};
//!
//! let (key, iv) = ([0x42u8; 16], [0x24u8; 16]);
//! let cbc = Cbc::new(&key).unwrap();
//! let ct = cbc.encrypt_vec(&iv, b"hello", Padding::Pkcs7).unwrap();
//! assert_eq!(ct.len(), 16);
//! assert_eq!(cbc.decrypt_vec(&iv, &ct, Padding::Pkcs7).unwrap(), b"hello");
//! ```
//!
//! Many independent CBC messages encrypt faster together, see
//! [`cbc_encrypt_many`].
//!
//! ## CTR
//!
//! ```
//! use aesx::Ctr;
//!
//! let (key, iv) = ([0x42u8; 16], [0x24u8; 16]);
//! // Streaming: any split gives the same bytes.
//! let mut data = *b"attack at dawn, attack at dusk!";
//! let mut ctr = Ctr::new(&key, &iv).unwrap();
//! ctr.apply_keystream(&mut data[..5]);
//! ctr.apply_keystream(&mut data[5..]);
//! let mut back = Ctr::new(&key, &iv).unwrap();
//! back.apply_keystream(&mut data);
//! assert_eq!(&data, b"attack at dawn, attack at dusk!");
//! ```
//!
//! ## XTS
//!
//! ```
//! use aesx::Xts;
//!
//! let mut key = [0u8; 32]; // K1 || K2; the halves must differ
//! key[16..].fill(1);
//! let xts = Xts::new(&key).unwrap();
//! let mut sectors = vec![7u8; 4 * 512];
//! xts.encrypt_sectors(512, 100, &mut sectors).unwrap();
//! xts.decrypt_sectors(512, 100, &mut sectors).unwrap();
//! assert_eq!(sectors, vec![7u8; 4 * 512]);
//! ```
//!
//! ## GCM
//!
//! ```
//! use aesx::Gcm;
//!
//! let gcm = Gcm::new(&[7u8; 32]).unwrap();
//! let nonce = [1u8; 12];
//! let sealed = gcm.seal(&nonce, b"header", b"secret").unwrap();
//! assert_eq!(gcm.open(&nonce, b"header", &sealed).unwrap(), b"secret");
//! let mut forged = sealed.clone();
//! forged[0] ^= 1;
//! assert!(gcm.open(&nonce, b"header", &forged).is_err());
//! ```
//!
//! Streaming encryption is [`GcmEncryptor`]; streaming decryption, which
//! releases plaintext before the tag is checked, is
//! [`hazmat::GcmDecryptorHazmat`].
//!
//! ## AES-GCM-SIV (RFC 8452) and XAES-256-GCM (c2sp.org)
//!
//! ```
//! use aesx::{GcmSiv, Xaes256Gcm};
//!
//! // Nonce-misuse resistant: a repeated nonce reveals only equal messages.
//! let siv = GcmSiv::new(&[7u8; 32]).unwrap();
//! let sealed = siv.seal(&[1u8; 12], b"header", b"secret").unwrap();
//! assert_eq!(siv.open(&[1u8; 12], b"header", &sealed).unwrap(), b"secret");
//!
//! // 24-byte nonces, safe to draw at random.
//! let xaes = Xaes256Gcm::new(&[7u8; 32]).unwrap();
//! let sealed = xaes.seal(&[2u8; 24], b"", b"secret").unwrap();
//! assert_eq!(xaes.open(&[2u8; 24], b"", &sealed).unwrap(), b"secret");
//! ```
//!
//! ## CCM, key wrap and CMAC
//!
//! ```
//! use aesx::{Ccm, Cmac, KeyWrap};
//!
//! // CCM: nonce 7 to 13 bytes, tag length fixed per key object.
//! let ccm = Ccm::new(&[1u8; 16], 16).unwrap();
//! let sealed = ccm.seal(&[2u8; 13], b"header", b"payload").unwrap();
//! assert_eq!(ccm.open(&[2u8; 13], b"header", &sealed).unwrap(), b"payload");
//!
//! // Key wrap: KW (RFC 3394) and KWP with padding (RFC 5649).
//! let kek = KeyWrap::new(&[3u8; 32]).unwrap();
//! let wrapped = kek.wrap_pad(&[4u8; 20]).unwrap();
//! assert_eq!(kek.unwrap_pad(&wrapped).unwrap(), [4u8; 20]);
//!
//! // CMAC, one-shot or streamed.
//! let cmac = Cmac::new(&[5u8; 16]).unwrap();
//! let mut h = cmac.hasher();
//! h.update(b"part one, ");
//! h.update(b"part two");
//! assert_eq!(h.finalize(), cmac.mac(b"part one, part two"));
//! ```
//!
//! ## IPsec ESP (RFC 4106)
//!
//! ```
//! use aesx::Esp;
//!
//! let esp = Esp::new(&[9u8; 16], &[1, 2, 3, 4], 16).unwrap();
//! let (iv, aad) = ([0u8; 8], [0, 0, 0x10, 0, 0, 0, 0, 1]);
//! let mut packet = *b"an inner IP packet..";
//! let tag = esp.seal_in_place(&iv, &aad, &mut packet).unwrap();
//! esp.open_in_place(&iv, &aad, &mut packet, tag.as_bytes()).unwrap();
//! assert_eq!(&packet, b"an inner IP packet..");
//! ```
//!
//! ## RustCrypto traits: block modes
//!
//! ```
//! # #[cfg(feature = "rustcrypto")] {
//! use aesx::cipher::{KeyInit, KeyIvInit, StreamCipher};
//! use aesx::cipher::{BlockModeDecrypt, BlockModeEncrypt};
//!
//! // ctr::Ctr128BE<aes::Aes128> becomes:
//! let mut ctr = ctr::Ctr128BE::<aesx::Aes128>::new(&[1u8; 16].into(), &[2u8; 16].into());
//! let mut buf = *b"any length at all";
//! ctr.apply_keystream(&mut buf);
//!
//! // cbc over aesx::Aes256, whole blocks:
//! let (key, iv) = ([3u8; 32], [4u8; 16]);
//! let mut blocks = [[5u8; 16].into(), [6u8; 16].into()];
//! cbc::Encryptor::<aesx::Aes256>::new(&key.into(), &iv.into()).encrypt_blocks(&mut blocks);
//! cbc::Decryptor::<aesx::Aes256>::new(&key.into(), &iv.into()).decrypt_blocks(&mut blocks);
//! assert_eq!(blocks[1], [6u8; 16]);
//!
//! // xts-mode over aesx::Aes128:
//! let xts = xts_mode::Xts128::new(
//!     aesx::Aes128::new(&[7u8; 16].into()),
//!     aesx::Aes128::new(&[8u8; 16].into()),
//! );
//! let mut sector = [9u8; 512];
//! xts.encrypt_sector(&mut sector, xts_mode::get_tweak_default(0));
//! xts.decrypt_sector(&mut sector, xts_mode::get_tweak_default(0));
//! assert_eq!(sector, [9u8; 512]);
//! # }
//! ```
//!
//! ## RustCrypto traits: AEAD
//!
//! ```
//! # #[cfg(feature = "rustcrypto")] {
//! use aesx::{aead::{Aead, AeadInOut, KeyInit}, Aes256Gcm, Key, Nonce};
//!
//! let key = Key::<Aes256Gcm>::from([0x11u8; 32]);
//! let cipher = Aes256Gcm::new(&key);
//! let nonce = Nonce::from([0x22u8; 12]); // unique per message
//! let ct = cipher.encrypt(&nonce, b"plaintext message".as_ref()).unwrap();
//! assert_eq!(cipher.decrypt(&nonce, ct.as_ref()).unwrap(), b"plaintext message");
//!
//! let mut buf = b"in place".to_vec();
//! cipher.encrypt_in_place(&nonce, b"aad", &mut buf).unwrap();
//! cipher.decrypt_in_place(&nonce, b"aad", &mut buf).unwrap();
//! assert_eq!(buf, b"in place");
//! # }
//! ```
//!
//! ## Moving from aes-gcm, aes + ctr/cbc/xts-mode, or ring
//!
//! - **aes-gcm 0.11**: change `use aes_gcm::{...}` to `use aesx::{...}`.
//!   `aesx` re-exports `aead` and the items `aes-gcm` has at its root
//!   (`Aes128Gcm`, `Aes256Gcm`, `Key`, `Nonce`, `KeyInit`, `AeadCore`,
//!   `AeadInOut`, `KeySizeUser`), except two names that are aesx's own:
//!   `aesx::Error` and `aesx::Tag`; use `aesx::aead::Error` and
//!   `aesx::aead::Tag` for `aes_gcm::Error` and `aes_gcm::Tag`. Only 96-bit
//!   nonces and 16-byte tags are offered through the traits (other lengths:
//!   [`Gcm`]). One difference: a failed decryption zeroes the buffer, where
//!   aes-gcm leaves the ciphertext in it.
//! - **aes 0.9 with ctr 0.10, cbc 0.2, xts-mode 0.6**: replace
//!   `aes::Aes128` (`Aes192`, `Aes256`) by `aesx::Aes128` (...) in the type
//!   parameters; `aesx::cipher` is the `cipher` crate. The inherent
//!   [`Ctr`], [`Cbc`] and [`Xts`] are faster still (fused kernels).
//! - **ring**: `LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key)?)`
//!   becomes `Gcm::new(key)?`; `seal_in_place_append_tag(nonce, aad, &mut
//!   vec)` becomes [`Gcm::seal_in_place_append_tag`] with the nonce as
//!   bytes, and `open_in_place` becomes [`Gcm::open_in_place`]; the
//!   nonce-sequence machinery is the caller's (a counter per key).
//!
//! ## Backends
//!
//! Keys run on the fastest backend this CPU has ([`Backend::fastest`]);
//! every `with_backend` constructor forces one, and forcing one the CPU lacks
//! is an error, never a fallback. The library reads no environment variable:
//! the `aesx` command line reads `AESX_BACKEND` and passes the choice in.
//!
//! ```
//! use aesx::{Aes, Backend};
//!
//! let soft = Aes::with_backend(&[0x42u8; 16], Backend::Soft).unwrap();
//! assert_eq!(soft.backend(), Backend::Soft);
//! ```
//!
//! ## Features
//!
//! - `std` (default): `Vec`-returning helpers and run-time CPU detection on
//!   x86-64. Without it the crate is `no_std` and needs no allocator.
//! - `rustcrypto` (default): the `cipher`/`aead` trait types above.
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
extern crate alloc;

mod backend;
mod ct;
#[cfg(test)]
mod dispatch_tests;
mod error;
mod key;
mod modes;
#[cfg(feature = "rustcrypto")]
mod rustcrypto;

#[cfg(all(test, feature = "std"))]
mod miri_tests;

pub use backend::{Backend, BackendIter, BackendSet};
/// Constant-time equality, for aesx-file and aesx-cuda (not part of the
/// API).
#[doc(hidden)]
pub use ct::ct_eq;
pub use error::{Error, Result};
#[doc(hidden)]
pub use key::ExpandedKey;
pub use key::{Block, KeySize, BLOCK_LEN};
pub use modes::block::Aes;
pub use modes::cbc::Cbc;
pub use modes::cbc_multi::{cbc_encrypt_many, CbcJob};
pub use modes::ccm::Ccm;
pub use modes::cmac::{Cmac, CmacHasher};
pub use modes::ctr::Ctr;
pub use modes::ecb::Ecb;
pub use modes::esp::{ones_complement_checksum, Esp};
pub use modes::gcm::{Gcm, GcmEncryptor};
pub use modes::gcm_siv::GcmSiv;
pub use modes::keywrap::KeyWrap;
pub use modes::padding::Padding;
pub use modes::tag::Tag;
pub use modes::xaes::Xaes256Gcm;
pub use modes::xts::Xts;

#[cfg(feature = "rustcrypto")]
pub use aead;
#[cfg(feature = "rustcrypto")]
pub use aead::{AeadCore, AeadInOut, KeyInit, KeySizeUser};
#[cfg(feature = "rustcrypto")]
pub use cipher;
#[cfg(feature = "rustcrypto")]
pub use rustcrypto::{
    Aes128, Aes128Ccm, Aes128Dec, Aes128Enc, Aes128Gcm, Aes128GcmSiv, Aes192, Aes192Ccm, Aes192Dec,
    Aes192Enc, Aes192Gcm, Aes256, Aes256Ccm, Aes256Dec, Aes256Enc, Aes256Gcm, Aes256GcmSiv, AesCcm,
    AesCipher, AesGcm, CcmKeySize, CcmNonceSize, CcmTagSize, GcmTagSize, Key, Nonce,
};

/// Hazardous interfaces: correct to use only with care their docs spell out.
pub mod hazmat {
    pub use crate::modes::gcm::hazmat::GcmDecryptorHazmat;
}

/// Hooks for aesx's own tests and benchmarks. Not part of the API: no
/// stability promise, and nothing here is needed to use the library.
#[doc(hidden)]
pub mod __testing {
    /// Makes soft-backend keys created from now on use the baseline (SSE2)
    /// build even where the CPU has AVX2 (the tests and benchmarks read
    /// `AESX_SOFT_SIMD=baseline` and call this).
    pub fn soft_simd_baseline() {
        crate::backend::soft::force_baseline_simd();
    }
}
