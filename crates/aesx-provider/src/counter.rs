//! The `aesx-bytes` provider parameter: bytes aesx has processed through
//! this provider, counted per thread.

use core::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes aesx has encrypted, decrypted or authenticated through this
/// provider in this process: the `aesx-bytes` provider parameter. Each
/// thread counts in its own cell (a locked add per 16-byte call would cost
/// more than a fifth of it) and adds to this total every [`FLUSH`] bytes
/// and when it ends; a read adds the reading thread's own cell, so another
/// running thread's last bytes (under 1 MiB) may not show yet.
static BYTES: AtomicU64 = AtomicU64::new(0);

/// A thread's count is added to [`BYTES`] at least this often.
const FLUSH: u64 = 1 << 20;

/// One thread's bytes not yet in [`BYTES`]; added when the thread ends.
struct Pending(Cell<u64>);

impl Drop for Pending {
    fn drop(&mut self) {
        BYTES.fetch_add(self.0.get(), Ordering::Relaxed);
    }
}

thread_local! {
    static PENDING: Pending = const { Pending(Cell::new(0)) };
}

/// Adds `n` to the work counter.
pub(crate) fn count_bytes(n: usize) {
    // (During thread teardown the cell may be gone: then count directly.)
    let direct = PENDING
        .try_with(|p| {
            let v = p.0.get() + n as u64;
            if v >= FLUSH {
                BYTES.fetch_add(v, Ordering::Relaxed);
                p.0.set(0);
            } else {
                p.0.set(v);
            }
        })
        .is_err();
    if direct {
        BYTES.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// The counter's value: the total plus this thread's pending bytes.
pub fn bytes_done() -> u64 {
    let mine = PENDING.try_with(|p| p.0.get()).unwrap_or(0);
    BYTES.load(Ordering::Relaxed) + mine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_sees_this_thread_at_once_and_others_when_they_end() {
        let before = bytes_done();
        count_bytes(5);
        assert!(bytes_done() >= before + 5);
        let t = std::thread::spawn(|| count_bytes(1000));
        t.join().unwrap();
        assert!(bytes_done() >= before + 1005);
        let before = BYTES.load(Ordering::Relaxed);
        count_bytes(FLUSH as usize);
        assert!(BYTES.load(Ordering::Relaxed) >= before + FLUSH);
    }
}
