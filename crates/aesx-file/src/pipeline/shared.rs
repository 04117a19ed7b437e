//! What the pipeline's threads share under one lock: the claims of batch
//! numbers within the window, the end once a read comes up short, the stop
//! flag, a stream's queue, the recycled buffers; and the reads themselves
//! (by position on a worker, in order on a stream's reader thread).

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::{AlignedBuf, ReadAt};

/// One batch read, not yet transformed.
pub(super) struct Job {
    pub(super) b: u64,
    pub(super) data: io::Result<AlignedBuf>,
    /// The final batch: shorter than a whole batch (or unreadable).
    pub(super) eof: bool,
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

pub(super) struct Shared {
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
    /// The state of a run that may claim `window` batches of `batch_len`
    /// bytes beyond the last one written.
    pub(super) fn new(window: u64, batch_len: usize) -> Shared {
        Shared {
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
            window,
            batch_len,
        }
    }

    pub(super) fn batch_len(&self) -> usize {
        self.batch_len
    }

    /// A recycled output buffer, or a new one.
    pub(super) fn output_buf(&self) -> Vec<u8> {
        self.lock().free_out.pop().unwrap_or_default()
    }

    /// Records that `batches` batches are written, takes the last one's
    /// buffers back, and lets one claimer go: one batch written opens one
    /// slot of the window (waking every claimer would have most of them
    /// wait again at once).
    pub(super) fn written(&self, batches: u64, input: AlignedBuf, output: Vec<u8>) {
        let mut st = self.lock();
        st.written = batches;
        st.free_in.push(input);
        st.free_out.push(output);
        drop(st);
        self.room.notify_one();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update under the lock is a few plain assignments that a
        // panic cannot leave half done, so a poisoned lock is still sound.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'g>(&self, cv: &Condvar, g: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        cv.wait(g).unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn stop(&self) {
        self.lock().stop = true;
        self.room.notify_all();
        self.work.notify_all();
    }

    /// Waits until the next batch may be claimed and claims it, with a
    /// recycled input buffer if there is one; `None` once the run stopped
    /// or the final batch is behind.
    pub(super) fn claim(&self) -> Option<(u64, Option<AlignedBuf>)> {
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
    pub(super) fn read_batch(
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
        let eof = data.as_ref().map_or(true, |d| d.len() < len);
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
pub(super) fn read_at_full(read_at: &ReadAt<'_>, buf: &mut [u8], pos: u64) -> io::Result<usize> {
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

/// A worker's next batch of a stream; `None` once the stream is done or
/// the run stopped.
pub(super) fn dequeue(sh: &Shared) -> Option<Job> {
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

/// The reader thread of a stream: reads batches in order into the queue.
/// Detached: it owns what it uses, and ends at the stream's end, at an
/// error, or at its next batch once the run stopped.
pub(super) fn spawn_reader(sh: Arc<Shared>, mut reader: Box<dyn Read + Send>) -> io::Result<()> {
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
