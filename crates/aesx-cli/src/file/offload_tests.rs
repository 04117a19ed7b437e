//! The offload's plan, and its scheduler against a model GPU on the CPU
//! that is fast, far slower than the workers, stalls, or fails mid-file:
//! the output must be the CPU path's bytes every time (its error and
//! verified prefix when opening fails), and a slow GPU must not hold the
//! workers up.

use super::*;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

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

#[test]
fn pieces_are_the_runs_the_plan_would_have_cut() {
    for dir in [Direction::Seal, Direction::Open] {
        let stride = Plan::new(dir, 0).stride;
        for len in [
            0,
            1,
            stride - 1,
            stride,
            7 * stride + 3,
            16 * stride,
            19 * stride,
        ] {
            let big = runs(dir, len, 8);
            let cut: Vec<Run> = big.iter().flat_map(|r| r.pieces(3, stride)).collect();
            let mut small = Plan::new(dir, len);
            // The plan's runs of three, restarted at each big run's start.
            let want: Vec<Run> = big
                .iter()
                .flat_map(|b| {
                    small.next = b.first;
                    let mut v = Vec::new();
                    while small.next < b.first + b.count as u64 {
                        let mut r =
                            small.take(3.min((b.first + b.count as u64 - small.next) as usize));
                        r.last = small.done();
                        v.push(r);
                    }
                    v
                })
                .collect();
            assert_eq!(cut, want, "{dir:?} {len}");
        }
    }
}

const KEY: [u8; 32] = [7u8; 32];
const BASE: [u8; NONCE_LEN] = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xff, 0x80];

/// Small runs, so that a file of a few dozen chunks makes many of them.
const SMALL: Sizes = Sizes {
    gpu_run: 8,
    cpu_run: 2,
    cpu_queue: 2,
    gpu_slots: 3,
    cpu_ahead: 4,
};

fn cpu() -> ChunkCipher {
    ChunkCipher::new(&KEY, BASE, aesx::Backend::fastest()).unwrap()
}

/// How the model GPU behaves; runs are counted from 0 in submission order.
#[derive(Clone, Copy, Debug, Default)]
struct Model {
    /// From submission to ready, every run.
    per_run: Duration,
    /// One run that takes this long instead.
    stall: Option<(usize, Duration)>,
    /// The submission that fails; the device is dead from then on.
    fail_submit: Option<usize>,
    /// The take that fails; the device is dead from then on.
    fail_take: Option<usize>,
}

/// The GPU as aesx-cuda's chunk pipe behaves, computed on the CPU with
/// the nonces the scheduler passes (so wrong nonces show as wrong bytes).
struct ModelGpu {
    gcm: aesx::Gcm,
    m: Model,
    submitted: Arc<AtomicUsize>,
}

impl OffloadGpu for ModelGpu {
    fn pipe(
        &self,
        dir: Direction,
        batch: usize,
        slots: usize,
    ) -> aesx_cuda::Result<Box<dyn RunPipe + '_>> {
        Ok(Box::new(ModelPipe {
            gpu: self,
            dir,
            batch,
            slots,
            staging: vec![0u8; batch * RECORD],
            jobs: VecDeque::new(),
            taken: None,
            submits: 0,
            takes: 0,
            dead: false,
        }))
    }

    fn base_nonce(&self) -> [u8; NONCE_LEN] {
        BASE
    }
}

struct ModelJob {
    ready: Instant,
    input: Vec<u8>,
    output: Vec<u8>,
    verified: usize,
    chunks: usize,
}

struct ModelPipe<'g> {
    gpu: &'g ModelGpu,
    dir: Direction,
    batch: usize,
    slots: usize,
    staging: Vec<u8>,
    jobs: VecDeque<ModelJob>,
    taken: Option<ModelJob>,
    submits: usize,
    takes: usize,
    dead: bool,
}

fn lost() -> aesx_cuda::CudaError {
    aesx_cuda::CudaError::Driver("model: the device fell off the bus".into())
}

