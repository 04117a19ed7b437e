//! The measuring loop: honesty check, warm-up, batch sizing, interleaved
//! iterations.
//!
//! All implementations of one case are measured in the same rounds, each
//! round visiting them in a rotated order, so that a burst of load from
//! elsewhere on a shared machine hits all of them rather than whichever one
//! happened to run at that moment.

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::cases::{split_sizes, Case, Setup};
use super::impls::Impl;
use super::runner::{Runner, TAIL};

/// One independent stream: a runner and the buffer it works on in place.
/// Each call's output is the next call's input, so no call can be skipped
/// or answered from a cache.
struct Lane {
    runner: Box<dyn Runner>,
    buf: Vec<u8>,
    len: usize,
}

impl Lane {
    fn run(&mut self, calls: u64) -> Result<(), String> {
        for _ in 0..calls {
            self.runner.call(black_box(&mut self.buf), self.len)?;
        }
        black_box(&self.buf);
        Ok(())
    }
}

/// One implementation on one case, with its samples.
pub struct Subject {
    /// The implementation.
    pub imp: Impl,
    lanes: Vec<Lane>,
    /// Calls per timed iteration.
    pub batch: u64,
    /// Seconds per call, one value per iteration.
    pub samples: Vec<f64>,
    /// Threads aesx's own call splits each message over (1 for peers).
    lib_threads: usize,
}

impl Subject {
    /// Keys `imp` for the case; with `threads > 1` the message is split into
    /// that many independent parts, one per thread.
    pub fn new(imp: Impl, case: &Case, setup: &Setup, threads: usize) -> Result<Subject, String> {
        let mut lanes = Vec::new();
        let mut off = 0;
        for len in split_sizes(case.size, threads, case.mode.spec().min_size) {
            let mut buf = setup.input[off..off + len].to_vec();
            buf.resize(len + TAIL, 0);
            off += len;
            lanes.push(Lane {
                runner: imp.runner(case.mode, setup)?,
                buf,
                len,
            });
        }
        Ok(Subject {
            imp,
            lanes,
            batch: 1,
            samples: Vec::new(),
            lib_threads: if imp.is_peer() { 1 } else { setup.threads },
        })
    }

    /// A subject around a given runner (tests), labelled `imp`.
    #[cfg(test)]
    pub fn with_runner(imp: Impl, runner: Box<dyn Runner>, len: usize) -> Subject {
        Subject {
            imp,
            lanes: vec![Lane {
                runner,
                buf: vec![0; len + TAIL],
                len,
            }],
            batch: 1,
            samples: Vec::new(),
            lib_threads: 1,
        }
    }

    /// Number of threads the message is split over (by the bench, or by
    /// aesx's own parallel call).
    pub fn threads(&self) -> usize {
        self.lanes.len().max(self.lib_threads)
    }

    /// Runs `calls` calls on every lane (in parallel when there are several)
    /// and returns the wall-clock time.
    pub fn run(&mut self, calls: u64) -> Result<Duration, String> {
        if let [lane] = self.lanes.as_mut_slice() {
            let t0 = Instant::now();
            lane.run(calls)?;
            return Ok(t0.elapsed());
        }
        let t0 = Instant::now();
        let results: Vec<Result<(), String>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .lanes
                .iter_mut()
                .map(|lane| s.spawn(move || lane.run(calls)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a bench thread panicked".into()))
                })
                .collect()
        });
        let dt = t0.elapsed();
        results.into_iter().collect::<Result<(), String>>()?;
        Ok(dt)
    }
}

/// The outputs of the first two calls of a fresh runner on the case's input
/// (each followed by its tag in the AEAD modes): what every implementation
/// must agree on.
pub fn first_outputs(imp: Impl, case: &Case, setup: &Setup) -> Result<[Vec<u8>; 2], String> {
    let mut r = imp.runner(case.mode, setup)?;
    let mut buf = setup.input.clone();
    buf.resize(case.size + TAIL, 0);
    // The output, followed by the tag in the AEAD modes.
    let mut outputs = Vec::with_capacity(2);
    for _ in 0..2 {
        r.call(&mut buf, case.size)?;
        let mut out = buf[..case.size].to_vec();
        if let Some(tag) = r.tag() {
            out.extend_from_slice(&tag);
        }
        outputs.push(out);
    }
    let second = outputs.pop().unwrap_or_default();
    let first = outputs.pop().unwrap_or_default();
    Ok([first, second])
}

/// Where two outputs first differ, as a message.
pub fn mismatch(what: &str, got: &[u8], want: &[u8]) -> Option<String> {
    let at = got.iter().zip(want).position(|(a, b)| a != b);
    match at {
        Some(i) => Some(format!(
            "{what}: first difference at byte {i} (got {:02x}, expected {:02x})",
            got[i], want[i]
        )),
        None if got.len() != want.len() => Some(format!(
            "{what}: {} bytes instead of {}",
            got.len(),
            want.len()
        )),
        None => None,
    }
}

