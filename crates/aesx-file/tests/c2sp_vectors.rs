//! The Wycheproof c2sp.org/chunked-encryption vectors against the payload
//! layer, applied as `vectors/wycheproof/c2sp_chunked_encryption.md` says:
//! streaming (sequential reader and parallel batches), random access (final
//! chunk authentication), raw mode, and encryption with the salt injected.

use std::io::Read;

use aesx::Backend;
use serde_json::Value;
use sha2::{Digest, Sha512};

use aesx_file::payload::*;

mod common;
use common::reader::DecryptReader;

fn vectors(name: &str) -> Value {
    let path = format!(
        "{}/../../vectors/wycheproof/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn hex_field(t: &Value, k: &str) -> Option<Vec<u8>> {
    t.get(k)
        .and_then(|v| v.as_str())
        .map(|s| hex::decode(s).unwrap())
}

fn inflate(z: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(z)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Reads a DecryptReader to its end or first error; returns the output and
/// the error, after checking that a further read fails again.
fn drain(mut r: impl Read) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 5000];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => {
                // Sticky: a reader that failed never reports a clean end.
                for _ in 0..3 {
                    assert!(r.read(&mut buf).is_err(), "error did not stick");
                }
                return (out, Some(e.to_string()));
            }
        }
    }
}

struct Case {
    id: u64,
    suite: Suite,
    key: Vec<u8>,
    ctx: Vec<u8>,
    ct: Vec<u8>,
    valid: bool,
    flags: Vec<String>,
    msg_len: Option<usize>,
    msg_sha: Option<Vec<u8>>,
    aead_key: Option<Vec<u8>>,
    base_nonce: Option<Vec<u8>>,
}

impl Case {
    fn has(&self, f: &str) -> bool {
        self.flags.iter().any(|x| x == f)
    }

    /// Checks a decryption outcome against the vector's rules.
    fn check(&self, how: &str, out: &[u8], err: Option<String>) {
        let id = self.id;
        if self.valid {
            assert!(
                err.is_none(),
                "tc {id} ({how}): valid vector failed: {err:?}"
            );
            assert_eq!(Some(out.len()), self.msg_len, "tc {id} ({how}): length");
            assert_eq!(
                Some(Sha512::digest(out).to_vec()),
                self.msg_sha,
                "tc {id} ({how}): hash"
            );
            return;
        }
        assert!(err.is_some(), "tc {id} ({how}): invalid vector accepted");
        if self.has("PartialPlaintext") {
            let max = self.msg_len.unwrap();
            assert!(
                out.len() <= max,
                "tc {id} ({how}): {} bytes released, prefix is {max}",
                out.len()
            );
            if out.len() == max {
                assert_eq!(
                    Some(Sha512::digest(out).to_vec()),
                    self.msg_sha,
                    "tc {id} ({how})"
                );
            }
        } else {
            assert!(
                out.is_empty(),
                "tc {id} ({how}): released {} bytes",
                out.len()
            );
        }
    }
}

