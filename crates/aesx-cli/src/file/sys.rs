//! What the file commands ask of the operating system that differs between
//! unix and Windows: a file's identity (to refuse writing over the input
//! or a key file), positioned reads, and the signal a file-size limit
//! raises. `output.rs` holds the crash-safe output on top of these.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

/// The identity of a file, to refuse reading and writing the same one:
/// device and inode on unix; volume serial number and file index on
/// Windows (what `GetFileInformationByHandle` says, the pair Windows
/// documents as naming one file on the machine).
pub type FileId = (u64, u64);

#[cfg(unix)]
mod imp {
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileExt, MetadataExt};
    use std::path::Path;

    use super::FileId;

    // `dev_t` is a u64 on Linux but an i32 on macOS (and `ino_t` differs
    // too), hence the casts.
    #[allow(clippy::unnecessary_cast)]
    fn id(st: &rustix::fs::Stat) -> FileId {
        (st.st_dev as u64, st.st_ino as u64)
    }

    pub fn file_id(f: impl AsFd) -> Option<FileId> {
        let st = rustix::fs::fstat(f).ok()?;
        let is_file =
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile;
        is_file.then_some(id(&st))
    }

    pub fn any_id(f: impl AsFd) -> Option<FileId> {
        rustix::fs::fstat(f).ok().map(|st| id(&st))
    }

    pub fn any_path_id(p: &Path) -> Option<FileId> {
        rustix::fs::stat(p).ok().map(|st| id(&st))
    }

    pub fn meta_id(_path: &Path, m: &Metadata) -> Option<FileId> {
        m.is_file().then_some((m.dev(), m.ino()))
    }

    pub fn read_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
        f.read_at(buf, pos)
    }

    pub fn read_exact_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<()> {
        f.read_exact_at(buf, pos)
    }

    pub fn ignore_file_size_signal() {
        // Past RLIMIT_FSIZE a write fails with EFBIG, reported like a full
        // disk, instead of SIGXFSZ killing the process without a word. The
        // kernel sends SIGXFSZ to the thread that wrote; blocked in this
        // thread, and so in every thread it starts from now on (the
        // writers), it stays pending and is never delivered.
        use nix::sys::signal::{SigSet, Signal};
        let mut xfsz = SigSet::empty();
        xfsz.add(Signal::SIGXFSZ);
        let _ = xfsz.thread_block();
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::{File, Metadata, OpenOptions};
    use std::io;
    use std::os::windows::fs::{FileExt, OpenOptionsExt};
    use std::path::Path;

    use winapi_util::AsHandleRef;

    use super::FileId;

    /// `FILE_ATTRIBUTE_DIRECTORY` (winnt.h).
    const ATTRIBUTE_DIRECTORY: u64 = 0x10;
    /// `FILE_FLAG_BACKUP_SEMANTICS` (winbase.h): lets `CreateFileW` open a
    /// directory, so that a directory named as output is recognised too.
    const FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;

    fn id(h: impl AsHandleRef, regular_only: bool) -> Option<FileId> {
        // Pipes and consoles have no file index; a disk file does.
        if !winapi_util::file::typ(&h).ok()?.is_disk() {
            return None;
        }
        let info = winapi_util::file::information(&h).ok()?;
        if regular_only && info.file_attributes() & ATTRIBUTE_DIRECTORY != 0 {
            return None;
        }
        Some((info.volume_serial_number(), info.file_index()))
    }

    pub fn file_id(f: impl AsHandleRef) -> Option<FileId> {
        id(f, true)
    }

    pub fn any_id(f: impl AsHandleRef) -> Option<FileId> {
        id(f, false)
    }

    /// Opens `p` for its metadata only: access 0 asks for no read or write
    /// right (as `std::fs::metadata` does), so a file the user may not read
    /// is still recognised.
    fn open_for_metadata(p: &Path) -> Option<File> {
        OpenOptions::new()
            .access_mode(0)
            .custom_flags(FLAG_BACKUP_SEMANTICS)
            .open(p)
            .ok()
    }

    pub fn any_path_id(p: &Path) -> Option<FileId> {
        any_id(open_for_metadata(p)?)
    }

    pub fn meta_id(path: &Path, m: &Metadata) -> Option<FileId> {
        if !m.is_file() {
            return None;
        }
        file_id(open_for_metadata(path)?)
    }

    pub fn read_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
        // `seek_read` also moves the handle's file pointer; every read of
        // a `Source::File` names its offset, so nothing depends on it.
        f.seek_read(buf, pos)
    }

    pub fn read_exact_at(f: &File, mut buf: &mut [u8], mut pos: u64) -> io::Result<()> {
        while !buf.is_empty() {
            match f.seek_read(buf, pos) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "failed to fill whole buffer",
                    ))
                }
                Ok(n) => {
                    buf = &mut buf[n..];
                    pos += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Windows has no file-size signal: a write past a quota fails with an
    /// error, which is reported like a full disk.
    pub fn ignore_file_size_signal() {}
}

/// Identity of an open file, if it is a regular file.
#[cfg(unix)]
pub fn file_id(f: impl std::os::fd::AsFd) -> Option<FileId> {
    imp::file_id(f)
}

/// Identity of an open file, if it is a regular file.
#[cfg(windows)]
pub fn file_id(f: impl winapi_util::AsHandleRef) -> Option<FileId> {
    imp::file_id(f)
}

/// Identity of an open file of any type (a pipe or a device too, where the
/// system gives one): `-k /dev/stdin` against data coming on stdin.
#[cfg(unix)]
pub fn any_id(f: impl std::os::fd::AsFd) -> Option<FileId> {
    imp::any_id(f)
}

/// Identity of an open file of any type (a pipe or a device too, where the
/// system gives one): `-k /dev/stdin` against data coming on stdin.
#[cfg(windows)]
pub fn any_id(f: impl winapi_util::AsHandleRef) -> Option<FileId> {
    imp::any_id(f)
}

/// Identity of whatever `p` names (links followed), of any type.
pub fn any_path_id(p: &Path) -> Option<FileId> {
    imp::any_path_id(p)
}

/// Identity of the regular file `path` names, whose metadata (links
/// followed) is `m`; `None` for anything else.
pub fn meta_id(path: &Path, m: &Metadata) -> Option<FileId> {
    imp::meta_id(path, m)
}

/// One positioned read (`pread`); the file's offset is not used.
pub fn read_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    imp::read_at(f, buf, pos)
}

/// Fills `buf` from `pos` on, or fails (`UnexpectedEof` at the end).
pub fn read_exact_at(f: &File, buf: &mut [u8], pos: u64) -> io::Result<()> {
    imp::read_exact_at(f, buf, pos)
}

/// Makes a file-size limit an error on write rather than a signal that
/// kills the process (unix: SIGXFSZ blocked).
pub fn ignore_file_size_signal() {
    imp::ignore_file_size_signal()
}
