//! The building blocks of the host path, measured one by one on a GPU
//! machine, so that the pipeline's design rests on figures of the machine:
//!
//! ```text
//! cargo run --release -p aesx-cuda --example pcie_probe -- [MiB] [file dir]
//! ```
//!
//! - pinned copies host->device, device->host, and both at once on two
//!   streams (the copy engines' full-duplex rate);
//! - page-locking memory in place (`cuMemHostRegister`): its cost per GB, and
//!   the copy rates from and to memory locked that way, for anonymous memory
//!   and for a file mapped read-only (flag READ_ONLY);
//! - `pread` from the page cache into pinned memory with one and two threads
//!   (what a file path that reads into its staging buffers gets);
//! - `memcpy` from pageable into pinned memory with 1 to 16 threads.
//!
//! GB/s are 10^9 bytes per second, best of three after a warm-up.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::time::Instant;

use aesx_cuda::Gpu;
use cudarc::driver::{result, sys, CudaSlice, CudaStream, DevicePtr};

fn best(mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    f()?;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(best)
}

fn report(what: &str, bytes: usize, r: Result<f64, String>) {
    match r {
        Ok(s) => println!("{what:<58} {:>8.1} GB/s", bytes as f64 / s / 1e9),
        Err(e) => println!("{what:<58} failed: {e}"),
    }
}

fn ds(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

/// Host `p[..n]` to the device buffer on `s`, or back, and waits.
///
/// # Safety
///
/// `p` points to `n` bytes nothing else touches during the call.
unsafe fn copy(s: &CudaStream, p: *mut u8, d: u64, n: usize, h2d: bool) -> Result<(), String> {
    if h2d {
        // SAFETY: p holds n bytes (this function's contract).
        let src = unsafe { std::slice::from_raw_parts(p, n) };
        // SAFETY: d holds n bytes; waited for before returning.
        unsafe { result::memcpy_htod_async(d, src, s.cu_stream()) }.map_err(ds)?;
    } else {
        // SAFETY: p holds n bytes (this function's contract).
        let dst = unsafe { std::slice::from_raw_parts_mut(p, n) };
        // SAFETY: d holds n bytes; waited for before returning.
        unsafe { result::memcpy_dtoh_async(dst, d, s.cu_stream()) }.map_err(ds)?;
    }
    s.synchronize().map_err(ds)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let dir = args.get(2).cloned().unwrap_or_else(|| "/dev/shm".into());
    let n = mib << 20;
    let g = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("pcie_probe: {e}");
            std::process::exit(2);
        }
    };
    println!("device: {:?}; {} MiB per transfer", g.info(), mib);
    if let Err(e) = probe(&g, n, &dir) {
        eprintln!("pcie_probe: {e}");
        std::process::exit(1);
    }
}

