//! The device: probing, the compiled module (cached per process and
//! architecture), kernel launches with raw device pointers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::error::{CudaError, Result};
use crate::kernels;
use crate::pipeline::Staging;
use crate::plan::{self, LaunchDims};

/// What [`Gpu::info`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Global memory in bytes.
    pub total_memory: usize,
    /// The NVRTC architecture the kernels were compiled for.
    pub arch: String,
}

/// Kernels launched by this process (see [`launches`]).
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// How many aesx kernels this process has launched: what a test or tool
/// reads before and after a call to prove the GPU did the work (a path that
/// fell back to the CPU launches none).
pub fn launches() -> u64 {
    LAUNCHES.load(Ordering::Relaxed)
}

/// The driver entry points aesx calls (through cudarc). cudarc looks each
/// one up on its first call and panics if the library lacks it, so a
/// library named libcuda that is not a complete driver (a stub, a too old
/// or foreign one) is refused here, before any of them is called.
const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuCtxGetCurrent",
    "cuCtxSynchronize",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuLaunchKernel",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventDestroy_v2",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD8Async",
    "cuPointerGetAttribute",
];

/// The first of [`DRIVER_SYMBOLS`] that the loaded libcuda lacks.
fn missing_driver_symbol() -> Option<&'static str> {
    // SAFETY: called only after is_culib_present() found the library, so
    // culib() loads it (the same names, in the same order) instead of
    // panicking; looking a symbol up runs no code of the library, and the
    // symbol is only tested for presence, never called through this type.
    let lib = unsafe { cudarc::driver::sys::culib() };
    DRIVER_SYMBOLS.iter().copied().find(|name| {
        // SAFETY: looking a symbol up runs no code of the library, and the
        // symbol is only tested for presence, never called through this type.
        unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err()
    })
}

/// Runs a probe of the driver (or NVRTC) that cudarc may answer with a
/// panic (a library that lacks a symbol, or fails to load between the
/// check and the call), turning one into [`CudaError::NoDevice`], so that
/// no caller, C or Python, ever sees it.
pub(crate) fn no_panic<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            let line = why.lines().next().unwrap_or("").trim().to_string();
            Err(CudaError::NoDevice(format!(
                "the CUDA libraries failed: {line}"
            )))
        }
    }
}

/// Number of CUDA devices, or why there is none. Never panics, also on
/// machines without a driver or with a library that is not a complete
/// driver (see `DRIVER_SYMBOLS`).
pub fn device_count() -> Result<usize> {
    // SAFETY: only tries to dlopen libcuda under its usual names.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(CudaError::NoDevice(
            "libcuda (the NVIDIA driver) not found".into(),
        ));
    }
    no_panic(|| {
        if let Some(name) = missing_driver_symbol() {
            return Err(CudaError::NoDevice(format!(
                "the libcuda found lacks {name} (not a complete NVIDIA driver, or one older than CUDA 12)"
            )));
        }
        match CudaContext::device_count() {
            Ok(n) if n > 0 => Ok(n as usize),
            Ok(_) => Err(CudaError::NoDevice("the driver reports no device".into())),
            Err(e) => Err(CudaError::NoDevice(format!(
                "driver initialisation failed: {e:?}"
            ))),
        }
    })
}

/// PTX per architecture, compiled once per process (NVRTC takes tens of
/// seconds for the unrolled bitsliced kernels) and kept on disk between
/// processes (see [`crate::kernels::ptx_cache_dir`]).
fn cached_ptx(arch: &str) -> Result<Ptx> {
    static CACHE: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache
        .lock()
        .map_err(|_| CudaError::Compile("PTX cache poisoned".into()))?;
    if let Some(p) = map.get(arch) {
        return Ok(Ptx::from_src(p.clone()));
    }
    let text = match kernels::read_cached_ptx(arch) {
        Some(t) => t,
        None => {
            let t = kernels::compile_ptx(arch)?.to_src();
            kernels::write_cached_ptx(arch, &t);
            t
        }
    };
    map.insert(arch.to_string(), text.clone());
    Ok(Ptx::from_src(text))
}

