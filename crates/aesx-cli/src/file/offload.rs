//! `aesx encrypt/decrypt --backend cuda` on a regular file, and
//! `--backend cpu+cuda`: the GPU as an offload, and the GPU and CPU workers
//! taking runs of chunks from one queue.
//!
//! For host data a many-core CPU can outrun PCIe, so the GPU path is built
//! to cost the CPU little: the input is read straight into the chunk pipe's
//! page-locked buffers (`pread` by this thread and one helper), the output
//! written straight out of them, and nothing else touches the bytes on the
//! host. With CPU workers (`cpu+cuda`) each worker reads, seals or opens and
//! returns its own run of chunks; this thread hands the next run to whoever
//! is free (the GPU first) and writes results in chunk order.
//!
//! Opening the GPU (driver context, kernels, self-test) takes a large part
//! of a second, so it runs on its own thread: the GPU alone waits for it,
//! while with workers the CPU starts at once and the GPU joins the queue
//! when it is ready (a file the workers finish first never waits for it).
//!
//! The failure rules are the CPU path's: a GPU run that does not verify is
//! opened again on the CPU at the same chunk index for its exact error and
//! verified prefix, and only verified plaintext is ever written.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io;
use std::sync::{mpsc, Arc};

use aesx_cuda::chunk_pipe::{ChunkPipe, Direction, CHUNK, RECORD};
use aesx_cuda::CudaGcm;
use aesx_file::payload::{self, chunk_nonce, ChunkCipher, Opener, PayloadError, Sealer};

use super::output::Output;
use super::{io_msg, open_failure, payload_err};
use crate::{backend_arg, CommandError};

/// Chunks per GPU run: 32 MiB of plaintext, enough to fill the GPU.
const GPU_RUN: usize = 2048;
/// Chunks per CPU worker run: small, so that the GPU never waits long for
/// a worker's run to be written before its own.
const CPU_RUN: usize = 256;
/// Runs queued per worker, so that the workers stay busy while this thread
/// reads a GPU run or waits for one.
const CPU_QUEUE: usize = 3;
/// GPU runs in flight: one being read, one on the GPU, one being written.
const GPU_SLOTS: usize = 3;

/// The chunk key on the GPU and the base nonce.
pub(super) type GpuKey = (CudaGcm, [u8; payload::NONCE_LEN]);

/// Opens the GPU and sets up the chunk key on it (run on a thread of its
/// own).
pub(super) type GpuOpen = Box<dyn FnOnce() -> Result<GpuKey, CommandError> + Send>;

/// What a file offload does and with what.
pub(super) struct Job {
    pub(super) gpu: GpuOpen,
    /// The same chunk key on the CPU: workers, and reopening failed runs.
    pub(super) cpu: ChunkCipher,
    /// CPU worker threads beside the GPU (0: the GPU alone).
    pub(super) workers: usize,
    pub(super) file: File,
    /// Where the payload's chunks start in the file.
    pub(super) start: u64,
    /// Bytes of chunks: plaintext when sealing, records when opening.
    pub(super) len: u64,
}

/// A run of chunks: `first` and `count`, the bytes `[pos, pos + bytes)` of
/// the chunk area, and whether it holds the final chunk.
#[derive(Clone, Copy, Debug)]
struct Run {
    first: u64,
    count: usize,
    pos: u64,
    bytes: usize,
    last: bool,
}

/// The chunk area cut into runs: `stride` bytes per chunk in the input
/// (CHUNK when sealing, RECORD when opening).
#[derive(Clone)]
struct Plan {
    chunks: u64,
    stride: u64,
    len: u64,
    next: u64,
}

impl Plan {
    fn new(dir: Direction, len: u64) -> Plan {
        let (chunks, stride) = match dir {
            // Whole chunks, then the final short (possibly empty) one.
            Direction::Seal => (len / CHUNK as u64 + 1, CHUNK as u64),
            // One record per RECORD bytes begun; an empty area still has
            // one (malformed) run, so that the CPU reports it.
            Direction::Open => (len.div_ceil(RECORD as u64).max(1), RECORD as u64),
        };
        Plan {
            chunks,
            stride,
            len,
            next: 0,
        }
    }

    fn done(&self) -> bool {
        self.next >= self.chunks
    }

    fn take(&mut self, max: usize) -> Run {
        let first = self.next;
        let count = (self.chunks - first).min(max as u64);
        self.next += count;
        let pos = (first * self.stride).min(self.len);
        let end = (self.next * self.stride).min(self.len);
        Run {
            first,
            count: count as usize,
            pos,
            bytes: (end - pos) as usize,
            last: self.next == self.chunks,
        }
    }
}