fn cases(file: &str) -> Vec<Case> {
    let v = vectors(file);
    let mut all = Vec::new();
    for g in v["testGroups"].as_array().unwrap() {
        assert_eq!(g["sha"], "SHA-512");
        let suite = match g["aead"].as_str().unwrap() {
            "AEAD_AES_128_GCM" => Suite::Aes128Gcm,
            "AEAD_AES_256_GCM" => Suite::Aes256Gcm,
            a => panic!("unknown aead {a}"),
        };
        for t in g["tests"].as_array().unwrap() {
            all.push(Case {
                id: t["tcId"].as_u64().unwrap(),
                suite,
                key: hex_field(t, "key").unwrap(),
                ctx: hex_field(t, "ctx").unwrap(),
                ct: inflate(&hex_field(t, "ct").unwrap()),
                valid: t["result"] == "valid",
                flags: t["flags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_string())
                    .collect(),
                msg_len: t
                    .get("msgLength")
                    .and_then(|v| v.as_u64())
                    .map(|v| v as usize),
                msg_sha: hex_field(t, "msgSha512"),
                aead_key: hex_field(t, "aeadKey"),
                base_nonce: hex_field(t, "baseNonce"),
            });
        }
    }
    assert!(all.len() >= 30, "{file}: only {} vectors", all.len());
    all
}

fn run_file(file: &str, backend: Backend, max_len: usize) {
    for c in cases(file).into_iter().filter(|c| c.ct.len() <= max_len) {
        let id = c.id;
        // Streaming, one chunk at a time.
        match DecryptReader::new(&c.ct[..], c.suite, &c.key, &c.ctx, backend) {
            Err(e) => {
                assert!(
                    c.has("HeaderFailure"),
                    "tc {id}: header rejected ({e}) but the vector has no HeaderFailure"
                );
                if c.has("InvalidKeySize") {
                    assert!(
                        matches!(e, PayloadError::InvalidKeySize { .. }),
                        "tc {id}: {e}"
                    );
                }
                assert!(!c.valid);
            }
            Ok(r) => {
                assert!(!c.has("HeaderFailure"), "tc {id}: header accepted");
                let (out, err) = drain(r);
                c.check("stream", &out, err);
            }
        }

        // Parallel batches over the whole payload, as the CLI runs them.
        if let Ok(cipher) = open_header(c.suite, &c.key, &c.ctx, &c.ct, backend) {
            let body = &c.ct[PAYLOAD_HEADER_LEN..];
            let mut out = Vec::new();
            let mut opener = Opener::new(cipher);
            // Whole chunks in one batch, then the rest at EOF.
            let split = (body.len() / ENC_CHUNK_LEN / 2) * ENC_CHUNK_LEN;
            let mut released = Vec::new();
            let mut err = None;
            for (part, eof) in [(&body[..split], false), (&body[split..], true)] {
                match opener.open_batch(part, eof, &mut out, 3) {
                    Ok(()) => released.extend_from_slice(&out),
                    Err(e) => {
                        released.extend_from_slice(&out[..e.valid]);
                        err = Some(e.error.to_string());
                        break;
                    }
                }
            }
            if err.is_some() {
                assert!(
                    opener.open_batch(&[], true, &mut out, 1).is_err(),
                    "tc {id}: not sticky"
                );
            }
            c.check("batches", &released, err);

            // Random access: authenticate the length through the final chunk.
            let final_ok = Layout::from_len(body.len() as u64).and_then(|l| {
                let (pos, len) = l.chunk_span(l.chunks - 1, body.len() as u64);
                let mut o = Vec::new();
                let ct = &body[pos as usize..pos as usize + len];
                Opener::at(
                    open_header(c.suite, &c.key, &c.ctx, &c.ct, backend)?,
                    l.chunks - 1,
                )
                .open_batch(ct, true, &mut o, 1)
                .map_err(|e| e.error)
            });
            if c.valid {
                assert!(
                    final_ok.is_ok(),
                    "tc {id}: final chunk of a valid vector: {final_ok:?}"
                );
            } else if !c.has("ValidFinalChunk") {
                assert!(final_ok.is_err(), "tc {id}: final chunk authenticated");
            }
        }

        // Raw mode.
        if !c.has("HeaderFailure") {
            let nonce: [u8; NONCE_LEN] = c.base_nonce.as_deref().unwrap().try_into().unwrap();
            let aead_key = c.aead_key.as_deref().unwrap();
            let raw = ChunkCipher::new(aead_key, nonce, backend).unwrap();
            let body = &c.ct[PAYLOAD_HEADER_LEN.min(c.ct.len())..];
            let (out, err) = drain(DecryptReader::from_cipher(body, raw.clone()));
            c.check("raw", &out, err);
            if c.valid {
                // Raw encryption is deterministic.
                let mut again = Vec::new();
                Sealer::new(raw)
                    .seal_batch(&out, true, &mut again, 2)
                    .unwrap();
                assert_eq!(again, body, "tc {id}: raw re-encryption");
                // And with the salt injected, the whole ciphertext.
                let salt: [u8; SALT_LEN] = c.ct[..SALT_LEN].try_into().unwrap();
                let (h, cipher) = seal_header(c.suite, &c.key, &c.ctx, &salt, backend).unwrap();
                assert_eq!(&h[..], &c.ct[..PAYLOAD_HEADER_LEN], "tc {id}: header");
                let mut full = Vec::new();
                Sealer::new(cipher)
                    .seal_batch(&out, true, &mut full, 3)
                    .unwrap();
                assert_eq!(full, body, "tc {id}: re-encryption with the salt");
            }
        }
    }
}

#[test]
fn wycheproof_cobblestone_256() {
    run_file(
        "c2sp_chunked_encryption_aes_256_gcm_test.json",
        Backend::fastest(),
        usize::MAX,
    );
}

#[test]
fn wycheproof_cobblestone_128() {
    run_file(
        "c2sp_chunked_encryption_aes_128_gcm_test.json",
        Backend::fastest(),
        usize::MAX,
    );
}

#[test]
fn wycheproof_on_every_backend() {
    // The portable backend is slow in test builds: the 4 MiB counter
    // rollover vectors run on the fastest backend above; every other
    // backend runs the rest of both files.
    for b in Backend::available().iter() {
        if b != Backend::fastest() {
            for f in ["128", "256"] {
                run_file(
                    &format!("c2sp_chunked_encryption_aes_{f}_gcm_test.json"),
                    b,
                    1 << 20,
                );
            }
        }
    }
}
