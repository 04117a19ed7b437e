//! aesx-cuda: the GPU backend, on the host-memory API (each call copies the
//! message to the GPU and back, which is what a caller with data in host
//! memory pays). Present only where a CUDA driver and a GPU are found at
//! run time; the crate loads libcuda dynamically, so this builds anywhere.

use std::sync::OnceLock;

use aesx_cuda::{CtrStream, CudaAes, CudaError, CudaGcm, CudaXts, Gpu};

use super::cases::{Mode, Setup};
use super::runner::Runner;

/// Whether a GPU is visible (without compiling any kernel).
pub fn available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| matches!(aesx_cuda::device_count(), Ok(n) if n > 0))
}

/// GPU 0, opened once per process (kernels compiled or taken from the
/// cache, and self-checked by aesx-cuda against the CPU), for
/// `--backend cuda`, the rows and `--gpu-table` alike.
fn gpu() -> Result<Gpu, CudaError> {
    static GPU: OnceLock<Result<Gpu, CudaError>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new(0)).clone()
}

/// GPU 0, or why not in one line, as `--backend cuda` says it (an NVRTC log
/// can span many lines: only its first is kept).
pub fn gpu_or_why() -> Result<Gpu, String> {
    gpu().map_err(|e| format!("--backend cuda: {}", e.first_line()))
}

/// The modes the GPU crate has for host memory (CBC encryption is serial:
/// there is no GPU row for it, nor for single blocks).
pub fn supports(mode: Mode, key_bits: u32) -> bool {
    !matches!(mode, Mode::Block | Mode::CbcEnc)
        && !mode.cpu_only()
        && matches!(key_bits, 128 | 192 | 256)
}

/// A keyed GPU runner for the case.
pub fn runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let block = |what: &str| -> Result<[u8; 16], String> {
        setup
            .iv
            .as_slice()
            .try_into()
            .map_err(|_| format!("aesx-cuda: {what} must be 16 bytes"))
    };
    match mode {
        Mode::XtsEnc | Mode::XtsDec => {
            return Ok(Box::new(CudaXtsRunner {
                xts: CudaXts::new(&gpu().map_err(err)?, &setup.key).map_err(err)?,
                tweak: block("tweak")?,
                decrypt: mode == Mode::XtsDec,
            }))
        }
        Mode::GcmEnc | Mode::GcmDec => {
            // gcm-dec opens the case's one authentic message every call.
            let sealed = match mode {
                Mode::GcmDec => Some(
                    setup
                        .sealed
                        .clone()
                        .ok_or("gcm-dec needs a sealed message")?,
                ),
                _ => None,
            };
            return Ok(Box::new(CudaGcmRow {
                gcm: CudaGcm::new(&gpu().map_err(err)?, &setup.key).map_err(err)?,
                nonce: setup.iv.clone(),
                aad: setup.aad.clone(),
                sealed,
                tag: None,
            }));
        }
        _ => {}
    }
    let aes = CudaAes::new(&gpu().map_err(err)?, &setup.key).map_err(err)?;
    Ok(match mode {
        Mode::Ecb => Box::new(CudaEcb(aes)),
        Mode::CbcDec => Box::new(CudaCbcDec {
            aes,
            chain: block("IV")?,
        }),
        Mode::Ctr => Box::new(CudaCtr {
            aes,
            ctr: CtrStream::new(&block("IV")?),
        }),
        _ => return Err(format!("aesx-cuda has no {mode}")),
    })
}

fn err(e: CudaError) -> String {
    format!("aesx-cuda: {e}")
}

struct CudaEcb(CudaAes);

impl Runner for CudaEcb {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        self.0.ecb_encrypt(&mut buf[..len]).map_err(err)
    }
}

struct CudaCbcDec {
    aes: CudaAes,
    chain: [u8; 16],
}

impl Runner for CudaCbcDec {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        // The next call chains from this call's last ciphertext block.
        let mut next = [0u8; 16];
        if len >= 16 {
            next.copy_from_slice(&buf[len - 16..len]);
        }
        self.aes
            .cbc_decrypt(&self.chain, &mut buf[..len])
            .map_err(err)?;
        self.chain = next;
        Ok(())
    }
}

/// CTR as one stream across calls, like the other rows: whole blocks go to
/// the GPU from the running counter; a partial last block keeps the rest of
/// its keystream block for the next call.
struct CudaCtr {
    aes: CudaAes,
    ctr: CtrStream,
}

impl Runner for CudaCtr {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let aes = &self.aes;
        self.ctr
            .apply(&mut buf[..len], |c, blocks| aes.ctr_apply(c, blocks))
            .map_err(err)
    }
}

/// One data unit per call on the GPU (ciphertext stealing included); the
/// tweak moves on as in the CPU rows.
struct CudaXtsRunner {
    xts: CudaXts,
    tweak: [u8; 16],
    decrypt: bool,
}

impl Runner for CudaXtsRunner {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let r = if self.decrypt {
            self.xts.decrypt_unit(&self.tweak, &mut buf[..len])
        } else {
            self.xts.encrypt_unit(&self.tweak, &mut buf[..len])
        };
        Mode::XtsEnc.next_iv(&mut self.tweak);
        r.map_err(err)
    }
}

/// GCM: for gcm-enc each call seals the buffer in place under the next
/// nonce; for gcm-dec each call opens the case's one authentic message
/// (`sealed`) into the buffer.
struct CudaGcmRow {
    gcm: CudaGcm,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    sealed: Option<(Vec<u8>, [u8; 16])>,
    tag: Option<[u8; 16]>,
}

impl Runner for CudaGcmRow {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let buf = &mut buf[..len];
        match &self.sealed {
            None => {
                let tag = self
                    .gcm
                    .seal_in_place(&self.nonce, &self.aad, buf)
                    .map_err(err)?;
                self.tag = Some(tag);
                Mode::GcmEnc.next_iv(&mut self.nonce);
            }
            Some((ct, tag)) => {
                buf.copy_from_slice(&ct[..len]);
                self.gcm
                    .open_in_place(&self.nonce, &self.aad, buf, tag)
                    .map_err(err)?;
            }
        }
        Ok(())
    }

    fn tag(&self) -> Option<[u8; 16]> {
        self.tag
    }
}

/// The figures the rows above cannot show: every GPU mode on data already
/// in device memory, beside the copy bandwidths and the host-to-host rates
/// of the same run (aesx_cuda::bench, each mode checked against aesx
/// first). `bytes` per measurement.
pub fn print_device_figures(out: &mut impl std::io::Write, bytes: usize) -> Result<(), String> {
    let g = gpu().map_err(err)?;
    let w = |e: std::io::Error| format!("writing the report: {e}");
    writeln!(
        out,
        "\naesx-cuda on {} ({}), {} MiB per measurement:",
        g.info().name,
        g.info().arch,
        bytes >> 20
    )
    .map_err(w)?;
    writeln!(
        out,
        "  the aesx-cuda rows above are HOST-TO-HOST (host memory in and out, copies included);\n  \
         ON-DEVICE rows below are data already in GPU memory (kernels only)."
    )
    .map_err(w)?;
    for m in aesx_cuda::bench::run(&g, bytes, 5).map_err(err)? {
        let kind = match m.kind {
            aesx_cuda::bench::Kind::Copy => "copy bound",
            aesx_cuda::bench::Kind::Device => "on-device",
            aesx_cuda::bench::Kind::HostToHost => "host-to-host",
        };
        writeln!(out, "  {kind:<13} {:<44} {:>8.1} GB/s", m.name, m.gbps()).map_err(w)?;
    }
    Ok(())
}