/// A run's output, or how much of it verified and why the rest did not.
type RunResult = Result<Vec<u8>, (Vec<u8>, CommandError)>;

/// A worker's (or this thread's) finished run.
struct CpuDone {
    count: usize,
    result: RunResult,
}

fn read_err(e: io::Error) -> CommandError {
    CommandError::failure(format!("reading input: {}", io_msg(&e)))
}

/// Reads `buf.len()` bytes at `pos`, the two halves on this thread and one
/// helper; a short read means the file shrank while being read.
fn read_exact_2(file: &File, buf: &mut [u8], pos: u64) -> Result<(), CommandError> {
    let half = (buf.len() / 2).next_multiple_of(4096).min(buf.len());
    let (a, b) = buf.split_at_mut(half);
    let (ra, rb) = std::thread::scope(|s| {
        let h = (!b.is_empty()).then(|| s.spawn(|| pread_full(file, b, pos + half as u64)));
        let ra = pread_full(file, a, pos);
        let rb = h.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        (ra, rb)
    });
    let got = ra.map_err(read_err)? + rb.unwrap_or(Ok(0)).map_err(read_err)?;
    if got != buf.len() {
        return Err(CommandError::failure(
            "reading input: the file shrank while being read",
        ));
    }
    Ok(())
}

/// Seals or opens one run on the CPU (a worker, or a failed GPU run).
fn cpu_run(dir: Direction, cipher: &ChunkCipher, input: &[u8], run: &Run) -> RunResult {
    let mut out = Vec::new();
    match dir {
        Direction::Seal => {
            Sealer::at(cipher.clone(), run.first)
                .seal_batch(input, run.last, &mut out, 1)
                .map_err(|e| (Vec::new(), payload_err(e)))?;
        }
        Direction::Open => {
            if let Err(e) =
                Opener::at(cipher.clone(), run.first).open_batch(input, run.last, &mut out, 1)
            {
                out.truncate(e.valid);
                return Err((out, open_failure(cipher, e, input)));
            }
        }
    }
    Ok(out)
}

/// Whether the GPU can take a run as it is: opening needs every record to
/// hold its tag and all but the last to be whole (anything else goes to the
/// CPU, which reports it exactly).
fn gpu_shape(dir: Direction, run: &Run) -> bool {
    match dir {
        Direction::Seal => true,
        Direction::Open => {
            let full = (run.count - 1) * RECORD;
            let tail = run.bytes.saturating_sub(full);
            run.bytes >= full + 16
                && if run.last {
                    tail < RECORD
                } else {
                    tail == RECORD
                }
        }
    }
}

/// The GPU's side of a run: opened on its own thread, then a chunk pipe.
struct GpuSide<'g> {
    opening: Option<std::thread::JoinHandle<Result<GpuKey, CommandError>>>,
    gcm: &'g std::cell::OnceCell<GpuKey>,
    pipe: Option<ChunkPipe<'g>>,
}

impl<'g> GpuSide<'g> {
    /// Takes the opened GPU once its thread has finished (waiting for it
    /// when `wait`); an error of the opening is returned once.
    fn poll(&mut self, dir: Direction, wait: bool) -> Result<(), CommandError> {
        let finished = self
            .opening
            .as_ref()
            .is_some_and(|h| wait || h.is_finished());
        if !finished {
            return Ok(());
        }
        let opened = self
            .opening
            .take()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        if let Some(r) = opened {
            let _ = self.gcm.set(r?);
            if let Some((gcm, _)) = self.gcm.get() {
                self.pipe = Some(
                    gcm.chunk_pipe(dir, GPU_RUN, GPU_SLOTS)
                        .map_err(backend_arg::gpu_error)?,
                );
            }
        }
        Ok(())
    }

    fn base_nonce(&self) -> [u8; payload::NONCE_LEN] {
        self.gcm.get().map(|g| g.1).unwrap_or_default()
    }
}

