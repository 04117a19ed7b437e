//! Crash-safe output for `aesx encrypt|decrypt|keygen|cipher` (the one
//! implementation of "open the output safely, refuse to write over the
//! input, publish atomically, clean up on a signal" all of them share).
//!
//! On Linux a named output is written to an *unnamed* temporary file in the
//! destination's directory (`O_TMPFILE`), fsynced, and only then given a
//! name: without `--force` it is linked straight to the destination (which
//! fails if the destination appeared meanwhile, never clobbering it); with
//! `--force` it is linked to a hidden `.aesx-tmp-*` name and renamed over the
//! destination. An unnamed file vanishes by itself when the process dies, so
//! neither an error, SIGINT, SIGTERM nor SIGKILL leaves a partial output.
//! The only window in which a SIGKILL can leave a `.aesx-tmp-*` file is the
//! link-then-rename of `--force`, after all data was written and synced.
//!
//! Where `O_TMPFILE` is unavailable (some Linux filesystems, and every other
//! system) the temporary file is a named `.aesx-tmp-*` file in the
//! destination's directory from the start: errors and SIGINT/SIGTERM remove
//! it (the handler installed by [`install_signal_cleanup`]), SIGKILL cannot.
//! It is published the same way: renamed over the destination with
//! `--force`, else given the destination's name by an operation that fails
//! if that name exists (unix: `link` then `unlink`; Windows: `MoveFileExW`
//! without `MOVEFILE_REPLACE_EXISTING`).
//!
//! Per system:
//! - unix: the temporary file is created with the mode asked for (0600 for
//!   plaintext and keys) before any byte is written; a file replaced with
//!   `--force` keeps its mode. `fsync` is `File::sync_all`, which on macOS
//!   is `fcntl(F_FULLFSYNC)` (the drive's cache flushed too); the directory
//!   is synced after the rename.
//! - Windows: there are no mode bits; the temporary file gets the ACL the
//!   destination directory passes to new files (the same one the output
//!   would have had if written in place), and a replaced file's own ACL and
//!   read-only attribute are not carried over. `sync_all` is
//!   `FlushFileBuffers`; `std::fs::rename` is `MoveFileExW` with
//!   `MOVEFILE_REPLACE_EXISTING` (std retries a read-only destination with
//!   a POSIX-semantics `FileRenameInfoEx` rename). Ctrl-C and Ctrl-Break
//!   remove the temporary file (the `ctrlc` handler, on
//!   `SetConsoleCtrlHandler`); closing the console, logoff and shutdown
//!   end the process as soon as that handler returns, so, like SIGKILL on
//!   unix, they can leave the `.aesx-tmp-*` file.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::CommandError;

use super::io_msg;

/// Temporary files to remove if a signal ends the process.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

fn register(p: &Path) {
    pending().push(p.to_path_buf());
}

fn deregister(p: &Path) {
    pending().retain(|q| q != p);
}

/// Installs a handler for SIGINT/SIGTERM/SIGHUP (Windows: Ctrl-C and
/// Ctrl-Break) that removes pending temporary files and exits with status
/// 130, and ignores SIGXFSZ. Installing twice is harmless.
pub fn install_signal_cleanup() {
    super::sys::ignore_file_size_signal();
    let _ = ctrlc::set_handler(|| {
        for p in pending().drain(..) {
            let _ = std::fs::remove_file(p);
        }
        crate::write_stderr(format_args!("aesx: interrupted; no output written"));
        std::process::exit(130);
    });
}

pub use super::sys::{file_id, FileId};

/// Names of standard output that must not be opened as paths: when stdout
/// is a pipe, `/proc/self/fd/1` resolves to `pipe:[N]`, which cannot be
/// canonicalized or replaced; and when it is a file, opening it again would
/// write from offset 0 instead of where the shell put stdout.
const STDOUT_NAMES: [&str; 3] = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"];

/// Whether `path` names this process's standard output.
pub fn is_stdout_name(path: &Path) -> bool {
    STDOUT_NAMES.iter().any(|n| path == Path::new(n))
}

enum Kind {
    Stdout(io::Stdout),
    /// A device or FIFO named with `-o` (e.g. /dev/null): written in place.
    Direct(File),
    /// An unnamed (`O_TMPFILE`) temporary file that becomes `dest` on
    /// commit.
    #[cfg(target_os = "linux")]
    Unnamed(File),
    /// A hidden `.aesx-tmp-*` file beside `dest` that becomes `dest` on
    /// commit; removed when the output is dropped uncommitted.
    Named {
        file: File,
        path: PathBuf,
    },
}