/// How to spend the time on one case.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Time budget per implementation (warm-up included).
    pub budget: Duration,
    /// Exactly this many iterations, if set (`--iters`).
    pub iters: Option<u64>,
    /// Shortest timed iteration worth having (timer resolution and, with
    /// threads, thread start-up must vanish against it).
    pub min_iter: Duration,
}

/// Share of the budget spent warming up (and estimating the call time).
const WARMUP_SHARE: f64 = 0.15;
/// Iterations aimed for within the budget (at least; see `MAX_ITER`).
const TARGET_ROUNDS: f64 = 15.0;
/// Longest timed iteration aimed for, in seconds: on a shared machine the
/// scheduler preempts in slices of a few milliseconds, and iterations
/// shorter than a slice mostly run undisturbed, which keeps the median
/// honest; the disturbed ones land in "worst".
const MAX_ITER: f64 = 1e-3;
/// Fewest iterations for a median/best/worst worth printing.
const MIN_ROUNDS: u64 = 3;

/// Warms every subject up, sizes its batch, then runs interleaved rounds.
pub fn measure(subjects: &mut [Subject], plan: &Plan) -> Result<(), String> {
    // Warm-up: double the calls until the warm-up share is used (and at
    // least three runs were made). The time per call is the best of the
    // runs: a run that was preempted, or that paid for starting threads
    // once, must not make the batches too short.
    let warm = plan.budget.mul_f64(WARMUP_SHARE);
    let mut per_call = Vec::with_capacity(subjects.len());
    for s in subjects.iter_mut() {
        let mut calls = 1u64;
        let mut runs = 0;
        let mut best = f64::INFINITY;
        let start = Instant::now();
        loop {
            let dt = s.run(calls)?;
            best = best.min(dt.as_secs_f64() / calls as f64);
            runs += 1;
            if (start.elapsed() >= warm && runs >= 3) || calls >= 1 << 40 {
                break;
            }
            calls *= 2;
        }
        per_call.push(best.max(1e-10));
    }
    let iter_target = match plan.iters {
        Some(_) => plan.min_iter.as_secs_f64(),
        None => (plan.budget.as_secs_f64() * (1.0 - WARMUP_SHARE) / TARGET_ROUNDS)
            .min(MAX_ITER)
            .max(plan.min_iter.as_secs_f64()),
    };
    for (s, t) in subjects.iter_mut().zip(&per_call) {
        s.batch = ((iter_target / t).ceil() as u64).max(1);
        s.samples.clear();
    }
    // Interleaved rounds until the budget (all subjects together) is spent.
    let total = plan
        .budget
        .mul_f64((1.0 - WARMUP_SHARE) * subjects.len() as f64);
    let start = Instant::now();
    let n = subjects.len();
    let mut round = 0u64;
    loop {
        let done = match plan.iters {
            Some(k) => round >= k,
            None => round >= MIN_ROUNDS && start.elapsed() >= total || round >= 1_000_000,
        };
        if done {
            return Ok(());
        }
        for i in 0..n {
            let s = &mut subjects[(i + round as usize) % n];
            let dt = s.run(s.batch)?;
            s.samples.push(dt.as_secs_f64() / s.batch as f64);
        }
        round += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{welch, Summary};

    /// Fixed work per call: `n` dependent multiply-adds.
    struct Spin(u64);

    impl Runner for Spin {
        fn call(&mut self, buf: &mut [u8], _len: usize) -> Result<(), String> {
            let mut x = u64::from(buf[0]);
            for i in 0..self.0 {
                x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
            }
            buf[0] = x as u8;
            Ok(())
        }
    }

    fn compare(a: u64, b: u64, confidence: f64) -> super::super::stats::Welch {
        let label = Impl::Aesx(aesx::Backend::Soft);
        let mut subjects = vec![
            Subject::with_runner(label, Box::new(Spin(a)), 16),
            Subject::with_runner(label, Box::new(Spin(b)), 16),
        ];
        let plan = Plan {
            budget: Duration::from_millis(300),
            iters: Some(1000),
            min_iter: Duration::from_micros(100),
        };
        measure(&mut subjects, &plan).unwrap();
        // Throughput per iteration, as --compare tests it.
        let rate = |s: &Subject| -> Vec<f64> { s.samples.iter().map(|t| 1.0 / t).collect() };
        let (sa, sb) = (
            Summary::of(&rate(&subjects[0])).unwrap(),
            Summary::of(&rate(&subjects[1])).unwrap(),
        );
        welch(&sa, &sb, confidence).unwrap()
    }

    #[test]
    fn measured_ten_percent_is_found_and_equal_work_is_not() {
        // The whole path (warm-up, batches, alternation, Welch) on real
        // timings: B does 10% more work per call, so its throughput is ~9%
        // lower. Short iterations keep most of them clear of preemption on
        // a loaded machine.
        let w = compare(2000, 2200, 0.95);
        assert!(w.significant && w.diff < 0.0, "{w:?}");
        let w = compare(2000, 2000, 0.999);
        assert!(!w.significant, "{w:?}");
    }
}
