//! The output of the file calls: written under a private temporary name in
//! the destination's directory, renamed into place only when complete, and
//! removed on every failure.
//!
//! Everything after the destination is resolved goes through one open
//! handle on its directory (`openat`, `renameat`, `unlinkat`), so a
//! directory renamed or replaced by a symlink meanwhile cannot send the
//! plaintext elsewhere. The tree calls of `aesx.dask` pass a directory
//! handle they opened component by component without following symlinks.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use sha2::{Digest, Sha256};

use super::failure::{fill_random, Failure};

/// The identity of a file (device, inode), to refuse writing over the input.
pub(crate) type FileId = (u64, u64);

/// Where the output goes.
pub(crate) enum Dest<'a> {
    /// A path as the caller gave it; a symlink to a regular file is
    /// resolved so that the file it points to is replaced, as `aesx` does.
    Path(&'a Path),
    /// A plain name inside an open directory, which is not resolved further
    /// (a symlink there is replaced, never followed).
    In {
        dir: BorrowedFd<'a>,
        name: &'a OsStr,
        shown: &'a Path,
    },
}

/// How the output is made.
pub(crate) struct OutputOpts {
    /// Permission bits of a new file (less the umask); a replaced file
    /// keeps its own. Plaintext outputs pass 0o600.
    pub(crate) mode: u32,
    /// Replace an existing file; otherwise its existence is an error, and
    /// one that appears meanwhile is not clobbered.
    pub(crate) replace: bool,
    /// Hash everything written (aesx.dask manifests).
    pub(crate) hash: bool,
    /// The input's identity, never to be written over.
    pub(crate) input: Option<FileId>,
}

/// A resolved destination: checked, nothing created yet. Resolving first
/// lets a call refuse a bad destination before any slow work (a passphrase
/// stretched, a file read).
pub(crate) struct Target {
    dir: OwnedFd,
    name: OsString,
    shown: PathBuf,
    /// The mode of the file being replaced, which the output keeps.
    keep_mode: Option<u32>,
    opts: OutputOpts,
}

fn os_err(e: Errno, ctx: String) -> Failure {
    Failure::Io(io::Error::from(e), ctx)
}

fn open_dir(path: &Path) -> Result<OwnedFd, Failure> {
    rfs::openat(
        rfs::CWD,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| os_err(e, format!("cannot open the directory {}", path.display())))
}

/// `name` as a single path component, or an error naming `shown`.
fn plain_name<'a>(name: &'a OsStr, shown: &Path) -> Result<&'a OsStr, Failure> {
    let b = name.as_bytes();
    if b.is_empty() || b == b"." || b == b".." || b.contains(&b'/') || b.contains(&0) {
        return Err(Failure::Value(format!(
            "{}: not a file name",
            shown.display()
        )));
    }
    Ok(name)
}

impl Target {
    pub(crate) fn resolve(dest: Dest<'_>, opts: OutputOpts) -> Result<Target, Failure> {
        let (dir, name, shown) = match dest {
            Dest::Path(p) => {
                // "out/" names a directory, never a file to create.
                if p.as_os_str().as_bytes().ends_with(b"/") {
                    return Err(Failure::Value(format!("{}: not a file name", p.display())));
                }
                let resolved = resolve_link(p)?;
                let name = resolved
                    .file_name()
                    .ok_or_else(|| Failure::Value(format!("{}: not a file name", p.display())))?;
                let name = plain_name(name, p)?.to_os_string();
                let dir = match resolved.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                (open_dir(dir)?, name, p.to_path_buf())
            }
            Dest::In { dir, name, shown } => {
                let dir = rustix::io::fcntl_dupfd_cloexec(dir, 0).map_err(|e| {
                    os_err(
                        e,
                        format!("cannot use the directory of {}", shown.display()),
                    )
                })?;
                (
                    dir,
                    plain_name(name, shown)?.to_os_string(),
                    shown.to_path_buf(),
                )
            }
        };
        let exists = |what: &str| {
            Failure::Io(
                io::Error::from(Errno::EXIST),
                format!("{}{what}: not replaced without force=True", shown.display()),
            )
        };
        let keep_mode = match rfs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => match FileType::from_raw_mode(st.st_mode) {
                FileType::Directory => {
                    return Err(os_err(
                        Errno::ISDIR,
                        format!("cannot write {}", shown.display()),
                    ))
                }
                FileType::RegularFile => {
                    if opts.input == Some((st.st_dev, st.st_ino)) {
                        return Err(Failure::Value("input and output are the same file".into()));
                    }
                    if !opts.replace {
                        return Err(exists(""));
                    }
                    Some(st.st_mode & 0o7777)
                }
                // Only a tree's output can be a symlink here: the rename
                // replaces the link itself, never what it points to.
                FileType::Symlink if opts.replace => None,
                FileType::Symlink => return Err(exists(" (a symbolic link)")),
                // A rename over a device or FIFO would replace the node.
                _ => {
                    return Err(Failure::Value(format!(
                        "cannot write {}: not a regular file",
                        shown.display()
                    )))
                }
            },
            Err(Errno::NOENT) => None,
            Err(e) => return Err(os_err(e, format!("cannot write {}", shown.display()))),
        };
        Ok(Target {
            dir,
            name,
            shown,
            keep_mode,
            opts,
        })
    }

    /// Creates the temporary file: private from its first byte when it
    /// replaces a file (then given that file's mode before any data), else
    /// with the new file's mode.
    pub(crate) fn create(self) -> Result<AtomicOutput, Failure> {
        // Room for the marker within NAME_MAX, whatever the name's length.
        let stem = &self.name.as_bytes()[..self.name.len().min(200)];
        let create_mode = Mode::from_raw_mode(match self.keep_mode {
            Some(_) => 0o600,
            None => self.opts.mode,
        });
        for _ in 0..16 {
            let mut r = [0u8; 8];
            fill_random(&mut r)?;
            let mut tmp = b".".to_vec();
            tmp.extend_from_slice(stem);
            tmp.extend_from_slice(b".aesx-tmp-");
            tmp.extend(r.iter().flat_map(|b| format!("{b:02x}").into_bytes()));
            let tmp = OsString::from_vec(tmp);
            let fd = match rfs::openat(
                &self.dir,
                tmp.as_os_str(),
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                create_mode,
            ) {
                Ok(fd) => fd,
                Err(Errno::EXIST) => continue,
                Err(e) => {
                    return Err(os_err(
                        e,
                        format!(
                            "cannot create a temporary file beside {}",
                            self.shown.display()
                        ),
                    ))
                }
            };
            let out = AtomicOutput {
                file: File::from(fd),
                hash: self.opts.hash.then(Sha256::new),
                written: 0,
                committed: false,
                tmp,
                target: self,
            };
            if let Some(m) = out.target.keep_mode {
                // Dropping `out` on failure removes the temporary file.
                rfs::fchmod(&out.file, Mode::from_raw_mode(m)).map_err(|e| {
                    os_err(
                        e,
                        format!("cannot set the mode of {}", out.target.shown.display()),
                    )
                })?;
            }
            return Ok(out);
        }
        Err(Failure::Value("cannot find a free temporary name".into()))
    }
}

