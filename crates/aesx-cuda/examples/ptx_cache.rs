//! Fills the PTX disk cache for the given architectures (default
//! compute_90), so that a machine without libnvrtc can load the kernels:
//!
//! ```text
//! AESX_CUDA_CACHE_DIR=target/ptx-cache LD_LIBRARY_PATH=<nvrtc lib dir> \
//!     cargo run -p aesx-cuda --example ptx_cache -- compute_90
//! ```
//!
//! then copy target/ptx-cache and set AESX_CUDA_CACHE_DIR there. The PTX
//! needs a driver at least as new as the NVRTC that produced it.

fn main() {
    let mut archs: Vec<String> = std::env::args().skip(1).collect();
    if archs.is_empty() {
        archs.push("compute_90".into());
    }
    for arch in &archs {
        match aesx_cuda::kernels::compile_to_cache(arch) {
            Ok(path) => println!("{arch}: {}", path.display()),
            Err(e) => {
                eprintln!("ptx_cache: {arch}: {e}");
                std::process::exit(1);
            }
        }
    }
}
