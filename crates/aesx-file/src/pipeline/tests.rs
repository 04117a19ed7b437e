//! The pipeline's own tests: order, failures, the window, stalled pipes,
//! panics and buffer alignment, on a toy step.

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
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_both(&input, 3, &step)));
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
