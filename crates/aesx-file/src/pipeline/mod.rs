//! The parallel pipeline that seals or opens a payload as a stream, in
//! bounded memory: the one engine behind `aesx encrypt`/`decrypt` and
//! Python's `encrypt_file`/`decrypt_file`.
//!
//! # Shape
//!
//! The input is cut into batches of whole chunks, numbered from 0. A fixed
//! set of worker threads, started once per call, each takes the next batch
//! number, reads that batch itself (`pread` at its own offset, for a
//! regular file) into a buffer of its own, seals or opens it on its own
//! core, and hands the result to the calling thread, which writes the
//! batches in order. A stream (a pipe) cannot be read by position, so one
//! reader thread reads it in order and the workers take its batches from a
//! queue. No batch is claimed more than [`Plan::window`] batches ahead of
//! the last one written, which bounds memory and keeps the buffers, which
//! are recycled, warm in the caches.
//!
//! # Why this shape
//!
//! Three choices, each measured (the figures and commands are in
//! `docs/BENCHMARKS.md`, "Files and threads"):
//!
//! - **Workers started once per call**, not threads forked per batch: a
//!   fork-join per batch pays a thread start and a stack `mmap`/`munmap`
//!   per thread and batch, and leaves the caller idle at every join.
//! - **Read buffers that start on a page** ([`ALIGN`]): the kernel's copy
//!   out of the page cache runs several times slower into a destination a
//!   few bytes past a cache line, which a plain `Vec` of 2 MiB is.
//! - **Each worker reads its own batches**: a fixed set of reader threads
//!   would bound the input whatever the number of workers.
//!
//! The writer stays one thread, in order: a pipe must get its bytes in
//! order, a decryption must write nothing after the first chunk that fails,
//! and Linux serializes buffered writes to one file anyway (the inode
//! lock), so writes from the workers would not run in parallel.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::{mpsc, Arc};

mod aligned;
mod shared;
#[cfg(test)]
mod tests;

pub use aligned::{AlignedBuf, ALIGN};
use shared::{dequeue, read_at_full, spawn_reader, Job, Shared};

/// Chunks per batch for callers on the CPU (the CLI, Python): 64 chunks,
/// 1 MiB of plaintext, a worker's unit of work. Each batch costs a wake-up
/// of the writer and a lock round; 64 is the smallest count at the
/// measured plateau (`docs/BENCHMARKS.md`), which keeps the buffers in
/// flight (about two per worker, in and out) small.
pub const BATCH_CHUNKS: usize = 64;

/// A positioned read: `read_at(buf, pos)` reads at `pos`, returning 0 at
/// the end (as `FileExt::read_at`).
pub type ReadAt<'a> = dyn Fn(&mut [u8], u64) -> io::Result<usize> + Sync + 'a;

/// Where a run's input comes from.
pub enum Input<'a> {
    /// A regular file, read by position: `read_at(buf, pos)` reads at
    /// `pos`, returning 0 at the end (as `FileExt::read_at`). Each worker
    /// reads its own batches; batch `b` starts at `start + b * batch_len`.
    At { read_at: &'a ReadAt<'a>, start: u64 },
    /// A stream, read in order by a reader thread of its own. That thread
    /// is detached: a run that fails returns without waiting for it, even
    /// if it is blocked on a stalled pipe.
    Stream(Box<dyn Read + Send>),
}

/// How a run is cut and spread.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Bytes of input per batch (whole chunks).
    pub batch_len: usize,
    /// Worker threads (at least 1).
    pub workers: usize,
}

impl Plan {
    /// The plan for `threads` requested threads: that many workers, but
    /// never more than the cores this process may run on. Workers beyond
    /// the cores only take turns on them, each with its batches in flight:
    /// on 2 cores, 32 workers ran at 0.75x the speed of 2, from the page
    /// faults and cache misses of 16 times the buffers.
    pub fn for_threads(batch_len: usize, threads: usize) -> Plan {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Plan {
            batch_len,
            workers: threads.clamp(1, cores),
        }
    }

    /// Batches that may be claimed beyond the last one written: one per
    /// worker, and a few more so that a worker never waits for a slow
    /// neighbour's batch to be written before taking its next.
    pub fn window(&self) -> u64 {
        let w = self.workers.max(1);
        (w + w.min(8) + 2) as u64
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Input bytes consumed, up to and including the final batch.
    pub input_bytes: u64,
    /// Batches written.
    pub batches: u64,
}

/// What a step returns on failure: how many bytes of its output may still
/// be written (a verified prefix), and the error.
pub type StepError<E> = (usize, E);

/// The transformation of one batch, run on the workers:
/// `step(batch_number, input, is_final, output)`. The output buffer is
/// recycled from an earlier batch; the step replaces its contents.
pub type Step<'a, E> =
    dyn Fn(u64, &[u8], bool, &mut Vec<u8>) -> Result<(), StepError<E>> + Sync + 'a;

/// The calling thread's output: `write(output, input_bytes)` for each
/// batch in order.
pub type Write<'a, E> = dyn FnMut(&[u8], usize) -> Result<(), E> + 'a;

/// How a read error becomes the caller's error.
pub type ReadErr<'a, E> = dyn Fn(io::Error) -> E + Sync + 'a;

/// A worker's message to the writer.
enum Msg<E> {
    Done {
        b: u64,
        input: AlignedBuf,
        output: Vec<u8>,
        eof: bool,
        result: Result<(), StepError<E>>,
    },
    ReadFailed {
        b: u64,
        error: E,
    },
    /// A worker panicked: stop everything (the panic surfaces when the
    /// scope joins the worker).
    Abort,
}

/// Sends [`Msg::Abort`] if a worker unwinds, so that the writer stops
/// waiting for a batch that will never come.
struct AbortOnPanic<'a, E>(&'a mpsc::Sender<Msg<E>>);

