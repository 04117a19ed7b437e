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
//! is free (the workers first, then the GPU) and writes results in chunk
//! order.
//!
//! Opening the GPU (driver context, kernels, self-test) takes a large part
//! of a second, so it runs on its own thread: the GPU alone waits for it,
//! while with workers the CPU starts at once and the GPU joins the queue
//! when it is ready (a file the workers finish first never waits for it).
//!
//! The hybrid is never held up by a slow GPU for long: while the GPU holds
//! the next run to be written the workers go on up to [`Sizes::cpu_ahead`]
//! runs ahead; once they have nothing left to do they take that run over
//! themselves (both race; each chunk is written from whichever has it
//! first), and a GPU the workers overtake gets no more runs of this file. A GPU that fails
//! mid-file (a driver error, not a bad tag) is dropped with a warning and
//! its runs are done again on the CPU, so the output is the same bytes.
//!
//! The failure rules are the CPU path's: a GPU run that does not verify is
//! opened again on the CPU at the same chunk index for its exact error and
//! verified prefix, and only verified plaintext is ever written.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use aesx_cuda::chunk_pipe::{ChunkPipe, Direction, Done, CHUNK, RECORD};
use aesx_cuda::CudaGcm;
use aesx_file::payload::{chunk_nonce, ChunkCipher, Opener, PayloadError, Sealer, NONCE_LEN};

use super::output::Output;
use super::{io_msg, open_failure, payload_err};
use crate::{backend_arg, CommandError};

/// The scheduler's sizes, in chunks (the tests shrink them).
#[derive(Clone, Copy)]
struct Sizes {
    /// Chunks per GPU run.
    gpu_run: usize,
    /// Chunks per CPU worker run.
    cpu_run: usize,
    /// Runs queued per worker.
    cpu_queue: usize,
    /// GPU runs in flight.
    gpu_slots: usize,
    /// Finished worker runs held for writing, at most, while the GPU holds
    /// the next run to be written: how far the workers may run ahead.
    cpu_ahead: usize,
}

const SIZES: Sizes = Sizes {
    // 32 MiB of plaintext, enough to fill the GPU.
    gpu_run: 2048,
    // Small, so that the GPU never waits long for a worker's run to be
    // written before its own.
    cpu_run: 256,
    // So that the workers stay busy while this thread reads a GPU run or
    // waits for one.
    cpu_queue: 3,
    // One being read, one on the GPU, one being written.
    gpu_slots: 3,
    // 128 MiB.
    cpu_ahead: 32,
};
/// How long this thread waits for a worker before it looks at the GPU again.
const POLL: Duration = Duration::from_millis(1);

/// The GPU's side of the offload as the scheduler sees it: aesx-cuda's
/// [`ChunkPipe`]; in the tests a model on the CPU whose speed, stalls and
/// failures each test sets.
pub(super) trait RunPipe {
    /// Whether every slot holds a run: take one first.
    fn is_full(&self) -> bool;
    /// Whether the oldest run has finished (`take` will not wait).
    fn is_ready(&self) -> bool;
    /// The next free slot's input buffer.
    fn input(&mut self) -> aesx_cuda::Result<&mut [u8]>;
    /// Queues the first `len` bytes of the input buffer, one nonce a chunk.
    fn submit(&mut self, len: usize, nonces: &[[u8; NONCE_LEN]]) -> aesx_cuda::Result<()>;
    /// Waits for the oldest run; `None` when nothing is queued.
    fn take(&mut self) -> aesx_cuda::Result<Option<Done<'_>>>;
}

impl RunPipe for ChunkPipe<'_> {
    fn is_full(&self) -> bool {
        ChunkPipe::is_full(self)
    }
    fn is_ready(&self) -> bool {
        ChunkPipe::is_ready(self)
    }
    fn input(&mut self) -> aesx_cuda::Result<&mut [u8]> {
        ChunkPipe::input(self)
    }
    fn submit(&mut self, len: usize, nonces: &[[u8; NONCE_LEN]]) -> aesx_cuda::Result<()> {
        ChunkPipe::submit(self, len, nonces)
    }
    fn take(&mut self) -> aesx_cuda::Result<Option<Done<'_>>> {
        ChunkPipe::take(self)
    }
}