impl ModelPipe<'_> {
    fn alive(&self) -> aesx_cuda::Result<()> {
        if self.dead {
            Err(lost())
        } else {
            Ok(())
        }
    }

    /// Sealed records of the chunks of `input` (the last may be short or
    /// empty), one nonce each.
    fn seal(&self, input: &[u8], nonces: &[[u8; NONCE_LEN]]) -> Vec<u8> {
        let n = nonces.len();
        assert!((n - 1) * CHUNK <= input.len() && input.len() <= n * CHUNK);
        let mut out = Vec::new();
        for (i, nonce) in nonces.iter().enumerate() {
            let mut body =
                input[(i * CHUNK).min(input.len())..((i + 1) * CHUNK).min(input.len())].to_vec();
            let tag = self
                .gpu
                .gcm
                .seal_in_place_detached(nonce, &[], &mut body)
                .unwrap();
            out.extend_from_slice(&body);
            out.extend_from_slice(tag.as_bytes());
        }
        out
    }

    /// The chunk bodies of the records of `input` and how many verified
    /// (the rest zeroed), as the pipe's `Done`.
    fn open(&self, input: &[u8], nonces: &[[u8; NONCE_LEN]]) -> (Vec<u8>, usize) {
        let n = nonces.len();
        assert!((n - 1) * RECORD + 16 <= input.len() && input.len() <= n * RECORD);
        let mut out = vec![0u8; input.len() - 16 * n];
        for (i, nonce) in nonces.iter().enumerate() {
            let rec = &input[i * RECORD..((i + 1) * RECORD).min(input.len())];
            let (ct, tag) = rec.split_at(rec.len() - 16);
            let body = &mut out[i * CHUNK..i * CHUNK + ct.len()];
            if self
                .gpu
                .gcm
                .open_to_detached(nonce, &[], ct, tag, body)
                .is_err()
            {
                out[i * CHUNK..].fill(0);
                return (out, i);
            }
        }
        (out, n)
    }
}

impl RunPipe for ModelPipe<'_> {
    fn is_full(&self) -> bool {
        self.jobs.len() == self.slots
    }

    fn is_ready(&self) -> bool {
        self.jobs.front().is_some_and(|j| Instant::now() >= j.ready)
    }

    fn input(&mut self) -> aesx_cuda::Result<&mut [u8]> {
        self.alive()?;
        assert!(!self.is_full(), "input() on a full pipe");
        Ok(&mut self.staging)
    }

    fn submit(&mut self, len: usize, nonces: &[[u8; NONCE_LEN]]) -> aesx_cuda::Result<()> {
        self.alive()?;
        let k = self.submits;
        self.submits += 1;
        if self.gpu.m.fail_submit == Some(k) {
            self.dead = true;
            return Err(lost());
        }
        assert!(!self.is_full() && !nonces.is_empty() && nonces.len() <= self.batch);
        let input = self.staging[..len].to_vec();
        let (output, verified) = match self.dir {
            Direction::Seal => (self.seal(&input, nonces), nonces.len()),
            Direction::Open => self.open(&input, nonces),
        };
        let delay = match self.gpu.m.stall {
            Some((s, d)) if s == k => d,
            _ => self.gpu.m.per_run,
        };
        self.gpu.submitted.fetch_add(1, Ordering::Relaxed);
        self.jobs.push_back(ModelJob {
            ready: Instant::now() + delay,
            input,
            output,
            verified,
            chunks: nonces.len(),
        });
        Ok(())
    }

    fn take(&mut self) -> aesx_cuda::Result<Option<Done<'_>>> {
        self.alive()?;
        if self.jobs.is_empty() {
            return Ok(None);
        }
        let k = self.takes;
        self.takes += 1;
        if self.gpu.m.fail_take == Some(k) {
            self.dead = true;
            return Err(lost());
        }
        let job = self.jobs.pop_front().unwrap_or_else(|| unreachable!());
        std::thread::sleep(job.ready.saturating_duration_since(Instant::now()));
        let j = self.taken.insert(job);
        Ok(Some(Done {
            output: &j.output,
            verified: j.verified,
            chunks: j.chunks,
            input: &j.input,
        }))
    }
}

impl Sink for Vec<u8> {
    fn write_all(&mut self, data: &[u8]) -> Result<(), CommandError> {
        self.extend_from_slice(data);
        Ok(())
    }
}

/// What one offload wrote, its error, how many runs the GPU was given and
/// how long it took.
struct Outcome {
    out: Vec<u8>,
    err: Option<String>,
    gpu_runs: usize,
    time: Duration,
    /// Warning lines said.
    warnings: usize,
}

