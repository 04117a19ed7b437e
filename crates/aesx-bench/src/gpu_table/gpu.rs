//! The GPU side of `--gpu-table`: AES-256-ECB through `CudaAes`'s host API
//! on page-locked buffers, and the file format through the chunk pipe (the
//! path of `aesx encrypt/decrypt --backend cuda`).
//!
//! There is no GPU where this is built and tested, so the pipe is driven
//! through the small [`Pipe`] trait and the file-format code around it
//! through [`RunChunks`]: the driver (batches, chunk indexes and nonces,
//! the last chunk's shape, order, "nothing unverified released") and the
//! header, reading and writing are tested against a model of the pipe on
//! the CPU, byte for byte against the CPU side; on a GPU only the pipe's
//! own calls differ.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use aesx::Backend;
use aesx_cuda::chunk_pipe::{ChunkPipe, Direction, CHUNK, RECORD};
use aesx_cuda::{CudaError, CudaGcm};
use aesx_file::payload::{self, chunk_nonce, Suite, NONCE_LEN, PAYLOAD_HEADER_LEN};

use super::side::{header_into, Buf, Dir, FileKey, Side, Workload};

/// Chunks per pipe batch: 32 MiB of plaintext, as the CLI's offload path.
const BATCH: usize = 2048;
/// Batches in flight: one being filled, one on the GPU, one being written.
const SLOTS: usize = 3;

/// The GPU through aesx-cuda, opened (kernels loaded) once.
pub struct Gpu(pub aesx_cuda::Gpu);

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The file's chunk key and base nonce, derived as aesx-file derives them.
fn chunk_key(k: &FileKey) -> Result<payload::Derived, String> {
    payload::derive(Suite::Aes256Gcm, k.key, k.salt, k.context).map_err(err)
}

/// A GPU error after the GPU was opened, worded as `--backend cuda` words
/// one: a refused request as the library's error, the rest as a GPU failure.
fn working(e: CudaError) -> String {
    match e {
        CudaError::Aes(e) => e.to_string(),
        other => format!("GPU: {}", other.first_line()),
    }
}

impl Side for Gpu {
    fn describe(&self) -> String {
        format!(
            "aesx-cuda on {} ({}); ECB on page-locked host buffers (Gpu::host_buffer), \
             file format through the chunk pipe (as encrypt/decrypt --backend cuda)",
            self.0.info().name,
            self.0.info().arch
        )
    }

    fn threads(&self, _w: Workload, _len: usize) -> usize {
        // One host thread reads, drives the GPU, finishes the tags and
        // writes; the GPU does the AES.
        1
    }

    fn buffer(&self, len: usize) -> Result<Buf, String> {
        // Page-locked: the copy engines move it without staging, as a GPU
        // user who keeps data for the GPU would hold it.
        Ok(Box::new(self.0.host_buffer(len.max(1)).map_err(err)?))
    }

    fn ecb(&self, key: &[u8; 32], dir: Dir, buf: &mut [u8]) -> Result<(), String> {
        let k = aesx_cuda::CudaAes::new(&self.0, key).map_err(err)?;
        match dir {
            Dir::Enc => k.ecb_encrypt(buf),
            Dir::Dec => k.ecb_decrypt(buf),
        }
        .map_err(err)
    }

    fn file_mem(
        &self,
        k: &FileKey,
        dir: Dir,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        file_mem_via(self, k, dir, input, out)
    }

    fn file_e2e(&self, k: &FileKey, dir: Dir, input: &Path, output: &Path) -> Result<(), String> {
        file_e2e_via(self, k, dir, input, output)
    }
}

/// Fills a batch's input: (position in the chunk area, bytes to fill).
pub(super) type Fill<'a> = dyn FnMut(usize, &mut [u8]) -> Result<(), String> + 'a;
/// Takes a batch's verified output.
pub(super) type Sink<'a> = dyn FnMut(&[u8]) -> Result<(), String> + 'a;

/// Runs a chunk area of `len` bytes through a pipe for the file's chunk
/// key: the GPU's, or in the tests a model of it.
pub(super) trait RunChunks {
    fn run_chunks(
        &self,
        k: &FileKey,
        dir: Dir,
        len: usize,
        fill: &mut Fill<'_>,
        sink: &mut Sink<'_>,
    ) -> Result<(), String>;
}