/// Runs the whole chunk area of `job` through the GPU (and the workers)
/// into `out`, in order. `pb` counts input bytes.
pub(super) fn run(
    dir: Direction,
    job: Job,
    out: &mut Output,
    pb: &indicatif::ProgressBar,
) -> Result<(), CommandError> {
    let timing = std::env::var_os("AESX_OFFLOAD_STATS").is_some();
    let t0 = std::time::Instant::now();
    let cell = std::cell::OnceCell::new();
    let mut gpu = GpuSide {
        opening: Some(
            std::thread::Builder::new()
                .name("aesx-gpu-open".into())
                .spawn(job.gpu)
                .map_err(|e| {
                    CommandError::failure(format!("cannot start a thread: {}", io_msg(&e)))
                })?,
        ),
        gcm: &cell,
        pipe: None,
    };
    // Alone, the GPU is waited for; with workers it joins when ready.
    gpu.poll(dir, job.workers == 0)?;
    let t_ready = t0.elapsed();
    let file = Arc::new(job.file);
    let mut plan = Plan::new(dir, job.len);
    let (res_tx, res_rx) = mpsc::channel::<(Run, RunResult)>();
    let (work_tx, work_rx) = mpsc::channel::<Run>();
    let work_rx = Arc::new(std::sync::Mutex::new(work_rx));
    let workers: Vec<_> = (0..job.workers)
        .map(|_| {
            let (rx, tx) = (work_rx.clone(), res_tx.clone());
            let (file, cipher) = (file.clone(), job.cpu.clone());
            let start = job.start;
            std::thread::Builder::new()
                .name("aesx-worker".into())
                .spawn(move || loop {
                    let run = match rx.lock().map(|r| r.recv()) {
                        Ok(Ok(run)) => run,
                        _ => return,
                    };
                    let mut input = vec![0u8; run.bytes];
                    let r = match pread_full(&file, &mut input, start + run.pos) {
                        Ok(n) if n == run.bytes => cpu_run(dir, &cipher, &input, &run),
                        Ok(_) => Err((
                            Vec::new(),
                            CommandError::failure(
                                "reading input: the file shrank while being read",
                            ),
                        )),
                        Err(e) => Err((Vec::new(), read_err(e))),
                    };
                    if tx.send((run, r)).is_err() {
                        return;
                    }
                })
        })
        .collect::<Result<_, _>>()
        .map_err(|e| CommandError::failure(format!("cannot start a thread: {}", io_msg(&e))))?;
    drop(res_tx);

    let mut gpu_runs: VecDeque<Run> = VecDeque::new();
    let mut cpu_done: BTreeMap<u64, CpuDone> = BTreeMap::new();
    let mut cpu_busy = 0usize;
    let mut next_write = 0u64;
    let (mut gpu_bytes, mut cpu_bytes) = (0u64, 0u64);
    let result = (|| -> Result<(), CommandError> {
        while next_write < plan.chunks {
            gpu.poll(dir, false)?;
            // Hand out runs while someone is free: the workers' queue first
            // (handing out costs nothing, and this thread's reads for the
            // GPU and its waits on the GPU must not leave them idle), then
            // the GPU's free slots.
            while !plan.done() {
                let peek = plan.clone().take(GPU_RUN);
                let gpu_free = gpu.pipe.as_ref().is_some_and(|p| !p.is_full());
                if cpu_busy < job.workers * CPU_QUEUE {
                    let run = plan.take(CPU_RUN);
                    pb.inc(run.bytes as u64);
                    cpu_bytes += run.bytes as u64;
                    work_tx
                        .send(run)
                        .map_err(|_| CommandError::failure("a CPU worker stopped"))?;
                    cpu_busy += 1;
                } else if gpu_free && gpu_shape(dir, &peek) {
                    let run = plan.take(GPU_RUN);
                    let base = gpu.base_nonce();
                    let pipe = gpu.pipe.as_mut().unwrap_or_else(|| unreachable!());
                    let buf = pipe.input().map_err(backend_arg::gpu_error)?;
                    read_exact_2(&file, &mut buf[..run.bytes], job.start + run.pos)?;
                    pb.inc(run.bytes as u64);
                    gpu_bytes += run.bytes as u64;
                    let nonces: Vec<[u8; payload::NONCE_LEN]> = (run.first
                        ..run.first + run.count as u64)
                        .map(|i| chunk_nonce(&base, i))
                        .collect();
                    pipe.submit(run.bytes, &nonces)
                        .map_err(backend_arg::gpu_error)?;
                    gpu_runs.push_back(run);
                } else if gpu.pipe.is_some() && gpu_runs.is_empty() && cpu_busy == 0 {
                    // A malformed end with nobody else working: the CPU
                    // here says exactly what is wrong with it.
                    let run = plan.take(GPU_RUN);
                    let mut input = vec![0u8; run.bytes];
                    read_exact_2(&file, &mut input, job.start + run.pos)?;
                    pb.inc(run.bytes as u64);
                    let result = cpu_run(dir, &job.cpu, &input, &run);
                    cpu_done.insert(
                        run.first,
                        CpuDone {
                            count: run.count,
                            result,
                        },
                    );
                } else {
                    break;
                }
            }
            // Write what is next, or wait for it.
            if let Some(d) = cpu_done.remove(&next_write) {
                match d.result {
                    Ok(bytes) => out.write_all(&bytes)?,
                    Err((prefix, e)) => {
                        out.write_all(&prefix)?;
                        return Err(e);
                    }
                }
                next_write += d.count as u64;
                continue;
            }
            if gpu_runs.front().is_some_and(|r| r.first == next_write) {
                let run = gpu_runs.pop_front().unwrap_or_else(|| unreachable!());
                let pipe = gpu.pipe.as_mut().unwrap_or_else(|| unreachable!());
                let done = pipe
                    .take()
                    .map_err(backend_arg::gpu_error)?
                    .ok_or_else(|| CommandError::failure("internal: GPU run missing"))?;
                if done.verified == done.chunks {
                    out.write_all(done.output)?;
                } else {
                    // Reopen on the CPU for the exact error and prefix:
                    // the very bytes the GPU read, not a second read.
                    let input = done.input.to_vec();
                    return match cpu_run(dir, &job.cpu, &input, &run) {
                        Err((prefix, e)) => {
                            out.write_all(&prefix)?;
                            Err(e)
                        }
                        Ok(_) => Err(payload_err(PayloadError::Io(
                            "GPU and CPU disagree on a chunk's tag; nothing more written".into(),
                        ))),
                    };
                }
                next_write += run.count as u64;
                continue;
            }
            if cpu_busy == 0 {
                // Nothing on the workers: only the GPU can move on.
                if gpu.opening.is_none() {
                    return Err(CommandError::failure("internal: the offload stalled"));
                }
                gpu.poll(dir, true)?;
                continue;
            }
            // The next run is a worker's: wait for a result.
            let (run, result) = res_rx
                .recv()
                .map_err(|_| CommandError::failure("a CPU worker stopped"))?;
            cpu_busy -= 1;
            cpu_done.insert(
                run.first,
                CpuDone {
                    count: run.count,
                    result,
                },
            );
        }
        Ok(())
    })();
    drop(work_tx);
    for w in workers {
        let _ = w.join();
    }
    // A GPU that failed to open is reported even if the workers did all
    // the work; one still opening is left to finish on its own.
    let result = result.and_then(|()| gpu.poll(dir, false));
    if timing {
        let t = t0.elapsed().as_secs_f64();
        eprintln!(
            "aesx: offload: GPU ready after {:.3} s{}; {} bytes on the GPU, {} on {} CPU workers, {:.3} s in all",
            t_ready.as_secs_f64(),
            if gpu.pipe.is_none() { " (not used)" } else { "" },
            gpu_bytes,
            cpu_bytes,
            job.workers,
            t
        );
    }
    result
}