/// The kernels of the module.
pub(crate) struct Funcs {
    /// The AES kernels, in the order of `kernels::AES_KERNELS`.
    pub(crate) aes: [CudaFunction; 7],
    pub(crate) ghash_runs: CudaFunction,
    pub(crate) ghash_msgs: CudaFunction,
    pub(crate) ghash_runs_pows: CudaFunction,
    pub(crate) ghash_msgs_pows: CudaFunction,
    /// The GHASH kernels by Horner's rule (`AESX_CUDA_GHASH=horner`)
    /// instead of those with a table of powers: a knob to measure one
    /// against the other on a GPU.
    pub(crate) ghash_horner: bool,
}

pub(crate) struct GpuInner {
    pub(crate) ctx: Arc<CudaContext>,
    /// Stream of the device-memory API.
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) funcs: Funcs,
    _module: Arc<CudaModule>,
    info: DeviceInfo,
    /// Staging slots of the host-memory API, created on first use.
    pub(crate) staging: Staging,
}

/// One GPU with the aesx kernels loaded. Cheap to clone.
#[derive(Clone)]
pub struct Gpu {
    pub(crate) inner: Arc<GpuInner>,
}

impl core::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gpu")
            .field("info", &self.inner.info)
            .finish()
    }
}

/// Default bytes per chunk of the host-memory API: large enough that launch
/// and copy latencies vanish, small enough that three chunks in flight
/// overlap copies with kernels.
pub const DEFAULT_CHUNK_LEN: usize = 32 << 20;

impl Gpu {
    /// Opens device `ordinal`, compiles (or takes from the cache) the
    /// kernels for its compute capability and loads them, with `chunk_len`
    /// (rounded down to a multiple of 4096 bytes, at least 4096) bytes per
    /// chunk of host data. Not yet checked: `open.rs` runs the self-test
    /// before handing it out.
    pub(crate) fn load(ordinal: usize, chunk_len: usize) -> Result<Gpu> {
        let count = device_count()?;
        if ordinal >= count {
            return Err(CudaError::NoDevice(format!(
                "device {ordinal} requested, {count} present"
            )));
        }
        let ctx = CudaContext::new(ordinal)?;
        let cc = ctx.compute_capability()?;
        let name = ctx.name()?;
        let total_memory = ctx.total_mem()?;
        // The device's own virtual architecture first; if this libnvrtc is
        // older than the device, PTX for an older architecture still runs
        // (the driver JIT-compiles it forward).
        let own = format!("compute_{}{}", cc.0, cc.1);
        let mut last_err = None;
        let mut loaded = None;
        for arch in [own.as_str(), "compute_90", "compute_80", "compute_70"] {
            match cached_ptx(arch) {
                Ok(ptx) => match ctx.load_module(ptx) {
                    Ok(m) => {
                        loaded = Some((arch.to_string(), m));
                        break;
                    }
                    // E.g. CUDA_ERROR_UNSUPPORTED_PTX_VERSION: libnvrtc newer
                    // than the driver.
                    Err(e) => {
                        last_err = Some(CudaError::Driver(format!(
                            "loading PTX for {arch}: {e:?} (is libnvrtc newer than the driver?)"
                        )))
                    }
                },
                Err(e @ CudaError::NoNvrtc(_)) => return Err(e),
                Err(e) => last_err = Some(e),
            }
        }
        let Some((arch, module)) = loaded else {
            return Err(last_err.unwrap_or_else(|| CudaError::Compile("no architecture".into())));
        };
        let f = |name: &str| module.load_function(name).map_err(CudaError::from);
        let funcs = Funcs {
            aes: [
                f(kernels::AES_KERNELS[0])?,
                f(kernels::AES_KERNELS[1])?,
                f(kernels::AES_KERNELS[2])?,
                f(kernels::AES_KERNELS[3])?,
                f(kernels::AES_KERNELS[4])?,
                f(kernels::AES_KERNELS[5])?,
                f(kernels::AES_KERNELS[6])?,
            ],
            ghash_runs: f("aesx_ghash_runs")?,
            ghash_msgs: f("aesx_ghash_msgs")?,
            ghash_runs_pows: f("aesx_ghash_runs_pows")?,
            ghash_msgs_pows: f("aesx_ghash_msgs_pows")?,
            ghash_horner: std::env::var("AESX_CUDA_GHASH").is_ok_and(|v| v.trim() == "horner"),
        };
        let stream = ctx.new_stream()?;
        let chunk_len = (chunk_len / 4096).max(1) * 4096;
        let gpu = Gpu {
            inner: Arc::new(GpuInner {
                ctx,
                stream,
                funcs,
                _module: module,
                info: DeviceInfo {
                    ordinal,
                    name,
                    compute_capability: cc,
                    total_memory,
                    arch,
                },
                staging: Staging::new(chunk_len),
            }),
        };
        Ok(gpu)
    }

