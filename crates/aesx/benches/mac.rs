//! CCM, CMAC and key wrap: aesx on every available backend against OpenSSL
//! (EVP CCM, `CMAC_*`, EVP AES-WRAP/-PAD) and RustCrypto (`ccm`, `cmac`,
//! `aes-kw`), in one process with the rows interleaved.
//!
//! `cargo bench -p aesx --bench mac [FILTER]`. Each row is timed in short
//! samples, the rows taking turns, `ROUNDS` times; the table gives each
//! row's median and best in MB/s and the ratio of aesx's best backend to
//! the best peer, on the medians. The machine is shared: take the ratios,
//! not the absolute figures. Every library reuses one expanded key; every
//! open/unwrap restores its input first (the same copy for every row).

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use aead::{AeadInOut, KeyInit};
use aesx::{Backend, Ccm, Cmac, KeyWrap};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

const ROUNDS: usize = 31;
const SAMPLE: Duration = Duration::from_micros(1500);
const NONCE: [u8; 12] = [0x24; 12];
const AAD: [u8; 16] = [0xaa; 16];

type Row<'a> = (String, Box<dyn FnMut() + 'a>);

fn backends() -> Vec<Backend> {
    Backend::available()
        .iter()
        .filter(|b| *b != Backend::Soft)
        .collect()
}

