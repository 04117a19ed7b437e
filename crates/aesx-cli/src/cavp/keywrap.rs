//! Wycheproof `aes_wrap_test.json` (KW, RFC 3394) and `aes_kwp_test.json`
//! (KWP, RFC 5649). A valid case must wrap `msg` to `ct` and unwrap `ct`
//! back; an acceptable one (KW of an 8-byte key, which RFC 3394 allows and
//! SP 800-38F does not) may instead be refused both ways; an invalid one
//! (modified ICV or padding, wrong sizes) must not unwrap.

use aesx::{Backend, KeyWrap};

use super::hx;
use super::rsp::ParseError;
use super::wycheproof::{refused, Expect, Family, Test};
use crate::cipher::keywrap::Variant;

/// Key, data to wrap, wrapped data.
pub type Case = (Vec<u8>, Vec<u8>, Vec<u8>);

/// Wycheproof files of KW (`Variant::Kw`) or KWP.
impl Family for Variant {
    type Case = Case;

    fn parse(t: &Test) -> Result<Case, ParseError> {
        Ok((t.hex("key")?, t.hex("msg")?, t.hex("ct")?))
    }

    fn check(&self, t: &Test, (key, msg, ct): &Case, b: Backend) -> Result<(), String> {
        let (v, expect) = (*self, t.expect);
        let kw = match KeyWrap::with_backend(key, b) {
            Ok(k) => k,
            Err(e) => return refused(expect, "new", e),
        };
        let (wrap, unwrap) = match v {
            Variant::Kw => (kw.wrap(msg), kw.unwrap(ct)),
            Variant::Kwp => (kw.wrap_pad(msg), kw.unwrap_pad(ct)),
        };
        match (wrap, unwrap, expect) {
            (_, Ok(_), Expect::Invalid) => Err("invalid wrapped key accepted".into()),
            (_, Err(_), Expect::Invalid) => Ok(()),
            (Ok(w), Ok(u), _) if w == *ct && u == *msg => Ok(()),
            (Ok(w), Ok(_), _) if w != *ct => Err(format!("wrapped {} expected {}", hx(&w), hx(ct))),
            (Ok(_), Ok(u), _) => Err(format!("unwrapped {} expected {}", hx(&u), hx(msg))),
            // Acceptable: refused both ways, consistently.
            (Err(_), Err(e), Expect::Acceptable) => refused(expect, "unwrap", e),
            (Err(e), _, _) => Err(format!("wrap: {e}")),
            (_, Err(e), _) => Err(format!("unwrap: {e}")),
        }
    }
}
