//! Every backend this machine runs, through every public mode, against the
//! soft backend: a backend whose family has no kernel behind some entry of
//! the engine (a key that cannot be built, a call that reaches nothing, the
//! messages of one family skipped by multi-buffer CBC) gives other bytes
//! than soft, or none, and fails here. A few messages per mode (lengths
//! around the block and batch edges), every key size each mode takes; the
//! dense per-length comparisons are in `cross_backend.rs` and the mode
//! tests.

use aesx::{
    cbc_encrypt_many, Aes, Backend, Cbc, CbcJob, Ccm, Cfb, Cfb8, Cmac, Ctr, Ecb, Esp, Gcm, GcmSiv,
    KeyWrap, Ofb, Padding, Xaes256Gcm, Xts,
};

/// Message lengths: empty, partial, whole blocks, around the widest kernels'
/// batches (up to 32 blocks), and a long odd one.
const LENGTHS: [usize; 9] = [0, 1, 15, 16, 17, 64, 255, 512 + 48 + 5, 4096 + 7];

/// `len` bytes that differ with `seed`.
fn bytes(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// The backends this machine runs other than soft; every one of the list's
/// backends the CPU has must build keys.
fn hardware() -> Vec<Backend> {
    let set = Backend::available();
    let runs: Vec<Backend> = Backend::ALL
        .into_iter()
        .filter(|&b| b != Backend::Soft && set.contains(b))
        .collect();
    eprintln!("checking {runs:?} against soft");
    runs
}

/// Runs `f` on soft and on `b` and asserts the two outputs agree.
fn same<T: PartialEq + std::fmt::Debug>(b: Backend, what: &str, f: impl Fn(Backend) -> T) {
    assert_eq!(f(b), f(Backend::Soft), "{b}: {what}");
}

#[test]
fn every_family_has_a_kernel_behind_every_mode() {
    for b in hardware() {
        for key_len in [16, 24, 32] {
            let key = bytes(key_len, 1);
            let key2 = bytes(2 * key_len, 2);
            let iv = [9u8; 16];
            same(b, "block", |b| {
                let aes = Aes::with_backend(&key, b).unwrap();
                let mut one = [5u8; 16];
                aes.encrypt_block(&mut one);
                let mut back = one;
                aes.decrypt_block(&mut back);
                let mut many = bytes(16 * 37, 3);
                aes.encrypt_blocks(&mut many).unwrap();
                let mut dec = many.clone();
                aes.decrypt_blocks(&mut dec).unwrap();
                (one, back, many, dec)
            });
            for len in LENGTHS {
                let msg = bytes(len, len as u8);
                let whole = &msg[..len - len % 16];
                same(b, &format!("ecb {key_len} {len}"), |b| {
                    let ecb = Ecb::with_backend(&key, b).unwrap();
                    let ct = ecb.encrypt_vec(&msg, Padding::Pkcs7).unwrap();
                    (ecb.decrypt_vec(&ct, Padding::Pkcs7).unwrap(), ct)
                });
                same(b, &format!("cbc {key_len} {len}"), |b| {
                    let cbc = Cbc::with_backend(&key, b).unwrap();
                    let ct = cbc.encrypt_vec(&iv, &msg, Padding::Pkcs7).unwrap();
                    let pt = cbc.decrypt_vec(&iv, &ct, Padding::Pkcs7).unwrap();
                    let mut raw = whole.to_vec();
                    cbc.decrypt_in_place(&iv, &mut raw).unwrap();
                    (ct, pt, raw)
                });
                same(b, &format!("ctr {key_len} {len}"), |b| {
                    let mut buf = msg.clone();
                    Ctr::with_backend(&key, &iv, b)
                        .unwrap()
                        .apply_keystream(&mut buf);
                    buf
                });
                same(b, &format!("cfb/cfb8/ofb {key_len} {len}"), |b| {
                    let (mut c, mut c8, mut o) = (msg.clone(), msg.clone(), msg.clone());
                    Cfb::with_backend(&key, &iv, b).unwrap().encrypt(&mut c);
                    let mut d = c.clone();
                    Cfb::with_backend(&key, &iv, b).unwrap().decrypt(&mut d);
                    Cfb8::with_backend(&key, &iv, b).unwrap().encrypt(&mut c8);
                    Ofb::with_backend(&key, &iv, b)
                        .unwrap()
                        .apply_keystream(&mut o);
                    (c, d, c8, o)
                });
                same(b, &format!("cmac {key_len} {len}"), |b| {
                    Cmac::with_backend(&key, b).unwrap().mac(&msg)
                });
                same(b, &format!("gcm {key_len} {len}"), |b| {
                    let gcm = Gcm::with_backend(&key, b).unwrap();
                    let ct = gcm.seal(&iv[..12], b"aad", &msg).unwrap();
                    let pt = gcm.open(&iv[..12], b"aad", &ct).unwrap();
                    let long_nonce = gcm.seal(&iv, &msg, &msg).unwrap();
                    let mut enc = gcm.encryptor(&iv[..12]).unwrap();
                    let mut streamed = msg.clone();
                    let (a, rest) = streamed.split_at_mut(len / 3);
                    enc.encrypt_in_place(a).unwrap();
                    enc.encrypt_in_place(rest).unwrap();
                    let tag = enc.finish();
                    (ct, pt, long_nonce, streamed, tag.as_bytes().to_vec())
                });
                same(b, &format!("ccm {key_len} {len}"), |b| {
                    let ccm = Ccm::with_backend(&key, 16, b).unwrap();
                    let ct = ccm.seal(&iv[..12], b"aad", &msg).unwrap();
                    (ccm.open(&iv[..12], b"aad", &ct).unwrap(), ct)
                });
                if key_len != 24 {
                    same(b, &format!("xts {key_len} {len}"), |b| {
                        let xts = Xts::with_backend(&key2, b).unwrap();
                        let mut buf = msg.clone();
                        if len >= 16 {
                            xts.encrypt(&iv, &mut buf).unwrap();
                        }
                        let mut sectors = bytes(4096, 7);
                        xts.encrypt_sector(3, &mut sectors).unwrap();
                        (buf, sectors)
                    });
                    same(b, &format!("gcm-siv {key_len} {len}"), |b| {
                        let siv = GcmSiv::with_backend(&key, b).unwrap();
                        let ct = siv.seal(&iv[..12], b"aad", &msg).unwrap();
                        (siv.open(&iv[..12], b"aad", &ct).unwrap(), ct)
                    });
                }
                if key_len == 32 {
                    same(b, &format!("xaes {len}"), |b| {
                        let xaes = Xaes256Gcm::with_backend(&key, b).unwrap();
                        let ct = xaes.seal(&[4; 24], b"aad", &msg).unwrap();
                        (xaes.open(&[4; 24], b"aad", &ct).unwrap(), ct)
                    });
                }
                if len >= 16 && len % 8 == 0 {
                    same(b, &format!("kw {key_len} {len}"), |b| {
                        let kw = KeyWrap::with_backend(&key, b).unwrap();
                        let w = kw.wrap(&msg).unwrap();
                        (
                            kw.unwrap(&w).unwrap(),
                            w,
                            kw.wrap_pad(&msg[..len - 3]).unwrap(),
                        )
                    });
                }
            }
            same(b, &format!("esp {key_len}"), |b| {
                let esp = Esp::with_backend(&key, &[1, 2, 3, 4], 16, b).unwrap();
                let mut buf = bytes(1400, 5);
                let tag = esp.seal_in_place(&[6; 8], b"spi:seq.", &mut buf).unwrap();
                (buf, tag.as_bytes().to_vec())
            });
        }
    }
}

/// Multi-buffer CBC with keys of every backend in one call, and of each
/// backend alone: every message must come out as one CBC stream per key
/// gives it, so a family whose messages the engine never hands to its
/// kernel (they would stay plaintext) fails.
#[test]
fn cbc_encrypt_many_reaches_every_family() {
    let mut backends = hardware();
    backends.push(Backend::Soft);
    let one = |aes: &Aes, iv: [u8; 16], data: &[u8]| {
        let mut want = data.to_vec();
        let cbc = Cbc::with_backend(&bytes(16, 40), aes.backend()).unwrap();
        cbc.encrypt_in_place(&iv, &mut want).unwrap();
        want
    };
    let keys: Vec<Aes> = backends
        .iter()
        .map(|&b| Aes::with_backend(&bytes(16, 40), b).unwrap())
        .collect();
    // Mixed: the keys of every backend interleaved, more messages than the
    // widest kernel takes at once.
    let mut msgs: Vec<(usize, [u8; 16], Vec<u8>)> = (0..3 * 8 * keys.len())
        .map(|i| {
            (
                i % keys.len(),
                [i as u8; 16],
                bytes(16 * (1 + i % 5), i as u8),
            )
        })
        .collect();
    let want: Vec<Vec<u8>> = msgs
        .iter()
        .map(|(k, iv, d)| one(&keys[*k], *iv, d))
        .collect();
    let mut jobs: Vec<CbcJob<'_>> = msgs
        .iter_mut()
        .map(|(k, iv, data)| CbcJob {
            key: &keys[*k],
            iv: *iv,
            data,
        })
        .collect();
    cbc_encrypt_many(&mut jobs).unwrap();
    for (i, job) in jobs.iter().enumerate() {
        let b = keys[i % keys.len()].backend();
        assert_eq!(job.data, &want[i][..], "{b}: message {i}");
        assert_eq!(job.iv[..], want[i][want[i].len() - 16..], "{b}: iv {i}");
    }
    // Each backend alone.
    for key in &keys {
        let mut data: Vec<Vec<u8>> = (0..5).map(|i| bytes(16 * (3 + i), i as u8)).collect();
        let want: Vec<Vec<u8>> = data.iter().map(|d| one(key, [1; 16], d)).collect();
        let mut jobs: Vec<CbcJob<'_>> = data
            .iter_mut()
            .map(|d| CbcJob {
                key,
                iv: [1; 16],
                data: d,
            })
            .collect();
        cbc_encrypt_many(&mut jobs).unwrap();
        for (job, w) in jobs.iter().zip(&want) {
            assert_eq!(job.data, &w[..], "{} alone", key.backend());
        }
    }
}

/// The RustCrypto block cipher hands a mode crate's closure the family's own
/// kernel type: `ctr` over it must match soft on every backend.
#[cfg(feature = "rustcrypto")]
#[test]
fn rustcrypto_closures_reach_every_family() {
    use cipher::{InnerIvInit, StreamCipher};
    for b in hardware() {
        same(b, "ctr crate over Aes128", |b| {
            let aes = aesx::Aes128::with_backend(&[3; 16], b).unwrap();
            let core =
                ctr::CtrCore::<_, ctr::flavors::Ctr128BE>::inner_iv_init(aes, &[2; 16].into());
            let mut buf = bytes(16 * 70 + 5, 1);
            ctr::Ctr128BE::from_core(core).apply_keystream(&mut buf);
            buf
        });
    }
}
