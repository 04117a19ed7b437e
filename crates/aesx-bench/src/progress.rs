//! The progress line of `aesx bench` on stderr.

use std::io::{IsTerminal, Write};

use super::cases::{Case, Mode};

/// A progress line on stderr: rewritten in place on a terminal, one short
/// line per mode and key size otherwise.
pub(super) struct Progress {
    total: usize,
    done: usize,
    tty: bool,
    group: Option<(Mode, u32)>,
}

impl Progress {
    pub(super) fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            tty: std::io::stderr().is_terminal(),
            group: None,
        }
    }

    pub(super) fn step(&mut self, case: &Case) {
        self.done += 1;
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(
                err,
                "\r\x1b[K[{}/{}] {} AES-{} {} B",
                self.done, self.total, case.mode, case.key_bits, case.size
            );
        } else if self.group != Some((case.mode, case.key_bits)) {
            self.group = Some((case.mode, case.key_bits));
            let _ = writeln!(
                err,
                "aesx bench: {} AES-{} (case {} of {})",
                case.mode, case.key_bits, self.done, self.total
            );
        }
        let _ = err.flush();
    }

    pub(super) fn finish(&self) {
        if self.tty {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}