impl Kind {
    fn is_temp(&self) -> bool {
        match self {
            Kind::Stdout(_) | Kind::Direct(_) => false,
            #[cfg(target_os = "linux")]
            Kind::Unnamed(_) => true,
            Kind::Named { .. } => true,
        }
    }
}

/// Where the output goes.
pub struct Output {
    kind: Kind,
    /// The path as given, for messages.
    shown: PathBuf,
    /// The path written (a symlink resolved).
    dest: PathBuf,
    force: bool,
    committed: bool,
    /// With [`OutputOpts::hold_back`] on stdout or a device: everything is
    /// written here first and copied out on commit.
    spool: Option<File>,
}

/// Options for [`Output::open`].
pub struct OutputOpts<'a> {
    /// The path, or `None` for stdout.
    pub path: Option<&'a Path>,
    /// Overwrite an existing file.
    pub force: bool,
    /// Refuse to write to a terminal (binary ciphertext).
    pub refuse_terminal: bool,
    /// The input's identity, to refuse writing over it.
    pub input: Option<FileId>,
    /// Permission bits of a new file (before the umask). A file replaced
    /// with `force` keeps its own mode instead.
    pub mode: u32,
    /// A secret (a key file): a replaced file keeps at most `mode`.
    pub private: bool,
    /// Files that must not be written over (the key file), with what to
    /// call them.
    pub protect: &'a [(FileId, &'a str)],
    /// Release nothing before [`Output::commit`], even to stdout or a
    /// device (GCM decryption, whose plaintext is unauthenticated until
    /// the end): such output is spooled to an unnamed temporary file in
    /// `$TMPDIR` and copied out once verified.
    pub hold_back: bool,
}

fn random_name() -> Result<String, CommandError> {
    let mut r = [0u8; 8];
    super::kdf::fill_random(&mut r)?;
    Ok(format!(".aesx-tmp-{}", hex::encode(r)))
}

/// The unnamed temporary file in `dir` (`O_TMPFILE`), or `None` where the
/// filesystem has none (the caller then makes a named one).
#[cfg(target_os = "linux")]
fn open_unnamed(dir: &Path, mode: u32) -> Option<Kind> {
    // Tests set AESX_TEST_NAMED_TEMP to exercise the named fallback on
    // filesystems that do have O_TMPFILE.
    if std::env::var_os("AESX_TEST_NAMED_TEMP").is_some() {
        return None;
    }
    rustix::fs::openat(
        rustix::fs::CWD,
        dir,
        rustix::fs::OFlags::TMPFILE | rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::from_raw_mode(mode),
    )
    .ok()
    .map(|fd| Kind::Unnamed(File::from(fd)))
}

/// `O_TMPFILE` is Linux's: elsewhere the temporary file is always named.
#[cfg(not(target_os = "linux"))]
fn open_unnamed(_dir: &Path, _mode: u32) -> Option<Kind> {
    None
}

/// Creates the named temporary file `tmp`, never opening an existing one;
/// on unix with `mode` (before the umask) from the start, so that it is
/// private before any byte is written.
fn create_named(tmp: &Path, mode: u32) -> io::Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, mode);
    // Windows has no mode bits: the file takes the directory's inherited ACL.
    #[cfg(not(unix))]
    let _ = mode;
    opts.open(tmp)
}

/// The permission bits a replaced file passes on to its replacement.
#[cfg(unix)]
fn file_mode(m: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    Some(m.mode() & 0o7777)
}

