//! AArch64cryptolib speed-test reference files (`vectors/aarch64cryptolib/
//! speed_aescbc/`, `speed_aesgcm/`): one vector per file, run `COUNT` times
//! by ARM's test after checking the output.
//!
//! CBC files hold `KEY`, `IV`, `PLAINTEXT`, `CIPHERTEXT` and `COUNT`; GCM
//! files add `[Keylen = ...]`-style headers and `AAD`, `CT`, `Tag`. Names are
//! matched without regard to case, lines may end in CRLF.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::cases::{Case, Mode, Setup};
use aesx_file::CommandError;

/// The one vector of a speed file, as a benchmark case.
#[derive(Debug)]
pub struct RspVector {
    /// The case it defines.
    pub case: Case,
    /// Key, IV and plaintext.
    pub setup: Setup,
    /// The ciphertext the file expects.
    pub expected: Vec<u8>,
    /// The iteration count ARM's speed test uses.
    pub count: Option<u64>,
}

impl RspVector {
    /// One line for the report.
    pub fn describe(&self, path: &Path) -> String {
        format!(
            "rsp: {}: {} AES-{}, {} bytes{}; every output checked against its ciphertext \
             (timed by budget here; pass --iters to fix the count)",
            path.display(),
            self.case.mode,
            self.case.key_bits,
            self.case.size,
            self.count
                .map(|c| format!(", COUNT = {c} in the file"))
                .unwrap_or_default()
        )
    }
}

/// The most a speed file may hold (ARM's are a few KiB).
const MAX_FILE: u64 = 64 << 20;

/// Reads and checks a speed file.
pub fn load(path: &Path) -> Result<RspVector, CommandError> {
    let fail = |m: String| CommandError::failure(format!("{}: {m}", path.display()));
    // Capped, as every file aesx reads whole (`--rsp /dev/zero`).
    let mut bytes = Vec::new();
    let read = File::open(path)
        .and_then(|f| match f.metadata()?.is_dir() {
            true => Err(io::Error::other("is a directory")),
            false => f.take(MAX_FILE + 1).read_to_end(&mut bytes),
        })
        .map_err(|e| fail(e.to_string()))?;
    if read as u64 > MAX_FILE {
        return Err(fail(format!(
            "larger than {MAX_FILE} bytes, the most accepted"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| fail("not a text file".into()))?;
    parse(&text).map_err(fail)
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn hex_field(fields: &[(String, String)], names: &[&str]) -> Result<Option<Vec<u8>>, String> {
    for n in names {
        if let Some(v) = field(fields, n) {
            return hex::decode(v)
                .map(Some)
                .map_err(|e| format!("{n}: not hex ({e})"));
        }
    }
    Ok(None)
}

/// Parses the text of a speed file.
pub fn parse(text: &str) -> Result<RspVector, String> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            return Err(format!("unexpected line '{line}'"));
        };
        let k = k.trim().to_string();
        if field(&fields, &k).is_some() {
            return Err(format!("{k} appears twice: a speed file holds one vector"));
        }
        fields.push((k, v.trim().to_string()));
    }
    let key = hex_field(&fields, &["KEY"])?.ok_or("no KEY")?;
    let iv = hex_field(&fields, &["IV"])?.ok_or("no IV")?;
    let pt = hex_field(&fields, &["PLAINTEXT", "PT"])?.ok_or("no PLAINTEXT")?;
    let ct = hex_field(&fields, &["CIPHERTEXT", "CT"])?.ok_or("no CIPHERTEXT")?;
    let count = field(&fields, "COUNT")
        .map(|c| {
            c.parse::<u64>()
                .map_err(|_| format!("COUNT '{c}' is not a number"))
        })
        .transpose()?;
    let key_bits = match key.len() {
        16 | 24 | 32 => key.len() as u32 * 8,
        n => return Err(format!("KEY of {n} bytes")),
    };
    if pt.len() > 256 << 20 {
        return Err("PLAINTEXT longer than 256 MiB".into());
    }
    if pt.is_empty() || pt.len() != ct.len() {
        return Err(format!(
            "PLAINTEXT of {} bytes and CIPHERTEXT of {}: need equal, non-empty",
            pt.len(),
            ct.len()
        ));
    }
    let tag = hex_field(&fields, &["Tag"])?;
    let (mode, aad, expected) = match tag {
        // AES-GCM: the expectation is the ciphertext followed by the tag.
        Some(tag) => {
            if tag.len() != 16 {
                return Err(format!(
                    "Tag of {} bytes: only 16-byte tags are timed",
                    tag.len()
                ));
            }
            if iv.len() != 12 {
                return Err(format!("IV of {} bytes: GCM here takes 12", iv.len()));
            }
            let aad = hex_field(&fields, &["AAD"])?.unwrap_or_default();
            let mut expected = ct;
            expected.extend_from_slice(&tag);
            (Mode::GcmEnc, aad, expected)
        }
        None => {
            if iv.len() != 16 {
                return Err(format!("IV of {} bytes, CBC needs 16", iv.len()));
            }
            if pt.len() % 16 != 0 {
                return Err(format!(
                    "PLAINTEXT of {} bytes: CBC needs whole blocks",
                    pt.len()
                ));
            }
            (Mode::CbcEnc, Vec::new(), ct)
        }
    };
    Ok(RspVector {
        case: Case {
            mode,
            key_bits,
            size: pt.len(),
        },
        setup: Setup {
            key,
            iv,
            input: pt,
            aad,
            sealed: None,
            threads: 1,
        },
        expected,
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cbc_file() {
        let t = "# Key Length : 128\r\n\r\nCOUNT = 1000000\r\nKEY = 000102030405060708090a0b0c0d0e0f\r\n\
                 IV = 00000000000000000000000000000000\r\nPLAINTEXT = 00112233445566778899aabbccddeeff\r\n\
                 CIPHERTEXT = 69c4e0d86a7b0430d8cdb78070b4c55a\r\n";
        let v = parse(t).unwrap();
        assert_eq!(v.case.mode, Mode::CbcEnc);
        assert_eq!(
            (v.case.key_bits, v.case.size, v.count),
            (128, 16, Some(1_000_000))
        );
        assert_eq!(v.expected[0], 0x69);
    }

    #[test]
    fn parses_gcm_file() {
        let t =
            "[Keylen = 128]\n[IVlen = 96]\n\nCount = 5\nKey = 00000000000000000000000000000000\n\
                 IV = 000000000000000000000000\nPT = 00000000000000000000000000000000\nAAD = \n\
                 CT = 0388dace60b6a392f328c2b971b2fe78\nTag = ab6e47d42cec13bdf53a67b21257bddf\n";
        let v = parse(t).unwrap();
        assert_eq!(v.case.mode, Mode::GcmEnc);
        assert_eq!((v.case.size, v.expected.len(), v.count), (16, 32, Some(5)));
        assert!(v.setup.aad.is_empty());
    }

    #[test]
    fn refuses_garbage() {
        assert!(parse("Key = 00\nTag = 00\n").is_err());
        assert!(parse("KEY = zz\n").is_err());
        assert!(parse("hello\n").is_err());
        assert!(parse("").is_err());
    }
}