/// An opened GPU with the payload's chunk key on it.
pub(super) trait OffloadGpu: Send {
    /// A pipe of `slots` runs of up to `batch` chunks each.
    fn pipe(
        &self,
        dir: Direction,
        batch: usize,
        slots: usize,
    ) -> aesx_cuda::Result<Box<dyn RunPipe + '_>>;
    /// The payload's base nonce.
    fn base_nonce(&self) -> [u8; NONCE_LEN];
}

/// The chunk key on the GPU and the base nonce.
impl OffloadGpu for (CudaGcm, [u8; NONCE_LEN]) {
    fn pipe(
        &self,
        dir: Direction,
        batch: usize,
        slots: usize,
    ) -> aesx_cuda::Result<Box<dyn RunPipe + '_>> {
        Ok(Box::new(self.0.chunk_pipe(dir, batch, slots)?))
    }
    fn base_nonce(&self) -> [u8; NONCE_LEN] {
        self.1
    }
}

/// Opens the GPU and sets up the chunk key on it (run on a thread of its
/// own).
pub(super) type GpuOpen = Box<dyn FnOnce() -> Result<Box<dyn OffloadGpu>, CommandError> + Send>;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    first: u64,
    count: usize,
    pos: u64,
    bytes: usize,
    last: bool,
}

impl Run {
    /// The `count` chunks of this run from its chunk `skip` on, `stride`
    /// bytes a chunk (the last one may be short).
    fn slice(&self, skip: usize, count: usize, stride: u64) -> Run {
        let end = self.pos + self.bytes as u64;
        let pos = (self.pos + skip as u64 * stride).min(end);
        let stop = (pos + count as u64 * stride).min(end);
        Run {
            first: self.first + skip as u64,
            count,
            pos,
            bytes: (stop - pos) as usize,
            last: self.last && skip + count == self.count,
        }
    }

    /// This run cut into runs of at most `max` chunks, `stride` bytes a
    /// chunk (as [`Plan`] would have cut them).
    fn pieces(self, max: usize, stride: u64) -> impl Iterator<Item = Run> {
        (0..self.count.div_ceil(max))
            .map(move |i| self.slice(i * max, (self.count - i * max).min(max), stride))
    }
}

/// What is left to write of a finished GPU run when the writer is at chunk
/// `at`: the run from there on, and where that part starts in the run's
/// input and in its output (records when sealing, chunk bodies when
/// opening; the chunks before `at` are whole).
#[derive(Debug, PartialEq, Eq)]
struct Rest {
    run: Run,
    input: usize,
    output: usize,
}

impl Rest {
    /// `None` when the workers have written all of `run`.
    fn of(dir: Direction, run: &Run, at: u64, stride: u64) -> Option<Rest> {
        let skip = at.checked_sub(run.first)?;
        if skip >= run.count as u64 {
            return None;
        }
        let skip = skip as usize;
        let rest = run.slice(skip, run.count - skip, stride);
        let out_stride = match dir {
            Direction::Seal => RECORD,
            Direction::Open => CHUNK,
        };
        Some(Rest {
            input: (rest.pos - run.pos) as usize,
            output: skip * out_stride,
            run: rest,
        })
    }
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

/// The GPU's side of the offload: opened on its own thread, then a pipe.
struct GpuSide<'g> {
    opening: Option<std::thread::JoinHandle<Result<Box<dyn OffloadGpu>, CommandError>>>,
    gpu: &'g std::cell::OnceCell<Box<dyn OffloadGpu>>,
    pipe: Option<Box<dyn RunPipe + 'g>>,
    /// The GPU failed mid-file, or the workers overtook it: no more runs.
    off: bool,
    z: Sizes,
    /// Says one line on stderr (the tests count them instead).
    warn: &'g dyn Fn(&str),
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
            let _ = self.gpu.set(r?);
            if let Some(g) = self.gpu.get() {
                self.pipe = Some(
                    g.pipe(dir, self.z.gpu_run, self.z.gpu_slots)
                        .map_err(backend_arg::gpu_error)?,
                );
            }
        }
        Ok(())
    }

    fn base_nonce(&self) -> [u8; NONCE_LEN] {
        self.gpu.get().map(|g| g.base_nonce()).unwrap_or_default()
    }

    /// Whether the GPU takes a new run now.
    fn free(&self) -> bool {
        !self.off && self.pipe.as_ref().is_some_and(|p| !p.is_full())
    }

    /// Whether its oldest run has finished.
    fn ready(&self) -> bool {
        self.pipe.as_ref().is_some_and(|p| p.is_ready())
    }

    /// Drops a GPU that failed mid-file, with a warning: its runs not yet
    /// written (and not already given to the workers) go to `redo`.
    fn fail(
        &mut self,
        e: aesx_cuda::CudaError,
        runs: &mut VecDeque<GpuRun>,
        redo: &mut VecDeque<Run>,
        stride: u64,
    ) {
        (self.warn)(&format!(
            "aesx: warning: {}; the CPU does the rest of the file",
            backend_arg::gpu_error(e)
        ));
        self.pipe = None;
        self.off = true;
        redo.extend(
            runs.drain(..)
                .filter(|g| !g.hedged)
                .flat_map(|g| g.run.pieces(self.z.cpu_run, stride)),
        );
    }
}

