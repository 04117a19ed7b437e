//! Throughput of the GPU backend on one device, next to the copy bandwidths
//! that bound it. Run on a machine with an NVIDIA GPU:
//!
//! ```text
//! cargo run --release -p aesx-cuda --example cuda_bench -- [MiB] [iterations]
//! ```
//!
//! Prints one line per measurement (GB/s with 1 GB = 10^9 bytes, best of the
//! iterations after one warm-up) and a JSON object at the end. Before timing,
//! each device mode is checked against aesx on the CPU on the first and last
//! MiB, so a broken kernel cannot produce a number.

use std::time::Instant;

use aesx_cuda::{CudaAes, CudaGcm, CudaXts, Gpu};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

fn best(iters: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::MAX;
    for _ in 0..iters {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn gbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e9
}

/// First and last MiB of `dev` equal `want(offset, len)`.
fn spot_check(g: &Gpu, dev: &CudaSlice<u8>, what: &str, want: impl Fn(usize, usize) -> Vec<u8>) {
    let len = dev.len();
    let m = (1 << 20).min(len);
    for off in [0, len - m] {
        let got = g
            .stream()
            .clone_dtoh(&dev.slice(off..off + m))
            .expect("dtoh");
        g.synchronize().expect("sync");
        assert!(
            got == want(off, m),
            "{what}: GPU result differs from aesx at offset {off}"
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let n = mib << 20;
    let g = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("cuda_bench: {e}");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    println!(
        "device: {:?} (module ready in {:.1} s)",
        g.info(),
        t.elapsed().as_secs_f64()
    );
    let mut results: Vec<(String, f64)> = Vec::new();
    let mut report = |name: &str, v: f64| {
        println!("{name:<44} {v:>9.1} GB/s");
        results.push((name.to_string(), v));
    };
    let s = g.stream().clone();
    let ctx = g.context().clone();

    // ---- copy bandwidths ----
    let mut host = vec![0x5au8; n];
    // SAFETY: written by the copies below before any read.
    let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<u8>(n, 0) }.expect("pinned");
    let mut dev = s.alloc_zeros::<u8>(n).expect("alloc");
    let mut dev2 = s.alloc_zeros::<u8>(n).expect("alloc");
    let p_ptr = pinned.as_mut_ptr().expect("pinned ptr");
    let h2d = best(iters, || {
        let (d, _r) = dev.device_ptr_mut(&s);
        // SAFETY: p_ptr is n pinned bytes; d is n device bytes; synchronised.
        unsafe {
            let src = std::slice::from_raw_parts(p_ptr, n);
            cudarc::driver::result::memcpy_htod_async(d, src, s.cu_stream()).expect("h2d");
        }
        s.synchronize().expect("sync");
    });
    report("copy host->device (pinned)", gbps(n, h2d));
    let d2h = best(iters, || {
        let (d, _r) = dev.device_ptr(&s);
        // SAFETY: as above.
        unsafe {
            let dst = std::slice::from_raw_parts_mut(p_ptr, n);
            cudarc::driver::result::memcpy_dtoh_async(dst, d, s.cu_stream()).expect("d2h");
        }
        s.synchronize().expect("sync");
    });
    report("copy device->host (pinned)", gbps(n, d2h));
    let pageable = best(iters.min(2), || {
        s.memcpy_htod(&host[..], &mut dev).expect("h2d");
        s.synchronize().expect("sync");
    });
    report("copy host->device (pageable)", gbps(n, pageable));
    let d2d = best(iters, || {
        s.memcpy_dtod(&dev, &mut dev2).expect("d2d");
        s.synchronize().expect("sync");
    });
    report("copy device->device (read + write)", gbps(n, d2d));
    drop(pinned);

    // ---- device-resident data ----
    let key16 = [0x2bu8; 16];
    let key32 = [0x3cu8; 32];
    let iv = [0xf0u8; 16];
    s.memcpy_htod(&host[..], &mut dev).expect("h2d");
    for (name, key) in [("AES-128", &key16[..]), ("AES-256", &key32[..])] {
        let k = CudaAes::new(&g, key).expect("key");
        let cpu = aesx::Aes::new(key).expect("cpu key");
        let src = s.clone_htod(&host[..]).expect("h2d");
        k.ctr_apply_device_to(&iv, &src, &mut dev2).expect("ctr");
        spot_check(&g, &dev2, "ctr", |off, len| {
            let mut v = host[off..off + len].to_vec();
            let mut c = aesx::Ctr::from_aes(cpu.clone(), &iv).expect("ctr");
            c.seek(off as u128);
            c.apply_keystream(&mut v);
            v
        });
        let t = best(iters, || {
            k.ctr_apply_device_to(&iv, &src, &mut dev2).expect("ctr");
            g.synchronize().expect("sync");
        });
        report(&format!("{name}-CTR device {mib} MiB"), gbps(n, t));
        let t = best(iters, || {
            k.ctr_apply_device(&iv, &mut dev).expect("ctr");
            g.synchronize().expect("sync");
        });
        report(&format!("{name}-CTR device in place {mib} MiB"), gbps(n, t));
        let t = best(iters, || {
            k.ecb_encrypt_device(&mut dev).expect("ecb");
            g.synchronize().expect("sync");
        });
        report(&format!("{name}-ECB encrypt device {mib} MiB"), gbps(n, t));
        let t = best(iters, || {
            k.cbc_decrypt_device(&iv, &dev, &mut dev2).expect("cbc");
            g.synchronize().expect("sync");
        });
        report(&format!("{name}-CBC decrypt device {mib} MiB"), gbps(n, t));
    }
    let mut xkey = [0u8; 64];
    for (i, b) in xkey.iter_mut().enumerate() {
        *b = i as u8;
    }
    let x = CudaXts::new(&g, &xkey).expect("xts key");
    let t = best(iters, || {
        x.encrypt_sectors_device(0, 4096, &mut dev).expect("xts");
        g.synchronize().expect("sync");
    });
    report(
        &format!("AES-256-XTS encrypt device 4 KiB sectors {mib} MiB"),
        gbps(n, t),
    );
    let gcm = CudaGcm::new(&g, &key16).expect("gcm key");
    let nonce = [7u8; 12];
    let t = best(iters, || {
        gcm.seal_device(&nonce, b"", &mut dev).expect("gcm");
    });
    report(&format!("AES-128-GCM seal device {mib} MiB"), gbps(n, t));

    // ---- host-to-host ----
    let k = CudaAes::new(&g, &key16).expect("key");
    let t = best(iters.min(3), || k.ctr_apply(&iv, &mut host).expect("ctr"));
    report(&format!("AES-128-CTR host-to-host {mib} MiB"), gbps(n, t));
    let t = best(iters.min(3), || {
        gcm.seal_in_place(&nonce, b"", &mut host).expect("gcm");
    });
    report(
        &format!("AES-128-GCM seal host-to-host {mib} MiB"),
        gbps(n, t),
    );
    let t = best(iters.min(3), || {
        x.encrypt_sectors(0, 4096, &mut host).expect("xts")
    });
    report(&format!("AES-256-XTS host-to-host {mib} MiB"), gbps(n, t));

    let json: Vec<String> = results
        .iter()
        .map(|(k, v)| format!("\"{k}\": {v:.2}"))
        .collect();
    println!("{{{}}}", json.join(", "));
}
