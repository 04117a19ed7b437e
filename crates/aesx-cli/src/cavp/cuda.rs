//! `aesx cavp --backend cuda`: the GCM and XTS vector files (NIST CAVP and
//! Wycheproof) through aesx-cuda. Every record is sealed and opened (or
//! encrypted and decrypted) on the GPU through its host-memory API; FAIL and
//! `invalid` records must be refused with no plaintext released.
//!
//! The checks are written against [`Engine`], implemented by the GPU and,
//! in the tests, by aesx on the CPU, so the parsing and the verdicts are
//! tested on machines without a GPU.

use std::path::Path;
use std::process::ExitCode;

use aesx_cuda::{CudaError, CudaGcm, CudaXts, Gpu};

use super::gcm::GcmFile;
use super::rsp::{self, ParseError, Record};
use super::{detect, hx, Direction, Report, Suite};
use crate::{backend_arg, CommandError};

/// A GCM open that was refused: whether for a tag mismatch (then the
/// output must have been zeroed) and whether it was.
pub struct Refused {
    auth: bool,
    zeroed: bool,
    why: String,
}

impl Refused {
    /// The refusal `why`, `auth` if for a tag mismatch, looking at what the
    /// open left in `buf`.
    fn new(auth: bool, buf: &[u8], why: String) -> Refused {
        Refused {
            auth,
            zeroed: buf.iter().all(|&b| b == 0),
            why,
        }
    }
}

/// What a GCM record seals or opens under: key, IV and associated data.
pub struct GcmInput<'a> {
    key: &'a [u8],
    iv: &'a [u8],
    aad: &'a [u8],
}

/// What an XTS record runs under: the double key and the tweak.
pub struct XtsUnit<'a> {
    key: &'a [u8],
    tweak: &'a [u8; 16],
}

/// The operations the vector files need.
pub trait Engine {
    /// Name for the report.
    fn name(&self) -> &str;
    /// GCM seal with a 16-byte tag; errors as text.
    fn gcm_seal(&self, g: &GcmInput, pt: &[u8]) -> Result<(Vec<u8>, [u8; 16]), String>;
    /// GCM open with a tag of any allowed length, in place.
    fn gcm_open(&self, g: &GcmInput, buf: &mut [u8], tag: &[u8]) -> Result<(), Refused>;
    /// XTS of one data unit.
    fn xts(&self, u: &XtsUnit, buf: &mut [u8], decrypt: bool) -> Result<(), String>;
}

/// The GPU.
pub struct GpuEngine(pub Gpu);

fn cuda_msg(e: CudaError) -> String {
    e.to_string()
}

impl Engine for GpuEngine {
    fn name(&self) -> &str {
        "cuda"
    }

    fn gcm_seal(&self, g: &GcmInput, pt: &[u8]) -> Result<(Vec<u8>, [u8; 16]), String> {
        let gcm = CudaGcm::new(&self.0, g.key).map_err(cuda_msg)?;
        let mut buf = pt.to_vec();
        let tag = gcm.seal_in_place(g.iv, g.aad, &mut buf).map_err(cuda_msg)?;
        Ok((buf, tag))
    }

    fn gcm_open(&self, g: &GcmInput, buf: &mut [u8], tag: &[u8]) -> Result<(), Refused> {
        let refused = |buf: &[u8], e: CudaError| {
            let auth = e == CudaError::Aes(aesx::Error::AuthenticationFailed);
            Refused::new(auth, buf, cuda_msg(e))
        };
        let gcm = CudaGcm::new(&self.0, g.key).map_err(|e| refused(buf, e))?;
        gcm.open_in_place(g.iv, g.aad, buf, tag)
            .map_err(|e| refused(buf, e))
    }

    fn xts(&self, u: &XtsUnit, buf: &mut [u8], decrypt: bool) -> Result<(), String> {
        let x = CudaXts::new(&self.0, u.key).map_err(cuda_msg)?;
        if decrypt {
            x.decrypt_unit(u.tweak, buf)
        } else {
            x.encrypt_unit(u.tweak, buf)
        }
        .map_err(cuda_msg)
    }
}