/// The file format in memory through `r`: the header on the CPU, the chunks
/// through the pipe.
pub(super) fn file_mem_via(
    r: &impl RunChunks,
    k: &FileKey,
    dir: Dir,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.clear();
    let chunks = match dir {
        Dir::Enc => {
            header_into(k, Backend::fastest(), out)?;
            input
        }
        Dir::Dec => {
            check_header(k, input)?;
            &input[PAYLOAD_HEADER_LEN..]
        }
    };
    // In memory: the chunks go from the caller's (pageable) bytes into
    // the pipe's page-locked slots and back, one host copy each way.
    r.run_chunks(
        k,
        dir,
        chunks.len(),
        &mut |pos, b| {
            b.copy_from_slice(&chunks[pos..pos + b.len()]);
            Ok(())
        },
        &mut |o| {
            out.extend_from_slice(o);
            Ok(())
        },
    )
}

/// The file format from file to file through `r`.
pub(super) fn file_e2e_via(
    r: &impl RunChunks,
    k: &FileKey,
    dir: Dir,
    input: &Path,
    output: &Path,
) -> Result<(), String> {
    let mut f = File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let mut len = f.metadata().map_err(err)?.len() as usize;
    let mut o = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    match dir {
        Dir::Enc => {
            let mut h = Vec::new();
            header_into(k, Backend::fastest(), &mut h)?;
            o.write_all(&h).map_err(err)?;
        }
        Dir::Dec => {
            let mut h = [0u8; PAYLOAD_HEADER_LEN];
            f.read_exact(&mut h).map_err(err)?;
            check_header(k, &h)?;
            len -= PAYLOAD_HEADER_LEN;
        }
    }
    // The input is read straight into the pipe's page-locked slots and
    // the output written straight out of them.
    let mut at = 0;
    r.run_chunks(
        k,
        dir,
        len,
        &mut |pos, b| {
            debug_assert_eq!(pos, at, "batches are filled in order");
            at = pos + b.len();
            f.read_exact(b).map_err(err)
        },
        &mut |out| o.write_all(out).map_err(err),
    )?;
    o.flush().map_err(err)
}

impl RunChunks for Gpu {
    /// The pipe is built per file, as its key is, and sized to the file.
    fn run_chunks(
        &self,
        k: &FileKey,
        dir: Dir,
        len: usize,
        fill: &mut Fill<'_>,
        sink: &mut Sink<'_>,
    ) -> Result<(), String> {
        // The chunk key on the GPU, as `aesx encrypt --backend cuda` puts it.
        let d = chunk_key(k)?;
        let (gcm, base) = (
            CudaGcm::new(&self.0, &d.key).map_err(working)?,
            d.base_nonce,
        );
        let n = chunk_count(dir, len).max(1);
        let batch = n.min(BATCH);
        // A small file needs no third slot; the pipe wants two.
        let slots = if n > batch { SLOTS } else { 2 };
        let d = match dir {
            Dir::Enc => Direction::Seal,
            Dir::Dec => Direction::Open,
        };
        let mut pipe = gcm.chunk_pipe(d, batch, slots).map_err(err)?;
        stream(&mut pipe, dir, &base, len, fill, sink)
    }
}

/// The commitment check of a payload header on the CPU (as the CLI does
/// before any chunk is opened).
fn check_header(k: &FileKey, input: &[u8]) -> Result<(), String> {
    let h = input
        .get(..PAYLOAD_HEADER_LEN)
        .ok_or("the payload header is truncated")?;
    payload::open_header(Suite::Aes256Gcm, k.key, k.context, h, Backend::fastest())
        .map(|_| ())
        .map_err(err)
}

/// What receives a finished batch: (output, verified chunks, chunks).
pub(super) type Finish<'a> = dyn FnMut(&[u8], usize, usize) -> Result<(), String> + 'a;

