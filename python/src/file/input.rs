//! The input of the file calls: streamed through aesx-file's pipeline,
//! watched for changes, and interruptible by Python's signals between
//! batches.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use aesx_file::pipeline::{self, Step};
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

    /// After the last read, `read` bytes into the file: an error if the
    /// file grew, shrank or was written while it was read, so that a cut or
    /// mixed output is never committed as if it were the file.
    fn check_unchanged(&self, read: u64) -> Result<(), Failure> {
        let Some(start) = self.start else {
            return Ok(());
        };
        let now = self
            .file
            .metadata()
            .map_err(|e| Failure::Io(e, format!("cannot stat {}", self.path.display())))?;
        if read != start.size {
            return Err(changed(
                &self.path,
                format!("{} bytes when opened, {read} read", start.size),
            ));
        }
        if stamp(&now) != Some(start) {
            return Err(changed(&self.path, "written to while it was read".into()));
        }
        Ok(())
    }

    /// Streams the file from byte `start` through aesx-file's pipeline:
    /// `threads` workers each read (by position) and transform whole
    /// batches of `batch_len` bytes with `step`, and `write` gets the
    /// outputs in order on this thread. Between batches Python's signal
    /// handlers run, so Ctrl-C stops the call (the caller's output is then
    /// dropped, and with it its temporary file). Ends by checking that the
    /// file did not change while it was read.
    pub(crate) fn stream(
        &mut self,
        start: u64,
        batch_len: usize,
        threads: usize,
        step: &Step<'_, Failure>,
        mut write: impl FnMut(&[u8]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let path = &self.path;
        let file = &self.file;
        let read_at = |buf: &mut [u8], pos: u64| file.read_at(buf, pos);
        let read_err = |e: io::Error| Failure::Io(e, format!("reading {}", path.display()));
        let input = pipeline::Input::At {
            read_at: &read_at,
            start,
        };
        let plan = pipeline::Plan::for_threads(batch_len, threads);
        let stats = pipeline::run(input, plan, &read_err, step, &mut |out, _| {
            write(out)?;
            Python::with_gil(|py| py.check_signals()).map_err(Failure::Python)
        })?;
        self.check_unchanged(start + stats.input_bytes)
    }
}

fn changed(path: &Path, how: String) -> Failure {
    Failure::Io(
        io::Error::other(format!("the file changed during the call ({how})")),
        path.display().to_string(),
    )
}
