//! AES-GCM-SIV contexts (RFC 8452) with the semantics of OpenSSL 3.2+'s
//! `cipher_aes_gcm_siv.c`, which OpenSSL 3.0 lacks (an application of any
//! 3.x can still fetch it by name from this provider):
//! - the 12-byte IV is the nonce; AAD comes in any number of updates with
//!   no output buffer (an empty one clears it) and stays across inits;
//! - the message is one update, whole (SIV needs two passes); a second
//!   message needs a new init, unless the `speed` parameter is set;
//! - encryption: the final succeeds once a message was sealed, and the
//!   16-byte tag is read afterwards; decryption: the tag is set before the
//!   message, and the final succeeds only if it matched.
//!
//! One difference: OpenSSL's update writes the plaintext before the final
//! checks the tag; aesx never releases unverified plaintext, so a message
//! whose tag does not match comes out as zeros (and the final fails the
//! same way).

use aesx::{Backend, GcmSiv};

use crate::block::{Fail, Io};
use crate::counter::count_bytes;

pub const NONCE_LEN: usize = 12;
pub const TAG_LEN: usize = 16;
/// RFC 8452's limit on the AAD and the message: 2^36 bytes.
const MAX_LEN: u64 = 1 << 36;

#[derive(Clone)]
pub struct GcmSivCtx {
    pub keylen: usize,
    enc: bool,
    key: Option<GcmSiv>,
    nonce: [u8; NONCE_LEN],
    aad: Vec<u8>,
    /// The tag of the last message sealed.
    tag: [u8; TAG_LEN],
    /// Whether the last message went through (OpenSSL's `generated_tag`).
    done: bool,
    /// Decryption: whether the last message's tag matched `user_tag`.
    verified: bool,
    user_tag: Option<[u8; TAG_LEN]>,
    /// A message since the last init (one per init unless `speed`).
    used: bool,
    speed: bool,
    backend: Backend,
}

impl Drop for GcmSivCtx {
    fn drop(&mut self) {
        // The AAD is data the caller may want kept private; the key
        // zeroizes itself.
        self.aad.fill(0);
    }
}

impl GcmSivCtx {
    pub fn new(keylen: usize, backend: Backend) -> Self {
        GcmSivCtx {
            keylen,
            enc: true,
            key: None,
            nonce: [0; NONCE_LEN],
            aad: Vec::new(),
            tag: [0; TAG_LEN],
            done: false,
            verified: false,
            user_tag: None,
            used: false,
            speed: false,
            backend,
        }
    }