/// A run on the GPU; `hedged` once the workers were given it too.
struct GpuRun {
    run: Run,
    hedged: bool,
}

/// Where this thread's time went (`AESX_OFFLOAD_STATS=1`).
#[derive(Default)]
struct Spent {
    /// Reading runs into the GPU's slots (and submitting them).
    read: Duration,
    /// Waiting for the GPU's runs (and finishing their tags).
    gpu: Duration,
    /// Waiting for the workers.
    workers: Duration,
    /// Writing the output.
    write: Duration,
}

/// Runs `f`, adding its time to `acc`.
fn timed<T>(acc: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = std::time::Instant::now();
    let r = f();
    *acc += t.elapsed();
    r
}

/// Reads `run` into the GPU's next free slot and submits it: a read error
/// fails the command, a GPU error (inside) only the GPU.
fn to_gpu(
    pipe: &mut dyn RunPipe,
    file: &File,
    start: u64,
    run: &Run,
    base: &[u8; NONCE_LEN],
) -> Result<aesx_cuda::Result<()>, CommandError> {
    let buf = match pipe.input() {
        Ok(b) => b,
        Err(e) => return Ok(Err(e)),
    };
    read_exact_2(file, &mut buf[..run.bytes], start + run.pos)?;
    let nonces: Vec<[u8; NONCE_LEN]> = (run.first..run.first + run.count as u64)
        .map(|i| chunk_nonce(base, i))
        .collect();
    Ok(pipe.submit(run.bytes, &nonces))
}

/// Where the offload writes, in chunk order: the command's [`Output`]
/// (in the tests, a vector).
pub(super) trait Sink {
    fn write_all(&mut self, data: &[u8]) -> Result<(), CommandError>;
}

impl Sink for Output {
    fn write_all(&mut self, data: &[u8]) -> Result<(), CommandError> {
        Output::write_all(self, data)
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
    run_sized(dir, job, out, pb, SIZES, &|line| {
        crate::write_stderr(format_args!("{line}"))
    })
}

fn run_sized(
    dir: Direction,
    job: Job,
    out: &mut dyn Sink,
    pb: &indicatif::ProgressBar,
    z: Sizes,
    warn: &dyn Fn(&str),
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
        gpu: &cell,
        pipe: None,
        off: false,
        z,
        warn,
    };
    // Alone, the GPU is waited for; with workers it joins when ready.
    gpu.poll(dir, job.workers == 0)?;
    let t_ready = t0.elapsed();
    let file = Arc::new(job.file);
    let mut plan = Plan::new(dir, job.len);
    let stride = plan.stride;
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

