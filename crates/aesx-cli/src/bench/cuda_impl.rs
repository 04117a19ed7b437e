//! aesx-cuda: the GPU backend, on the host-memory API (each call copies the
//! message to the GPU and back, which is what a caller with data in host
//! memory pays). Present only where a CUDA driver and a GPU are found at
//! run time; the crate loads libcuda dynamically, so this builds anywhere.

use std::sync::OnceLock;

use aesx_cuda::{CudaAes, Gpu};

use super::cases::{Mode, Setup};
use super::impls::Runner;

/// Whether a GPU is visible (without compiling any kernel).
pub fn available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| matches!(aesx_cuda::device_count(), Ok(n) if n > 0))
}

/// GPU 0, opened once (kernels compiled or taken from the cache, and
/// self-checked by aesx-cuda against the CPU).
fn gpu() -> Result<Gpu, String> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::new(0).map_err(|e| format!("aesx-cuda: {e}")))
        .clone()
}

/// The modes the GPU crate has for host memory.
pub fn supports(mode: Mode, key_bits: u32) -> bool {
    matches!(mode, Mode::Ecb | Mode::CbcDec | Mode::Ctr) && matches!(key_bits, 128 | 192 | 256)
}

/// A keyed GPU runner for the case.
pub fn runner(mode: Mode, setup: &Setup) -> Result<Box<dyn Runner>, String> {
    let aes = CudaAes::new(&gpu()?, &setup.key).map_err(|e| format!("aesx-cuda: {e}"))?;
    let iv = || -> Result<[u8; 16], String> {
        setup
            .iv
            .as_slice()
            .try_into()
            .map_err(|_| String::from("aesx-cuda: IV must be 16 bytes"))
    };
    Ok(match mode {
        Mode::Ecb => Box::new(CudaEcb(aes)),
        Mode::CbcDec => Box::new(CudaCbcDec { aes, chain: iv()? }),
        Mode::Ctr => Box::new(CudaCtr {
            aes,
            next: u128::from_be_bytes(iv()?),
            ks: [0; 16],
            used: 16,
        }),
        _ => return Err(format!("aesx-cuda has no {mode}")),
    })
}

fn err(e: aesx_cuda::CudaError) -> String {
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
    next: u128,
    ks: [u8; 16],
    used: usize,
}

impl Runner for CudaCtr {
    fn call(&mut self, buf: &mut [u8], len: usize) -> Result<(), String> {
        let buf = &mut buf[..len];
        let head = (16 - self.used).min(len);
        for (b, k) in buf[..head].iter_mut().zip(&self.ks[self.used..]) {
            *b ^= k;
        }
        self.used += head;
        let rest = &mut buf[head..];
        let whole = rest.len() / 16 * 16;
        if whole > 0 {
            self.aes
                .ctr_apply(&self.next.to_be_bytes(), &mut rest[..whole])
                .map_err(err)?;
            self.next = self.next.wrapping_add((whole / 16) as u128);
        }
        let tail = &mut rest[whole..];
        if !tail.is_empty() {
            self.ks = [0; 16];
            self.aes
                .ctr_apply(&self.next.to_be_bytes(), &mut self.ks)
                .map_err(err)?;
            self.next = self.next.wrapping_add(1);
            for (b, k) in tail.iter_mut().zip(&self.ks) {
                *b ^= k;
            }
            self.used = tail.len();
        }
        Ok(())
    }
}