/// Runs `aesx cavp --backend cuda` over `files`.
pub fn run(files: &[std::path::PathBuf]) -> Result<ExitCode, CommandError> {
    let engine = GpuEngine(backend_arg::open_gpu()?);
    let mut tally = super::Tally::default();
    for path in files {
        tally.file(path, run_file(path, &engine), engine.name())?;
    }
    tally.finish()
}

/// One file on `engine`: GCM and XTS files only.
pub fn run_file(path: &Path, engine: &dyn Engine) -> Result<(Suite, Report), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not a text file (invalid UTF-8)")?;
    let suite = detect(path, &text)?;
    let mut report = Report::default();
    let r = match suite {
        Suite::Gcm(f @ (GcmFile::Encrypt | GcmFile::Decrypt)) => nist_gcm(
            f,
            &rsp::parse(&text).map_err(|e| e.to_string())?,
            engine,
            &mut report,
        ),
        Suite::WycheproofGcm(gmac) => wycheproof_gcm(gmac, &text, engine, &mut report),
        Suite::Xts => nist_xts(
            &rsp::parse(&text).map_err(|e| e.to_string())?,
            engine,
            &mut report,
        ),
        Suite::WycheproofXts => wycheproof_xts(&text, engine, &mut report),
        other => {
            return Err(format!(
                "--backend cuda runs the GCM and XTS files only, not {}",
                other.describe()
            ))
        }
    };
    r.map_err(|e| e.to_string())?;
    if report.records == 0 {
        return Err("no test records found".to_string());
    }
    Ok((suite, report))
}

/// One GCM check: `pt` None means the open must be refused.
fn check_gcm(
    engine: &dyn Engine,
    g: &GcmInput,
    pt: Option<&[u8]>,
    ct: &[u8],
    tag: &[u8],
) -> Result<(), String> {
    if let Some(pt) = pt {
        let (got, t) = engine.gcm_seal(g, pt).map_err(|e| format!("seal: {e}"))?;
        if got != ct || t.get(..tag.len()) != Some(tag) {
            return Err(format!(
                "sealed {} tag {}",
                hx(&got),
                hx(&t[..tag.len().min(16)])
            ));
        }
    }
    let mut buf = ct.to_vec();
    match (engine.gcm_open(g, &mut buf, tag), pt) {
        (Ok(()), Some(pt)) if buf == pt => Ok(()),
        (Ok(()), Some(_)) => Err("open gave the wrong plaintext".into()),
        (Ok(()), None) => Err("forged tag accepted".into()),
        (Err(r), None) if r.zeroed || !r.auth => Ok(()),
        (Err(_), None) => Err("refused but output not zeroed".into()),
        (Err(r), Some(_)) => Err(format!("open: {}", r.why)),
    }
}

fn nist_gcm(
    file: GcmFile,
    records: &[Record],
    engine: &dyn Engine,
    report: &mut Report,
) -> Result<(), ParseError> {
    let mut cases = Vec::new();
    for rec in records {
        if file == GcmFile::Encrypt {
            rec.no_fail()?;
        }
        let pt = if rec.fail { None } else { Some(rec.hex("PT")?) };
        cases.push((
            rec.label(),
            rec.hex("KEY")?,
            rec.hex("IV")?,
            rec.hex("AAD")?,
            pt,
            rec.hex("CT")?,
            rec.hex("TAG")?,
        ));
    }
    report.records = cases.len();
    for (label, key, iv, aad, pt, ct, tag) in &cases {
        let g = GcmInput { key, iv, aad };
        let r = check_gcm(engine, &g, pt.as_deref(), ct, tag);
        report.check(r.is_ok(), || {
            format!(
                "{label} on {}: {}",
                engine.name(),
                r.err().unwrap_or_default()
            )
        });
    }
    Ok(())
}

fn json_hex(t: &serde_json::Value, k: &str) -> Result<Vec<u8>, ParseError> {
    rsp::decode_hex(t[k].as_str().unwrap_or(""))
        .map_err(|e| ParseError::at(0, format!("tcId {}: {k}: {e}", t["tcId"])))
}

