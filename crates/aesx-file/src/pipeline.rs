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
//! The pipeline it replaces lost speed with every thread added, and
//! encrypted at 0.5x the speed it decrypted. Measured (2-core AMD EPYC
//! Zen 3 VM, 1 GiB from tmpfs to `/dev/null`; the figures and commands are
//! in `docs/BENCHMARKS.md`, "Files and threads"), three mechanisms:
//!
//! - **Fork-join per batch.** Each 2 MiB batch was split over threads
//!   spawned for that batch alone: `strace -f -c` counted `-j - 1` thread
//!   starts (`clone3`) and as many stack `mmap`/`munmap` pairs per batch,
//!   `futex` waits took 77 % of the traced system time at `-j 32`, and the
//!   caller sat idle at every join. Workers started once remove both.
//! - **Misaligned read buffers.** A 2 MiB `Vec` starts 16 bytes past a
//!   page, and the kernel's `rep movsb` copy out of the page cache runs
//!   about 4x slower into a destination 1-31 bytes past a cache line than
//!   into an aligned one on this core (2.4 against 9.5 GB/s); `perf` put
//!   64 % of an encryption in that copy. Decryption's file offsets happened
//!   to spare it. Read buffers here start on a page ([`ALIGN`]).
//! - **Two readers.** All input went through two `pread` threads whatever
//!   `-j` was; here each worker reads its own batches.
//!
//! The writer stays one thread, in order: a pipe must get its bytes in
//! order, a decryption must write nothing after the first chunk that fails,
//! and Linux serializes buffered writes to one file anyway (the inode
//! lock), so writes from the workers would not run in parallel.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};

/// Chunks per batch for callers on the CPU (the CLI, Python): 64 chunks,
/// 1 MiB of plaintext, a worker's unit of work. Each batch costs a wake-up
/// of the writer and a lock round; 64 is the smallest count at the
/// measured plateau (`docs/BENCHMARKS.md`), which keeps the buffers in
/// flight (about two per worker, in and out) small.
pub const BATCH_CHUNKS: usize = 64;

/// Alignment of the read buffers: a page, so that the kernel's copy into
/// them is never on its slow misaligned path.
pub const ALIGN: usize = 4096;

/// A byte buffer whose contents start on an [`ALIGN`] boundary, made in
/// safe code: an over-allocated `Vec` and the aligned window inside it.
pub struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes; running out of memory is an error.
    pub fn new(len: usize) -> io::Result<AlignedBuf> {
        let mut raw = Vec::new();
        raw.try_reserve_exact(len + ALIGN).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!(
                    "out of memory: cannot allocate a {} KiB buffer",
                    len.div_ceil(1024)
                ),
            )
        })?;
        raw.resize(len + ALIGN, 0);
        let start = raw.as_ptr().align_offset(ALIGN).min(ALIGN);
        Ok(AlignedBuf { raw, start, len })
    }

    /// The bytes in use.
    pub fn as_slice(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }

    /// All `capacity` bytes, to be filled.
    pub fn whole_mut(&mut self) -> &mut [u8] {
        let end = self.raw.len();
        &mut self.raw[self.start..end]
    }

    /// How many bytes the buffer holds at most.
    pub fn capacity(&self) -> usize {
        self.raw.len() - self.start
    }

    /// Marks the first `len` bytes (at most the capacity) as in use.
    pub fn set_len(&mut self, len: usize) {
        self.len = len.min(self.capacity());
    }
}

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

/// One batch read, not yet transformed.
struct Job {
    b: u64,
    data: io::Result<AlignedBuf>,
    /// The final batch: shorter than a whole batch (or unreadable).
    eof: bool,
}

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