/// The scheduler over `area` (a file holding just the chunk area).
fn offload(dir: Direction, area: &[u8], workers: usize, m: Model) -> Outcome {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(area).unwrap();
    let submitted = Arc::new(AtomicUsize::new(0));
    let gpu = ModelGpu {
        gcm: aesx::Gcm::with_backend(&KEY, aesx::Backend::fastest()).unwrap(),
        m,
        submitted: submitted.clone(),
    };
    let job = Job {
        gpu: Box::new(move || Ok(Box::new(gpu) as Box<dyn OffloadGpu>)),
        cpu: cpu(),
        workers,
        file,
        start: 0,
        len: area.len() as u64,
    };
    let mut out = Vec::new();
    let warnings = AtomicUsize::new(0);
    let warn = |line: &str| {
        assert!(
            line.starts_with("aesx: warning: GPU: ") && !line.contains('\n'),
            "{line}"
        );
        warnings.fetch_add(1, Ordering::Relaxed);
    };
    let t = Instant::now();
    let r = run_sized(
        dir,
        job,
        &mut out,
        &indicatif::ProgressBar::hidden(),
        SMALL,
        &warn,
    );
    Outcome {
        out,
        err: r.err().map(|e| e.to_string()),
        gpu_runs: submitted.load(Ordering::Relaxed),
        time: t.elapsed(),
        warnings: warnings.load(Ordering::Relaxed),
    }
}

/// The CPU path's records of `pt`.
fn sealed(pt: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    Sealer::new(cpu())
        .seal_batch(pt, true, &mut out, 1)
        .unwrap();
    out
}

/// The CPU path's plaintext of `ct` (the verified prefix) and error.
fn opened(ct: &[u8]) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    match Opener::new(cpu()).open_batch(ct, true, &mut out, 1) {
        Ok(()) => (out, None),
        Err(e) => {
            out.truncate(e.valid);
            let msg = open_failure(&cpu(), e, ct).to_string();
            (out, Some(msg))
        }
    }
}

fn plaintext(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + i / 977) as u8).collect()
}

const SLOW: Duration = Duration::from_millis(40);
const STALL: Duration = Duration::from_secs(5);

/// The models every length is run through, with the worker counts each
/// suits (a stall on the GPU alone would just be waited out).
fn models() -> Vec<(Model, &'static [usize])> {
    let d = Model::default();
    vec![
        (d, &[0, 1, 3]),
        (Model { per_run: SLOW, ..d }, &[0, 2]),
        (
            Model {
                stall: Some((1, STALL)),
                ..d
            },
            &[1, 3],
        ),
        (
            Model {
                fail_submit: Some(0),
                ..d
            },
            &[0, 2],
        ),
        (
            Model {
                fail_submit: Some(2),
                ..d
            },
            &[0, 1, 3],
        ),
        (
            Model {
                fail_take: Some(1),
                ..d
            },
            &[0, 1, 3],
        ),
    ]
}

const LENS: [usize; 7] = [
    0,
    1,
    CHUNK - 1,
    CHUNK,
    5 * CHUNK + 3,
    37 * CHUNK,
    37 * CHUNK + 100,
];

#[test]
fn every_gpu_behaviour_gives_the_cpu_paths_bytes_both_ways() {
    for len in LENS {
        let pt = plaintext(len);
        let ct = sealed(&pt);
        for (dir, input, want) in [(Direction::Seal, &pt, &ct), (Direction::Open, &ct, &pt)] {
            for (m, workers) in models() {
                for &w in workers {
                    let o = offload(dir, input, w, m);
                    let case = format!("{dir:?} {len} {w} {m:?}");
                    assert_eq!(o.err, None, "{case}");
                    assert!(&o.out == want, "{case}: different bytes");
                    assert!(o.time < STALL / 2, "{case}: {:?}", o.time);
                    // One line for a GPU that failed, none otherwise.
                    let fails = m.fail_submit.is_some() || m.fail_take.is_some();
                    assert!(o.warnings <= usize::from(fails), "{case}: {}", o.warnings);
                    if m.fail_submit == Some(0) && w == 0 {
                        assert_eq!(o.warnings, 1, "{case}: the GPU's first run fails");
                    }
                }
            }
        }
    }
}