    /// The device and the architecture of the loaded kernels.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The context, for callers that allocate device buffers themselves.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    /// The stream on which the device-memory API runs. Work queued by the
    /// device-memory methods is ordered on it; [`Gpu::synchronize`] waits.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// Waits for all work of the device-memory API.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.stream.synchronize()?;
        Ok(())
    }

    /// Bytes per chunk of the host-memory API.
    pub fn chunk_len(&self) -> usize {
        self.inner.staging.chunk_len
    }
}

fn cfg(d: LaunchDims) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (d.grid, 1, 1),
        block_dim: (d.block, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// What both GHASH kernels take, as their argument words: `nbytes` of
/// `src` (GCM blocks when `order` is 1, else the little-endian elements of a
/// lower level), folded in runs with a power of H (`lo`, `hi`), the results
/// to `out`. Building one is safe, launching it ([`GpuInner::ghash_runs`],
/// [`GpuInner::ghash_msgs`]) is not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GhashLaunch {
    src: u64,
    nbytes: u64,
    order: i32,
    out: u64,
    lo: u64,
    hi: u64,
    pows: GhashPows,
}

/// `struct aesx_ghash_pows` of ghash.cu, passed by value: the 32 powers of
/// the base that a run multiplies its elements by ([`plan::ghash_pows`]).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct GhashPows([u32; 4 * plan::GHASH_RUN as usize]);

// SAFETY: plain words with the size (512 bytes) and alignment (16, that of
// uint4) of the CUDA struct it stands for; cudarc passes its address.
unsafe impl cudarc::driver::DeviceRepr for GhashPows {}

impl GhashLaunch {
    pub(crate) fn new(src: u64, nbytes: u64, gcm_order: bool, out: u64, base: u128) -> Self {
        let (lo, hi) = plan::u128_halves(base);
        GhashLaunch {
            src,
            nbytes,
            order: i32::from(gcm_order),
            out,
            lo,
            hi,
            pows: GhashPows(plan::ghash_pows(base)),
        }
    }
}

/// One launch of an AES kernel (the one of the mode's family,
/// `kernels::aes_kernel`): the mode and its arguments
/// (see aes_bitsliced.cu for what `n`, `a` and `b` mean in each mode; a mode
/// leaves the ones it does not use at zero). Building one is safe, launching
/// it ([`GpuInner::cipher`]) is not. `rk`/`nr`: a key schedule in device
/// memory as round-key masks (`CudaAes::rk_ptr`) and its round count.
#[derive(Default)]
pub(crate) struct CipherLaunch {
    decrypt: bool,
    mode: i32,
    src: u64,
    dst: u64,
    n: u64,
    nblocks: u64,
    rk: u64,
    nr: i32,
    a: u64,
    b: u64,
    tweaks: u64,
    spb: u64,
}

impl CipherLaunch {
    /// The fields every mode sets; the others start at zero.
    fn base(mode: i32, src: u64, dst: u64, n: u64, nblocks: u64, rk: u64, nr: i32) -> Self {
        CipherLaunch {
            mode,
            src,
            dst,
            n,
            nblocks,
            rk,
            nr,
            ..Self::default()
        }
    }

    /// ECB over `nblocks` whole blocks from `src` to `dst` (may be equal).
    pub(crate) fn ecb(decrypt: bool, src: u64, dst: u64, nblocks: u64, rk: u64, nr: i32) -> Self {
        let mode = kernels::MODE_ECB;
        CipherLaunch {
            decrypt,
            ..Self::base(mode, src, dst, nblocks, nblocks, rk, nr)
        }
    }