/// Times the rows in turns; prints one line per row and the ratio of the
/// best `aesx-*` row to the best other row.
fn table(title: &str, bytes: usize, mut rows: Vec<Row<'_>>) {
    let mut iters = Vec::new();
    for (_, f) in rows.iter_mut() {
        let mut n = 1u64;
        loop {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            if t.elapsed() >= SAMPLE / 4 {
                let per = t.elapsed().as_secs_f64() / n as f64;
                iters.push(((SAMPLE.as_secs_f64() / per) as u64).max(1));
                break;
            }
            n *= 2;
        }
    }
    let mut ns: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    for _ in 0..ROUNDS {
        for (i, (_, f)) in rows.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..iters[i] {
                f();
            }
            ns[i].push(t.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    let mbs = |ns: f64| bytes as f64 / ns * 1e3;
    let mut best_ours = 0f64;
    let mut best_peer = (0f64, String::new());
    for (i, (name, _)) in rows.iter().enumerate() {
        ns[i].sort_by(f64::total_cmp);
        let med = mbs(ns[i][ROUNDS / 2]);
        let top = mbs(ns[i][0]);
        println!(
            "{title:<18} {bytes:>6} B  {name:<16} median {med:>9.1} MB/s  best {top:>9.1} MB/s  {:>8.1} ns",
            ns[i][ROUNDS / 2]
        );
        if name.starts_with("aesx") {
            best_ours = best_ours.max(med);
        } else if med > best_peer.0 {
            best_peer = (med, name.clone());
        }
    }
    println!(
        "{title:<18} {bytes:>6} B  ratio aesx/best peer ({}) = {:.3}\n",
        best_peer.1,
        best_ours / best_peer.0
    );
}

/// The RustCrypto row of a table: `$row!`, a local macro that builds the
/// row over an `aes` crate cipher, instantiated for the key's size.
macro_rules! rustcrypto_row {
    ($bits:expr, $row:ident) => {{
        let f: Box<dyn FnMut()> = if $bits == 128 {
            $row!(aes::Aes128)
        } else {
            $row!(aes::Aes256)
        };
        ("rustcrypto".to_string(), f)
    }};
}

fn ccm_cipher(key: &[u8]) -> &'static CipherRef {
    if key.len() == 16 {
        Cipher::aes_128_ccm()
    } else {
        Cipher::aes_256_ccm()
    }
}

/// An OpenSSL CCM context with the key, nonce length and tag length set
/// once; each message then sets only the nonce.
fn ossl_ccm(key: &[u8], encrypt: bool) -> CipherCtx {
    let mut c = common::evp(ccm_cipher(key), None, encrypt);
    c.set_iv_length(12).unwrap();
    if encrypt {
        c.set_tag_length(16).unwrap();
        c.encrypt_init(None, Some(key), None).unwrap();
    } else {
        c.set_tag(&[0u8; 16]).unwrap();
        c.decrypt_init(None, Some(key), None).unwrap();
    }
    c
}

fn ccm(key: &[u8], n: usize, filter: &str) {
    let bits = key.len() * 8;
    let pt = vec![0x5cu8; n];
    let reference = Ccm::new(key, 16).unwrap();
    let sealed = reference.seal(&NONCE, &AAD, &pt).unwrap();
    let (ct, tag) = sealed.split_at(n);
    for encrypt in [true, false] {
        let title = format!("aes{bits}-ccm-{}", if encrypt { "enc" } else { "dec" });
        if !title.contains(filter) && !filter.is_empty() && !format!("{title} {n}").contains(filter)
        {
            continue;
        }
        let mut rows: Vec<Row<'_>> = Vec::new();
        for b in backends() {
            let c = Ccm::with_backend(key, 16, b).unwrap();
            let mut buf = pt.clone();
            rows.push((
                format!("aesx-{b}"),
                Box::new(move || {
                    if encrypt {
                        black_box(c.seal_in_place_detached(&NONCE, &AAD, &mut buf).unwrap());
                    } else {
                        buf.copy_from_slice(ct);
                        c.open_in_place_detached(&NONCE, &AAD, &mut buf, tag)
                            .unwrap();
                    }
                }),
            ));
        }
        let mut ctx = ossl_ccm(key, encrypt);
        let mut out = vec![0u8; n + 16];
        let mut t = [0u8; 16];
        let pt = &pt;
        rows.push((
            "openssl".into(),
            Box::new(move || {
                if encrypt {
                    ctx.encrypt_init(None, None, Some(&NONCE)).unwrap();
                } else {
                    ctx.set_tag(tag).unwrap();
                    ctx.decrypt_init(None, None, Some(&NONCE)).unwrap();
                }
                ctx.set_data_len(n).unwrap();
                ctx.cipher_update(&AAD, None).unwrap();
                let src = if encrypt { &pt[..] } else { ct };
                let k = ctx.cipher_update(src, Some(&mut out)).unwrap();
                if encrypt {
                    ctx.cipher_final(&mut out[k..]).unwrap();
                    ctx.tag(&mut t).unwrap();
                }
                black_box(&out);
            }),
        ));
        let mut buf = pt.clone();
        macro_rules! rustcrypto {
            ($aes:ty) => {{
                type C = ccm::Ccm<$aes, ccm::consts::U16, ccm::consts::U12>;
                let c = C::new_from_slice(key).unwrap();
                Box::new(move || {
                    let nonce = (&NONCE).into();
                    if encrypt {
                        black_box(
                            c.encrypt_inout_detached(nonce, &AAD, buf.as_mut_slice().into())
                                .unwrap(),
                        );
                    } else {
                        buf.copy_from_slice(ct);
                        c.decrypt_inout_detached(
                            nonce,
                            &AAD,
                            buf.as_mut_slice().into(),
                            tag.try_into().unwrap(),
                        )
                        .unwrap();
                    }
                })
            }};
        }
        rows.push(rustcrypto_row!(bits, rustcrypto));
        table(&title, n, rows);
    }
}

/// OpenSSL's CMAC with the key set once; each message restarts it.
struct OsslCmac(*mut openssl_sys::CMAC_CTX);

impl OsslCmac {
    fn new(key: &[u8]) -> Self {
        let cipher = if key.len() == 16 {
            openssl::symm::Cipher::aes_128_cbc()
        } else {
            openssl::symm::Cipher::aes_256_cbc()
        };
        // SAFETY: a fresh context from OpenSSL, initialised with a key of
        // the cipher's length; both pointers are valid for the call.
        unsafe {
            let ctx = openssl_sys::CMAC_CTX_new();
            assert!(!ctx.is_null());
            let ok = openssl_sys::CMAC_Init(
                ctx,
                key.as_ptr().cast(),
                key.len(),
                cipher.as_ptr(),
                std::ptr::null_mut(),
            );
            assert_eq!(ok, 1);
            OsslCmac(ctx)
        }
    }

    fn mac(&mut self, data: &[u8]) -> [u8; 16] {
        let mut out = [0u8; 16];
        let mut len = 0usize;
        // SAFETY: the context was initialised with a key in `new` (a null
        // key restarts it with that key); `data` and `out` are valid for
        // the lengths passed.
        unsafe {
            assert_eq!(
                openssl_sys::CMAC_Init(
                    self.0,
                    std::ptr::null(),
                    0,
                    std::ptr::null(),
                    std::ptr::null_mut()
                ),
                1
            );
            assert_eq!(
                openssl_sys::CMAC_Update(self.0, data.as_ptr().cast(), data.len()),
                1
            );
            assert_eq!(
                openssl_sys::CMAC_Final(self.0, out.as_mut_ptr(), &mut len),
                1
            );
        }
        out
    }
}

impl Drop for OsslCmac {
    fn drop(&mut self) {
        // SAFETY: made by CMAC_CTX_new, freed once.
        unsafe { openssl_sys::CMAC_CTX_free(self.0) };
    }
}

fn cmac(key: &[u8], n: usize, filter: &str) {
    use cmac::Mac;
    let bits = key.len() * 8;
    let title = format!("aes{bits}-cmac");
    if !filter.is_empty() && !format!("{title} {n}").contains(filter) {
        return;
    }
    let msg = vec![0x3au8; n];
    let want = Cmac::new(key).unwrap().mac(&msg);
    let mut rows: Vec<Row<'_>> = Vec::new();
    for b in backends() {
        let c = Cmac::with_backend(key, b).unwrap();
        let msg = &msg;
        rows.push((
            format!("aesx-{b}"),
            Box::new(move || {
                black_box(c.mac(msg));
            }),
        ));
    }
    let mut o = OsslCmac::new(key);
    assert_eq!(o.mac(&msg), want);
    let msg2 = &msg;
    rows.push((
        "openssl".into(),
        Box::new(move || {
            black_box(o.mac(msg2));
        }),
    ));
    macro_rules! rustcrypto {
        ($aes:ty) => {{
            let c = <cmac::Cmac<$aes> as KeyInit>::new_from_slice(key).unwrap();
            let mut check = c.clone();
            check.update(&msg);
            assert_eq!(check.finalize().into_bytes().as_slice(), &want[..]);
            let msg = &msg;
            Box::new(move || {
                let mut m = c.clone();
                m.update(msg);
                black_box(m.finalize());
            })
        }};
    }
    rows.push(rustcrypto_row!(bits, rustcrypto));
    table(&title, n, rows);
}

fn kw(key: &[u8], n: usize, pad: bool, filter: &str) {
    let bits = key.len() * 8;
    let title = format!("aes{bits}-{}-wrap", if pad { "kwp" } else { "kw" });
    if !filter.is_empty() && !format!("{title} {n}").contains(filter) {
        return;
    }
    let data = vec![0x77u8; n];
    let want = if pad {
        KeyWrap::new(key).unwrap().wrap_pad(&data).unwrap()
    } else {
        KeyWrap::new(key).unwrap().wrap(&data).unwrap()
    };
    let mut rows: Vec<Row<'_>> = Vec::new();
    for b in backends() {
        let k = KeyWrap::with_backend(key, b).unwrap();
        let data = &data;
        let mut out = vec![0u8; want.len()];
        rows.push((
            format!("aesx-{b}"),
            Box::new(move || {
                if pad {
                    k.wrap_pad_to(data, &mut out).unwrap();
                } else {
                    k.wrap_to(data, &mut out).unwrap();
                }
                black_box(&out);
            }),
        ));
    }
    let name = format!("AES-{bits}-WRAP{}", if pad { "-PAD" } else { "" });
    let cipher = Cipher::fetch(None, &name, None).unwrap();
    let mut ctx = CipherCtx::new().unwrap();
    ctx.encrypt_init(Some(&cipher), Some(key), None).unwrap();
    let mut out = vec![0u8; n + 64];
    let data2 = &data;
    let mut ossl = move || {
        ctx.encrypt_init(None, None, None).unwrap();
        let k = ctx.cipher_update(data2, Some(&mut out)).unwrap();
        let m = ctx.cipher_final(&mut out[k..]).unwrap();
        out[..k + m].to_vec()
    };
    assert_eq!(ossl(), want, "OpenSSL agrees");
    rows.push((
        "openssl".into(),
        Box::new(move || {
            black_box(ossl());
        }),
    ));
    let mut out = vec![0u8; want.len()];
    let data = &data;
    macro_rules! rustcrypto {
        ($t:ty) => {{
            let k = <$t>::new_from_slice(key).unwrap();
            assert_eq!(k.wrap_key(data, &mut out).unwrap(), &want[..]);
            Box::new(move || {
                black_box(k.wrap_key(data, &mut out).unwrap());
            })
        }};
    }
    let f: Box<dyn FnMut()> = match (bits, pad) {
        (128, false) => rustcrypto!(aes_kw::KwAes128),
        (128, true) => rustcrypto!(aes_kw::KwpAes128),
        (_, false) => rustcrypto!(aes_kw::KwAes256),
        (_, true) => rustcrypto!(aes_kw::KwpAes256),
    };
    rows.push(("rustcrypto".into(), f));
    table(&title, n, rows);
}

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_default();
    for key in [&[0x42u8; 16][..], &[0x42u8; 32][..]] {
        for n in [64, 1024, 16384] {
            ccm(key, n, &filter);
            cmac(key, n, &filter);
        }
        for n in [32, 64, 256] {
            kw(key, n, false, &filter);
            kw(key, n, true, &filter);
        }
    }
}
