//! AES-GCM-SIV and XAES-256-GCM seal throughput, peers interleaved in one
//! process: aesx (every available backend, or `AESX_BACKEND`), RustCrypto
//! `aes-gcm-siv`, OpenSSL EVP (vendored) for GCM-SIV; RustCrypto
//! `xaes-256-gcm` and aesx AES-256-GCM (one expanded key) for XAES.
//!
//! `cargo run --release -p aesx --example siv_speed [ROUNDS]`
//!
//! Each round times every contender once (about 1 ms each) in turn; the
//! table shows each one's fastest round, since load from other processes
//! only ever adds time. `SIV_SIZES=64,16384` picks the message sizes,
//! `SIV_ONLY=xaes` the contenders whose names contain a string.

use std::time::Instant;

use aes_gcm_siv::aead::{AeadInOut, KeyInit};
use aesx::{Backend, Gcm, GcmSiv, Xaes256Gcm};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;

fn sizes() -> Vec<usize> {
    match std::env::var("SIV_SIZES") {
        Ok(v) => v.split(',').map(|x| x.trim().parse().unwrap()).collect(),
        Err(_) => vec![64, 1024, 8192, 16384],
    }
}

type Job<'a> = (String, Box<dyn FnMut() + 'a>);

const AAD: [u8; 16] = [0xaa; 16];

/// aesx's AEADs as the jobs use them: the types share these methods by
/// name, not by a trait.
trait AesxSeal {
    fn make(key: &[u8], b: Backend) -> Self;
    fn seal(&self, nonce: &[u8], buf: &mut [u8]);
}

macro_rules! aesx_seal {
    ($($ty:ty),*) => {$(
        impl AesxSeal for $ty {
            fn make(key: &[u8], b: Backend) -> Self {
                <$ty>::with_backend(key, b).unwrap()
            }

            fn seal(&self, nonce: &[u8], buf: &mut [u8]) {
                std::hint::black_box(self.seal_in_place_detached(nonce, &AAD, buf).unwrap());
            }
        }
    )*};
}

aesx_seal!(GcmSiv, Xaes256Gcm, Gcm);

/// A job `{name}-{b}`: aesx's `A` on backend `b` sealing the next of
/// `bufs` in place.
fn aesx_job<'a, A: AesxSeal + 'a>(
    name: &str,
    key: &[u8],
    b: Backend,
    nonce: &'a [u8],
    bufs: &mut impl Iterator<Item = &'a mut Vec<u8>>,
) -> Job<'a> {
    let aead = A::make(key, b);
    let buf = bufs.next().unwrap();
    (
        format!("{name}-{b}"),
        Box::new(move || aead.seal(nonce, buf)),
    )
}

fn time_ns(f: &mut dyn FnMut(), iters: u64) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    t.elapsed().as_nanos() as f64 / iters as f64
}

/// Best (lowest) ns per call of each job over `rounds` interleaved rounds.
fn race(jobs: &mut Vec<Job<'_>>, rounds: usize) -> Vec<f64> {
    if let Ok(only) = std::env::var("SIV_ONLY") {
        jobs.retain(|(name, _)| name.contains(&only));
    }
    let mut iters = Vec::new();
    for (_, f) in jobs.iter_mut() {
        let one = time_ns(f.as_mut(), 10).max(1.0);
        iters.push(((1e6 / one) as u64).max(1));
    }
    let mut samples = vec![Vec::new(); jobs.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in jobs.iter_mut().enumerate() {
            samples[i].push(time_ns(f.as_mut(), iters[i]));
        }
    }
    samples
        .into_iter()
        .map(|s| {
            // The fastest round: other processes only ever add time.
            s.iter().copied().fold(f64::INFINITY, f64::min)
        })
        .collect()
}