fn probe(g: &Gpu, n: usize, dir: &str) -> Result<(), String> {
    let ctx = g.context().clone();
    ctx.bind_to_thread().map_err(ds)?;
    let s1: Arc<CudaStream> = ctx.new_stream().map_err(ds)?;
    let s2: Arc<CudaStream> = ctx.new_stream().map_err(ds)?;
    let d1: CudaSlice<u8> = s1.alloc_zeros(n).map_err(ds)?;
    let d2: CudaSlice<u8> = s1.alloc_zeros(n).map_err(ds)?;
    let (a1, _r1) = d1.device_ptr(&s1);
    let (a2, _r2) = d2.device_ptr(&s1);
    s1.synchronize().map_err(ds)?;

    // SAFETY: written before read (the copies below fill them).
    let mut p1 = unsafe { ctx.alloc_pinned_with_flags::<u8>(n, 0) }.map_err(ds)?;
    // SAFETY: written before read (the copies below fill it).
    let mut p2 = unsafe { ctx.alloc_pinned_with_flags::<u8>(n, 0) }.map_err(ds)?;
    p1.as_mut_slice().map_err(ds)?.fill(1);
    p2.as_mut_slice().map_err(ds)?.fill(2);
    let pp1 = p1.as_mut_ptr().map_err(ds)?;
    let pp2 = p2.as_mut_ptr().map_err(ds)?;

    // SAFETY (all copies below): pp1/pp2 are the n pinned bytes of p1/p2,
    // a1/a2 the n device bytes of d1/d2, all alive for the whole probe.
    report(
        "pinned host->device",
        n,
        best(|| {
            // SAFETY: the buffers named are alive and used by nothing else during the copy.
            unsafe { copy(&s1, pp1, a1, n, true) }
        }),
    );
    report(
        "pinned device->host",
        n,
        best(|| {
            // SAFETY: the buffers named are alive and used by nothing else during the copy.
            unsafe { copy(&s1, pp1, a1, n, false) }
        }),
    );
    let both = best(|| {
        // SAFETY: the buffers named are alive and used by nothing else during the
        // copies; the two directions use different buffers.
        unsafe {
            let src = std::slice::from_raw_parts(pp1, n);
            result::memcpy_htod_async(a1, src, s1.cu_stream()).map_err(ds)?;
            let dst = std::slice::from_raw_parts_mut(pp2, n);
            result::memcpy_dtoh_async(dst, a2, s2.cu_stream()).map_err(ds)?;
        }
        s1.synchronize().map_err(ds)?;
        s2.synchronize().map_err(ds)
    });
    report(
        "pinned both ways at once (sum of both directions)",
        2 * n,
        both,
    );

    // Page-locking in place: anonymous memory.
    let mut v = vec![3u8; n];
    let vp = v.as_mut_ptr();
    for flags in [0u32, sys::CU_MEMHOSTREGISTER_READ_ONLY] {
        let t = Instant::now();
        // SAFETY: vp is the n bytes of v, alive until unregistered below.
        let r = unsafe { sys::cuMemHostRegister_v2(vp.cast(), n, flags) };
        let reg = t.elapsed().as_secs_f64();
        if r != sys::CUresult::CUDA_SUCCESS {
            println!("register anonymous (flags {flags}): {r:?}");
            continue;
        }
        println!(
            "register anonymous (flags {flags}): {:.1} ms = {:.1} GB/s",
            reg * 1e3,
            n as f64 / reg / 1e9
        );
        // SAFETY: v is registered and alive; nothing else touches it.
        report(
            "  registered host->device",
            n,
            best(|| {
                // SAFETY: the buffers named are alive and used by nothing else during the copy.
                unsafe { copy(&s1, vp, a1, n, true) }
            }),
        );
        if flags == 0 {
            report(
                "  registered device->host",
                n,
                best(|| {
                    // SAFETY: the buffers named are alive and used by nothing else during the copy.
                    unsafe { copy(&s1, vp, a1, n, false) }
                }),
            );
        }
        let t = Instant::now();
        // SAFETY: vp was registered above.
        let r = unsafe { sys::cuMemHostUnregister(vp.cast()) };
        println!(
            "  unregister: {:?} in {:.1} ms",
            r,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    // Registering in 64 MiB pieces (what a pipeline would do per window).
    {
        let piece = 64 << 20;
        let t = Instant::now();
        let mut ok = true;
        for off in (0..n).step_by(piece) {
            let len = piece.min(n - off);
            // SAFETY: inside v; unregistered right after.
            unsafe {
                let p = vp.add(off).cast();
                ok &= sys::cuMemHostRegister_v2(p, len, 0) == sys::CUresult::CUDA_SUCCESS;
                ok &= sys::cuMemHostUnregister(p) == sys::CUresult::CUDA_SUCCESS;
            }
        }
        let dt = t.elapsed().as_secs_f64();
        println!(
            "register+unregister in 64 MiB pieces: ok={ok}, {:.1} ms = {:.1} GB/s",
            dt * 1e3,
            n as f64 / dt / 1e9
        );
    }
    // Locking pieces from several threads at once (does the driver scale?).
    for threads in [1usize, 2, 4, 8] {
        let piece = 64usize << 20;
        let base = vp as usize;
        let pieces = n / piece;
        let t = Instant::now();
        let ok = std::sync::atomic::AtomicBool::new(true);
        std::thread::scope(|sc| {
            for t in 0..threads {
                let ok = &ok;
                let ctx = &ctx;
                sc.spawn(move || {
                    // Driver calls act on the thread's current context.
                    ctx.bind_to_thread().expect("bind context");
                    for k in (t..pieces).step_by(threads) {
                        // Page-aligned pieces: no page is shared by two.
                        let a = (base + k * piece).next_multiple_of(4096);
                        let b = (base + (k + 1) * piece)
                            .next_multiple_of(4096)
                            .min(base + n);
                        // SAFETY: inside v, registered and unregistered here.
                        unsafe {
                            let p = a as *mut core::ffi::c_void;
                            let r1 = sys::cuMemHostRegister_v2(p, b - a, 0);
                            let r2 = sys::cuMemHostUnregister(p);
                            if r1 != sys::CUresult::CUDA_SUCCESS
                                || r2 != sys::CUresult::CUDA_SUCCESS
                            {
                                ok.store(false, std::sync::atomic::Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        let dt = t.elapsed().as_secs_f64();
        println!(
            "register+unregister 64 MiB pieces, {threads} threads: ok={}, {:.1} GB/s",
            ok.load(std::sync::atomic::Ordering::Relaxed),
            n as f64 / dt / 1e9
        );
    }
    // Register only (then unregister, untimed) with several threads.
    for threads in [1usize, 4, 8] {
        let piece = 64usize << 20;
        let base = vp as usize;
        let pieces = n / piece;
        let t = Instant::now();
        std::thread::scope(|sc| {
            for t in 0..threads {
                let ctx = &ctx;
                sc.spawn(move || {
                    ctx.bind_to_thread().expect("bind context");
                    for k in (t..pieces).step_by(threads) {
                        let a = (base + k * piece).next_multiple_of(4096);
                        let b = (base + (k + 1) * piece)
                            .next_multiple_of(4096)
                            .min(base + n);
                        // SAFETY: inside v; unregistered below.
                        unsafe { sys::cuMemHostRegister_v2(a as *mut _, b - a, 0) };
                    }
                });
            }
        });
        let reg = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for k in 0..pieces {
            let a = (base + k * piece).next_multiple_of(4096);
            // SAFETY: registered above.
            unsafe { sys::cuMemHostUnregister(a as *mut _) };
        }
        println!(
            "  register only, {threads} threads: {:.1} GB/s; unregister (1 thread): {:.1} GB/s",
            n as f64 / reg / 1e9,
            n as f64 / t.elapsed().as_secs_f64() / 1e9
        );
    }
    // Copy in and copy out at once (what a staged pipeline needs).
    for threads in [4usize, 8] {
        let mut w = vec![5u8; n];
        let (src, dst_addr) = (&v[..], w.as_mut_ptr() as usize);
        let (pin_in, pin_out) = (pp1 as usize, pp2 as usize);
        let r = best(|| {
            let per = n / threads;
            std::thread::scope(|sc| {
                for t in 0..threads {
                    sc.spawn(move || {
                        // SAFETY: disjoint pieces of the pinned and host buffers.
                        let d = unsafe {
                            std::slice::from_raw_parts_mut((pin_in as *mut u8).add(t * per), per)
                        };
                        d.copy_from_slice(&src[t * per..(t + 1) * per]);
                    });
                    sc.spawn(move || {
                        // SAFETY: disjoint pieces of the registered and pinned buffers,
                        // one piece per thread.
                        let (d, s) = unsafe {
                            (
                                std::slice::from_raw_parts_mut(
                                    (dst_addr as *mut u8).add(t * per),
                                    per,
                                ),
                                std::slice::from_raw_parts(
                                    (pin_out as *const u8).add(t * per),
                                    per,
                                ),
                            )
                        };
                        d.copy_from_slice(s);
                    });
                }
            });
            Ok(())
        });
        report(
            &format!("memcpy in and out at once, {threads}+{threads} threads (per direction)"),
            n,
            r,
        );
    }
    let pageable_h2d = best(|| {
        s1.memcpy_htod(&v[..], &mut d1.clone()).map_err(ds)?;
        s1.synchronize().map_err(ds)
    });
    report(
        "pageable host->device (driver's own staging)",
        n,
        pageable_h2d,
    );

    // A file in the page cache, mapped read-only and registered.
    let path = format!("{dir}/aesx-pcie-probe-{}", std::process::id());
    {
        let mut f = File::create(&path).map_err(ds)?;
        for c in v.chunks(64 << 20) {
            f.write_all(c).map_err(ds)?;
        }
    }
    let f = File::open(&path).map_err(ds)?;
    let _ = std::fs::remove_file(&path);
    for (flags, shared) in [(sys::CU_MEMHOSTREGISTER_READ_ONLY, true), (0, false)] {
        let (prot, map) = if shared {
            (libc::PROT_READ, libc::MAP_SHARED)
        } else {
            (libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE)
        };
        // SAFETY: a fresh mapping of the whole file, unmapped below.
        let m = unsafe { libc::mmap(std::ptr::null_mut(), n, prot, map, f.as_raw_fd(), 0) };
        if m == libc::MAP_FAILED {
            println!("mmap failed");
            continue;
        }
        let t = Instant::now();
        // SAFETY: m is n mapped bytes, alive until unmapped below.
        let r = unsafe { sys::cuMemHostRegister_v2(m, n, flags) };
        let reg = t.elapsed().as_secs_f64();
        println!(
            "register file mapping (shared={shared}, flags {flags}): {r:?} in {:.1} ms = {:.1} GB/s",
            reg * 1e3,
            n as f64 / reg / 1e9
        );
        if r == sys::CUresult::CUDA_SUCCESS {
            // SAFETY: m is registered, n bytes, read only by the copy.
            report(
                "  file mapping host->device",
                n,
                best(|| unsafe { copy(&s1, m.cast(), a1, n, true) }),
            );
            // SAFETY: registered above.
            unsafe { sys::cuMemHostUnregister(m) };
        }
        // SAFETY: mapped above.
        unsafe { libc::munmap(m, n) };
    }
    // pread from the page cache into pinned memory, 1 and 2 threads.
    for threads in [1usize, 2, 4] {
        let pp = pp1 as usize;
        let r = best(|| {
            let per = n / threads;
            std::thread::scope(|sc| {
                let hs: Vec<_> = (0..threads)
                    .map(|t| {
                        let f = &f;
                        sc.spawn(move || {
                            // SAFETY: disjoint pieces of p1's n pinned bytes.
                            let dst = unsafe {
                                std::slice::from_raw_parts_mut((pp as *mut u8).add(t * per), per)
                            };
                            f.read_exact_at(dst, (t * per) as u64)
                        })
                    })
                    .collect();
                hs.into_iter()
                    .try_for_each(|h| h.join().map_err(|_| "panic".to_string())?.map_err(ds))
            })
        });
        report(
            &format!("pread page cache -> pinned, {threads} thread(s)"),
            n,
            r,
        );
    }
    // memcpy pageable -> pinned.
    for threads in [1usize, 2, 4, 8, 16] {
        let pp = pp1 as usize;
        let src = &v[..];
        let r = best(|| {
            let per = n / threads;
            std::thread::scope(|sc| {
                for t in 0..threads {
                    sc.spawn(move || {
                        // SAFETY: disjoint pieces of p1's n pinned bytes.
                        let dst = unsafe {
                            std::slice::from_raw_parts_mut((pp as *mut u8).add(t * per), per)
                        };
                        dst.copy_from_slice(&src[t * per..(t + 1) * per]);
                    });
                }
            });
            Ok(())
        });
        report(
            &format!("memcpy pageable -> pinned, {threads} thread(s)"),
            n,
            r,
        );
    }
    drop(v);
    Ok(())
}
