//! Wycheproof `aes_cmac_test.json`. A valid case's tag must come out of
//! the one-shot `mac`, of the streaming hasher fed in two uneven pieces, and
//! pass `verify`; an invalid one (modified tag, key of a size AES does not
//! have) must be refused by the constructor or by `verify`.

use aesx::{Backend, Cmac};

use super::rsp::ParseError;
use super::wycheproof::{self, check_all, refused, Expect};
use super::{hx, Report};

struct Case {
    id: u64,
    expect: Expect,
    key: Vec<u8>,
    msg: Vec<u8>,
    tag: Vec<u8>,
}

fn check(c: &Case, b: Backend) -> Result<(), String> {
    let cmac = match Cmac::with_backend(&c.key, b) {
        Ok(m) => m,
        Err(e) => return refused(c.expect, "new", e),
    };
    let verified = cmac.verify(&c.msg, &c.tag);
    if c.expect == Expect::Invalid {
        return match verified {
            Ok(()) => Err("invalid tag accepted".into()),
            Err(_) => Ok(()),
        };
    }
    let tag = cmac.mac(&c.msg);
    let mut h = cmac.hasher();
    let cut = c.msg.len() / 3;
    h.update(&c.msg[..cut]);
    h.update(&c.msg[cut..]);
    let streamed = h.finalize();
    let want = &c.tag[..];
    if &tag[..want.len().min(16)] != want || streamed != tag {
        return Err(format!(
            "mac {} streamed {} expected {}",
            hx(&tag),
            hx(&streamed),
            hx(want)
        ));
    }
    verified.map_err(|e| format!("verify: {e}"))
}

/// Runs a CMAC file.
pub fn run(text: &str, backends: &[Backend], report: &mut Report) -> Result<(), ParseError> {
    let cases = wycheproof::read(text)?
        .iter()
        .map(|t| {
            Ok(Case {
                id: t.id,
                expect: t.expect,
                key: t.hex("key")?,
                msg: t.hex("msg")?,
                tag: t.hex("tag")?,
            })
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    check_all(&cases, backends, report, |c| c.id, check);
    Ok(())
}
