//! Report paths: checked before the run (`--json`, `--csv` and `--plot`
//! are written after minutes of measuring, so a path that cannot take the
//! file fails first, in one line, with nothing created), and written after
//! it, by the suite's reports and `--gpu-table`'s alike.

use std::io;
use std::path::Path;

use aesx_file::CommandError;

/// Writes a finished report to `path`; a failure names the path.
pub fn write_report(path: &Path, text: impl AsRef<[u8]>) -> Result<(), CommandError> {
    std::fs::write(path, text)
        .map_err(|e| CommandError::failure(format!("{}: {e}", path.display())))
}

/// Checks, without creating or changing anything visible, that `path` can
/// be written later: its directory exists and takes new files, and it is
/// not a directory. `flag` names the option in the message.
pub fn check_writable(flag: &str, path: &Path) -> Result<(), CommandError> {
    let fail = |why: String| CommandError::usage(format!("{flag} {}: {why}", path.display()));
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(fail("is a directory".into())),
        Ok(m) if m.is_file() => {
            // Opening for writing without truncating changes nothing.
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| fail(e.to_string()))?;
            return Ok(());
        }
        Ok(_) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(fail(e.to_string())),
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(fail(format!("{} is not a directory", dir.display()))),
        Err(e) => return Err(fail(format!("{}: {e}", dir.display()))),
    }
    let cannot = |e: io::Error| fail(format!("cannot create files in {}: {e}", dir.display()));
    // An unnamed file proves the directory takes new files, and vanishes.
    #[cfg(target_os = "linux")]
    match rustix::fs::openat(
        rustix::fs::CWD,
        dir,
        rustix::fs::OFlags::TMPFILE | rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::from_raw_mode(0o600),
    ) {
        Ok(_) => return Ok(()),
        // No O_TMPFILE on this filesystem: the named probe below.
        Err(rustix::io::Errno::OPNOTSUPP) | Err(rustix::io::Errno::ISDIR) => {}
        Err(e) => return Err(cannot(io::Error::from(e))),
    }
    // A named probe, removed at once.
    let mut r = [0u8; 8];
    getrandom::fill(&mut r)
        .map_err(|e| CommandError::failure(format!("no randomness from the OS: {e}")))?;
    let tmp = dir.join(format!(".aesx-tmp-{}", hex::encode(r)));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(cannot)?;
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}
