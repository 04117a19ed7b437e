//! Wycheproof `aes_gcm_siv_test.json` and `aes_ccm_test.json`, through the
//! same [`Aead`] the CLI's `--mode gcm-siv|ccm` uses. A valid case must
//! seal to `ct || tag` and open back; an invalid one (modified tag, nonce or
//! tag size CCM does not allow) must be refused by the constructor or by
//! `open`, and a refused in-place open must leave its buffer zeroed.

use aesx::{Backend, Error};

use super::rsp::ParseError;
use super::wycheproof::{self, check_all, refused, Expect};
use super::{hx, Report};
use crate::cipher::aead::{Aead, Kind};

struct Case {
    id: u64,
    expect: Expect,
    tag_len: usize,
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    msg: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
}

fn check(kind: Kind, c: &Case, b: Backend) -> Result<(), String> {
    let aead = match Aead::new(kind, &c.key, c.tag_len, b) {
        Ok(a) => a,
        Err(e) => return refused(c.expect, "new", e),
    };
    let sealed = [&c.ct[..], &c.tag[..]].concat();
    if c.expect != Expect::Invalid {
        match aead.seal(&c.iv, &c.aad, &c.msg) {
            Ok(out) if out == sealed => {}
            Ok(out) => return Err(format!("sealed {} expected {}", hx(&out), hx(&sealed))),
            Err(e) => return refused(c.expect, "seal", e),
        }
    }
    let mut buf = c.ct.clone();
    let detached = aead.open_detached(&c.iv, &c.aad, &mut buf, &c.tag);
    match (aead.open(&c.iv, &c.aad, &sealed), detached, c.expect) {
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

/// Runs an AEAD file of `kind` (`Kind::GcmSiv` or `Kind::Ccm`).
pub fn run(
    kind: Kind,
    text: &str,
    backends: &[Backend],
    report: &mut Report,
) -> Result<(), ParseError> {
    let cases = wycheproof::read(text)?
        .iter()
        .map(|t| {
            Ok(Case {
                id: t.id,
                expect: t.expect,
                tag_len: t.tag_len(128)?,
                key: t.hex("key")?,
                iv: t.hex("iv")?,
                aad: t.hex("aad")?,
                msg: t.hex("msg")?,
                ct: t.hex("ct")?,
                tag: t.hex("tag")?,
            })
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    check_all(&cases, backends, report, |c| c.id, |c, b| check(kind, c, b));
    Ok(())
}