fn json_groups(text: &str) -> Result<Vec<serde_json::Value>, ParseError> {
    let doc: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| ParseError::at(e.line(), format!("not Wycheproof JSON: {e}")))?;
    doc["testGroups"]
        .as_array()
        .cloned()
        .ok_or_else(|| ParseError::at(0, "no testGroups array"))
}

fn wycheproof_gcm(
    gmac: bool,
    text: &str,
    engine: &dyn Engine,
    report: &mut Report,
) -> Result<(), ParseError> {
    let mut n = 0;
    for g in json_groups(text)? {
        let tag_len = (g["tagSize"].as_u64().unwrap_or(128) / 8) as usize;
        for t in g["tests"].as_array().into_iter().flatten() {
            n += 1;
            let (msg, aad, ct) = if gmac {
                (Vec::new(), json_hex(t, "msg")?, Vec::new())
            } else {
                (json_hex(t, "msg")?, json_hex(t, "aad")?, json_hex(t, "ct")?)
            };
            let (key, iv, tag) = (json_hex(t, "key")?, json_hex(t, "iv")?, json_hex(t, "tag")?);
            let valid = t["result"] != "invalid";
            let g = GcmInput {
                key: &key,
                iv: &iv,
                aad: &aad,
            };
            let r = if valid {
                if tag.len() != tag_len {
                    Err("tag length differs from the group's tagSize".to_string())
                } else {
                    check_gcm(engine, &g, Some(&msg), &ct, &tag)
                }
            } else {
                check_gcm(engine, &g, None, &ct, &tag)
            };
            report.check(r.is_ok(), || {
                format!(
                    "tcId {} on {}: {}",
                    t["tcId"],
                    engine.name(),
                    r.err().unwrap_or_default()
                )
            });
        }
    }
    report.records = n;
    Ok(())
}

/// One XTS check: encrypt (when asked) and decrypt must give the vector.
fn check_xts(
    engine: &dyn Engine,
    encrypt: bool,
    u: &XtsUnit,
    pt: &[u8],
    ct: &[u8],
) -> Result<(), String> {
    for (decrypt, what, input, want) in [(false, "encrypt", pt, ct), (true, "decrypt", ct, pt)] {
        if !decrypt && !encrypt {
            continue;
        }
        let mut buf = input.to_vec();
        engine
            .xts(u, &mut buf, decrypt)
            .map_err(|e| format!("{what}: {e}"))?;
        if buf != want {
            return Err(format!("{what}: {} expected {}", hx(&buf), hx(want)));
        }
    }
    Ok(())
}

fn nist_xts(
    records: &[Record],
    engine: &dyn Engine,
    report: &mut Report,
) -> Result<(), ParseError> {
    report.records = records.len();
    for rec in records {
        rec.no_fail()?;
        let encrypt = Direction::of(rec)? == Direction::Encrypt;
        let bits = rec.number("DATAUNITLEN")?;
        if !bits.is_multiple_of(8) {
            report.skipped += 1;
            report.skip_reason = "data units not a whole number of bytes";
            continue;
        }
        let key = rec.hex("KEY")?;
        let tweak = super::xts::nist_tweak(rec)?;
        let (pt, ct) = (rec.hex("PT")?, rec.hex("CT")?);
        let u = XtsUnit {
            key: &key,
            tweak: &tweak,
        };
        let r = check_xts(engine, encrypt, &u, &pt, &ct);
        report.check(r.is_ok(), || {
            format!(
                "{} on {}: {}",
                rec.label(),
                engine.name(),
                r.err().unwrap_or_default()
            )
        });
    }
    Ok(())
}

