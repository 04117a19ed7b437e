//! The CUDA C sources and their run-time compilation with NVRTC.
//!
//! All kernels form one translation unit: the prelude, the GF(2^128)
//! helpers, the S-box networks, the bitsliced AES kernels and the GHASH
//! kernel, in that order
//! (the emulation harness in tests/emulate includes them in the same order).

use std::ffi::CString;

use cudarc::nvrtc::{self, CompileOptions};

use crate::error::{CudaError, Result};

/// The sources, in compilation order, with their file names.
pub const SOURCES: [(&str, &str); 5] = [
    ("prelude.cuh", include_str!("../kernels/prelude.cuh")),
    ("gf128.cuh", include_str!("../kernels/gf128.cuh")),
    ("sbox_lop3.cuh", include_str!("../kernels/sbox_lop3.cuh")),
    (
        "aes_bitsliced.cu",
        include_str!("../kernels/aes_bitsliced.cu"),
    ),
    ("ghash.cu", include_str!("../kernels/ghash.cu")),
];

/// The T-table CTR kernel that only the benchmark compiles, to compare
/// with: NOT constant-time (secret-indexed table lookups).
pub const TTABLE_SOURCES: [(&str, &str); 2] = [
    ("prelude.cuh", include_str!("../kernels/prelude.cuh")),
    (
        "aes_ttable_compare.cu",
        include_str!("../kernels/aes_ttable_compare.cu"),
    ),
];

/// The bitsliced AES kernels, one per mode family (each carries only its
/// family's loads and stores, so that its code stays small enough for the
/// instruction cache). All take the same arguments; [`aes_kernel`] says
/// which one runs a mode.
pub const AES_KERNELS: [&str; 7] = [
    "aesx_ecb_encrypt",
    "aesx_ecb_decrypt",
    "aesx_ctr",
    "aesx_ctr_msgs",
    "aesx_cbc_decrypt",
    "aesx_xts_encrypt",
    "aesx_xts_decrypt",
];

/// Every `extern "C"` kernel of the module.
pub const KERNEL_NAMES: [&str; 11] = [
    AES_KERNELS[0],
    AES_KERNELS[1],
    AES_KERNELS[2],
    AES_KERNELS[3],
    AES_KERNELS[4],
    AES_KERNELS[5],
    AES_KERNELS[6],
    "aesx_ghash_runs",
    "aesx_ghash_msgs",
    "aesx_ghash_runs_pows",
    "aesx_ghash_msgs_pows",
];

/// The index in [`AES_KERNELS`] of the kernel that runs `mode` in the
/// direction given, or `None` for a pair no kernel serves (CTR and the XTS
/// sector tweaks only encrypt, CBC only decrypts).
pub fn aes_kernel(mode: i32, decrypt: bool) -> Option<usize> {
    match (mode, decrypt) {
        (MODE_ECB | MODE_XTS_TWEAKS, false) => Some(0),
        (MODE_ECB, true) => Some(1),
        (MODE_CTR | MODE_CTR32, false) => Some(2),
        (MODE_CTR_MSGS, false) => Some(3),
        (MODE_CBC, true) => Some(4),
        (MODE_XTS, false) => Some(5),
        (MODE_XTS, true) => Some(6),
        _ => None,
    }
}

/// The `mode` argument of the AES kernels (the `AESX_MODE_*` defines of
/// aes_bitsliced.cu; a test checks they agree).
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
/// GCM's CTR over back-to-back messages, each from its own counter block.
pub const MODE_CTR_MSGS: i32 = 6;

/// The whole translation unit.
pub fn source() -> String {
    concat(&SOURCES)
}

/// The NVRTC options beyond the architecture: C++14, and two knobs for
/// measuring variants on a GPU (the disk cache keys on them):
/// `-DAESX_MIN_CTAS=n` when `AESX_CUDA_MIN_CTAS` is 1 to 4 (CTAs of 128
/// threads per SM that ptxas must fit: 2 by default, 255 registers a
/// thread; 3 allows 168, more warps at the cost of spills), and
/// `-DAESX_XTS_WALK=0` or `1` when `AESX_CUDA_XTS` is `rewalk` or
/// `unrolled` (how the XTS kernels make their tweaks: see
/// aes_bitsliced.cu; the default, 2, is one rolled walk).
pub fn compile_options() -> Vec<String> {
    let mut opts = vec!["--std=c++14".to_string()];
    if let Ok(v) = std::env::var("AESX_CUDA_MIN_CTAS") {
        if let Ok(n @ 1..=4) = v.trim().parse::<u32>() {
            opts.push(format!("-DAESX_MIN_CTAS={n}"));
        }
    }
    match std::env::var("AESX_CUDA_XTS").as_deref().map(str::trim) {
        Ok("rewalk") => opts.push("-DAESX_XTS_WALK=0".to_string()),
        Ok("unrolled") => opts.push("-DAESX_XTS_WALK=1".to_string()),
        _ => {}
    }
    opts
}

