//! The input of the file calls: read in batches, watched for changes, and
//! interruptible by Python's signals between batches.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use aesx_file::payload;
use pyo3::Python;

use super::failure::Failure;
use super::output::FileId;

/// What is compared to tell that a regular file changed while it was read.
#[derive(PartialEq, Eq, Clone, Copy)]
struct Stamp {
    size: u64,
    mtime: (i64, i64),
}

fn stamp(m: &std::fs::Metadata) -> Option<Stamp> {
    m.is_file().then(|| Stamp {
        size: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
    })
}

/// An open input file.
pub(crate) struct Input {
    file: File,
    path: PathBuf,
    id: Option<FileId>,
    /// Size and mtime when opened (regular files only).
    start: Option<Stamp>,
}

impl Input {
    /// Opens `path`; `nofollow` (the tree calls, which list symlinks and
    /// special files as left out) refuses anything but a regular file, a
    /// symlink included. `expect_size`: the size
    /// the caller saw when it listed the file; another size now is an error.
    pub(crate) fn open(
        path: &Path,
        nofollow: bool,
        expect_size: Option<u64>,
    ) -> Result<Input, Failure> {
        let mut o = OpenOptions::new();
        o.read(true);
        if nofollow {
            // Non-blocking too: a FIFO swapped in after the listing must
            // fail below, not hang the worker in open().
            let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
            o.custom_flags(flags.bits() as i32);
        }
        let file = o
            .open(path)
            .map_err(|e| Failure::Io(e, format!("cannot open {}", path.display())))?;
        let m = file
            .metadata()
            .map_err(|e| Failure::Io(e, format!("cannot stat {}", path.display())))?;
        if nofollow && !m.is_file() {
            return Err(changed(path, "no longer a regular file".into()));
        }
        let start = stamp(&m);
        if let (Some(want), Some(s)) = (expect_size, start) {
            if s.size != want {
                return Err(changed(
                    path,
                    format!("{want} bytes when listed, {} now", s.size),
                ));
            }
        }
        Ok(Input {
            id: m.is_file().then(|| (m.dev(), m.ino())),
            file,
            path: path.to_path_buf(),
            start,
        })
    }

    pub(crate) fn id(&self) -> Option<FileId> {
        self.id
    }

    pub(crate) fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Reads until `buf` is full or the file ends; returns the count.
    pub(crate) fn read_full(&mut self, buf: &mut [u8]) -> Result<usize, Failure> {
        payload::read_full(&mut self.file, buf)
            .map_err(|e| Failure::Io(e, format!("reading {}", self.path.display())))
    }

    /// After the last read: an error if the file grew, shrank or was
    /// written while it was read, so that a cut or mixed output is never
    /// committed as if it were the file.
    pub(crate) fn check_unchanged(&self) -> Result<(), Failure> {
        let Some(start) = self.start else {
            return Ok(());
        };
        let now = self
            .file
            .metadata()
            .map_err(|e| Failure::Io(e, format!("cannot stat {}", self.path.display())))?;
        let now = stamp(&now);
        // Everything was read from the start, header included.
        let read = (&self.file)
            .stream_position()
            .map_err(|e| Failure::Io(e, format!("reading {}", self.path.display())))?;
        if read != start.size {
            return Err(changed(
                &self.path,
                format!("{} bytes when opened, {read} read", start.size),
            ));
        }
        if now != Some(start) {
            return Err(changed(&self.path, "written to while it was read".into()));
        }
        Ok(())
    }

    /// Reads the input in batches of `batch` bytes and hands each to `f`
    /// with whether it is the last, looking one batch ahead to know: an
    /// input of whole batches ends with its last full batch marked last.
    /// Between batches Python's signal handlers run, so Ctrl-C stops the
    /// call (the caller's output is then dropped, and with it its
    /// temporary file).
    pub(crate) fn for_each_batch(
        &mut self,
        batch: usize,
        mut f: impl FnMut(&[u8], bool) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let mut cur = vec![0u8; batch];
        let mut next = vec![0u8; batch];
        let mut n = self.read_full(&mut cur)?;
        loop {
            let m = if n == batch {
                self.read_full(&mut next)?
            } else {
                0
            };
            let last = n < batch || m == 0;
            f(&cur[..n], last)?;
            Python::with_gil(|py| py.check_signals()).map_err(Failure::Python)?;
            if last {
                return self.check_unchanged();
            }
            std::mem::swap(&mut cur, &mut next);
            n = m;
        }
    }
}

fn changed(path: &Path, how: String) -> Failure {
    Failure::Io(
        io::Error::other(format!("the file changed during the call ({how})")),
        path.display().to_string(),
    )
}
