//! # aesx
//!
//! AES-128/192/256 in block, ECB, CBC, CTR, CFB, OFB, XTS, GCM, GCM-SIV, XAES-256-GCM
//! and IPsec ESP modes, on a constant-time portable backend and on hardware
//! backends (AES-NI, VAES with AVX2 or AVX-512, the ARMv8 Crypto Extensions)
//! chosen at run time.
//!
//! Two ways in:
//!
//! - **The inherent API**: one type per mode ([`Aes`], [`Ecb`], [`Cbc`],
//!   [`Ctr`], [`Cfb`], [`Cfb8`], [`Ofb`], [`Xts`], [`Gcm`], [`GcmSiv`],
//!   [`Xaes256Gcm`], [`Esp`]) taking
//!   keys, IVs and nonces as byte slices and returning [`Result`] with a
//!   typed [`Error`] for every caller mistake.
//! - **RustCrypto's traits** (feature `rustcrypto`, on by default):
//!   [`Aes128`], [`Aes192`], [`Aes256`] implement `cipher` 0.5's `KeyInit`,
//!   `BlockCipherEncrypt` and `BlockCipherDecrypt`, so they drop into `ctr`,
//!   `cbc`, `xts-mode`, `cmac`, `aes-kw` and any generic code, and
//!   [`Aes128Enc`]/[`Aes128Dec`] (192, 256) are their encrypt-only and
//!   decrypt-only halves, as in the `aes` crate; [`AesGcm<Aes, NonceSize,
//!   TagSize>`](AesGcm) with its aliases [`Aes128Gcm`], [`Aes192Gcm`],
//!   [`Aes256Gcm`] implements `aead` 0.6's `KeyInit`, `AeadCore` and
//!   `AeadInOut` (and so `Aead` with `alloc`), as `aes-gcm`'s types do;
//!   [`AesGcmSiv<Aes>`](AesGcmSiv) with [`Aes128GcmSiv`], [`Aes256GcmSiv`]
//!   (as `aes-gcm-siv`'s; `AesGcmSiv<Aes192>` too) and
//!   [`Xaes256Gcm`] (24-byte nonces) implement the same traits.
//!   [`AesCcm<Aes, M, N>`](AesCcm) (aliases [`Aes128Ccm<M, N>`](Aes128Ccm),
//!   192, 256) does the same for CCM with typenum tag and nonce sizes, as
//!   `ccm::Ccm<Aes128, M, N>` does.
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
//! ## CFB and OFB
//!
//! The legacy feedback modes of SP 800-38A, streaming like [`Ctr`]:
//! [`Cfb`] (CFB128), [`Cfb8`] and [`Ofb`], the bytes of OpenSSL's
//! `aes-*-cfb`, `-cfb8` and `-ofb`. CFB decryption runs the wide kernels
//! (every cipher input is ciphertext already at hand); CFB encryption and
//! OFB are serial chains. With RustCrypto's traits, `cfb_mode`, `cfb8` and
//! `ofb` also run over [`Aes128`] and friends.
//!
//! ```
//! use aesx::{Cfb, Ofb};
//!
//! let (key, iv) = ([0x42u8; 16], [0x24u8; 16]);
//! let mut data = *b"any length at all";
//! let mut enc = Cfb::new(&key, &iv).unwrap();
//! enc.encrypt(&mut data[..3]);
//! enc.encrypt(&mut data[3..]);
//! Cfb::new(&key, &iv).unwrap().decrypt(&mut data);
//! assert_eq!(&data, b"any length at all");
//! let mut ofb = Ofb::new(&key, &iv).unwrap();
//! ofb.apply_keystream(&mut data); // OFB: the same call both ways
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
//! `aes-gcm`'s own example, with only its `use` line changed (random key
//! and nonce from the OS: the `getrandom` feature, on by default):
//!
//! ```
//! # #[cfg(feature = "getrandom")]
//! # fn main() -> Result<(), Box<dyn core::error::Error>> {
//! use aesx::{
//!     aead::{Aead, AeadCore, Generate, Key, KeyInit},
//!     Aes256Gcm, Nonce, // Or `Aes128Gcm`
//! };
//!
//! let key = Key::<Aes256Gcm>::generate();
//! let cipher = Aes256Gcm::new(&key);
//!
//! let nonce = Nonce::generate(); // MUST be unique per message
//! let ciphertext = cipher.encrypt(&nonce, b"plaintext message".as_ref())?;
//!
//! let plaintext = cipher.decrypt(&nonce, ciphertext.as_ref())?;
//! assert_eq!(&plaintext, b"plaintext message");
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "getrandom"))]
//! # fn main() {}
//! ```
//!
//! ## Moving from RustCrypto's crates or ring
//!
//! - **aes-gcm 0.11**: change `use aes_gcm::{...}` to `use aesx::{...}`.
//!   `aesx` re-exports `aead` and the items `aes-gcm` has at its root
//!   (`AesGcm`, `Aes128Gcm`, `Aes256Gcm`, `Key`, `Nonce`, `KeyInit`,
//!   `AeadCore`, `AeadInOut`, `KeySizeUser`; `aes_gcm::TagSize` is
//!   [`GcmTagSize`]), except two names that are aesx's own: `aesx::Error`
//!   and `aesx::Tag`; use `aesx::aead::Error` and `aesx::aead::Tag` for
//!   `aes_gcm::Error` and `aes_gcm::Tag`. `aes_gcm::aes::Aes128` is
//!   `aesx::Aes128`, so `AesGcm<Aes128, U16>` (other nonce sizes) and
//!   `AesGcm<Aes128, U12, U12>` (other tag sizes) port too.
//! - **aes-gcm-siv 0.12**: `use aesx::{Aes128GcmSiv, Aes256GcmSiv, Nonce}`
//!   (and `AesGcmSiv`, with `aesx::Aes128`/`Aes256` for `aes`'s).
//! - **ccm 0.6**: `use aesx::AesCcm as Ccm` and `use aesx::Aes256` (for
//!   `aes::Aes256`): `Ccm<Aes256, U10, U13>` is then aesx's. `ccm::consts`
//!   is [`aesx::consts`](consts) (typenum's, as in `aead` and `cipher`).
//! - **aes 0.9 with ctr 0.10, cbc 0.2, xts-mode 0.6, cmac 0.8, aes-kw
//!   0.3**: replace `aes::Aes128` (`Aes192`, `Aes256`, and the `Enc`/`Dec`
//!   halves) by `aesx::Aes128` (...) in the type parameters; `aesx::cipher`
//!   is the `cipher` crate (`aes::cipher`). The inherent [`Ctr`], [`Cbc`],
//!   [`Xts`], [`Cmac`] and [`KeyWrap`] are faster still (fused kernels).
//! - **ring**: `LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key)?)`
//!   becomes `Gcm::new(key)?`; `seal_in_place_append_tag(nonce, aad, &mut
//!   vec)` becomes [`Gcm::seal_in_place_append_tag`] with the nonce as
//!   bytes, and `open_in_place` becomes [`Gcm::open_in_place`]; the
//!   nonce-sequence machinery is the caller's (a counter per key).
//!
//! `tests/rustcrypto_ports.rs` holds each of those crates' documentation
//! examples, ported by changing only their `use` lines (aes-kw's
//! `KwAes128` needs one alias, see below), and runs them.
//!
//! ## Differences from RustCrypto
//!
//! Code ported as above compiles and behaves the same, except for these,
//! each on purpose:
//!
//! - **A failed AEAD decryption zeroes the output** (GCM, GCM-SIV,
//!   XAES-256-GCM; CCM does so in `ccm` too): `aes-gcm` leaves the
//!   ciphertext in the buffer and `aes-gcm-siv` restores it. aesx releases
//!   no byte of unauthenticated plaintext, and a zeroed buffer cannot be
//!   mistaken for either plaintext or intact ciphertext; keep a copy of the
//!   ciphertext if you need it after a failure. (aes-gcm's own
//!   `decrypt_in_place_detached_modified` test, which expects the
//!   ciphertext back, fails on aesx for this reason alone.)
//! - **The generic AEADs take aesx's ciphers only**: [`AesGcm`],
//!   [`AesGcmSiv`] and [`AesCcm`] accept [`Aes128`], [`Aes192`],
//!   [`Aes256`] and their `Enc` halves ([`AesCipher`]),
//!   not any `BlockCipherEncrypt` type such as `aes::Aes128`: they run
//!   aesx's fused kernels, for which the type only names the key size.
//!   (`aes-gcm` warns against other ciphers anyway.)
//! - **A zero-length GCM nonce is refused** (`AesGcm<_, U0>` fails every
//!   call with `aead::Error`): SP 800-38D requires an IV of at least one
//!   bit; `aes-gcm` accepts it.
//! - **Short GCM tags without a feature**: `GcmTagSize` includes `U4` and
//!   `U8`, which `aes-gcm` puts behind `hazmat`, because aesx's [`Gcm`]
//!   offers them too (SP 800-38D's limits for them are the caller's to
//!   keep). Code that compiles against `aes-gcm` is unaffected.
//! - **CMAC and key wrap are aesx's own types**: [`Cmac`] is AES-only and
//!   is not `digest::Mac`, [`KeyWrap`] is not `aes_kw::AesKw` (aesx has no
//!   `KwAes128`): aesx depends on no `digest` crate and offers its own
//!   constant-time MAC and wrap calls. Code written for the `cmac` and
//!   `aes-kw` crates keeps them, over aesx's cipher:
//!   `cmac::Cmac<aesx::Aes128>`, `aes_kw::AesKw<aesx::Aes128>` (for
//!   `aes_kw::KwAes128`, which names the `aes` crate's cipher).
//! - **Some root names are aesx's own**: `aesx::Block` is `[u8; 16]`
//!   (the inherent API's block; `aes::Block` is
//!   `aesx::cipher::Block<aesx::Aes128>`, an `Array<u8, U16>`),
//!   `aesx::Ccm` the inherent CCM type (`ccm::Ccm` is [`AesCcm`]),
//!   `aesx::Error` and `aesx::Tag` aesx's error and tag (`aes_gcm::Error`
//!   and `Tag` are `aesx::aead::Error` and `Tag`). The trait names are
//!   prefixed because one crate holds them all: `aes_gcm::TagSize` is
//!   [`GcmTagSize`], `ccm::TagSize`/`NonceSize` are [`CcmTagSize`]/
//!   [`CcmNonceSize`]. The `A_MAX`/`P_MAX`/`C_MAX` constants are not
//!   re-exported; the limits are the same ([`Gcm::MAX_PLAINTEXT_LEN`],
//!   [`Gcm::MAX_AAD_LEN`], [`GcmSiv::MAX_LEN`]) and a message over them is
//!   `aead::Error`.
//! - **No `aes::hazmat` rounds, no `aes_backend`/`aes_compact` cfg
//!   flags**: aesx's kernels work on whole blocks and batches, not single
//!   rounds; the backend is chosen at run time or forced per key with
//!   `with_backend` (see "Backends"), never by a build flag.
//! - **`alloc` comes with `std`**: `Aead`'s `Vec`-returning methods need
//!   aesx's `std` feature (or `aead/alloc` enabled by the program itself);
//!   aesx has no separate `alloc` feature.
//!
//! Not differences in behaviour: `KeyInit::new` detects the CPU at run
//! time as `aes` does; key types always zeroize on drop (`aes` does with
//! its `zeroize` feature); `Debug` prints the backend, never key
//! material; the `Enc`/`Dec` halves hold the whole key schedule (aesx has
//! one piece), so unlike `aes`'s they save no memory.
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
//! - `getrandom` (default, as in `aes-gcm`): `aead`'s feature of that name,
//!   so `Key::<Aes256Gcm>::generate()` and `Nonce::generate()` (the
//!   `aead::Generate` trait) draw from the operating system's RNG. It needs
//!   an operating system: `no_std` builds turn the defaults off.
//! - `rand_core`: `aead::Generate` with a caller's RNG
//!   (`Key::<Aes256Gcm>::generate_from_rng(&mut rng)`); `no_std`.
//! - `arrayvec`, `bytes`: `aead::Buffer` for `aead::arrayvec::ArrayVec`
//!   (in-place encryption without an allocator; `no_std`) and
//!   `aead::bytes::BytesMut` (`no_std`, but `bytes` needs `alloc`).
//!
//! Each of the last four turns `rustcrypto` on. `aead` 0.6 has no `OsRng`
//! and no `AeadCore::generate_nonce`: those are `aead` 0.5's, and 0.6
//! replaced them with `Generate` (its `KeyInit::generate_key(&mut rng)`
//! remains, deprecated, with `rand_core`).
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
#[cfg(test)]
mod test_bytes;