/// A symlink to a regular file becomes the file it points to; a link to
/// nothing is refused (renaming over it would only replace the link).
fn resolve_link(p: &Path) -> Result<PathBuf, Failure> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::metadata(p) {
            Ok(t) if t.is_file() => std::fs::canonicalize(p)
                .map_err(|e| Failure::Io(e, format!("cannot resolve {}", p.display()))),
            Ok(_) => Ok(p.to_path_buf()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Failure::Value(format!(
                "cannot write {}: a symbolic link to a missing file",
                p.display()
            ))),
            Err(e) => Err(Failure::Io(e, format!("cannot write {}", p.display()))),
        },
        _ => Ok(p.to_path_buf()),
    }
}

/// An output file that appears at its destination only on `commit`.
/// Dropping it uncommitted (any error, any early return) removes it.
pub(crate) struct AtomicOutput {
    file: File,
    tmp: OsString,
    target: Target,
    hash: Option<Sha256>,
    written: u64,
    committed: bool,
}

impl AtomicOutput {
    pub(crate) fn write_all(&mut self, data: &[u8]) -> Result<(), Failure> {
        if let Some(h) = self.hash.as_mut() {
            h.update(data);
        }
        self.written += data.len() as u64;
        self.file
            .write_all(data)
            .map_err(|e| Failure::Io(e, format!("writing {}", self.target.shown.display())))
    }

    /// Syncs and renames into place; returns the size and, if asked for,
    /// the SHA-256 of the file. On any failure the temporary file is gone.
    pub(crate) fn commit(mut self) -> Result<Written, Failure> {
        let t = &self.target;
        let fail = |e: Errno| os_err(e, format!("writing {}", t.shown.display()));
        rfs::fsync(&self.file).map_err(fail)?;
        let (dir, tmp, name) = (&t.dir, self.tmp.as_os_str(), t.name.as_os_str());
        if t.opts.replace {
            rfs::renameat(dir, tmp, dir, name).map_err(fail)?;
        } else {
            rename_noreplace(dir.as_fd(), tmp, name).map_err(|e| match e {
                Errno::EXIST => Failure::Io(
                    io::Error::from(e),
                    format!("{} appeared meanwhile; not replaced", t.shown.display()),
                ),
                e => fail(e),
            })?;
        }
        self.committed = true;
        // The new name is durable once the directory is synced; the data
        // already is, so a failure here is not worth failing the call.
        let _ = rfs::fsync(dir);
        Ok(Written {
            size: self.written,
            sha256: self.hash.take().map(|h| h.finalize().into()),
        })
    }
}

/// Renames `from` to `to` in `dir` unless `to` exists (`EEXIST`), as one
/// step where the filesystem can (`RENAME_NOREPLACE`), else by a hard link
/// (which also fails on an existing name) and an unlink.
fn rename_noreplace(dir: BorrowedFd<'_>, from: &OsStr, to: &OsStr) -> Result<(), Errno> {
    #[cfg(target_os = "linux")]
    match rfs::renameat_with(dir, from, dir, to, rfs::RenameFlags::NOREPLACE) {
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
        r => return r,
    }
    rfs::linkat(dir, from, dir, to, AtFlags::empty())?;
    let _ = rfs::unlinkat(dir, from, AtFlags::empty());
    Ok(())
}

/// What an output file holds, for manifests.
pub(crate) struct Written {
    pub(crate) size: u64,
    pub(crate) sha256: Option<[u8; 32]>,
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if !self.committed {
            let _ = rfs::unlinkat(&self.target.dir, self.tmp.as_os_str(), AtFlags::empty());
        }
    }
}