    /// CBC decryption of whole blocks; `src` and `dst` must not overlap.
    pub(crate) fn cbc_decrypt(
        src: u64,
        dst: u64,
        nblocks: u64,
        rk: u64,
        nr: i32,
        iv: &[u8; 16],
    ) -> Self {
        let (a, b) = plan::block_le_halves(iv);
        let mode = kernels::MODE_CBC;
        CipherLaunch {
            decrypt: true,
            a,
            b,
            ..Self::base(mode, src, dst, nblocks, nblocks, rk, nr)
        }
    }

    /// CTR keystream XOR over `nbytes` bytes (any length); `ctr32`: GCM's
    /// 32-bit counter.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ctr(
        src: u64,
        dst: u64,
        nbytes: u64,
        rk: u64,
        nr: i32,
        counter: &[u8; 16],
        ctr32: bool,
    ) -> Self {
        let (a, b) = plan::counter_halves(counter);
        let mode = if ctr32 {
            kernels::MODE_CTR32
        } else {
            kernels::MODE_CTR
        };
        let nblocks = nbytes.div_ceil(16);
        CipherLaunch {
            a,
            b,
            ..Self::base(mode, src, dst, nbytes, nblocks, rk, nr)
        }
    }

    /// Sector tweaks E_K2(first + s) into `out` for s < nsectors.
    pub(crate) fn xts_tweaks(
        out: u64,
        nsectors: u64,
        rk: u64,
        nr: i32,
        first_sector: u128,
    ) -> Self {
        let (a, b) = plan::u128_halves(first_sector);
        let mode = kernels::MODE_XTS_TWEAKS;
        CipherLaunch {
            a,
            b,
            ..Self::base(mode, 0, out, nsectors, nsectors, rk, nr)
        }
    }

    /// XTS over whole sectors of `spb` blocks with tweaks from
    /// [`CipherLaunch::xts_tweaks`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn xts(
        decrypt: bool,
        src: u64,
        dst: u64,
        nblocks: u64,
        rk: u64,
        nr: i32,
        tweaks: u64,
        spb: u64,
    ) -> Self {
        let mode = kernels::MODE_XTS;
        CipherLaunch {
            decrypt,
            tweaks,
            spb,
            ..Self::base(mode, src, dst, nblocks, nblocks, rk, nr)
        }
    }

    /// GCM's CTR over `nbytes` bytes of back-to-back messages of `spb`
    /// blocks each (the last may be shorter); message m starts at the
    /// counter block `ctrs[m]` (16 bytes each, device memory).
    pub(crate) fn ctr_msgs(
        src: u64,
        dst: u64,
        nbytes: u64,
        rk: u64,
        nr: i32,
        ctrs: u64,
        spb: u64,
    ) -> Self {
        let mode = kernels::MODE_CTR_MSGS;
        let nblocks = nbytes.div_ceil(16);
        CipherLaunch {
            tweaks: ctrs,
            spb,
            ..Self::base(mode, src, dst, nbytes, nblocks, rk, nr)
        }
    }
}