#[cfg(all(test, feature = "std"))]
mod miri_tests;

pub use backend::{Backend, BackendIter, BackendSet, Schedule, UnknownSchedule};
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
pub use modes::cfb::{Cfb, Cfb8};
pub use modes::cmac::{Cmac, CmacHasher};
pub use modes::ctr::Ctr;
pub use modes::ecb::Ecb;
pub use modes::esp::{ones_complement_checksum, Esp};
pub use modes::gcm::Gcm;
pub use modes::gcm_siv::GcmSiv;
pub use modes::gcm_stream::GcmEncryptor;
pub use modes::keywrap::KeyWrap;
pub use modes::ofb::Ofb;
pub use modes::padding::Padding;
#[cfg(feature = "std")]
pub use modes::parallel;
pub use modes::tag::Tag;
pub use modes::xaes::Xaes256Gcm;
pub use modes::xts::Xts;

#[cfg(feature = "rustcrypto")]
pub use aead;
#[cfg(feature = "rustcrypto")]
pub use aead::{consts, AeadCore, AeadInOut, KeyInit, KeySizeUser};
#[cfg(feature = "rustcrypto")]
pub use cipher;
#[cfg(feature = "rustcrypto")]
pub use rustcrypto::{
    Aes128, Aes128Ccm, Aes128Dec, Aes128Enc, Aes128Gcm, Aes128GcmSiv, Aes192, Aes192Ccm, Aes192Dec,
    Aes192Enc, Aes192Gcm, Aes256, Aes256Ccm, Aes256Dec, Aes256Enc, Aes256Gcm, Aes256GcmSiv, AesCcm,
    AesCipher, AesGcm, AesGcmSiv, CcmKeySize, CcmNonceSize, CcmTagSize, GcmSivCipher, GcmTagSize,
    Key, Nonce,
};

/// Hazardous interfaces: correct to use only with care their docs spell out.
pub mod hazmat {
    pub use crate::modes::gcm_owned::GcmStreamHazmat;
    pub use crate::modes::gcm_stream::hazmat::GcmDecryptorHazmat;
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
