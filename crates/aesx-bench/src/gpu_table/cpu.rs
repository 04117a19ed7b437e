//! The CPU side: the fastest aesx backend on every core, ECB split over
//! threads and the file format through aesx-file's `Sealer`/`Opener` in
//! batches, as `aesx encrypt` runs it.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use aesx::{Aes, Backend};
use aesx_file::payload::{
    self, Opener, Sealer, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN,
};

use super::files::write_from;
use super::side::{header_into, Buf, Dir, FileKey, Side, Workload};

/// CPU batches of the file format (as `aesx encrypt`).
const CPU_BATCH_CHUNKS: usize = 128;

/// The fastest CPU backend on every core.
pub struct Cpu {
    pub(super) backend: Backend,
    pub(super) threads: usize,
    /// The end-to-end file format's input and output buffers, kept from
    /// call to call as the GPU side keeps its pinned ones: a fresh
    /// allocation per file would time page faults, not the CPU.
    pub(super) io: RefCell<(Vec<u8>, Vec<u8>)>,
}

impl Cpu {
    /// The fastest backend, all cores.
    pub fn best() -> Cpu {
        Cpu {
            backend: Backend::fastest(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            io: RefCell::default(),
        }
    }

    /// Bytes per ECB piece: at least 64 KiB, so that a small file starts
    /// no thread.
    fn ecb_piece(&self, len: usize) -> usize {
        (len / 16).div_ceil(self.threads).max(4096) * 16
    }
}

impl Side for Cpu {
    fn describe(&self) -> String {
        format!(
            "aesx-{} on up to {} threads",
            self.backend.name(),
            self.threads
        )
    }

    fn threads(&self, w: Workload, len: usize) -> usize {
        match w {
            Workload::Ecb => {
                // The padded length, as ecb() splits it.
                let padded = (len / 16 + 1) * 16;
                padded.div_ceil(self.ecb_piece(padded))
            }
            // As Sealer/Opener split a batch: one run of chunks per thread.
            Workload::File => (len / CHUNK_LEN + 1)
                .min(CPU_BATCH_CHUNKS)
                .min(self.threads),
        }
    }

    fn buffer(&self, len: usize) -> Result<Buf, String> {
        Ok(Box::new(vec![0u8; len]))
    }

    fn ecb(&self, key: &[u8; 32], dir: Dir, buf: &mut [u8]) -> Result<(), String> {
        let aes = Aes::with_backend(key, self.backend).map_err(|e| e.to_string())?;
        let run = |aes: &Aes, c: &mut [u8]| match dir {
            Dir::Enc => aes.encrypt_blocks(c),
            Dir::Dec => aes.decrypt_blocks(c),
        };
        let per = self.ecb_piece(buf.len());
        if buf.len() <= per {
            // One piece: no thread to start for a small file.
            return run(&aes, buf).map_err(|e| e.to_string());
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = buf
                .chunks_mut(per)
                .map(|c| {
                    let aes = &aes;
                    s.spawn(move || run(aes, c))
                })
                .collect();
            for h in handles {
                match h.join() {
                    Ok(r) => r.map_err(|e| e.to_string())?,
                    Err(p) => std::panic::resume_unwind(p),
                }
            }
            Ok(())
        })
    }

    fn file_mem(
        &self,
        k: &FileKey,
        dir: Dir,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        match dir {
            Dir::Enc => {
                let mut sealer = Sealer::new(header_into(k, self.backend, out)?);
                in_batches(input, CPU_BATCH_CHUNKS * CHUNK_LEN, out, |b, last, o| {
                    sealer
                        .seal_batch(b, last, o, self.threads)
                        .map_err(|e| e.to_string())
                })
            }
            Dir::Dec => {
                let h = input
                    .get(..PAYLOAD_HEADER_LEN)
                    .ok_or("the payload header is truncated")?;
                let cipher =
                    payload::open_header(Suite::Aes256Gcm, k.key, k.context, h, self.backend)
                        .map_err(|e| e.to_string())?;
                let mut opener = Opener::new(cipher);
                out.clear();
                in_batches(
                    &input[PAYLOAD_HEADER_LEN..],
                    CPU_BATCH_CHUNKS * ENC_CHUNK_LEN,
                    out,
                    |b, last, o| {
                        opener
                            .open_batch(b, last, o, self.threads)
                            .map_err(|e| e.error.to_string())
                    },
                )
            }
        }
    }

    fn file_e2e(&self, k: &FileKey, dir: Dir, input: &Path, output: &Path) -> Result<(), String> {
        let mut io = self.io.borrow_mut();
        let (data, out) = &mut *io;
        data.clear();
        File::open(input)
            .and_then(|mut f| f.read_to_end(data))
            .map_err(|e| format!("reading {}: {e}", input.display()))?;
        self.file_mem(k, dir, data, out)?;
        write_from(out, output)
    }
}

/// Runs `crypt(batch, last, scratch)` over `input` in batches of `step`
/// bytes, appending each batch's output to `out`.
pub(super) fn in_batches(
    input: &[u8],
    step: usize,
    out: &mut Vec<u8>,
    mut crypt: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Result<(), String>,
) -> Result<(), String> {
    let mut o = Vec::new();
    let mut off = 0;
    loop {
        let end = (off + step).min(input.len());
        let last = end - off < step;
        crypt(&input[off..end], last, &mut o)?;
        out.extend_from_slice(&o);
        if last {
            return Ok(());
        }
        off = end;
    }
}
