//! Wycheproof `aes_gcm_siv_test.json` and `aes_ccm_test.json`, through the
//! same [`Aead`] the CLI's `--mode gcm-siv|ccm` uses. A valid case must
//! seal to `ct || tag` and open back; an invalid one (modified tag, nonce or
//! tag size CCM does not allow) must be refused by the constructor or by
//! `open`, and a refused in-place open must leave its buffer zeroed.

use aesx::{Backend, Error};

use super::hx;
use super::rsp::ParseError;
use super::wycheproof::{refused, Expect, Family, Test};
use crate::cipher::aead::{Aead, Kind};

pub struct Case {
    tag_len: usize,
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    msg: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
}

/// Wycheproof files of GCM-SIV or CCM (`Kind::GcmSiv`, `Kind::Ccm`).
impl Family for Kind {
    type Case = Case;

    fn parse(t: &Test) -> Result<Case, ParseError> {
        Ok(Case {
            tag_len: t.tag_len(128)?,
            key: t.hex("key")?,
            iv: t.hex("iv")?,
            aad: t.hex("aad")?,
            msg: t.hex("msg")?,
            ct: t.hex("ct")?,
            tag: t.hex("tag")?,
        })
    }

    fn check(&self, t: &Test, c: &Case, b: Backend) -> Result<(), String> {
        let (kind, expect) = (*self, t.expect);
        let aead = match Aead::new(kind, &c.key, c.tag_len, b) {
            Ok(a) => a,
            Err(e) => return refused(expect, "new", e),
        };
        let sealed = [&c.ct[..], &c.tag[..]].concat();
        if expect != Expect::Invalid {
            match aead.seal(&c.iv, &c.aad, &c.msg) {
                Ok(out) if out == sealed => {}
                Ok(out) => return Err(format!("sealed {} expected {}", hx(&out), hx(&sealed))),
                Err(e) => return refused(expect, "seal", e),
            }
        }
        let mut buf = c.ct.clone();
        let detached = aead.open_detached(&c.iv, &c.aad, &mut buf, &c.tag);
        match (aead.open(&c.iv, &c.aad, &sealed), detached, expect) {
            (Ok(pt), Ok(()), Expect::Valid | Expect::Acceptable) if pt == c.msg && buf == c.msg => {
                Ok(())
            }
            (Ok(_), Ok(()), Expect::Valid | Expect::Acceptable) => {
                Err("open gave the wrong plaintext".into())
            }
            (Ok(_), _, Expect::Invalid) | (_, Ok(()), Expect::Invalid) => {
                Err("invalid case accepted".into())
            }
            (Err(_), Err(Error::AuthenticationFailed), Expect::Invalid)
                if buf.iter().any(|&x| x != 0) =>
            {
                Err("refused but the in-place buffer was not zeroed".into())
            }
            (Err(_), Err(_), Expect::Invalid) => Ok(()),
            (Err(e), _, expect) | (_, Err(e), expect) => refused(expect, "open", e),
        }
    }
}
