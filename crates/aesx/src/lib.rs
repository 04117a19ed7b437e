//! # aesx
//!
//! AES-128/192/256 in block, ECB, CBC, CTR (and, as they land, XTS, GCM and
//! IPsec ESP) modes, on a constant-time portable backend and on hardware
//! backends chosen at run time.
//!
//! ```
//! use aesx::{Aes, Backend, Cbc, Ctr, Padding};
//!
//! let key = [0x42u8; 16];
//! let iv = [0x24u8; 16];
//!
//! // CTR: streaming, any split gives the same bytes.
//! let mut data = *b"attack at dawn, attack at dusk!";
//! let mut ctr = Ctr::new(&key, &iv).unwrap();
//! ctr.apply_keystream(&mut data);
//! let mut back = Ctr::new(&key, &iv).unwrap();
//! back.apply_keystream(&mut data);
//! assert_eq!(&data, b"attack at dawn, attack at dusk!");
//!
//! // CBC with PKCS#7 padding.
//! let cbc = Cbc::new(&key).unwrap();
//! let ct = cbc.encrypt_vec(&iv, b"hello", Padding::Pkcs7).unwrap();
//! assert_eq!(ct.len(), 16);
//! assert_eq!(cbc.decrypt_vec(&iv, &ct, Padding::Pkcs7).unwrap(), b"hello");
//!
//! // Every backend can be forced; forcing one the CPU lacks is an error.
//! let soft = Aes::with_backend(&key, Backend::Soft).unwrap();
//! assert_eq!(soft.backend(), Backend::Soft);
//! ```
//!
//! The backend used by default is the fastest this CPU has, unless the
//! environment variable `AESX_BACKEND` names one (`soft`, `aesni`, `vaes256`,
//! `vaes512`, `armv8`).
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
extern crate alloc;

pub mod backend;
mod error;
mod key;
pub mod modes;

#[cfg(all(test, feature = "std"))]
mod miri_tests;

pub use backend::{Backend, BackendSet};
pub use error::{Error, Result};
#[doc(hidden)]
pub use key::ExpandedKey;
pub use key::{Block, KeySize, BLOCK_LEN};
pub use modes::block::Aes;
pub use modes::cbc::Cbc;
pub use modes::cbc_multi::{cbc_encrypt_many, CbcJob};
pub use modes::ctr::Ctr;
pub use modes::ecb::Ecb;
pub use modes::esp::Esp;
pub use modes::gcm::{Gcm, GcmEncryptor, Tag};
pub use modes::padding::Padding;
pub use modes::xts::Xts;
