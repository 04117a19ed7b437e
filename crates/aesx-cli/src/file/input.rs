//! What `aesx encrypt`/`decrypt` read: the input (a file or stdin, with
//! its identity and size), and the checks that keep the key and passphrase
//! files apart from it and from the output.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::args::CommonArgs;
use super::io_msg;
use super::output;
use super::pipeline::Source;
use super::sys;
use crate::CommandError;

/// Refuses a key or passphrase file that is the input itself read through
/// another name (`-k /dev/stdin` while the data comes on stdin): one of the
/// two would get the other's bytes.
pub(super) fn check_secrets_not_input(c: &CommonArgs) -> Result<(), CommandError> {
    let reads_stdin = c.input.as_deref().is_none_or(|p| p == Path::new("-"));
    if !reads_stdin {
        return Ok(());
    }
    let Some(stdin) = sys::any_id(std::io::stdin()) else {
        return Ok(());
    };
    for (p, what) in [
        (&c.key_file, "key file"),
        (&c.passphrase_file, "passphrase file"),
    ] {
        if let Some(p) = p {
            if let Some(k) = sys::any_path_id(p) {
                if k == stdin {
                    return Err(CommandError::usage(format!(
                        "the {what} {} is the standard input, which carries the data; \
                         give the data as a file",
                        p.display()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The identities of the key and passphrase files, which no output may
/// replace (`aesx encrypt -k key -o key --force` would destroy the key).
pub(super) fn secret_files(c: &CommonArgs) -> Vec<(output::FileId, &'static str)> {
    let mut v = Vec::new();
    let id = |p: &Path| {
        let m = std::fs::metadata(p).ok()?;
        sys::meta_id(p, &m)
    };
    if let Some(i) = c.key_file.as_deref().and_then(id) {
        v.push((i, "key file"));
    }
    if let Some(i) = c.passphrase_file.as_deref().and_then(id) {
        v.push((i, "passphrase file"));
    }
    v
}

/// The input: a file or stdin, with its identity and size when known.
pub(super) struct Input {
    pub(super) reader: Box<dyn Read + Send>,
    pub(super) file: Option<File>,
    pub(super) id: Option<output::FileId>,
    pub(super) len: Option<u64>,
}

/// Opens INPUT (`-` or none: stdin).
pub(super) fn open_input(path: Option<&Path>) -> Result<Input, CommandError> {
    match path.filter(|p| *p != Path::new("-")) {
        Some(p) => {
            let f = File::open(p).map_err(|e| {
                CommandError::failure(format!("cannot open {}: {}", p.display(), io_msg(&e)))
            })?;
            let meta = f.metadata().ok();
            if meta.as_ref().is_some_and(|m| m.is_dir()) {
                return Err(CommandError::failure(format!(
                    "cannot read {}: is a directory",
                    p.display()
                )));
            }
            let id = output::file_id(&f);
            let len = meta.filter(|m| m.is_file()).map(|m| m.len());
            let clone = f.try_clone().ok();
            Ok(Input {
                reader: Box::new(f),
                file: clone,
                id,
                len,
            })
        }
        None => {
            let stdin = io::stdin();
            let id = output::file_id(&stdin);
            Ok(Input {
                reader: Box::new(stdin),
                file: None,
                id,
                len: None,
            })
        }
    }
}

/// Regular files are read with `pread` from `start` on; anything else as a stream.
pub(super) fn input_source(input: Input, start: u64) -> Source {
    match (input.file, input.len) {
        (Some(file), Some(_)) => Source::File {
            file,
            start,
            limit: None,
        },
        _ => Source::Stream(input.reader),
    }
}
