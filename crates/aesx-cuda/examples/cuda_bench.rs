//! Throughput of the GPU backend next to the copy bandwidths that bound it,
//! for work on the kernels and the device checks (`tools/gpu/check.sh`):
//! the GPU alone, no peer and no CPU row (those are `aesx bench`'s). On a
//! machine with an NVIDIA GPU:
//!
//! ```text
//! cargo run --release -p aesx-cuda --example cuda_bench -- [MiB] [iterations]
//! ```
//!
//! GB/s are 10^9 bytes per second, best of the iterations after a warm-up.
//! With AESX_TTABLE_COMPARE=1 it also times a T-table CTR kernel (not
//! constant-time, comparison only) next to the bitsliced one.

use std::time::Instant;

use aesx_cuda::bench::{self, Kind};
use aesx_cuda::Gpu;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let t = Instant::now();
    let g = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("cuda_bench: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "device: {:?}, kernels ready in {:.1} s",
        g.info(),
        t.elapsed().as_secs_f64()
    );
    let compare = std::env::var("AESX_TTABLE_COMPARE").as_deref() == Ok("1");
    let results = bench::run(&g, mib << 20, iters).and_then(|mut r| {
        if compare {
            r.extend(bench::ttable_comparison(&g, mib << 20, iters)?);
        }
        Ok(r)
    });
    match results {
        Ok(results) => {
            for m in &results {
                let kind = match m.kind {
                    Kind::Copy => "copy",
                    Kind::Device => "device",
                    Kind::HostToHost => "host-to-host",
                };
                println!("{:<14} {:<40} {:>9.1} GB/s", kind, m.name, m.gbps());
            }
        }
        Err(e) => {
            eprintln!("cuda_bench: {e}");
            std::process::exit(1);
        }
    }
}
