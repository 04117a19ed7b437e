//! The GPU's own figures: the copy bandwidths that bound it, then each mode
//! on device-resident data and host-to-host. Every mode is checked against
//! aesx on the CPU (first and last MiB) before it is timed, so a broken
//! kernel yields an error, not a number.
//!
//! For work on the GPU kernels and for the device checks on a GPU machine
//! (`tools/gpu/check.sh`), through the `cuda_bench` example; `aesx bench
//! --backend cuda` prints the same figures under its host-to-host rows.
//! It lives here, not in aesx-bench, because it times kernels on device
//! memory (launches, device buffers) that only this crate reaches. The
//! other benchmark homes and who each serves: the top of
//! `crates/aesx/benches/modes.rs`.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};

use crate::{CudaAes, CudaError, CudaGcm, CudaXts, Gpu, Result};

/// What a measurement moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A plain copy (the bound).
    Copy,
    /// AES on data already in device memory.
    Device,
    /// AES on host memory, through the pipelined host API.
    HostToHost,
}

/// One result: `bytes` processed in `seconds` (best of the iterations
/// after one warm-up).
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// E.g. "AES-128-CTR".
    pub name: String,
    /// Copy, device-resident or host-to-host.
    pub kind: Kind,
    /// Bytes per run.
    pub bytes: usize,
    /// Best time of one run.
    pub seconds: f64,
}

impl Measurement {
    /// Throughput in GB/s (10^9 bytes per second).
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.seconds / 1e9
    }
}

