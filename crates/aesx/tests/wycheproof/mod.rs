//! Reads Project Wycheproof JSON files from the repository's `vectors/`
//! (shared by the AEAD, key-wrap and CMAC tests).

#![allow(dead_code)] // each test binary uses a different part

use serde_json::Value;

/// One test case with its group.
pub struct Case<'a> {
    pub group: &'a Value,
    pub test: &'a Value,
}

impl Case<'_> {
    /// Field `k` of the case, hex-decoded (absent means empty).
    pub fn hex(&self, k: &str) -> Vec<u8> {
        hex::decode(self.test[k].as_str().unwrap_or("")).unwrap()
    }

    /// A number from the group (e.g. `tagSize`), in bits.
    pub fn group_bits(&self, k: &str) -> usize {
        self.group[k].as_u64().unwrap() as usize
    }

    /// Wycheproof's `invalid` (`valid` and `acceptable` must both work).
    pub fn invalid(&self) -> bool {
        self.test["result"] == "invalid"
    }

    /// The case's id, for messages.
    pub fn id(&self) -> u64 {
        self.test["tcId"].as_u64().unwrap()
    }
}

/// An AEAD case's fields, hex-decoded: key, iv, aad, msg, ct, tag.
pub type AeadFields = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

impl Case<'_> {
    /// The case's AEAD fields in the order of [`AeadFields`] (absent ones
    /// empty).
    pub fn aead(&self) -> AeadFields {
        (
            self.hex("key"),
            self.hex("iv"),
            self.hex("aad"),
            self.hex("msg"),
            self.hex("ct"),
            self.hex("tag"),
        )
    }
}

/// Parses `vectors/wycheproof/<name>`.
pub fn load(name: &str) -> Value {
    let p = format!(
        "{}/../../vectors/wycheproof/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Every case of the file, with its group; checks the count the file
/// declares, so a misread file cannot pass quietly.
pub fn cases(doc: &Value) -> Vec<Case<'_>> {
    let mut v = Vec::new();
    for g in doc["testGroups"].as_array().unwrap() {
        for t in g["tests"].as_array().unwrap() {
            v.push(Case { group: g, test: t });
        }
    }
    assert_eq!(v.len() as u64, doc["numberOfTests"].as_u64().unwrap());
    v
}

/// Runs `check` on every case of `vectors/wycheproof/<name>` on each of
/// `backends`; returns how many calls checked their case in full (`check`
/// returns `false` for a case it skips, such as a key the type refuses).
pub fn check(
    name: &str,
    backends: &[aesx::Backend],
    mut check: impl FnMut(aesx::Backend, &Case<'_>) -> bool,
) -> usize {
    let doc = load(name);
    let mut checked = 0;
    for &b in backends {
        for c in cases(&doc) {
            checked += usize::from(check(b, &c));
        }
    }
    checked
}
