//! The worker threads that [`parallel`](super::parallel) hands segments to.
//!
//! Starting a thread per call costs tens of microseconds on a virtual
//! machine (measured: about 55 µs to start and join one on a 2-core Zen 3
//! VM), as much as encrypting 400 KiB, so the workers are started on first
//! use and kept: after a task a worker spins for [`SPIN`] waiting for the
//! next one (back-to-back large calls then start at once), then parks until
//! a caller unparks it. A caller claims idle workers, starting new ones up
//! to [`MAX_WORKERS`]; segments it cannot place run on the calling thread.
//! Every call waits until each of its tasks has finished, so the tasks may
//! borrow the caller's buffers.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

/// How long a worker waits for its next task, spinning, before it parks.
const SPIN: Duration = Duration::from_micros(200);

/// How long a caller spins for its workers before it parks (the worker
/// unparks it), leaving its core to the workers on a busy machine.
const WAIT_SPIN: Duration = Duration::from_micros(20);

/// The most workers kept (beyond it, segments run on the calling thread).
const MAX_WORKERS: usize = 63;

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const RUNNING: u8 = 2;
const DONE: u8 = 3;

/// A task as a worker stores it: its borrows are the caller's, which waits
/// for it (see [`run`]).
type Task = Box<dyn FnOnce() + Send + 'static>;
type Payload = Box<dyn Any + Send + 'static>;

struct Worker {
    /// Held by one caller from claim to release.
    claimed: AtomicBool,
    /// IDLE, POSTED (a task is in `task`), RUNNING (the worker took it),
    /// DONE (it has run). A caller may take a POSTED task back (to IDLE).
    state: AtomicU8,
    task: Mutex<Option<Task>>,
    /// The panic of the last task, if it panicked.
    panic: Mutex<Option<Payload>>,
    thread: OnceLock<Thread>,
    /// The caller waiting for DONE, parked.
    waiter: Mutex<Option<Thread>>,
}

static WORKERS: Mutex<Vec<Arc<Worker>>> = Mutex::new(Vec::new());

/// Claims up to `n` idle workers, starting new ones while there are too
/// few (and the system gives threads).
fn claim(n: usize) -> Vec<Arc<Worker>> {
    let mut got = Vec::with_capacity(n);
    if n == 0 {
        return got;
    }
    let mut all = WORKERS.lock().unwrap_or_else(PoisonError::into_inner);
    for w in all.iter() {
        if got.len() == n {
            return got;
        }
        let free = w
            .claimed
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed);
        if free.is_ok() {
            got.push(Arc::clone(w));
        }
    }
    while got.len() < n && all.len() < MAX_WORKERS {
        let w = Arc::new(Worker {
            claimed: AtomicBool::new(true),
            state: AtomicU8::new(IDLE),
            task: Mutex::new(None),
            panic: Mutex::new(None),
            thread: OnceLock::new(),
            waiter: Mutex::new(None),
        });
        let mine = Arc::clone(&w);
        let spawned = thread::Builder::new()
            .name("aesx-worker".into())
            .spawn(move || serve(&mine));
        match spawned {
            Ok(h) => {
                let _ = w.thread.set(h.thread().clone());
                all.push(Arc::clone(&w));
                got.push(w);
            }
            Err(_) => break,
        }
    }
    got
}

/// A worker's life: wait for a task (spin, then park), run it, report.
fn serve(w: &Worker) {
    loop {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let posted = w.state.load(Ordering::Acquire) == POSTED
                && w.state
                    .compare_exchange(POSTED, RUNNING, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok();
            if posted {
                break;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) || start.elapsed() < SPIN {
                std::hint::spin_loop();
            } else {
                thread::park();
            }
        }
        let task = w.task.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(task) = task {
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(task)) {
                *w.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(p);
            }
        }
        w.state.store(DONE, Ordering::Release);
        let waiter = w
            .waiter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(t) = waiter {
            t.unpark();
        }
    }
}

/// Runs every task and returns their results in order: the first on the
/// calling thread, the others on claimed workers (those left over on the
/// calling thread too). A task that no worker has started by the time the
/// calling thread is free is taken back and run there, so a busy machine
/// costs at most what one thread would. Returns only when all have
/// finished; a panic in any is carried to the caller then.
pub(crate) fn run<'a, R: Send + 'a>(tasks: Vec<Box<dyn FnOnce() -> R + Send + 'a>>) -> Vec<R> {
    let n = tasks.len();
    let slots: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let workers = claim(n.saturating_sub(1));
    let mut here = Vec::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let slot = &slots[i];
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            let r = task();
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
        });
        match i.checked_sub(1).and_then(|w| workers.get(w)) {
            Some(w) => {
                // SAFETY: only the lifetime is erased (the layout of a boxed
                // trait object does not depend on it). The job borrows
                // `slots` and what the caller's tasks borrow; this function
                // does not return or unwind before every posted job was
                // either taken back and run here or run by its worker, which
                // stores DONE after the job has run and been dropped, so no
                // borrow is used after this call ends.
                let job: Task = unsafe { std::mem::transmute(job) };
                *w.task.lock().unwrap_or_else(PoisonError::into_inner) = Some(job);
                w.state.store(POSTED, Ordering::Release);
                if let Some(t) = w.thread.get() {
                    t.unpark();
                }
            }
            None => here.push(job),
        }
    }
    let mut failed = panic::catch_unwind(AssertUnwindSafe(|| {
        for job in here {
            job();
        }
    }))
    .err();
    // Tasks no worker has started run here; then wait for the others.
    let mut started = Vec::with_capacity(workers.len());
    for w in &workers {
        let back = w
            .state
            .compare_exchange(POSTED, IDLE, Ordering::Acquire, Ordering::Relaxed)
            .is_ok();
        if back {
            let job = w.task.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(job) = job {
                if let Err(p) = panic::catch_unwind(AssertUnwindSafe(job)) {
                    failed = failed.or(Some(p));
                }
            }
            w.claimed.store(false, Ordering::Release);
        } else {
            started.push(w);
        }
    }
    for w in started {
        let start = Instant::now();
        let mut spins = 0u32;
        while w.state.load(Ordering::Acquire) != DONE {
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) || start.elapsed() < WAIT_SPIN {
                std::hint::spin_loop();
            } else {
                // Registered before the state is read again, so a DONE
                // stored after that read finds the waiter and unparks it.
                *w.waiter.lock().unwrap_or_else(PoisonError::into_inner) = Some(thread::current());
                if w.state.load(Ordering::Acquire) != DONE {
                    thread::park();
                }
            }
        }
        w.waiter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let p = w
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        failed = failed.or(p);
        w.state.store(IDLE, Ordering::Relaxed);
        w.claimed.store(false, Ordering::Release);
    }
    if let Some(p) = failed {
        panic::resume_unwind(p);
    }
    slots
        .into_iter()
        .map(|s| s.into_inner().unwrap_or_else(PoisonError::into_inner))
        .map(|r| r.expect("every task ran to the end"))
        .collect()
}