/// What the threads share, under one lock.
struct State {
    /// The next batch to claim (positioned input) or read (a stream).
    next: u64,
    /// Batches written so far.
    written: u64,
    /// The final batch, once a read came up short.
    end: Option<u64>,
    /// The writer is done (finished or failed): claim nothing more.
    stop: bool,
    /// A stream's batches, read in order, waiting for a worker.
    queue: VecDeque<Job>,
    /// The stream's reader has queued its last batch.
    reader_done: bool,
    /// Recycled buffers.
    free_in: Vec<AlignedBuf>,
    free_out: Vec<Vec<u8>>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a batch is written, the end is found or the run stops.
    room: Condvar,
    /// Signalled when a stream batch is queued, the stream ends or the run
    /// stops.
    work: Condvar,
    window: u64,
    batch_len: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update under the lock is a few plain assignments that a
        // panic cannot leave half done, so a poisoned lock is still sound.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'g>(&self, cv: &Condvar, g: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        cv.wait(g).unwrap_or_else(|p| p.into_inner())
    }

    fn stop(&self) {
        self.lock().stop = true;
        self.room.notify_all();
        self.work.notify_all();
    }

    /// Waits until the next batch may be claimed and claims it, with a
    /// recycled input buffer if there is one; `None` once the run stopped
    /// or the final batch is behind.
    fn claim(&self) -> Option<(u64, Option<AlignedBuf>)> {
        let mut st = self.lock();
        loop {
            if st.stop || st.end.is_some_and(|e| st.next > e) {
                return None;
            }
            if st.next < st.written + self.window {
                let b = st.next;
                st.next += 1;
                return Some((b, st.free_in.pop()));
            }
            st = self.wait(&self.room, st);
        }
    }

    /// Reads batch `b` into `buf` (or a new buffer) with `read`.
    fn read_batch(
        &self,
        b: u64,
        buf: Option<AlignedBuf>,
        read: impl FnOnce(&mut [u8]) -> io::Result<usize>,
    ) -> Job {
        let len = self.batch_len;
        let data = buf
            .map_or_else(|| AlignedBuf::new(len), Ok)
            .and_then(|mut buf| {
                let n = read(&mut buf.whole_mut()[..len])?;
                buf.set_len(n);
                Ok(buf)
            });
        let eof = data.as_ref().map_or(true, |d| d.len < len);
        if eof {
            // The final batch (or an error, after which nothing counts).
            let mut st = self.lock();
            st.end = Some(st.end.map_or(b, |e| e.min(b)));
            drop(st);
            self.room.notify_all();
        }
        Job { b, data, eof }
    }
}

/// Fills `buf` by position until full or the end; returns the count.
fn read_at_full(read_at: &ReadAt<'_>, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match read_at(&mut buf[n..], pos + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
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
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            next: 0,
            written: 0,
            end: None,
            stop: false,
            queue: VecDeque::new(),
            reader_done: false,
            free_in: Vec::new(),
            free_out: Vec::new(),
        }),
        room: Condvar::new(),
        work: Condvar::new(),
        window: plan.window(),
        batch_len: plan.batch_len,
    });
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
                                let pos = start + b * sh.batch_len as u64;
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

/// A worker's next batch of a stream; `None` once the stream is done or
/// the run stopped.
fn dequeue(sh: &Shared) -> Option<Job> {
    let mut st = sh.lock();
    loop {
        if st.stop {
            return None;
        }
        if let Some(job) = st.queue.pop_front() {
            return Some(job);
        }
        if st.reader_done {
            return None;
        }
        st = sh.wait(&sh.work, st);
    }
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
    let mut output = sh.lock().free_out.pop().unwrap_or_default();
    let result = step(job.b, input.as_slice(), job.eof, &mut output);
    Msg::Done {
        b: job.b,
        input,
        output,
        eof: job.eof,
        result,
    }
}