#[test]
fn damaged_input_fails_as_on_the_cpu_whoever_holds_the_chunk() {
    let pt = plaintext(37 * CHUNK + 100);
    let ct = sealed(&pt);
    let mut cases: Vec<Vec<u8>> = Vec::new();
    // A flipped byte in the first chunk, the last, and two between (each
    // on the GPU under some models and worker counts, on a worker under
    // others; explaining a failure costs a search, so only a few).
    for i in [0, 5, 13, 37] {
        let mut c = ct.clone();
        c[i * RECORD + 7] ^= 1;
        cases.push(c);
    }
    // Truncated on a record boundary, inside a tag, and extended.
    cases.push(ct[..20 * RECORD].to_vec());
    cases.push(ct[..ct.len() - 5].to_vec());
    let mut longer = ct.clone();
    longer.extend_from_slice(&[0u8; 40]);
    cases.push(longer);
    for c in &cases {
        let (want, err) = opened(c);
        assert!(err.is_some());
        for (m, workers) in models() {
            for &w in workers {
                let o = offload(Direction::Open, c, w, m);
                assert_eq!(o.err, err, "{} {w} {m:?}", c.len());
                assert!(o.out == want, "{} {w} {m:?}: different prefix", c.len());
            }
        }
    }
}

#[test]
fn a_fast_gpu_takes_runs_beside_the_workers() {
    let pt = plaintext(37 * CHUNK);
    for w in [1, 3] {
        let o = offload(Direction::Seal, &pt, w, Model::default());
        assert!(o.gpu_runs > 0, "{w} workers: the GPU was never given a run");
    }
}

#[test]
fn a_slow_gpu_is_overtaken_and_given_no_more() {
    // The GPU takes 0.5 s a run; the workers need a few milliseconds for
    // the whole file, so they finish its first runs themselves.
    let pt = plaintext(37 * CHUNK);
    let slow = Model {
        per_run: Duration::from_millis(500),
        ..Model::default()
    };
    for w in [1, 2] {
        let o = offload(Direction::Seal, &pt, w, slow);
        assert!(o.out == sealed(&pt));
        assert!(
            o.gpu_runs <= SMALL.gpu_slots,
            "{w}: {} GPU runs",
            o.gpu_runs
        );
        assert!(o.time < Duration::from_millis(450), "{w}: {:?}", o.time);
    }
}

#[test]
fn a_gpu_that_cannot_open_is_an_error_unless_the_workers_finished_first() {
    // With workers the file does not wait for the GPU to open: an opening
    // that fails after they finished is left unreported (by design), one
    // that failed before is the command's error.
    let pt = plaintext(5 * CHUNK + 3);
    for w in [0, 2] {
        let job = Job {
            gpu: Box::new(|| Err(CommandError::failure("GPU: model: no device"))),
            cpu: cpu(),
            workers: w,
            file: {
                let mut f = tempfile::tempfile().unwrap();
                f.write_all(&pt).unwrap();
                f
            },
            start: 0,
            len: pt.len() as u64,
        };
        let mut out = Vec::new();
        let r = run_sized(
            Direction::Seal,
            job,
            &mut out,
            &indicatif::ProgressBar::hidden(),
            SMALL,
            &|line| panic!("{line}"),
        );
        match r {
            Err(e) => assert_eq!(e.to_string(), "GPU: model: no device", "{w}"),
            Ok(()) => assert!(w > 0 && out == sealed(&pt), "{w}: no error"),
        }
    }
}

#[test]
fn the_rest_of_a_run_is_the_run_the_plan_would_have_cut_from_there() {
    for dir in [Direction::Seal, Direction::Open] {
        let stride = Plan::new(dir, 0).stride as usize;
        let out_stride = if dir == Direction::Seal {
            RECORD
        } else {
            CHUNK
        };
        for len in [
            0,
            1,
            stride + 5,
            7 * stride,
            7 * stride + 3,
            19 * stride + 1,
        ] {
            for run in runs(dir, len as u64, 8) {
                let end = run.first + run.count as u64;
                assert_eq!(Rest::of(dir, &run, end, stride as u64), None);
                for at in run.first..end {
                    let rest = Rest::of(dir, &run, at, stride as u64).unwrap();
                    let mut p = Plan::new(dir, len as u64);
                    p.next = at;
                    let want = p.take((end - at) as usize);
                    assert_eq!(rest.run, want, "{dir:?} {len} {at}");
                    assert_eq!(rest.input as u64, want.pos - run.pos);
                    assert_eq!(rest.output, (at - run.first) as usize * out_stride);
                }
            }
        }
    }
}