/// Windows: no mode bits to keep (see the module's documentation).
#[cfg(not(unix))]
fn file_mode(_m: &std::fs::Metadata) -> Option<u32> {
    None
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

/// Never called: [`file_mode`] gives no mode to keep on Windows.
#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Gives the finished temporary file `tmp` the name `dest`: replacing it
/// with `force`, else failing with `AlreadyExists` if `dest` exists.
fn publish_named(tmp: &Path, dest: &Path, force: bool) -> io::Result<()> {
    if force {
        return std::fs::rename(tmp, dest);
    }
    #[cfg(unix)]
    {
        // Link then unlink: never clobbers a file that appeared meanwhile.
        std::fs::hard_link(tmp, dest).and_then(|()| std::fs::remove_file(tmp))
    }
    #[cfg(windows)]
    {
        // MoveFileExW without MOVEFILE_REPLACE_EXISTING: one atomic rename
        // that fails if `dest` exists, on every filesystem (FAT has no hard
        // links). On failure the returned `TempPath` is dropped, which
        // deletes the temporary file.
        tempfile::TempPath::try_from_path(tmp)?
            .persist_noclobber(dest)
            .map_err(|e| e.error)
    }
}

impl Output {
    /// Checks the destination and opens the temporary output. Nothing is
    /// created for stdout; for a file, nothing visible is created.
    pub fn open(o: OutputOpts<'_>) -> Result<Output, CommandError> {
        let mut out = Self::open_unspooled(&o)?;
        if o.hold_back && !out.kind.is_temp() {
            let f = tempfile::tempfile().map_err(|e| {
                CommandError::failure(format!(
                    "cannot create a temporary file to hold the output until it is verified: {}",
                    io_msg(&e)
                ))
            })?;
            out.spool = Some(f);
        }
        Ok(out)
    }

    fn open_unspooled(o: &OutputOpts<'_>) -> Result<Output, CommandError> {
        let same = |id: FileId| -> Result<(), CommandError> {
            if o.input == Some(id) {
                return Err(CommandError::usage("input and output are the same file"));
            }
            if let Some((_, what)) = o.protect.iter().find(|(p, _)| *p == id) {
                return Err(CommandError::usage(format!(
                    "refusing to write the output over the {what}"
                )));
            }
            Ok(())
        };
        let path = o.path.filter(|p| !is_stdout_name(p));
        let Some(path) = path else {
            let out = io::stdout();
            if o.refuse_terminal && std::io::IsTerminal::is_terminal(&out) {
                return Err(CommandError::usage(
                    "refusing to write binary ciphertext to a terminal; use -o FILE or redirect",
                ));
            }
            if let Some(s) = file_id(&out) {
                same(s)?;
            }
            return Ok(Output {
                kind: Kind::Stdout(out),
                shown: PathBuf::from("standard output"),
                dest: PathBuf::new(),
                force: o.force,
                committed: false,
                spool: None,
            });
        };
        let fail = |e: io::Error| {
            CommandError::failure(format!("cannot write {}: {}", path.display(), io_msg(&e)))
        };
        // A symlink to a regular file is resolved so that the file it points
        // to is replaced, not the link. Anything else (a device, a FIFO,
        // /dev/fd/N of a pipe, whose target `pipe:[N]` has no real path) is
        // written in place through the name as given.
        let dest = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::metadata(path) {
                Ok(t) if t.is_file() => std::fs::canonicalize(path).map_err(fail)?,
                Ok(_) => path.to_path_buf(),
                // Linking the output to the link's name would fail (or,
                // with --force, replace the link): say what is wrong.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(CommandError::failure(format!(
                        "cannot write {}: a symbolic link to a missing file",
                        path.display()
                    )))
                }
                Err(e) => return Err(fail(e)),
            },
            _ => path.to_path_buf(),
        };
        let mut out = Output {
            kind: Kind::Stdout(io::stdout()),
            shown: path.to_path_buf(),
            dest: dest.clone(),
            force: o.force,
            committed: false,
            spool: None,
        };
        let mut keep_mode = None;
        match std::fs::metadata(&dest) {
            Ok(m) if m.is_dir() => {
                return Err(CommandError::failure(format!(
                    "cannot write {}: is a directory",
                    path.display()
                )))
            }
            Ok(m) if m.is_file() => {
                // Fails closed: a file whose identity cannot be read might
                // be the input (never on unix, where it comes with `m`).
                let id = super::sys::meta_id(&dest, &m).ok_or_else(|| {
                    CommandError::failure(format!(
                        "cannot write {}: cannot tell whether it is the input",
                        path.display()
                    ))
                })?;
                same(id)?;
                keep_mode = file_mode(&m);
                if !o.force {
                    return Err(CommandError::failure(format!(
                        "{} already exists; use --force to overwrite it",
                        path.display()
                    )));
                }
            }
            Ok(_) => {
                // A device or FIFO cannot be replaced by a rename.
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&dest)
                    .map_err(fail)?;
                if o.refuse_terminal && std::io::IsTerminal::is_terminal(&f) {
                    return Err(CommandError::usage(
                        "refusing to write binary ciphertext to a terminal",
                    ));
                }
                out.kind = Kind::Direct(f);
                return Ok(out);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(e)),
        }
        let dir = dest_dir(&dest);
        out.kind = match open_unnamed(&dir, o.mode) {
            Some(kind) => kind,
            None => {
                // A named hidden file, removed on error and on
                // SIGINT/SIGTERM (Windows: Ctrl-C and its kin).
                // Registered before it exists, so that no signal can come
                // between its creation and its registration.
                let tmp = dir.join(random_name()?);
                register(&tmp);
                let f = create_named(&tmp, o.mode).map_err(|e| {
                    deregister(&tmp);
                    fail(e)
                })?;
                Kind::Named { file: f, path: tmp }
            }
        };
        // Like `cp`, replacing a file keeps its permissions (the owner
        // cannot be kept without privileges; the new file is the caller's);
        // a key file is never made more readable than asked.
        let keep_mode = keep_mode.map(|m| if o.private { m & o.mode } else { m });
        if let Some(m) = keep_mode {
            match &out.kind {
                #[cfg(target_os = "linux")]
                Kind::Unnamed(file) => set_mode(file, m).map_err(fail)?,
                Kind::Named { file, .. } => set_mode(file, m).map_err(fail)?,
                Kind::Stdout(_) | Kind::Direct(_) => {}
            }
        }
        Ok(out)
    }

    /// Writes all of `data`.
    pub fn write_all(&mut self, data: &[u8]) -> Result<(), CommandError> {
        if let Some(f) = &mut self.spool {
            return f.write_all(data).map_err(|e| {
                CommandError::failure(format!("writing a temporary file: {}", io_msg(&e)))
            });
        }
        let r = match &mut self.kind {
            Kind::Stdout(s) => s.lock().write_all(data),
            Kind::Direct(f) | Kind::Named { file: f, .. } => f.write_all(data),
            #[cfg(target_os = "linux")]
            Kind::Unnamed(f) => f.write_all(data),
        };
        r.map_err(|e| {
            CommandError::failure(format!("writing {}: {}", self.shown.display(), io_msg(&e)))
        })
    }

    /// Flushes, syncs and names the output: only now does it appear.
    pub fn commit(mut self) -> Result<(), CommandError> {
        let shown = self.shown.clone();
        let fail = |e: io::Error| {
            CommandError::failure(format!("writing {}: {}", shown.display(), io_msg(&e)))
        };
        if let Some(mut f) = self.spool.take() {
            use std::io::Seek;
            f.seek(io::SeekFrom::Start(0)).map_err(|e| {
                CommandError::failure(format!("reading a temporary file: {}", io_msg(&e)))
            })?;
            let mut buf = vec![0u8; 256 * 1024];
            loop {
                let n = match io::Read::read(&mut f, &mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(CommandError::failure(format!(
                            "reading a temporary file: {}",
                            io_msg(&e)
                        )))
                    }
                };
                self.write_all(&buf[..n])?;
            }
        }
        match &mut self.kind {
            Kind::Stdout(s) => s.lock().flush().map_err(fail)?,
            Kind::Direct(f) => f.flush().map_err(fail)?,
            #[cfg(target_os = "linux")]
            Kind::Unnamed(file) => {
                file.sync_all().map_err(fail)?;
                let proc_path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file));
                let link = |to: &Path| {
                    rustix::fs::linkat(
                        rustix::fs::CWD,
                        proc_path.as_str(),
                        rustix::fs::CWD,
                        to,
                        rustix::fs::AtFlags::SYMLINK_FOLLOW,
                    )
                    .map_err(io::Error::from)
                };
                if self.force {
                    let tmp = dest_dir(&self.dest).join(random_name()?);
                    register(&tmp);
                    let r = link(&tmp).and_then(|()| std::fs::rename(&tmp, &self.dest));
                    if r.is_err() {
                        let _ = std::fs::remove_file(&tmp);
                    }
                    deregister(&tmp);
                    r.map_err(fail)?;
                } else {
                    link(&self.dest).map_err(|e| appeared(e, &shown))?;
                }
                sync_dir(&self.dest);
            }
            Kind::Named { file, path } => {
                file.sync_all().map_err(fail)?;
                // On failure the temporary file stays registered and named
                // in `self`: dropping `self` removes it.
                publish_named(path, &self.dest, self.force).map_err(|e| appeared(e, &shown))?;
                deregister(path);
                sync_dir(&self.dest);
            }
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Kind::Named { path, .. } = &self.kind {
            if !self.committed {
                let _ = std::fs::remove_file(path);
                deregister(path);
            }
        }
    }
}

/// The directory `dest` is in.
fn dest_dir(dest: &Path) -> PathBuf {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// "appeared while writing" for a destination that exists after all,
/// else the error as it is.
fn appeared(e: io::Error, shown: &Path) -> CommandError {
    if e.kind() == io::ErrorKind::AlreadyExists {
        CommandError::failure(format!(
            "{} appeared while writing; use --force to overwrite it",
            shown.display()
        ))
    } else {
        CommandError::failure(format!("writing {}: {}", shown.display(), io_msg(&e)))
    }
}

/// Makes the new name durable too (unix: fsync of the directory). Windows
/// cannot open a directory as a file this way; NTFS journals the rename.
fn sync_dir(dest: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dest_dir(dest)) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dest;
}