/// Kernel launches on raw device addresses (`u64`). Each is an `unsafe fn`
/// with one contract, the launch's `# Safety`: every address is of a live
/// allocation of this context, 16-byte aligned, holding at least the bytes
/// the sizes given imply, and it stays alive (and the host does not touch
/// it) until `stream` is synchronised. The callers (aes.rs, xts.rs, gcm.rs,
/// gcm_msgs.rs, the pipeline's slots) take them from `CudaSlice`s that they
/// hold across the launch and synchronise before freeing.
impl GpuInner {
    /// Launches the AES kernel of `l`'s mode and direction over `l.nblocks`
    /// blocks.
    ///
    /// # Safety
    ///
    /// The addresses in `l` satisfy the contract above (live, aligned, large
    /// enough for the sizes given, untouched until `stream` is synchronised).
    pub(crate) unsafe fn cipher(&self, stream: &Arc<CudaStream>, l: CipherLaunch) -> Result<()> {
        let CipherLaunch {
            decrypt,
            mode,
            src,
            dst,
            n,
            nblocks,
            rk,
            nr,
            a,
            b,
            tweaks,
            spb,
        } = l;
        if nblocks == 0 {
            return Ok(());
        }
        let dims = plan::aes_launch_dims(nblocks)?;
        let Some(k) = kernels::aes_kernel(mode, decrypt) else {
            return Err(CudaError::Driver(format!(
                "no AES kernel for mode {mode} (decrypt: {decrypt})"
            )));
        };
        let func = &self.funcs.aes[k];
        let mut l = stream.launch_builder(func);
        l.arg(&mode)
            .arg(&src)
            .arg(&dst)
            .arg(&n)
            .arg(&rk)
            .arg(&nr)
            .arg(&a)
            .arg(&b)
            .arg(&tweaks)
            .arg(&spb);
        // SAFETY: the arguments match every AES kernel's (int, const uchar*,
        // uchar*, u64, const uint4*, int, u64, u64, const uint4*, u64), the
        // schedule being the key's masks (2 (nr + 1) * 128 words: the
        // encryption schedule, then the equivalent inverse cipher's),
        // and the pointers satisfy the contract above; the grid covers
        // nblocks and the kernel checks every index against n.
        unsafe { l.launch(cfg(dims)) }?;
        LAUNCHES.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// One level of the GHASH tree.
    ///
    /// # Safety
    ///
    /// The addresses satisfy the contract above (live, aligned, large enough
    /// for the sizes given, untouched until `stream` is synchronised).
    pub(crate) unsafe fn ghash_runs(
        &self,
        stream: &Arc<CudaStream>,
        g: GhashLaunch,
        level: &plan::GhashLevel,
    ) -> Result<()> {
        let dims = plan::ghash_launch_dims(level.runs)?;
        let horner = self.funcs.ghash_horner;
        let mut b = stream.launch_builder(if horner {
            &self.funcs.ghash_runs
        } else {
            &self.funcs.ghash_runs_pows
        });
        b.arg(&g.src)
            .arg(&g.nbytes)
            .arg(&g.order)
            .arg(&g.out)
            .arg(&level.runs)
            .arg(&level.pad);
        if horner {
            b.arg(&g.lo).arg(&g.hi);
        } else {
            b.arg(&g.pows);
        }
        // SAFETY: matches aesx_ghash_runs(const uchar*, u64, int, uint4*,
        // u64, u64, u64, u64), or aesx_ghash_runs_pows(const uchar*, u64,
        // int, uint4*, u64, u64, aesx_ghash_pows) when not `horner`; `src`
        // holds nbytes, `out` holds runs blocks.
        unsafe { b.launch(cfg(dims)) }?;
        LAUNCHES.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// One level of the per-message GHASH trees (see ghash.cu): `nmsgs`
    /// messages `stride` bytes apart in `g.src`, `nruns` runs each.
    ///
    /// # Safety
    ///
    /// The addresses satisfy the contract above (live, aligned, large enough
    /// for the sizes given, untouched until `stream` is synchronised).
    pub(crate) unsafe fn ghash_msgs(
        &self,
        stream: &Arc<CudaStream>,
        g: GhashLaunch,
        stride: u64,
        nmsgs: u64,
        nruns: u64,
    ) -> Result<()> {
        let threads = nmsgs
            .checked_mul(nruns)
            .ok_or(CudaError::Aes(aesx::Error::MessageTooLong))?;
        let dims = plan::ghash_launch_dims(threads)?;
        let horner = self.funcs.ghash_horner;
        let mut b = stream.launch_builder(if horner {
            &self.funcs.ghash_msgs
        } else {
            &self.funcs.ghash_msgs_pows
        });
        b.arg(&g.src)
            .arg(&g.nbytes)
            .arg(&stride)
            .arg(&g.order)
            .arg(&g.out)
            .arg(&nmsgs)
            .arg(&nruns);
        if horner {
            b.arg(&g.lo).arg(&g.hi);
        } else {
            b.arg(&g.pows);
        }
        // SAFETY: matches aesx_ghash_msgs(const uchar*, u64, u64, int,
        // uint4*, u64, u64, u64, u64), or aesx_ghash_msgs_pows(const uchar*,
        // u64, u64, int, uint4*, u64, u64, aesx_ghash_pows) when not
        // `horner`; `src` holds nbytes, `out` holds nmsgs * nruns blocks,
        // and the grid covers nmsgs * nruns threads.
        unsafe { b.launch(cfg(dims)) }?;
        LAUNCHES.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