/// The reader thread of a stream: reads batches in order into the queue.
/// Detached: it owns what it uses, and ends at the stream's end, at an
/// error, or at its next batch once the run stopped.
fn spawn_reader(sh: Arc<Shared>, mut reader: Box<dyn Read + Send>) -> io::Result<()> {
    std::thread::Builder::new()
        .name("aesx-reader".into())
        .stack_size(256 * 1024)
        .spawn(move || {
            while let Some((b, buf)) = sh.claim() {
                let job = sh.read_batch(b, buf, |buf| crate::payload::read_full(&mut reader, buf));
                let eof = job.eof;
                sh.lock().queue.push_back(job);
                sh.work.notify_one();
                if eof {
                    break;
                }
            }
            sh.lock().reader_done = true;
            sh.work.notify_all();
        })
        .map(|_| ())
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
        let consumed = input.len;
        if let Err((valid, e)) = result {
            // Release the verified prefix only.
            let _ = write(&output[..valid.min(output.len())], consumed);
            return Err(e);
        }
        write(&output, consumed)?;
        stats.input_bytes += consumed as u64;
        stats.batches += 1;
        let mut st = sh.lock();
        st.written = stats.batches;
        st.free_in.push(input);
        st.free_out.push(output);
        drop(st);
        // One batch written opens one slot of the window: one claimer may go
        // (waking them all would have most of them wait again at once).
        sh.room.notify_one();
        if eof {
            return Ok(stats);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    const BATCH: usize = 64;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// The step of most tests: output = the batch number's low byte, then
    /// the input; batches sleep a little in a scrambled order so that they
    /// finish out of order.
    fn tagging(b: u64, input: &[u8], _eof: bool, out: &mut Vec<u8>) -> Result<(), (usize, String)> {
        std::thread::sleep(Duration::from_micros((b * 37 % 5) * 200));
        out.clear();
        out.push(b as u8);
        out.extend_from_slice(input);
        Ok(())
    }

    fn expected(input: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        let mut b = 0u64;
        let mut chunks = input.chunks(BATCH).peekable();
        loop {
            let c = chunks.next().unwrap_or(&[]);
            v.push(b as u8);
            v.extend_from_slice(c);
            b += 1;
            if c.len() < BATCH {
                return v;
            }
        }
    }

    fn run_both(
        input: &[u8],
        workers: usize,
        step: &Step<'_, String>,
    ) -> [(Result<Stats, String>, Vec<u8>); 2] {
        let plan = Plan {
            batch_len: BATCH,
            workers,
        };
        let read_err = |e: io::Error| e.to_string();
        let owned = input.to_vec();
        let read_at = move |buf: &mut [u8], pos: u64| -> io::Result<usize> {
            let p = (pos as usize).min(owned.len());
            let n = buf.len().min(owned.len() - p);
            buf[..n].copy_from_slice(&owned[p..p + n]);
            Ok(n)
        };
        let mut out_a = Vec::new();
        let a = run(
            Input::At {
                read_at: &read_at,
                start: 0,
            },
            plan,
            &read_err,
            step,
            &mut |o, _| {
                out_a.extend_from_slice(o);
                Ok(())
            },
        );
        let mut out_b = Vec::new();
        let b = run(
            Input::Stream(Box::new(io::Cursor::new(input.to_vec()))),
            plan,
            &read_err,
            step,
            &mut |o, _| {
                out_b.extend_from_slice(o);
                Ok(())
            },
        );
        [(a, out_a), (b, out_b)]
    }

    #[test]
    fn every_input_comes_out_in_order_from_files_and_streams() {
        for len in [0, 1, BATCH - 1, BATCH, BATCH + 1, 5 * BATCH, 17 * BATCH + 3] {
            let input = data(len);
            for workers in [1, 2, 3, 8] {
                for (r, out) in run_both(&input, workers, &tagging) {
                    let stats = r.unwrap();
                    assert_eq!(out, expected(&input), "len {len} workers {workers}");
                    assert_eq!(stats.input_bytes, len as u64);
                    assert_eq!(stats.batches, (len / BATCH + 1) as u64);
                }
            }
        }
    }

    #[test]
    fn a_failing_step_releases_its_prefix_and_nothing_after() {
        let input = data(10 * BATCH);
        let step = |b: u64, i: &[u8], e: bool, o: &mut Vec<u8>| {
            tagging(b, i, e, o)?;
            if b == 3 {
                return Err((5, "batch 3 failed".to_string()));
            }
            Ok(())
        };
        for workers in [1, 4] {
            for (r, out) in run_both(&input, workers, &step) {
                assert_eq!(r.unwrap_err(), "batch 3 failed");
                let want = expected(&input);
                assert_eq!(out, want[..3 * (BATCH + 1) + 5]);
            }
        }
    }

    #[test]
    fn read_and_write_errors_stop_the_run() {
        let plan = Plan {
            batch_len: BATCH,
            workers: 3,
        };
        let read_err = |e: io::Error| e.to_string();
        let read_at = |buf: &mut [u8], pos: u64| -> io::Result<usize> {
            if pos >= 4 * BATCH as u64 {
                return Err(io::Error::other("disk on fire"));
            }
            buf.fill(1);
            Ok(buf.len())
        };
        let mut written = 0;
        let r = run(
            Input::At {
                read_at: &read_at,
                start: 0,
            },
            plan,
            &read_err,
            &tagging,
            &mut |_, n| {
                written += n;
                Ok(())
            },
        );
        assert_eq!(r.unwrap_err(), "disk on fire");
        assert_eq!(written, 4 * BATCH);
        // An endless input whose writer fails: the run ends all the same.
        let r = run(
            Input::Stream(Box::new(io::repeat(0))),
            plan,
            &read_err,
            &tagging,
            &mut |_, _| Err("disk full".to_string()),
        );
        assert_eq!(r.unwrap_err(), "disk full");
    }

    #[test]
    fn claims_never_run_more_than_the_window_ahead_of_the_writer() {
        let plan = Plan {
            batch_len: BATCH,
            workers: 4,
        };
        let written = AtomicU64::new(0);
        let worst = AtomicU64::new(0);
        let step = |b: u64, i: &[u8], e: bool, o: &mut Vec<u8>| {
            let ahead = b - written.load(Ordering::SeqCst);
            worst.fetch_max(ahead, Ordering::SeqCst);
            // Batch 0 is slow: everyone else runs ahead of the writer.
            if b.is_multiple_of(16) {
                std::thread::sleep(Duration::from_millis(20));
            }
            tagging(b, i, e, o)
        };
        let input = data(64 * BATCH + 1);
        let read_at = |buf: &mut [u8], pos: u64| -> io::Result<usize> {
            let p = (pos as usize).min(input.len());
            let n = buf.len().min(input.len() - p);
            buf[..n].copy_from_slice(&input[p..p + n]);
            Ok(n)
        };
        run(
            Input::At {
                read_at: &read_at,
                start: 0,
            },
            plan,
            &|e: io::Error| e.to_string(),
            &step,
            &mut |_, _| {
                written.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        )
        .unwrap();
        let worst = worst.load(Ordering::SeqCst);
        assert!(worst < plan.window(), "{worst} >= {}", plan.window());
        assert!(worst >= plan.workers as u64, "the workers never ran ahead");
    }

    /// A pipe that never delivers more than its first bytes.
    struct Stalled(usize);

    impl Read for Stalled {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                std::thread::sleep(Duration::from_secs(3600));
            }
            let n = buf.len().min(self.0);
            buf[..n].fill(9);
            self.0 -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_failure_returns_while_the_reader_is_stuck_on_a_stalled_pipe() {
        let step = |b: u64, i: &[u8], e: bool, o: &mut Vec<u8>| {
            tagging(b, i, e, o)?;
            if b == 1 {
                return Err((0, "bad chunk".to_string()));
            }
            Ok(())
        };
        let r = run(
            Input::Stream(Box::new(Stalled(3 * BATCH))),
            Plan {
                batch_len: BATCH,
                workers: 2,
            },
            &|e: io::Error| e.to_string(),
            &step,
            &mut |_, _| Ok(()),
        );
        assert_eq!(r.unwrap_err(), "bad chunk");
    }

    #[test]
    fn a_panicking_step_panics_the_caller_and_hangs_nothing() {
        let input = data(20 * BATCH);
        let step = |b: u64, i: &[u8], e: bool, o: &mut Vec<u8>| {
            assert!(b != 5, "step 5 exploded");
            tagging(b, i, e, o)
        };
        let r =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_both(&input, 3, &step)));
        assert!(r.is_err());
    }

    #[test]
    fn read_buffers_start_on_a_page() {
        for len in [1, 4096, 100_000, 1 << 20] {
            let mut b = AlignedBuf::new(len).unwrap();
            assert_eq!(b.whole_mut().as_ptr() as usize % ALIGN, 0);
            assert!(b.capacity() >= len);
            b.set_len(len);
            assert_eq!(b.as_slice().len(), len);
        }
    }
}
