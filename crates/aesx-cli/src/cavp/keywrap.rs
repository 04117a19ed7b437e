//! Wycheproof `aes_wrap_test.json` (KW, RFC 3394) and `aes_kwp_test.json`
//! (KWP, RFC 5649). A valid case must wrap `msg` to `ct` and unwrap `ct`
//! back; an acceptable one (KW of an 8-byte key, which RFC 3394 allows and
//! SP 800-38F does not) may instead be refused both ways; an invalid one
//! (modified ICV or padding, wrong sizes) must not unwrap.

use aesx::{Backend, KeyWrap};

use super::rsp::ParseError;
use super::wycheproof::{self, check_all, refused, Expect};
use super::{hx, Report};
use crate::cipher::keywrap::Variant;

struct Case {
    id: u64,
    expect: Expect,
    key: Vec<u8>,
    msg: Vec<u8>,
    ct: Vec<u8>,
}

fn check(v: Variant, c: &Case, b: Backend) -> Result<(), String> {
    let kw = match KeyWrap::with_backend(&c.key, b) {
        Ok(k) => k,
        Err(e) => return refused(c.expect, "new", e),
    };
    let (wrap, unwrap) = match v {
        Variant::Kw => (kw.wrap(&c.msg), kw.unwrap(&c.ct)),
        Variant::Kwp => (kw.wrap_pad(&c.msg), kw.unwrap_pad(&c.ct)),
    };
    match (wrap, unwrap, c.expect) {
        (_, Ok(_), Expect::Invalid) => Err("invalid wrapped key accepted".into()),
        (_, Err(_), Expect::Invalid) => Ok(()),
        (Ok(w), Ok(u), _) if w == c.ct && u == c.msg => Ok(()),
        (Ok(w), Ok(_), _) if w != c.ct => Err(format!("wrapped {} expected {}", hx(&w), hx(&c.ct))),
        (Ok(_), Ok(u), _) => Err(format!("unwrapped {} expected {}", hx(&u), hx(&c.msg))),
        // Acceptable: refused both ways, consistently.
        (Err(_), Err(e), Expect::Acceptable) => refused(c.expect, "unwrap", e),
        (Err(e), _, _) => Err(format!("wrap: {e}")),
        (_, Err(e), _) => Err(format!("unwrap: {e}")),
    }
}

/// Runs a KW (`Variant::Kw`) or KWP file.
pub fn run(
    v: Variant,
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
                key: t.hex("key")?,
                msg: t.hex("msg")?,
                ct: t.hex("ct")?,
            })
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    check_all(&cases, backends, report, |c| c.id, |c, b| check(v, c, b));
    Ok(())
}