fn wycheproof_xts(text: &str, engine: &dyn Engine, report: &mut Report) -> Result<(), ParseError> {
    let mut n = 0;
    for g in json_groups(text)? {
        for t in g["tests"].as_array().into_iter().flatten() {
            n += 1;
            let (key, iv, msg, ct) = (
                json_hex(t, "key")?,
                json_hex(t, "iv")?,
                json_hex(t, "msg")?,
                json_hex(t, "ct")?,
            );
            if key.len() == 48 {
                report.skipped += 1;
                report.skip_reason = "XTS-AES-192 (48-byte keys) is not in IEEE 1619";
                continue;
            }
            if iv.len() > 16 || msg.len() != ct.len() {
                return Err(ParseError::at(
                    0,
                    format!("tcId {}: malformed iv, msg or ct", t["tcId"]),
                ));
            }
            let mut tweak = [0u8; 16];
            tweak[..iv.len()].copy_from_slice(&iv);
            let invalid = t["result"] == "invalid";
            let u = XtsUnit {
                key: &key,
                tweak: &tweak,
            };
            let problem = check_xts(engine, true, &u, &msg, &ct).err();
            let ok = problem.is_none() != invalid;
            report.check(ok, || {
                let why = problem.unwrap_or_else(|| "invalid vector accepted".to_string());
                format!("tcId {} on {}: {why}", t["tcId"], engine.name())
            });
        }
    }
    report.records = n;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// aesx on the CPU behind the same trait: the vector files must pass
    /// through this runner exactly as through the CPU runners.
    struct CpuEngine;

    impl Engine for CpuEngine {
        fn name(&self) -> &str {
            "cpu-model"
        }

        fn gcm_seal(&self, g: &GcmInput, pt: &[u8]) -> Result<(Vec<u8>, [u8; 16]), String> {
            let gcm =
                aesx::Gcm::with_backend(g.key, aesx::Backend::Soft).map_err(|e| e.to_string())?;
            let mut buf = pt.to_vec();
            let t = gcm
                .seal_in_place_detached(g.iv, g.aad, &mut buf)
                .map_err(|e| e.to_string())?;
            Ok((buf, t.as_bytes().try_into().map_err(|_| "tag".to_string())?))
        }

        fn gcm_open(&self, g: &GcmInput, buf: &mut [u8], tag: &[u8]) -> Result<(), Refused> {
            let r = aesx::Gcm::with_backend(g.key, aesx::Backend::Soft)
                .and_then(|gcm| gcm.with_tag_len(tag.len()))
                .and_then(|gcm| gcm.open_in_place_detached(g.iv, g.aad, buf, tag));
            r.map_err(|e| Refused::new(e == aesx::Error::AuthenticationFailed, buf, e.to_string()))
        }

        fn xts(&self, u: &XtsUnit, buf: &mut [u8], decrypt: bool) -> Result<(), String> {
            let x =
                aesx::Xts::with_backend(u.key, aesx::Backend::Soft).map_err(|e| e.to_string())?;
            if decrypt {
                x.decrypt(u.tweak, buf)
            } else {
                x.encrypt(u.tweak, buf)
            }
            .map_err(|e| e.to_string())
        }
    }

    fn vectors() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
    }

    #[test]
    fn gcm_and_xts_files_pass_through_the_engine_runner() {
        for (f, min) in [
            ("nist/GCM/gcmDecrypt128.rsp", 1000),
            ("wycheproof/aes_gcm_test.json", 100),
            ("wycheproof/aes_gmac_test.json", 10),
            ("wycheproof/aes_xts_test.json", 80),
        ] {
            let (_, r) = run_file(&vectors().join(f), &CpuEngine).unwrap();
            assert_eq!(r.failed, 0, "{f}: {:?}", r.failures);
            assert!(r.passed >= min, "{f}: only {}", r.passed);
        }
        let xts = std::fs::read_dir(vectors().join("nist/XTS/tweak-128hexstr")).unwrap();
        let mut n = 0;
        for e in xts {
            let (_, r) = run_file(&e.unwrap().path(), &CpuEngine).unwrap();
            assert_eq!(r.failed, 0, "{:?}", r.failures);
            n += r.passed;
        }
        assert!(n > 100);
    }

    #[test]
    fn other_files_are_refused_by_name() {
        let e = run_file(
            &vectors().join("nist/XTS/../GCM/../../wycheproof/aes_cbc_pkcs5_test.json"),
            &CpuEngine,
        );
        assert!(e.is_err());
    }
}
