//! The three-stage pipeline of `aesx encrypt`/`decrypt`, in bounded
//! memory: reader threads fill batches of whole chunks (two `pread` threads
//! taking turns for a regular file, one for a pipe), the calling thread
//! transforms each batch, and a writer thread writes them in order.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::sync::mpsc;

use aesx_file::payload;

use super::io_msg;
use super::output::Output;
use crate::CliError;

/// Batches queued between the stages (with the ones being filled, worked on
/// and written: about 12 batches, 26 MiB, at most).
const DEPTH: usize = 2;

/// One batch through the pipeline.
struct Batch {
    data: Vec<u8>,
    eof: bool,
}

/// Where the pipeline reads from.
pub(super) enum Source {
    /// A pipe or terminal: one reader thread.
    Stream(Box<dyn Read + Send>),
    /// A regular file from byte `start` on: several reader threads `pread`
    /// alternate batches, since one thread copying out of the page cache is
    /// slower than the AES-GCM kernels.
    File { file: File, start: u64 },
}

/// Reader threads for a regular file.
const FILE_READERS: usize = 2;

/// Fills `buf` from `file` at `pos` until full or the end; returns the count.
pub(super) fn pread_full(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
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

/// One reader thread's batches, and the way its buffers go back to it.
type ReaderChannels = (
    mpsc::Receiver<Result<Batch, CliError>>,
    mpsc::SyncSender<Vec<u8>>,
);

/// Starts the reader threads; batch `b` arrives on channel `b % len`.
/// They are detached: on an error the command returns without waiting for
/// them, even if one is blocked on a stalled pipe.
fn spawn_readers(
    source: Source,
    batch_len: usize,
    pb: &indicatif::ProgressBar,
) -> Result<Vec<ReaderChannels>, CliError> {
    let read_err = |e: io::Error| CliError::failure(format!("reading input: {}", io_msg(&e)));
    let mut chans = Vec::new();
    let n_readers = match source {
        Source::Stream(_) => 1,
        Source::File { .. } => FILE_READERS,
    };
    let mut stream = None;
    let mut file = None;
    match source {
        Source::Stream(r) => stream = Some(r),
        Source::File { file: f, start } => file = Some((std::sync::Arc::new(f), start)),
    }
    for r in 0..n_readers {
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<Batch, CliError>>(DEPTH);
        let (free_tx, free_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH + 2);
        chans.push((full_rx, free_tx));
        let pb = pb.clone();
        let mut stream = stream.take();
        let file = file.clone();
        let reader = move || {
            let mut b = r as u64;
            loop {
                let mut buf = free_rx.try_recv().unwrap_or_default();
                // Running out of memory is an error message, not an abort.
                if buf
                    .try_reserve_exact(batch_len.saturating_sub(buf.len()))
                    .is_err()
                {
                    let _ = full_tx.send(Err(out_of_memory(batch_len)));
                    return;
                }
                buf.resize(batch_len, 0);
                let got = match (&mut stream, &file) {
                    (Some(s), _) => payload::read_full(s, &mut buf),
                    (None, Some((f, start))) => {
                        pread_full(f, &mut buf, start + b * batch_len as u64)
                    }
                    (None, None) => Ok(0),
                };
                let msg = got.map_err(read_err).map(|n| {
                    buf.truncate(n);
                    pb.inc(n as u64);
                    Batch {
                        data: buf,
                        eof: n < batch_len,
                    }
                });
                let stop = !matches!(msg, Ok(Batch { eof: false, .. }));
                if full_tx.send(msg).is_err() || stop {
                    return;
                }
                b += n_readers as u64;
            }
        };
        std::thread::Builder::new()
            .name("aesx-reader".into())
            .stack_size(THREAD_STACK)
            .spawn(reader)
            .map_err(thread_error)?;
    }
    Ok(chans)
}

/// Stack of the reader and writer threads (they hold no large locals).
const THREAD_STACK: usize = 256 * 1024;

fn thread_error(e: io::Error) -> CliError {
    CliError::failure(format!("cannot start a thread: {}", io_msg(&e)))
}

fn out_of_memory(bytes: usize) -> CliError {
    CliError::failure(format!(
        "out of memory: cannot allocate a {} KiB buffer",
        bytes / 1024
    ))
}

/// Reads batches of `batch_len` bytes on reader threads, transforms them in
/// order on this thread with `step` (which on failure returns how much of
/// its output may still be written, and the error), and writes them in
/// order on a writer thread.
pub(super) fn pipeline(
    source: Source,
    batch_len: usize,
    out: &mut Output,
    pb: &indicatif::ProgressBar,
    mut step: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Result<(), (usize, CliError)>,
) -> Result<(), CliError> {
    let readers = spawn_readers(source, batch_len, pb)?;
    let (done_tx, done_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH);
    let (back_tx, back_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH + 2);
    std::thread::scope(|s| {
        let writer_thread = std::thread::Builder::new()
            .name("aesx-writer".into())
            .stack_size(THREAD_STACK)
            .spawn_scoped(s, move || -> Result<(), CliError> {
                for buf in done_rx {
                    out.write_all(&buf)?;
                    let _ = back_tx.try_send(buf);
                }
                Ok(())
            })
            .map_err(thread_error)?;
        let mut result = Ok(());
        for b in 0.. {
            let (full_rx, free_tx) = &readers[b % readers.len()];
            let batch = match full_rx.recv() {
                Ok(Ok(batch)) => batch,
                Ok(Err(e)) => {
                    result = Err(e);
                    break;
                }
                Err(_) => {
                    result = Err(CliError::failure("reading input: reader stopped"));
                    break;
                }
            };
            let mut outbuf = back_rx.try_recv().unwrap_or_default();
            let r = step(&batch.data, batch.eof, &mut outbuf);
            let _ = free_tx.try_send(batch.data);
            match r {
                Ok(()) => {
                    if done_tx.send(outbuf).is_err() {
                        break;
                    }
                }
                Err((valid, e)) => {
                    // Release the verified prefix only (stdout streaming).
                    outbuf.truncate(valid);
                    let _ = done_tx.send(outbuf);
                    result = Err(e);
                    break;
                }
            }
            if batch.eof {
                break;
            }
        }
        drop(done_tx);
        drop(readers);
        let w = writer_thread
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        result.and(w)
    })
}

/// The progress bar on stderr (hidden when quiet or not a terminal).
pub(super) fn progress(quiet: bool, total: Option<u64>) -> indicatif::ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let style = match total {
        Some(_) => "{bytes}/{total_bytes} [{wide_bar}] {binary_bytes_per_sec} ETA {eta}",
        None => "{bytes} {binary_bytes_per_sec} {elapsed}",
    };
    let pb = match total {
        Some(t) => indicatif::ProgressBar::new(t),
        None => indicatif::ProgressBar::no_length(),
    };
    pb.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        pb.set_style(s);
    }
    pb
}
