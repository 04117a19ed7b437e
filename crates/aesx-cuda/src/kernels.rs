//! The CUDA C sources and their run-time compilation with NVRTC.
//!
//! All kernels form one translation unit: the prelude, the GF(2^128)
//! helpers, the bitsliced AES kernels and the GHASH kernel, in that order
//! (the emulation harness in tests/emulate includes them in the same order).

use std::ffi::CString;

use cudarc::nvrtc::{self, CompileOptions};

use crate::error::{CudaError, Result};

/// The sources, in compilation order, with their file names.
pub const SOURCES: [(&str, &str); 4] = [
    ("prelude.cuh", include_str!("../kernels/prelude.cuh")),
    ("gf128.cuh", include_str!("../kernels/gf128.cuh")),
    (
        "aes_bitsliced.cu",
        include_str!("../kernels/aes_bitsliced.cu"),
    ),
    ("ghash.cu", include_str!("../kernels/ghash.cu")),
];

/// Every `extern "C"` kernel of the module.
pub const KERNEL_NAMES: [&str; 3] = ["aesx_encrypt", "aesx_decrypt", "aesx_ghash_runs"];

/// The `mode` argument of `aesx_encrypt` / `aesx_decrypt` (the
/// `AESX_MODE_*` defines of aes_bitsliced.cu; a test checks they agree).
pub const MODE_ECB: i32 = 0;
/// CTR with a 128-bit counter.
pub const MODE_CTR: i32 = 1;
/// CTR with GCM's 32-bit increment.
pub const MODE_CTR32: i32 = 2;
/// Generation of XTS sector tweaks.
pub const MODE_XTS_TWEAKS: i32 = 3;
/// XTS with precomputed sector tweaks.
pub const MODE_XTS: i32 = 4;
/// CBC decryption.
pub const MODE_CBC: i32 = 5;

/// The whole translation unit.
pub fn source() -> String {
    let mut s = String::new();
    for (name, text) in SOURCES {
        s.push_str(&format!("// ---- {name}\n"));
        s.push_str(text);
        s.push('\n');
    }
    s
}

/// Whether libnvrtc can be loaded (looked up by cudarc through the dynamic
/// loader: `LD_LIBRARY_PATH`, the system paths, names like libnvrtc.so.12).
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the library under its usual names; no
    // symbol is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Compiles the kernels to PTX for a virtual architecture such as
/// `compute_90`. Fails with [`CudaError::NoNvrtc`] when libnvrtc is absent
/// (never panics) and with [`CudaError::Compile`] and the log on an error.
pub fn compile_ptx(arch: &str) -> Result<nvrtc::Ptx> {
    if !nvrtc_available() {
        return Err(CudaError::NoNvrtc(
            "libnvrtc not found by the dynamic loader (set LD_LIBRARY_PATH)".into(),
        ));
    }
    if !arch
        .strip_prefix("compute_")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(CudaError::Compile(format!(
            "bad architecture name {arch:?}"
        )));
    }
    let src = source();
    // NVRTC takes the source as a C string; ours has no NUL byte.
    if CString::new(src.as_bytes()).is_err() {
        return Err(CudaError::Compile("source contains a NUL byte".into()));
    }
    let opts = CompileOptions {
        options: vec![format!("--gpu-architecture={arch}"), "--std=c++14".into()],
        name: Some("aesx_kernels.cu".into()),
        ..Default::default()
    };
    nvrtc::compile_ptx_with_opts(src, opts).map_err(|e| match e {
        nvrtc::CompileError::CompileError { nvrtc, log, .. } => {
            CudaError::Compile(format!("{nvrtc:?}: {}", log.to_string_lossy()))
        }
        other => CudaError::Compile(format!("{other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_numbers_agree_with_the_kernel_source() {
        let src = source();
        for (name, value) in [
            ("AESX_MODE_ECB", MODE_ECB),
            ("AESX_MODE_CTR", MODE_CTR),
            ("AESX_MODE_CTR32", MODE_CTR32),
            ("AESX_MODE_XTS_TWEAKS", MODE_XTS_TWEAKS),
            ("AESX_MODE_XTS", MODE_XTS),
            ("AESX_MODE_CBC", MODE_CBC),
        ] {
            assert!(
                src.contains(&format!("#define {name} {value}\n")),
                "{name} is not {value} in the kernels"
            );
        }
        for name in KERNEL_NAMES {
            assert!(src.contains(&format!("__global__ void {name}(")), "{name}");
        }
    }
}
