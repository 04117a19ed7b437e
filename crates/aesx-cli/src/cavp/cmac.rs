//! Wycheproof `aes_cmac_test.json`. A valid case's tag must come out of
//! the one-shot `mac`, of the streaming hasher fed in two uneven pieces, and
//! pass `verify`; an invalid one (modified tag, key of a size AES does not
//! have) must be refused by the constructor or by `verify`.

use aesx::{Backend, Cmac};

use super::hx;
use super::rsp::ParseError;
use super::wycheproof::{refused, Expect, Family, Test};

/// Key, message, tag.
pub type Case = (Vec<u8>, Vec<u8>, Vec<u8>);

/// Wycheproof CMAC files.
pub struct CmacFile;

impl Family for CmacFile {
    type Case = Case;

    fn parse(t: &Test) -> Result<Case, ParseError> {
        Ok((t.hex("key")?, t.hex("msg")?, t.hex("tag")?))
    }

    fn check(&self, t: &Test, (key, msg, want): &Case, b: Backend) -> Result<(), String> {
        let cmac = match Cmac::with_backend(key, b) {
            Ok(m) => m,
            Err(e) => return refused(t.expect, "new", e),
        };
        let verified = cmac.verify(msg, want);
        if t.expect == Expect::Invalid {
            return match verified {
                Ok(()) => Err("invalid tag accepted".into()),
                Err(_) => Ok(()),
            };
        }
        let tag = cmac.mac(msg);
        let mut h = cmac.hasher();
        let cut = msg.len() / 3;
        h.update(&msg[..cut]);
        h.update(&msg[cut..]);
        let streamed = h.finalize();
        if tag[..want.len().min(16)] != want[..] || streamed != tag {
            return Err(format!(
                "mac {} streamed {} expected {}",
                hx(&tag),
                hx(&streamed),
                hx(want)
            ));
        }
        verified.map_err(|e| format!("verify: {e}"))
    }
}