/// Fills `buf` from `file` at `pos` until full or the end; returns the count.
fn pread_full(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match super::sys::read_at(file, &mut buf[n..], pos + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(dir: Direction, len: u64, max: usize) -> Vec<Run> {
        let mut p = Plan::new(dir, len);
        let mut v = Vec::new();
        while !p.done() {
            v.push(p.take(max));
        }
        v
    }

    #[test]
    fn sealing_plans_whole_chunks_then_a_short_or_empty_final_one() {
        let c = CHUNK as u64;
        for (len, chunks) in [(0, 1), (1, 1), (c, 2), (3 * c + 5, 4), (4 * c, 5)] {
            let r = runs(Direction::Seal, len, 2);
            assert_eq!(
                r.iter().map(|r| r.count as u64).sum::<u64>(),
                chunks,
                "{len}"
            );
            assert_eq!(r.iter().map(|r| r.bytes as u64).sum::<u64>(), len);
            assert!(r.last().unwrap().last && r.iter().filter(|r| r.last).count() == 1);
            for w in r.windows(2) {
                assert_eq!(w[0].pos + w[0].bytes as u64, w[1].pos);
                assert_eq!(w[0].bytes, 2 * CHUNK, "runs but the last are whole");
            }
        }
    }

    #[test]
    fn opening_sends_only_well_formed_runs_to_the_gpu() {
        let rec = RECORD as u64;
        // Whole records and a short last one: all GPU-shaped.
        let r = runs(Direction::Open, 4 * rec + 16 + 9, 2);
        assert_eq!(r.len(), 3);
        assert!(r.iter().all(|r| gpu_shape(Direction::Open, r)));
        // Ends on a whole record (a truncation), inside a tag, or empty:
        // the last run goes to the CPU for its exact error.
        for len in [4 * rec, 4 * rec + 15, 0] {
            let r = runs(Direction::Open, len, 2);
            let last = r.last().unwrap();
            assert!(!gpu_shape(Direction::Open, last), "{len}");
        }
    }
}