    let mut gpu_runs: VecDeque<GpuRun> = VecDeque::new();
    // Runs the CPU does in the GPU's place, before the plan's next ones.
    let mut redo: VecDeque<Run> = VecDeque::new();
    let mut cpu_done: BTreeMap<u64, CpuDone> = BTreeMap::new();
    let mut cpu_busy = 0usize;
    let mut next_write = 0u64;
    let (mut gpu_bytes, mut cpu_bytes, mut redone) = (0u64, 0u64, 0u64);
    let mut spent = Spent::default();
    let result = (|| -> Result<(), CommandError> {
        while next_write < plan.chunks {
            gpu.poll(dir, false)?;
            // Hand out runs while someone is free: the workers' queue first
            // (handing out costs nothing, and this thread's reads for the
            // GPU and its waits on the GPU must not leave them idle), then
            // the GPU's free slots.
            loop {
                // Runs taken over from the GPU that it finished first.
                while redo.front().is_some_and(|r| r.first < next_write) {
                    redo.pop_front();
                }
                let cpu_has = !redo.is_empty() || (!plan.done() && cpu_done.len() < z.cpu_ahead);
                if cpu_busy < job.workers * z.cpu_queue && cpu_has {
                    let run = match redo.pop_front() {
                        Some(run) => {
                            redone += run.bytes as u64;
                            run
                        }
                        None => {
                            let run = plan.take(z.cpu_run);
                            pb.inc(run.bytes as u64);
                            cpu_bytes += run.bytes as u64;
                            run
                        }
                    };
                    work_tx
                        .send(run)
                        .map_err(|_| CommandError::failure("a CPU worker stopped"))?;
                    cpu_busy += 1;
                } else if !plan.done()
                    && gpu.free()
                    && gpu_shape(dir, &plan.clone().take(z.gpu_run))
                {
                    let run = plan.take(z.gpu_run);
                    pb.inc(run.bytes as u64);
                    gpu_bytes += run.bytes as u64;
                    gpu_runs.push_back(GpuRun { run, hedged: false });
                    let base = gpu.base_nonce();
                    let pipe = gpu.pipe.as_deref_mut().unwrap_or_else(|| unreachable!());
                    let sent = timed(&mut spent.read, || {
                        to_gpu(pipe, &file, job.start, &run, &base)
                    })?;
                    if let Err(e) = sent {
                        gpu.fail(e, &mut gpu_runs, &mut redo, stride);
                    }
                } else if job.workers == 0
                    && cpu_busy == 0
                    && gpu_runs.is_empty()
                    && cpu_done.is_empty()
                    && (gpu.off || gpu.pipe.is_some())
                    && (!redo.is_empty() || !plan.done())
                {
                    // Nobody else to do it: a malformed end, which the CPU
                    // here reports exactly, or a failed GPU's share.
                    let run = redo.pop_front().unwrap_or_else(|| {
                        let run = plan.take(z.cpu_run);
                        pb.inc(run.bytes as u64);
                        run
                    });
                    let mut input = vec![0u8; run.bytes];
                    read_exact_2(&file, &mut input, job.start + run.pos)?;
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
                if gpu_runs.front().is_some_and(|g| g.run.first == next_write) {
                    // The workers overtook the GPU on its own run: it gets
                    // no more, and they take the rest of its runs too.
                    gpu.off = true;
                    for g in gpu_runs.iter_mut().filter(|g| !g.hedged) {
                        g.hedged = true;
                        redo.extend(g.run.pieces(z.cpu_run, stride));
                    }
                }
                match d.result {
                    Ok(bytes) => timed(&mut spent.write, || out.write_all(&bytes))?,
                    Err((prefix, e)) => {
                        out.write_all(&prefix)?;
                        return Err(e);
                    }
                }
                next_write += d.count as u64;
                continue;
            }
            if let Some(front) = gpu_runs.front_mut().filter(|g| g.run.first <= next_write) {
                if !gpu.ready() && cpu_busy == 0 && job.workers > 0 && !front.hedged {
                    // The workers have nothing left but the GPU's run: they
                    // take it too; each chunk is written from whichever has
                    // it first.
                    front.hedged = true;
                    redo.extend(front.run.pieces(z.cpu_run, stride));
                    continue;
                }
                // The run to be written next is taken when it is ready, or
                // waited for when the GPU is alone with nothing else to do
                // (a run the workers also hold is never waited for); one
                // they overtook is taken off the GPU unused.
                if gpu.ready() || (cpu_busy == 0 && job.workers == 0) {
                    let g = gpu_runs.pop_front().unwrap_or_else(|| unreachable!());
                    let pipe = gpu.pipe.as_deref_mut().unwrap_or_else(|| unreachable!());
                    let done = match timed(&mut spent.gpu, move || pipe.take()) {
                        Ok(Some(done)) => done,
                        Ok(None) => return Err(CommandError::failure("internal: GPU run missing")),
                        Err(e) => {
                            gpu_runs.push_front(g);
                            gpu.fail(e, &mut gpu_runs, &mut redo, stride);
                            continue;
                        }
                    };
                    // The whole run, or what the workers have not written
                    // of it (nothing: dropped).
                    let Some(rest) = Rest::of(dir, &g.run, next_write, stride) else {
                        continue;
                    };
                    if done.verified == done.chunks {
                        let bytes = &done.output[rest.output..];
                        timed(&mut spent.write, || out.write_all(bytes))?;
                    } else {
                        // Reopen on the CPU for the exact error and prefix:
                        // the very bytes the GPU read, not a second read.
                        let input = done.input[rest.input..].to_vec();
                        return match cpu_run(dir, &job.cpu, &input, &rest.run) {
                            Err((prefix, e)) => {
                                out.write_all(&prefix)?;
                                Err(e)
                            }
                            Ok(_) => Err(payload_err(PayloadError::Io(
                                "GPU and CPU disagree on a chunk's tag; nothing more written"
                                    .into(),
                            ))),
                        };
                    }
                    next_write = rest.run.first + rest.run.count as u64;
                    // Workers' copies of what the GPU just wrote.
                    cpu_done = cpu_done.split_off(&next_write);
                    continue;
                }
            }
            if cpu_busy > 0 {
                // Wait for a worker; while the GPU holds runs, look at it
                // again every POLL.
                let got = timed(&mut spent.workers, || {
                    if gpu_runs.is_empty() {
                        res_rx
                            .recv()
                            .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                    } else {
                        res_rx.recv_timeout(POLL)
                    }
                });
                let (run, result) = match got {
                    Ok(r) => r,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(CommandError::failure("a CPU worker stopped"))
                    }
                };
                cpu_busy -= 1;
                // A run the GPU's output already covered is dropped.
                if run.first >= next_write {
                    cpu_done.insert(
                        run.first,
                        CpuDone {
                            count: run.count,
                            result,
                        },
                    );
                }
                continue;
            }
            // Nothing on the workers: only the GPU can move on.
            if gpu.opening.is_none() {
                return Err(CommandError::failure("internal: the offload stalled"));
            }
            gpu.poll(dir, true)?;
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
        let rate = |bytes: u64, s: Duration| bytes as f64 / s.as_secs_f64().max(1e-9) / 1e9;
        crate::write_stderr(format_args!(
            "aesx: offload: GPU ready after {:.3} s{}; {} bytes on the GPU, {} on {} CPU workers, {} redone on the CPU; {:.3} s in all ({:.2} GB/s)",
            t_ready.as_secs_f64(),
            if cell.get().is_none() { " (not used)" } else { "" },
            gpu_bytes,
            cpu_bytes,
            job.workers,
            redone,
            t,
            (gpu_bytes + cpu_bytes) as f64 / t.max(1e-9) / 1e9,
        ));
        crate::write_stderr(format_args!(
            "aesx: offload: this thread read the GPU's runs in {:.3} s ({:.2} GB/s), waited {:.3} s for the GPU and {:.3} s for the workers, wrote for {:.3} s",
            spent.read.as_secs_f64(),
            rate(gpu_bytes, spent.read),
            spent.gpu.as_secs_f64(),
            spent.workers.as_secs_f64(),
            spent.write.as_secs_f64(),
        ));
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
#[path = "offload_tests.rs"]
mod tests;