fn best(iters: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut best = f64::MAX;
    for _ in 0..iters.max(1) {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// First and last MiB of `dev` equal `want(offset, len)`.
fn spot_check(
    g: &Gpu,
    dev: &CudaSlice<u8>,
    what: &str,
    want: impl Fn(usize, usize) -> Vec<u8>,
) -> Result<()> {
    let len = dev.len();
    let m = (1 << 20).min(len);
    for off in [0, len - m] {
        let got = g.stream().clone_dtoh(&dev.slice(off..off + m))?;
        g.synchronize()?;
        if got != want(off, m) {
            return Err(CudaError::Mismatch(format!(
                "{what}: GPU result differs from aesx at offset {off}"
            )));
        }
    }
    Ok(())
}

/// `data`, the bytes at offset `off` of a stream, XORed with the CTR
/// keystream of `cpu` from `iv`: what the GPU's CTR must give.
fn ctr_on_cpu(cpu: &aesx::Aes, iv: &[u8; 16], data: &[u8], off: usize) -> Vec<u8> {
    let mut v = data.to_vec();
    if let Ok(mut c) = aesx::Ctr::from_aes(cpu.clone(), iv) {
        c.seek(off as u128);
        c.apply_keystream(&mut v);
    }
    v
}

/// [`spot_check`] of a CTR result: `dev` is `host` XORed with the keystream
/// of `cpu` from `iv`.
fn spot_check_ctr(
    g: &Gpu,
    dev: &CudaSlice<u8>,
    what: &str,
    cpu: &aesx::Aes,
    iv: &[u8; 16],
    host: &[u8],
) -> Result<()> {
    spot_check(g, dev, what, |off, len| {
        ctr_on_cpu(cpu, iv, &host[off..off + len], off)
    })
}

/// Copies `n` bytes between the pinned buffer at `p` and `dev` (into `dev`
/// when `to_device`, out of it otherwise) and waits for the copy.
///
/// # Safety
///
/// `p` points to `n` pinned bytes that nothing else reads or writes during
/// the call, and `dev` holds at least `n` bytes.
unsafe fn pinned_copy(
    s: &Arc<CudaStream>,
    p: *mut u8,
    dev: &mut CudaSlice<u8>,
    n: usize,
    to_device: bool,
) -> Result<()> {
    // The record stays alive until the copy is synchronised below.
    let (d, _r) = if to_device {
        dev.device_ptr_mut(s)
    } else {
        dev.device_ptr(s)
    };
    if to_device {
        // SAFETY: p holds n bytes (this function's contract); d is dev's
        // address, n bytes, borrowed until the stream is synchronised.
        let src = unsafe { std::slice::from_raw_parts(p, n) };
        // SAFETY: src is the caller's n bytes and d is dev's n bytes, both alive
        // until the copy, ordered on s, is waited for below.
        unsafe { cudarc::driver::result::memcpy_htod_async(d, src, s.cu_stream()) }?;
    } else {
        // SAFETY: p holds n bytes that nothing else touches during the call
        // (this function's contract).
        let dst = unsafe { std::slice::from_raw_parts_mut(p, n) };
        // SAFETY: d is dev's address, n bytes, borrowed until the stream is
        // synchronised below.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, d, s.cu_stream()) }?;
    }
    s.synchronize()?;
    Ok(())
}

/// Runs every measurement on `bytes` bytes (at least 1 MiB, a multiple of
/// 4096), `iters` timed runs each. Takes a few seconds per GiB.
pub fn run(g: &Gpu, bytes: usize, iters: usize) -> Result<Vec<Measurement>> {
    let n = (bytes.max(1 << 20) / 4096) * 4096;
    let mut out = Vec::new();
    let mut push = |name: &str, kind: Kind, seconds: f64| {
        out.push(Measurement {
            name: name.to_string(),
            kind,
            bytes: n,
            seconds,
        })
    };
    let s = g.stream().clone();
    let ctx = g.context().clone();
    let mut host: Vec<u8> = (0..n).map(|i| (i * 131 + 7) as u8).collect();
    let mut dev = s.alloc_zeros::<u8>(n)?;
    let mut dev2 = s.alloc_zeros::<u8>(n)?;

    // ---- copies ----
    {
        // The raw copies act on the thread's current context.
        ctx.bind_to_thread()?;
        // SAFETY: the pinned buffer is only written by the copies below
        // before anything reads it.
        let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<u8>(n, 0) }?;
        let p = pinned.as_mut_ptr()?;
        for (to_device, name) in [
            (true, "copy host->device, pinned"),
            (false, "copy device->host, pinned"),
        ] {
            // SAFETY: p is the n bytes of `pinned`, alive and used by nothing
            // else here; dev holds n bytes.
            let t = best(iters, || unsafe {
                pinned_copy(&s, p, &mut dev, n, to_device)
            })?;
            push(name, Kind::Copy, t);
        }
    }
    let t = best(iters.min(2), || {
        s.memcpy_htod(&host[..], &mut dev)?;
        s.synchronize()?;
        Ok(())
    })?;
    push("copy host->device, pageable", Kind::Copy, t);
    let t = best(iters, || {
        s.memcpy_dtod(&dev, &mut dev2)?;
        s.synchronize()?;
        Ok(())
    })?;
    push("copy device->device", Kind::Copy, t);

    // ---- device-resident ----
    let iv = [0xf0u8; 16];
    let src = s.clone_htod(&host[..])?;
    for (bits, key) in [(128, &[0x2bu8; 16][..]), (256, &[0x3cu8; 32][..])] {
        let k = CudaAes::new(g, key)?;
        let cpu = crate::key_schedule::cpu_aes(key)?;
        k.ctr_apply_device_to(&iv, &src, &mut dev2)?;
        spot_check_ctr(g, &dev2, "CTR", &cpu, &iv, &host)?;
        let t = best(iters, || {
            k.ctr_apply_device_to(&iv, &src, &mut dev2)?;
            g.synchronize()
        })?;
        push(&format!("AES-{bits}-CTR"), Kind::Device, t);
        k.ecb_encrypt_device(&mut dev2)?;
        spot_check(g, &dev2, "ECB", |off, len| {
            let mut v = ctr_on_cpu(&cpu, &iv, &host[off..off + len], off);
            let _ = cpu.encrypt_blocks(&mut v);
            v
        })?;
        let t = best(iters, || {
            k.ecb_encrypt_device(&mut dev2)?;
            g.synchronize()
        })?;
        push(&format!("AES-{bits}-ECB encrypt"), Kind::Device, t);
        let t = best(iters, || {
            k.cbc_decrypt_device(&iv, &src, &mut dev2)?;
            g.synchronize()
        })?;
        push(&format!("AES-{bits}-CBC decrypt"), Kind::Device, t);
    }
    let mut xkey = [0u8; 64];
    for (i, b) in xkey.iter_mut().enumerate() {
        *b = i as u8;
    }
    let x = CudaXts::new(g, &xkey)?;
    let t = best(iters, || {
        x.encrypt_sectors_device(0, 4096, &mut dev)?;
        g.synchronize()
    })?;
    push("AES-256-XTS encrypt, 4 KiB sectors", Kind::Device, t);
    let t = best(iters, || {
        x.decrypt_sectors_device(0, 4096, &mut dev)?;
        g.synchronize()
    })?;
    push("AES-256-XTS decrypt, 4 KiB sectors", Kind::Device, t);
    let gcm = CudaGcm::new(g, &[0x2bu8; 16])?;
    let nonce = [7u8; 12];
    let seal = best(iters, || gcm.seal_device(&nonce, b"", &mut dev).map(|_| ()))?;
    push("AES-128-GCM seal", Kind::Device, seal);
    // An open turns the buffer back into plaintext, so each timed run opens
    // and seals again (same nonce: the same ciphertext and tag); the open's
    // share is the pair less the best seal.
    let tag = gcm.seal_device(&nonce, b"", &mut dev)?;
    let pair = best(iters, || {
        gcm.open_device(&nonce, b"", &mut dev, &tag)?;
        gcm.seal_device(&nonce, b"", &mut dev).map(|_| ())
    })?;
    push(
        "AES-128-GCM open (open+seal less seal)",
        Kind::Device,
        (pair - seal).max(f64::MIN_POSITIVE),
    );
    let gcm256 = CudaGcm::new(g, &[0x3cu8; 32])?;
    let t = best(iters, || {
        gcm256.seal_device(&nonce, b"", &mut dev).map(|_| ())
    })?;
    push("AES-256-GCM seal", Kind::Device, t);

    // ---- host-to-host ----
    // A pageable buffer (staged through pinned memory) and the same bytes
    // in a HostBuffer (moved by the copy engines directly).
    let k = CudaAes::new(g, &[0x2bu8; 16])?;
    let few = iters.min(3);
    let mut pinned = g.host_buffer(n)?;
    pinned.copy_from_slice(&host);
    for (label, buf) in [("", &mut host[..]), (", pinned buffer", &mut pinned[..])] {
        let t = best(few, || k.ctr_apply(&iv, buf))?;
        push(&format!("AES-128-CTR{label}"), Kind::HostToHost, t);
        let t = best(few, || k.ecb_encrypt(buf))?;
        push(&format!("AES-128-ECB encrypt{label}"), Kind::HostToHost, t);
        let t = best(few, || k.cbc_decrypt(&iv, buf))?;
        push(&format!("AES-128-CBC decrypt{label}"), Kind::HostToHost, t);
        let t = best(few, || x.encrypt_sectors(0, 4096, buf))?;
        push(
            &format!("AES-256-XTS encrypt, 4 KiB sectors{label}"),
            Kind::HostToHost,
            t,
        );
        let t = best(few, || x.decrypt_sectors(0, 4096, buf))?;
        push(
            &format!("AES-256-XTS decrypt, 4 KiB sectors{label}"),
            Kind::HostToHost,
            t,
        );
        let seal = best(few, || gcm.seal_in_place(&nonce, b"", buf).map(|_| ()))?;
        push(&format!("AES-128-GCM seal{label}"), Kind::HostToHost, seal);
        // As on the device: open, then seal again (the same ciphertext and
        // tag), timed as a pair, less the best seal.
        let tag = gcm.seal_in_place(&nonce, b"", buf)?;
        let pair = best(few, || {
            gcm.open_in_place(&nonce, b"", buf, &tag)?;
            gcm.seal_in_place(&nonce, b"", buf).map(|_| ())
        })?;
        push(
            &format!("AES-128-GCM open{label} (open+seal less seal)"),
            Kind::HostToHost,
            (pair - seal).max(f64::MIN_POSITIVE),
        );
    }
    drop(pinned);
    // The file format: 16 KiB chunks, each its own nonce, one batch.
    let chunks = n / 16384;
    let nonces: Vec<[u8; 12]> = (0..chunks as u64)
        .map(|i| {
            let mut v = nonce;
            v[4..].copy_from_slice(&i.to_be_bytes());
            v
        })
        .collect();
    let t = best(few, || {
        gcm256
            .seal_messages(&nonces, 16384, &mut host[..chunks * 16384])
            .map(|_| ())
    })?;
    push(
        "AES-256-GCM, 16 KiB chunks (file format)",
        Kind::HostToHost,
        t,
    );
    Ok(out)
}

/// The cost of constant time: AES-CTR on device data with the bitsliced
/// kernel and with a T-table kernel (NOT constant-time, compiled only here,
/// never used for data), side by side in one run, for AES-128 and AES-256.
pub fn ttable_comparison(g: &Gpu, bytes: usize, iters: usize) -> Result<Vec<Measurement>> {
    let n = (bytes.max(1 << 20) / 4096) * 4096;
    let s = g.stream().clone();
    let ptx = crate::kernels::compile_ttable_ptx(&g.info().arch)?;
    let module = g.context().load_module(ptx)?;
    let setup = module.load_function("aesx_tt_setup")?;
    let ctr = module.load_function("aesx_tt_ctr")?;
    let te = s.alloc_zeros::<u32>(256)?;
    let sbox = s.alloc_zeros::<u32>(256)?;
    let (te_p, _r1) = te.device_ptr(&s);
    let (sb_p, _r2) = sbox.device_ptr(&s);
    let mut b = s.launch_builder(&setup);
    b.arg(&te_p).arg(&sb_p);
    // SAFETY: matches aesx_tt_setup(u32*, u32*); both hold 256 words and
    // the kernel writes index < 256 only.
    unsafe {
        b.launch(LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        })
    }?;
    let host: Vec<u8> = (0..n).map(|i| (i * 131 + 7) as u8).collect();
    let src = s.clone_htod(&host[..])?;
    let mut dst = s.alloc_zeros::<u8>(n)?;
    let iv = [0xf0u8; 16];
    let (hi, lo) = crate::plan::counter_halves(&iv);
    let mut out = Vec::new();
    for (bits, key) in [(128, &[0x2bu8; 16][..]), (256, &[0x3cu8; 32][..])] {
        let cpu = crate::key_schedule::cpu_aes(key)?;
        let k = CudaAes::new(g, key)?;
        let run_tt = |dst: &mut CudaSlice<u8>| -> Result<()> {
            let (sp, _a) = src.device_ptr(&s);
            let (dp, _b) = dst.device_ptr_mut(&s);
            let nbytes = n as u64;
            let blocks = n.div_ceil(16) as u64;
            let grid =
                u32::try_from(blocks.div_ceil(256)).map_err(|_| aesx::Error::MessageTooLong)?;
            let mut l = s.launch_builder(&ctr);
            l.arg(&sp)
                .arg(&dp)
                .arg(&nbytes)
                .arg(&k.words_ptr)
                .arg(&k.nr)
                .arg(&hi)
                .arg(&lo)
                .arg(&te_p)
                .arg(&sb_p);
            // SAFETY: matches aesx_tt_ctr(const uchar*, uchar*, u64, const
            // u32*, int, u64, u64, const u32*, const u32*); src and dst hold
            // n bytes, the grid covers every block and the kernel checks
            // its index.
            unsafe {
                l.launch(LaunchConfig {
                    grid_dim: (grid, 1, 1),
                    block_dim: (256, 1, 1),
                    shared_mem_bytes: 0,
                })
            }?;
            Ok(())
        };
        run_tt(&mut dst)?;
        spot_check_ctr(g, &dst, "T-table CTR", &cpu, &iv, &host)?;
        let t = best(iters, || {
            k.ctr_apply_device_to(&iv, &src, &mut dst)?;
            g.synchronize()
        })?;
        out.push(Measurement {
            name: format!("AES-{bits}-CTR bitsliced (constant-time)"),
            kind: Kind::Device,
            bytes: n,
            seconds: t,
        });
        let t = best(iters, || {
            run_tt(&mut dst)?;
            s.synchronize()?;
            Ok(())
        })?;
        out.push(Measurement {
            name: format!("AES-{bits}-CTR T-table (NOT constant-time)"),
            kind: Kind::Device,
            bytes: n,
            seconds: t,
        });
    }
    Ok(out)
}
