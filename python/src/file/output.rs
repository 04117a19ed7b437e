//! The output of the whole-file calls: written under a temporary name,
//! renamed into place only when complete.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::failure::{fill_random, io, Failure};

/// An output file that appears at its destination only on `commit`: the
/// data goes to a hidden temporary name in the same directory, is synced,
/// then renamed over the destination. Dropping it uncommitted removes it.
pub(crate) struct AtomicOutput {
    file: Option<File>,
    tmp: PathBuf,
    dst: PathBuf,
    /// SHA-256 of everything written, when asked for (aesx.dask manifests).
    hash: Option<Sha256>,
    written: u64,
}

impl AtomicOutput {
    pub(crate) fn create(dst: &Path, hash: bool) -> Result<AtomicOutput, Failure> {
        let dir = match dst.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dst
            .file_name()
            .ok_or_else(|| Failure::Value(format!("{}: not a file name", dst.display())))?;
        for _ in 0..16 {
            let mut r = [0u8; 8];
            fill_random(&mut r)?;
            let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
            let tmp = dir.join(format!(".{}.aesx-tmp-{hex}", name.to_string_lossy()));
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(f) => {
                    return Ok(AtomicOutput {
                        file: Some(f),
                        tmp,
                        dst: dst.to_path_buf(),
                        hash: hash.then(Sha256::new),
                        written: 0,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Failure::Io(e, format!("cannot create {}", tmp.display()))),
            }
        }
        Err(Failure::Value("cannot find a free temporary name".into()))
    }

    pub(crate) fn write_all(&mut self, data: &[u8]) -> Result<(), Failure> {
        if let Some(h) = self.hash.as_mut() {
            h.update(data);
        }
        self.written += data.len() as u64;
        let f = self.file.as_mut().expect("open until commit");
        f.write_all(data)
            .map_err(io(format!("writing {}", self.tmp.display())))
    }

    /// Syncs and renames into place; returns the size and, if asked for,
    /// the SHA-256 of the file.
    pub(crate) fn commit(mut self) -> Result<Written, Failure> {
        let f = self.file.take().expect("open until commit");
        f.sync_all()
            .map_err(io(format!("syncing {}", self.tmp.display())))?;
        drop(f);
        fs::rename(&self.tmp, &self.dst).map_err(io(format!(
            "renaming {} to {}",
            self.tmp.display(),
            self.dst.display()
        )))?;
        Ok(Written {
            size: self.written,
            sha256: self.hash.take().map(|h| h.finalize().into()),
        })
    }
}

/// What an output file holds, for manifests.
pub(crate) struct Written {
    pub(crate) size: u64,
    pub(crate) sha256: Option<[u8; 32]>,
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
