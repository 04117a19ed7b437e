//! What both sides of the table are measured through: the two workloads,
//! the directions, the [`Side`] trait the CPU and the GPU implement, and the
//! fixed key a file's payload is sealed under.

use std::ops::DerefMut;
use std::path::Path;

use aesx::Backend;
use aesx_file::payload::{self, ChunkCipher, Suite, SALT_LEN};

/// The two workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// AES-256-ECB with PKCS#7 padding.
    Ecb,
    /// The aesx file format: Cobblestone-256, AES-256-GCM per 16 KiB chunk.
    File,
}

impl Workload {
    pub(super) fn name(self) -> &'static str {
        match self {
            Workload::Ecb => "AES-256-ECB",
            Workload::File => "file format (AES-256-GCM chunks)",
        }
    }
    pub(super) fn short(self) -> &'static str {
        match self {
            Workload::Ecb => "ECB",
            Workload::File => "file",
        }
    }
}

/// Encrypt or decrypt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Enc,
    Dec,
}

/// Memory a side holds its data in.
pub type Buf = Box<dyn DerefMut<Target = [u8]>>;

/// One side of the table.
pub trait Side {
    /// For the header line.
    fn describe(&self) -> String;
    /// Host threads the crypt step of `w` on `len` input bytes uses.
    fn threads(&self, w: Workload, len: usize) -> usize;
    /// `len` zeroed bytes, held as this side's user would hold data.
    fn buffer(&self, len: usize) -> Result<Buf, String>;
    /// AES-256-ECB over whole blocks in place.
    fn ecb(&self, key: &[u8; 32], dir: Dir, buf: &mut [u8]) -> Result<(), String>;
    /// The file format in memory: `input` (plaintext, or a payload of
    /// header and records) into `out` (the payload, or the plaintext).
    fn file_mem(
        &self,
        k: &FileKey,
        dir: Dir,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), String>;
    /// The same from the file `input` to the file `output`.
    fn file_e2e(&self, k: &FileKey, dir: Dir, input: &Path, output: &Path) -> Result<(), String>;
}

/// What a file's payload is sealed under: input key, context and salt.
pub struct FileKey<'a> {
    pub(super) key: &'a [u8; 32],
    pub(super) context: &'a [u8],
    pub(super) salt: &'a [u8; SALT_LEN],
}

pub(super) const KEY: [u8; 32] = [0x5a; 32];
pub(super) const SALT: [u8; SALT_LEN] = [0x11; SALT_LEN];
pub(super) const FILE_KEY: FileKey<'static> = FileKey {
    key: &KEY,
    context: b"aesx gpu table",
    salt: &SALT,
};

/// Writes the payload header (salt and commitment, made on the CPU with
/// `backend`) as the start of `out`; the chunk cipher it commits to.
pub(super) fn header_into(
    k: &FileKey,
    backend: Backend,
    out: &mut Vec<u8>,
) -> Result<ChunkCipher, String> {
    let (ph, cipher) = payload::seal_header(Suite::Aes256Gcm, k.key, k.context, k.salt, backend)
        .map_err(|e| e.to_string())?;
    out.clear();
    out.extend_from_slice(&ph);
    Ok(cipher)
}