impl<E> Drop for AbortOnPanic<'_, E> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.0.send(Msg::Abort);
        }
    }
}

/// Stops the run when the writer leaves, however it leaves (an error, a
/// panic in `write`), so that no worker waits for room forever.
struct StopOnDrop<'a>(&'a Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

fn thread_error(e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot start a thread: {e}"))
}

/// Runs `step` over every batch of `input` on `plan.workers` threads and
/// hands the outputs, in order, to `write(output, input_bytes)` on the
/// calling thread. Stops at the first error (of reading, of a step, or of
/// `write`), after writing the failing step's valid prefix; returns what
/// it consumed. Read errors become `E` through `read_err`.
///
/// The final batch is the first one shorter than `plan.batch_len`
/// (possibly empty): an input of whole batches ends with an empty one.
pub fn run<E: Send>(
    input: Input<'_>,
    plan: Plan,
    read_err: &ReadErr<'_, E>,
    step: &Step<'_, E>,
    write: &mut Write<'_, E>,
) -> Result<Stats, E> {
    let shared = Arc::new(Shared::new(plan.window(), plan.batch_len));
    let positioned = match input {
        Input::At { read_at, start } => Some((read_at, start)),
        Input::Stream(reader) => {
            spawn_reader(Arc::clone(&shared), reader).map_err(|e| read_err(thread_error(&e)))?;
            None
        }
    };
    let (tx, rx) = mpsc::channel::<Msg<E>>();
    std::thread::scope(|s| {
        // However this closure returns, the workers and the reader are
        // told to stop before the scope joins the workers.
        let _stop = StopOnDrop(&shared);
        for _ in 0..plan.workers.max(1) {
            let tx = tx.clone();
            let sh = &*shared;
            let spawned = std::thread::Builder::new()
                .name("aesx-worker".into())
                .spawn_scoped(s, move || {
                    let _abort = AbortOnPanic(&tx);
                    loop {
                        let job = match positioned {
                            Some((read_at, start)) => {
                                let Some((b, buf)) = sh.claim() else { break };
                                let pos = start + b * sh.batch_len() as u64;
                                sh.read_batch(b, buf, |buf| read_at_full(read_at, buf, pos))
                            }
                            None => match dequeue(sh) {
                                Some(job) => job,
                                None => break,
                            },
                        };
                        if tx.send(transform(sh, job, read_err, step)).is_err() {
                            break;
                        }
                    }
                });
            if let Err(e) = spawned {
                // The workers already started stop with the run.
                return Err(read_err(thread_error(&e)));
            }
        }
        drop(tx);
        write_in_order(&shared, rx, read_err, write)
    })
}

/// Runs the step on one batch read.
fn transform<E>(sh: &Shared, job: Job, read_err: &ReadErr<'_, E>, step: &Step<'_, E>) -> Msg<E> {
    let input = match job.data {
        Ok(d) => d,
        Err(e) => {
            return Msg::ReadFailed {
                b: job.b,
                error: read_err(e),
            }
        }
    };
    let mut output = sh.output_buf();
    let result = step(job.b, input.as_slice(), job.eof, &mut output);
    Msg::Done {
        b: job.b,
        input,
        output,
        eof: job.eof,
        result,
    }
}

/// The calling thread's part: takes the workers' batches, writes them in
/// order, recycles their buffers and opens the window.
fn write_in_order<E>(
    sh: &Shared,
    rx: mpsc::Receiver<Msg<E>>,
    read_err: &ReadErr<'_, E>,
    write: &mut Write<'_, E>,
) -> Result<Stats, E> {
    let mut pending: BTreeMap<u64, Msg<E>> = BTreeMap::new();
    let mut stats = Stats::default();
    loop {
        let want = stats.batches;
        let msg = match pending.remove(&want) {
            Some(m) => m,
            None => match rx.recv() {
                Ok(Msg::Abort) => {
                    // The panic itself surfaces when the scope joins.
                    return Err(read_err(io::Error::other("internal: a worker stopped")));
                }
                Ok(m) => {
                    let b = match &m {
                        Msg::Done { b, .. } | Msg::ReadFailed { b, .. } => *b,
                        Msg::Abort => want,
                    };
                    if b != want {
                        pending.insert(b, m);
                        continue;
                    }
                    m
                }
                Err(_) => {
                    return Err(read_err(io::Error::other(
                        "internal: the workers stopped early",
                    )))
                }
            },
        };
        let (input, output, eof, result) = match msg {
            Msg::Done {
                input,
                output,
                eof,
                result,
                ..
            } => (input, output, eof, result),
            Msg::ReadFailed { error, .. } => return Err(error),
            Msg::Abort => return Err(read_err(io::Error::other("internal: a worker stopped"))),
        };
        let consumed = input.len();
        if let Err((valid, e)) = result {
            // Release the verified prefix only.
            let _ = write(&output[..valid.min(output.len())], consumed);
            return Err(e);
        }
        write(&output, consumed)?;
        stats.input_bytes += consumed as u64;
        stats.batches += 1;
        sh.written(stats.batches, input, output);
        if eof {
            return Ok(stats);
        }
    }
}
