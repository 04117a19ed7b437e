//! How `aesx encrypt`/`decrypt` stream a payload: the input as
//! aesx-file's [`pipeline`] reads it (a regular file by position, each
//! worker reading its own batches; a pipe in order on a reader thread), the
//! workers sealing or opening batches, and the output written in order on
//! this thread. Why it has that shape, with the measurements, is in
//! [`aesx_file::pipeline`]'s top note.

use std::fs::File;
use std::io::{self, IsTerminal, Read};

use aesx_file::pipeline::{self, Input, Plan, Step};

use super::io_msg;
use super::output::Output;
use crate::CommandError;

/// Where the pipeline reads from.
pub(super) enum Source {
    /// A pipe or terminal: read in order by one reader thread.
    Stream(Box<dyn Read + Send>),
    /// A regular file from byte `start` on (`limit` bytes of it, or up to
    /// its end), read by position.
    File {
        file: File,
        start: u64,
        limit: Option<u64>,
    },
}

/// Runs `step` over `source` in batches of `batch_len` bytes on `workers`
/// threads and writes the outputs in order to `out` (with `write`, which
/// may clip them), counting the input on the progress bar. A failing step
/// returns how much of its output may still be written (a verified
/// prefix) and the error.
pub(super) fn pipeline(
    source: Source,
    batch_len: usize,
    workers: usize,
    pb: &indicatif::ProgressBar,
    step: &Step<'_, CommandError>,
    write: &mut dyn FnMut(&[u8]) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    let read_err = |e: io::Error| CommandError::failure(format!("reading input: {}", io_msg(&e)));
    let plan = Plan::for_threads(batch_len, workers);
    let mut write = |o: &[u8], consumed: usize| {
        write(o)?;
        pb.inc(consumed as u64);
        Ok(())
    };
    let r = match source {
        Source::Stream(r) => pipeline::run(Input::Stream(r), plan, &read_err, step, &mut write),
        Source::File { file, start, limit } => {
            let end = limit.map_or(u64::MAX, |l| start.saturating_add(l));
            let read_at = |buf: &mut [u8], pos: u64| {
                let room = end.saturating_sub(pos).min(buf.len() as u64) as usize;
                match room {
                    0 => Ok(0),
                    n => super::sys::read_at(&file, &mut buf[..n], pos),
                }
            };
            let input = Input::At {
                read_at: &read_at,
                start,
            };
            pipeline::run(input, plan, &read_err, step, &mut write)
        }
    };
    r.map(|_| ())
}

/// [`pipeline`] writing every output whole to `out`.
pub(super) fn pipeline_to(
    source: Source,
    batch_len: usize,
    workers: usize,
    out: &mut Output,
    pb: &indicatif::ProgressBar,
    step: &Step<'_, CommandError>,
) -> Result<(), CommandError> {
    pipeline(source, batch_len, workers, pb, step, &mut |o| {
        out.write_all(o)
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