    /// A new key and/or nonce; the next message may go.
    pub fn init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>, enc: bool) -> Result<(), Fail> {
        self.enc = enc;
        if let Some(key) = key {
            if key.len() != self.keylen {
                return Err(Fail::InvalidKeyLength);
            }
            self.key =
                Some(GcmSiv::with_backend(key, self.backend).map_err(|_| Fail::InvalidKeyLength)?);
        }
        if let Some(iv) = iv {
            if iv.len() != NONCE_LEN {
                return Err(Fail::InvalidIvLength);
            }
            self.nonce.copy_from_slice(iv);
        }
        self.used = false;
        Ok(())
    }

    /// More AAD (none: the AAD so far is dropped).
    pub fn aad(&mut self, data: &[u8]) -> Result<(), Fail> {
        if data.is_empty() {
            self.aad.fill(0);
            self.aad.clear();
            return Ok(());
        }
        if (self.aad.len() + data.len()) as u64 > MAX_LEN {
            return Err(Fail::Unsupported);
        }
        self.aad.extend_from_slice(data);
        Ok(())
    }

    /// The message, whole: sealed or opened from `io` (`len` bytes).
    pub fn crypt(&mut self, io: Io<'_>, len: usize) -> Result<(), Fail> {
        self.done = false;
        self.verified = false;
        let Some(key) = &self.key else {
            return Err(Fail::NoKeySet);
        };
        if (self.used && !self.speed) || len as u64 > MAX_LEN {
            return Err(Fail::Unsupported);
        }
        self.used = true;
        let (nonce, aad) = (&self.nonce[..], &self.aad[..]);
        if self.enc {
            let tag = match io {
                Io::Split { src, dst } => {
                    key.seal_to_detached(nonce, aad, &src[..len], &mut dst[..len])
                }
                Io::InPlace(buf) => key.seal_in_place_detached(nonce, aad, &mut buf[..len]),
            }
            .map_err(|_| Fail::Unsupported)?;
            self.tag.copy_from_slice(tag.as_bytes());
        } else {
            // Without a tag set, OpenSSL decrypts under a zero tag and the
            // final fails; so do we.
            let tag = self.user_tag.unwrap_or([0; TAG_LEN]);
            let r = match io {
                Io::Split { src, dst } => {
                    key.open_to_detached(nonce, aad, &src[..len], &tag, &mut dst[..len])
                }
                Io::InPlace(buf) => key.open_in_place_detached(nonce, aad, &mut buf[..len], &tag),
            };
            self.verified = r.is_ok() && self.user_tag.is_some();
        }
        self.done = true;
        count_bytes(len);
        Ok(())
    }

    /// The final: whether the message went through (encryption) or its
    /// tag matched (decryption).
    pub fn finish(&self) -> Result<(), Fail> {
        let ok = if self.enc { self.done } else { self.verified };
        if ok {
            Ok(())
        } else {
            Err(Fail::BadDecrypt)
        }
    }

    /// The tag of the message sealed (`tag`, 16 bytes exactly).
    pub fn get_tag(&self, n: usize) -> Result<&[u8], Fail> {
        if !self.enc || !self.done || n != TAG_LEN {
            return Err(Fail::Unsupported);
        }
        Ok(&self.tag)
    }

    /// The tag to check (`tag`, 16 bytes); an encrypting context takes
    /// and ignores it, as OpenSSL's does.
    pub fn set_tag(&mut self, tag: &[u8]) -> Result<(), Fail> {
        let tag: [u8; TAG_LEN] = tag.try_into().map_err(|_| Fail::Unsupported)?;
        if !self.enc {
            self.user_tag = Some(tag);
        }
        Ok(())
    }

    pub fn set_speed(&mut self, on: bool) {
        self.speed = on;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8452 C.1, the 16-byte message: sealed, opened, a wrong tag and
    /// a second message without an init refused.
    #[test]
    fn rfc8452_vector_and_refusals() {
        let key = [1u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let nonce = [3u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let pt = [1u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let want_ct = hex("743f7c8077ab25f8624e2e948579cf77");
        let want_tag = hex("303aaf90f6fe21199c6068577437a0c4");
        for backend in Backend::available() {
            let mut e = GcmSivCtx::new(16, backend);
            e.init(Some(&key), Some(&nonce), true).unwrap();
            let mut ct = [0u8; 16];
            e.crypt(
                Io::Split {
                    src: &pt,
                    dst: &mut ct,
                },
                16,
            )
            .unwrap();
            assert_eq!(ct.to_vec(), want_ct, "{backend}");
            assert!(e.finish().is_ok());
            assert_eq!(e.get_tag(16).unwrap(), &want_tag[..]);
            assert!(e.get_tag(12).is_err());
            assert_eq!(
                e.crypt(Io::InPlace(&mut ct.clone()), 16),
                Err(Fail::Unsupported)
            );

            let mut d = GcmSivCtx::new(16, backend);
            d.init(Some(&key), Some(&nonce), false).unwrap();
            d.set_tag(&want_tag).unwrap();
            let mut back = ct;
            d.crypt(Io::InPlace(&mut back), 16).unwrap();
            assert_eq!(back, pt);
            assert!(d.finish().is_ok());

            let mut bad = want_tag.clone();
            bad[0] ^= 1;
            d.init(None, None, false).unwrap();
            d.set_tag(&bad).unwrap();
            let mut out = [9u8; 16];
            d.crypt(
                Io::Split {
                    src: &ct,
                    dst: &mut out,
                },
                16,
            )
            .unwrap();
            assert_eq!(out, [0u8; 16], "no unverified plaintext");
            assert_eq!(d.finish(), Err(Fail::BadDecrypt));
            assert_eq!(d.set_tag(&[0u8; 12]), Err(Fail::Unsupported));
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