fn report(title: &str, n: usize, jobs: &[Job<'_>], ns: &[f64], peers: &[&str]) {
    let best_peer = jobs
        .iter()
        .zip(ns)
        .filter(|((name, _), _)| peers.iter().any(|p| name.starts_with(p)))
        .map(|(_, &t)| t)
        .fold(f64::INFINITY, f64::min);
    println!("{title} {n} B:");
    for ((name, _), &t) in jobs.iter().zip(ns) {
        println!(
            "  {name:<22} {:>9.1} ns {:>8.0} MB/s  x{:.2} vs best peer",
            t,
            n as f64 / t * 1e3,
            best_peer / t
        );
    }
}

/// RustCrypto's `aes-gcm-siv` sealing `buf` in place.
fn rustcrypto<'a, C: AeadInOut + KeyInit + 'a>(key: &[u8], buf: &'a mut Vec<u8>) -> Job<'a>
where
    aes_gcm_siv::aead::Nonce<C>: From<[u8; 12]>,
{
    let rc = C::new_from_slice(key).unwrap();
    let nonce = aes_gcm_siv::aead::Nonce::<C>::from([0x24u8; 12]);
    (
        "rustcrypto".into(),
        Box::new(move || {
            std::hint::black_box(
                rc.encrypt_inout_detached(&nonce, &[0xaa; 16], buf.as_mut_slice().into())
                    .unwrap(),
            );
        }),
    )
}

fn backends() -> Vec<Backend> {
    match std::env::var("AESX_BACKEND") {
        Ok(v) if !v.is_empty() => vec![v.parse().unwrap()],
        _ => Backend::available()
            .iter()
            .filter(|&b| b != Backend::Soft)
            .collect(),
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(31);
    let aad = AAD;
    let nonce = [0x24u8; 12];
    let xnonce = [0x42u8; 24];
    for key_len in [16usize, 32] {
        let key = vec![0x11u8; key_len];
        for n in sizes() {
            let mut bufs: Vec<Vec<u8>> = vec![vec![0x5c; n]; 8];
            let mut it = bufs.iter_mut();
            let mut jobs: Vec<Job<'_>> = backends()
                .into_iter()
                .map(|b| aesx_job::<GcmSiv>("aesx", &key, b, &nonce, &mut it))
                .collect();
            let buf = it.next().unwrap();
            jobs.push(if key_len == 16 {
                rustcrypto::<aes_gcm_siv::Aes128GcmSiv>(&key, buf)
            } else {
                rustcrypto::<aes_gcm_siv::Aes256GcmSiv>(&key, buf)
            });
            let name = if key_len == 16 {
                "AES-128-GCM-SIV"
            } else {
                "AES-256-GCM-SIV"
            };
            let cipher = Cipher::fetch(None, name, None).unwrap();
            let mut ctx = CipherCtx::new().unwrap();
            ctx.encrypt_init(Some(&cipher), Some(&key), None).unwrap();
            let src = vec![0x5cu8; n];
            let out = it.next().unwrap();
            out.resize(n + 16, 0);
            jobs.push((
                "openssl".into(),
                Box::new(move || {
                    ctx.encrypt_init(None, None, Some(&nonce)).unwrap();
                    ctx.cipher_update(&aad, None).unwrap();
                    let k = ctx.cipher_update(&src, Some(out)).unwrap();
                    ctx.cipher_final(&mut out[k..]).unwrap();
                    let mut tag = [0u8; 16];
                    ctx.tag(&mut tag).unwrap();
                    std::hint::black_box(tag);
                }),
            ));
            let ns = race(&mut jobs, rounds);
            report(
                &format!("gcm-siv-{}-seal", key_len * 8),
                n,
                &jobs,
                &ns,
                &["rustcrypto", "openssl"],
            );
        }
    }
    let key = [0x11u8; 32];
    for n in sizes() {
        let mut bufs: Vec<Vec<u8>> = vec![vec![0x5c; n]; 8];
        let mut it = bufs.iter_mut();
        // Each backend's XAES next to its AES-256-GCM, the target.
        let mut jobs: Vec<Job<'_>> = Vec::new();
        for b in backends() {
            jobs.push(aesx_job::<Xaes256Gcm>("xaes", &key, b, &xnonce, &mut it));
            jobs.push(aesx_job::<Gcm>("gcm256", &key, b, &nonce, &mut it));
        }
        let rc = xaes_256_gcm::Xaes256Gcm::new_from_slice(&key).unwrap();
        let buf = it.next().unwrap();
        let xn = xaes_256_gcm::Nonce::from(xnonce);
        jobs.push((
            "rustcrypto-xaes".into(),
            Box::new(move || {
                std::hint::black_box(
                    rc.encrypt_inout_detached(&xn, &aad, buf.as_mut_slice().into())
                        .unwrap(),
                );
            }),
        ));
        let ns = race(&mut jobs, rounds);
        report(
            "xaes-seal (peer: RustCrypto xaes-256-gcm; target: gcm256 on the same backend)",
            n,
            &jobs,
            &ns,
            &["rustcrypto"],
        );
    }
}