/// What the driver needs of a chunk pipe.
pub(super) trait Pipe {
    fn batch(&self) -> usize;
    fn is_full(&self) -> bool;
    fn input(&mut self) -> Result<&mut [u8], String>;
    fn submit(&mut self, len: usize, nonces: &[[u8; NONCE_LEN]]) -> Result<(), String>;
    /// Hands the oldest batch's (output, verified, chunks) to `f`; false
    /// when none is queued.
    fn take_with(&mut self, f: &mut Finish<'_>) -> Result<bool, String>;
}

impl Pipe for ChunkPipe<'_> {
    fn batch(&self) -> usize {
        ChunkPipe::batch(self)
    }
    fn is_full(&self) -> bool {
        ChunkPipe::is_full(self)
    }
    fn input(&mut self) -> Result<&mut [u8], String> {
        ChunkPipe::input(self).map_err(err)
    }
    fn submit(&mut self, len: usize, nonces: &[[u8; NONCE_LEN]]) -> Result<(), String> {
        ChunkPipe::submit(self, len, nonces).map_err(err)
    }
    fn take_with(&mut self, f: &mut Finish<'_>) -> Result<bool, String> {
        match self.take().map_err(err)? {
            Some(d) => f(d.output, d.verified, d.chunks).map(|()| true),
            None => Ok(false),
        }
    }
}

/// Chunks of a chunk area of `len` bytes: sealing, whole chunks then the
/// final short (possibly empty) one; opening, one per record begun.
pub(super) fn chunk_count(dir: Dir, len: usize) -> usize {
    match dir {
        Dir::Enc => len / CHUNK + 1,
        Dir::Dec => len.div_ceil(RECORD),
    }
}

/// Streams a chunk area of `len` bytes through `pipe`: `fill(pos, buf)`
/// reads the input bytes at `pos` (in order), `sink` takes each batch's
/// output in order, and only once every chunk of it verified.
pub(super) fn stream(
    pipe: &mut impl Pipe,
    dir: Dir,
    base: &[u8; NONCE_LEN],
    len: usize,
    mut fill: impl FnMut(usize, &mut [u8]) -> Result<(), String>,
    mut sink: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let stride = match dir {
        Dir::Enc => CHUNK,
        Dir::Dec => RECORD,
    };
    let chunks = chunk_count(dir, len);
    if dir == Dir::Dec {
        // The final record holds its tag and is short of a whole one (a
        // whole final record means the stream was cut): the CPU path's
        // rules, which the table does not exercise beyond refusing.
        let tail = len.saturating_sub(chunks.saturating_sub(1) * RECORD);
        if chunks == 0 || tail < 16 || tail == RECORD {
            return Err("the payload is truncated".into());
        }
    }
    let batch = pipe.batch();
    let mut next = 0;
    while next < chunks {
        if pipe.is_full() {
            take_one(pipe, &mut sink)?;
        }
        let count = (chunks - next).min(batch);
        let pos = next * stride;
        let end = ((next + count) * stride).min(len);
        let buf = pipe.input()?;
        fill(pos, &mut buf[..end - pos])?;
        let nonces: Vec<[u8; NONCE_LEN]> = (next..next + count)
            .map(|i| chunk_nonce(base, i as u64))
            .collect();
        pipe.submit(end - pos, &nonces)?;
        next += count;
    }
    while take_one(pipe, &mut sink)? {}
    Ok(())
}