fn concat(sources: &[(&str, &str)]) -> String {
    let mut s = String::new();
    for (name, text) in sources {
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
    compile_source(source(), arch)
}

/// Compiles the T-table comparison kernel (benchmarks only).
pub fn compile_ttable_ptx(arch: &str) -> Result<nvrtc::Ptx> {
    compile_source(concat(&TTABLE_SOURCES), arch)
}

fn compile_source(src: String, arch: &str) -> Result<nvrtc::Ptx> {
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
    // NVRTC takes the source as a C string; ours has no NUL byte.
    if CString::new(src.as_bytes()).is_err() {
        return Err(CudaError::Compile("source contains a NUL byte".into()));
    }
    let opts = CompileOptions {
        options: std::iter::once(format!("--gpu-architecture={arch}"))
            .chain(compile_options())
            .collect(),
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

/// Where compiled PTX is kept between processes: `$AESX_CUDA_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/aesx-cuda`, else `$HOME/.cache/aesx-cuda`; `None`
/// (no disk cache) when `AESX_CUDA_CACHE=0` or no directory is known. The
/// file name carries a hash of the sources and the architecture, so an
/// edited kernel never meets a stale file.
pub fn ptx_cache_dir() -> Option<std::path::PathBuf> {
    use std::env::var_os;
    if var_os("AESX_CUDA_CACHE").is_some_and(|v| v == "0") {
        return None;
    }
    if let Some(d) = var_os("AESX_CUDA_CACHE_DIR") {
        return Some(d.into());
    }
    if let Some(d) = var_os("XDG_CACHE_HOME") {
        return Some(std::path::PathBuf::from(d).join("aesx-cuda"));
    }
    var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache/aesx-cuda"))
}

/// FNV-1a over the sources, the architecture and the options: a cache
/// key, not a MAC.
fn source_hash(arch: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let opts = compile_options().concat();
    for b in source().bytes().chain(arch.bytes()).chain(opts.bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn cache_file(arch: &str) -> Option<std::path::PathBuf> {
    ptx_cache_dir().map(|d| d.join(format!("{arch}-{:016x}.ptx", source_hash(arch))))
}

/// Compiles for `arch` and stores the PTX in the disk cache, returning the
/// file: prepares a machine without libnvrtc (copy the cache directory over
/// and point `AESX_CUDA_CACHE_DIR` at it). Errors when no cache directory
/// is configured or the file cannot be written.
pub fn compile_to_cache(arch: &str) -> Result<std::path::PathBuf> {
    let path = cache_file(arch)
        .ok_or_else(|| CudaError::Compile("no PTX cache directory (AESX_CUDA_CACHE_DIR)".into()))?;
    let text = compile_ptx(arch)?.to_src();
    write_cached_ptx(arch, &text);
    if read_cached_ptx(arch).as_deref() != Some(text.as_str()) {
        return Err(CudaError::Compile(format!(
            "could not write {}",
            path.display()
        )));
    }
    Ok(path)
}

/// Cached PTX for `arch`, if a previous process left it.
pub(crate) fn read_cached_ptx(arch: &str) -> Option<String> {
    let text = std::fs::read_to_string(cache_file(arch)?).ok()?;
    // A truncated file would fail to load; only whole modules are used.
    (text.contains(".entry aesx_ghash_msgs(") && text.trim_end().ends_with('}')).then_some(text)
}

/// Stores PTX for later processes; failures only cost a recompilation.
pub(crate) fn write_cached_ptx(arch: &str, text: &str) {
    let Some(path) = cache_file(arch) else { return };
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // Write then rename, so that a reader never sees half a file.
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
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
            ("AESX_MODE_CTR_MSGS", MODE_CTR_MSGS),
        ] {
            assert!(
                src.contains(&format!("#define {name} {value}\n")),
                "{name} is not {value} in the kernels"
            );
        }
        for name in [
            "aesx_ghash_runs",
            "aesx_ghash_msgs",
            "aesx_ghash_runs_pows",
            "aesx_ghash_msgs_pows",
        ] {
            assert!(src.contains(&format!("__global__ void {name}(")), "{name}");
        }
    }

    #[test]
    fn every_mode_has_its_family_kernel() {
        // The kernel source declares each family as
        // AESX_AES_KERNEL(name, decrypt, modes); the host's choice must be
        // a kernel whose family holds the mode.
        let src = source();
        for (mode, decrypt, name) in [
            ("AESX_MODE_ECB", false, "ecb_encrypt"),
            ("AESX_MODE_XTS_TWEAKS", false, "ecb_encrypt"),
            ("AESX_MODE_ECB", true, "ecb_decrypt"),
            ("AESX_MODE_CTR", false, "ctr"),
            ("AESX_MODE_CTR32", false, "ctr"),
            ("AESX_MODE_CTR_MSGS", false, "ctr_msgs"),
            ("AESX_MODE_CBC", true, "cbc_decrypt"),
            ("AESX_MODE_XTS", false, "xts_encrypt"),
            ("AESX_MODE_XTS", true, "xts_decrypt"),
        ] {
            let value = [
                ("AESX_MODE_ECB", MODE_ECB),
                ("AESX_MODE_CTR", MODE_CTR),
                ("AESX_MODE_CTR32", MODE_CTR32),
                ("AESX_MODE_XTS_TWEAKS", MODE_XTS_TWEAKS),
                ("AESX_MODE_XTS", MODE_XTS),
                ("AESX_MODE_CBC", MODE_CBC),
                ("AESX_MODE_CTR_MSGS", MODE_CTR_MSGS),
            ]
            .iter()
            .find(|(n, _)| *n == mode)
            .unwrap()
            .1;
            let k = aes_kernel(value, decrypt).expect(mode);
            let full = format!("aesx_{name}");
            assert_eq!(AES_KERNELS[k], full);
            let decl = src
                .lines()
                .find(|l| l.starts_with(&format!("AESX_AES_KERNEL({full},")))
                .unwrap_or_else(|| panic!("{full} is not declared"));
            assert!(
                decl.contains(&format!(", {}, ", u8::from(decrypt))),
                "{decl}"
            );
            assert!(
                decl.contains(&format!("AESX_BIT({mode})")),
                "{decl}: {mode}"
            );
        }
        assert_eq!(aes_kernel(MODE_CTR, true), None);
        assert_eq!(aes_kernel(MODE_CBC, false), None);
    }
}
