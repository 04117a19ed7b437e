//! Multi-buffer CBC encryption; the notes are on [`cbc_encrypt_many`].

use super::block::{check_blocks, Aes};
use crate::backend::{CbcLanes, Engine};
use crate::error::Result;
use crate::key::Block;

/// One message of a multi-buffer CBC call, encrypted in place.
///
/// On return `iv` holds the last ciphertext block (the IV that continues the
/// chain), as [`crate::Cbc::encrypt_chained`] leaves it.
pub struct CbcJob<'a> {
    /// The key; jobs may use different keys, sizes and backends.
    pub key: &'a Aes,
    /// The IV on entry, the chaining value on return.
    pub iv: Block,
    /// The message, a whole number of blocks (no padding is added).
    pub data: &'a mut [u8],
}

impl core::fmt::Debug for CbcJob<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CbcJob")
            .field("key", self.key)
            .field("len", &self.data.len())
            .finish_non_exhaustive()
    }
}

/// CBC-encrypts every job's message in place, with the same result as
/// encrypting each one on its own with [`crate::Cbc`].
///
/// Errors with [`crate::Error::NotBlockAligned`] (touching nothing) if any
/// message is not a whole number of blocks. Jobs whose keys run on a
/// backend without a multi-buffer kernel are encrypted one after another.
///
/// Multi-buffer CBC encryption: many independent messages in one call.
///
/// CBC encryption of one message is a chain: each block waits for the
/// previous ciphertext, so one stream runs at the AES latency, not its
/// throughput. Independent messages (network packets, disk sectors with their
/// own IVs) have independent chains; interleaving them across the lanes of
/// the vector registers, as intel-ipsec-mb does, fills the pipeline again.
/// Each lane carries its own message, key and IV; a lane whose message ends
/// is refilled with the next one, so lengths may differ freely.
///
/// ```
/// use aesx::{cbc_encrypt_many, CbcJob};
/// use aesx::{Aes, Cbc};
///
/// let k1 = Aes::new(&[1u8; 16]).unwrap();
/// let k2 = Aes::new(&[2u8; 32]).unwrap();
/// let (mut a, mut b) = (vec![7u8; 1504], vec![9u8; 64]);
/// let mut jobs = [
///     CbcJob { key: &k1, iv: [3; 16], data: &mut a },
///     CbcJob { key: &k2, iv: [4; 16], data: &mut b },
/// ];
/// cbc_encrypt_many(&mut jobs).unwrap();
///
/// let mut one = vec![7u8; 1504];
/// Cbc::new(&[1u8; 16]).unwrap().encrypt_in_place(&[3; 16], &mut one).unwrap();
/// assert_eq!(a, one);
/// ```
pub fn cbc_encrypt_many(jobs: &mut [CbcJob<'_>]) -> Result<()> {
    for job in jobs.iter() {
        check_blocks(job.data.len())?;
    }
    Engine::cbc_encrypt_many(&mut Jobs(jobs));
    Ok(())
}

/// The job list as the backends' multi-buffer kernels see it.
struct Jobs<'j, 'a>(&'j mut [CbcJob<'a>]);

impl CbcLanes<Engine> for Jobs<'_, '_> {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn lane(&mut self, i: usize) -> Option<(&Engine, &mut Block, &mut [u8])> {
        let job = self.0.get_mut(i)?;
        Some((&job.key.engine, &mut job.iv, &mut *job.data))
    }
}