/// Takes the oldest batch into `sink` if every chunk of it verified.
fn take_one(
    pipe: &mut impl Pipe,
    sink: &mut impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<bool, String> {
    pipe.take_with(&mut |out, verified, n| {
        if verified != n {
            return Err(format!("{} of {n} chunks did not verify", n - verified));
        }
        sink(out)
    })
}

#[cfg(test)]
pub(super) mod model {
    //! The chunk pipe modelled on the CPU: per-chunk AES-GCM under the
    //! chunk key, the nonces checked against the chunk indexes.

    use std::collections::VecDeque;

    use aesx_file::payload::ChunkCipher;

    use super::*;

    pub struct Model {
        pub cipher: ChunkCipher,
        pub base: [u8; NONCE_LEN],
        pub dir: Dir,
        pub batch: usize,
        pub slots: usize,
        pub next: u64,
        pub input: Vec<u8>,
        pub done: VecDeque<(Vec<u8>, usize, usize)>,
        /// Flip a byte of the output of chunk N (opening: its tag fails).
        pub corrupt: Option<u64>,
    }

    /// The GPU side's file-format code (header, chunk area, reading and
    /// writing) with the model for the pipe, and the CPU's ECB.
    pub struct ModelSide {
        pub batch: usize,
    }

    impl RunChunks for ModelSide {
        fn run_chunks(
            &self,
            k: &FileKey,
            dir: Dir,
            len: usize,
            fill: &mut Fill<'_>,
            sink: &mut Sink<'_>,
        ) -> Result<(), String> {
            let d = chunk_key(k)?;
            let mut m = Model {
                cipher: ChunkCipher::new(&d.key, d.base_nonce, Backend::fastest()).map_err(err)?,
                base: d.base_nonce,
                dir,
                batch: self.batch,
                slots: 2,
                next: 0,
                input: Vec::new(),
                done: VecDeque::new(),
                corrupt: None,
            };
            stream(&mut m, dir, &d.base_nonce, len, fill, sink)
        }
    }

    impl Side for ModelSide {
        fn describe(&self) -> String {
            "chunk-pipe model".into()
        }
        fn threads(&self, _w: Workload, _len: usize) -> usize {
            1
        }
        fn buffer(&self, len: usize) -> Result<Buf, String> {
            Ok(Box::new(vec![0u8; len]))
        }
        fn ecb(&self, key: &[u8; 32], dir: Dir, buf: &mut [u8]) -> Result<(), String> {
            super::super::cpu::Cpu::best().ecb(key, dir, buf)
        }
        fn file_mem(
            &self,
            k: &FileKey,
            dir: Dir,
            input: &[u8],
            out: &mut Vec<u8>,
        ) -> Result<(), String> {
            file_mem_via(self, k, dir, input, out)
        }
        fn file_e2e(
            &self,
            k: &FileKey,
            dir: Dir,
            input: &Path,
            output: &Path,
        ) -> Result<(), String> {
            file_e2e_via(self, k, dir, input, output)
        }
    }

    impl Pipe for Model {
        fn batch(&self) -> usize {
            self.batch
        }
        fn is_full(&self) -> bool {
            self.done.len() == self.slots
        }
        fn input(&mut self) -> Result<&mut [u8], String> {
            assert!(!self.is_full());
            self.input.resize(self.batch * RECORD, 0);
            Ok(&mut self.input)
        }
        fn submit(&mut self, len: usize, nonces: &[[u8; NONCE_LEN]]) -> Result<(), String> {
            assert!(!self.is_full() && !nonces.is_empty() && nonces.len() <= self.batch);
            let (stride, grow) = match self.dir {
                Dir::Enc => (CHUNK, true),
                Dir::Dec => (RECORD, false),
            };
            let mut out = Vec::new();
            let mut verified = nonces.len();
            for (i, nonce) in nonces.iter().enumerate() {
                let index = self.next + i as u64;
                assert_eq!(*nonce, chunk_nonce(&self.base, index), "nonce of {index}");
                let a = (i * stride).min(len);
                let b = ((i + 1) * stride).min(len);
                let mut c = self.input[a..b].to_vec();
                if self.corrupt == Some(index) {
                    c[0] ^= 1;
                }
                let mut o = vec![0u8; if grow { c.len() + 16 } else { c.len() - 16 }];
                match self.dir {
                    Dir::Enc => self.cipher.seal_chunk(index, &c, &mut o).map_err(err)?,
                    Dir::Dec => {
                        if self.cipher.open_chunk(index, &c, &mut o, false).is_err() {
                            verified = verified.min(i);
                            o.fill(0);
                        }
                    }
                }
                out.extend_from_slice(&o);
            }
            self.next += nonces.len() as u64;
            self.done.push_back((out, verified, nonces.len()));
            Ok(())
        }
        fn take_with(&mut self, f: &mut Finish<'_>) -> Result<bool, String> {
            match self.done.pop_front() {
                Some((o, v, n)) => f(&o, v, n).map(|()| true),
                None => Ok(false),
            }
        }
    }
}
