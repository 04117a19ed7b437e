//! XTS-AES (IEEE 1619, SP 800-38E); the full notes are on [`Xts`].

use zeroize::Zeroize;

use crate::backend::engine::XtsEngine;
use crate::backend::{Backend, InOut};
use crate::ct::ct_eq;
use crate::error::{Error, Result};
use crate::key::{check_key_len, Block, KeySize, RoundKeys, BLOCK_LEN};

/// XTS-AES-128 or XTS-AES-256 with an expanded data key and tweak key.
/// Round keys are zeroized on drop.
///
/// XTS-AES (IEEE 1619-2018, NIST SP 800-38E): length-preserving encryption
/// of data units such as disk sectors.
///
/// An XTS key is twice an AES key: 32 bytes for XTS-AES-128, 64 bytes for
/// XTS-AES-256. The first half, K1, encrypts the data; the second, K2,
/// encrypts the tweak. A data unit is 16 bytes to 2^20 blocks (2^24 bytes)
/// long; when its length is not a multiple of 16, the last partial block is
/// handled by ciphertext stealing, so the output is exactly as long as the
/// input.
///
/// The tweak is 16 bytes, either given as is ([`Xts::encrypt`]) or derived
/// from a data-unit sequence number (a sector number), which IEEE 1619 and
/// NIST's `DataUnitSeqNumber` test files encode as a 128-bit little-endian
/// integer ([`Xts::sector_tweak`], [`Xts::encrypt_sector`]).
///
/// For block devices and disk images, [`Xts::encrypt_sectors`] processes a
/// buffer of many consecutive sectors in one call, as GELI or dm-crypt do:
/// the sector numbers are encrypted with K2 in batches and the data runs
/// through the backend's XTS kernel with no further per-sector set-up.
///
/// # Equal key halves
///
/// A key whose halves are equal (K1 = K2) makes XTS insecure (the tweak of
/// sector `n` becomes the encryption of `n` under the data key). Encryption
/// with such a key is refused with [`Error::XtsEqualKeyHalves`], as SP
/// 800-38E and FIPS 140-3 IG C.I require. Decryption is allowed, as OpenSSL
/// does by default, so that data written by software that did not check can
/// still be read. The comparison runs in constant time.
///
/// ```
/// use aesx::Xts;
///
/// let mut key = [0u8; 32];
/// key[16..].fill(1); // K1 = 00.., K2 = 01..: the halves must differ
/// let xts = Xts::new(&key).unwrap();
///
/// // One data unit of 37 bytes with a 16-byte tweak (ciphertext stealing).
/// let mut unit = [7u8; 37];
/// let tweak = [0x5au8; 16];
/// xts.encrypt(&tweak, &mut unit).unwrap();
/// xts.decrypt(&tweak, &mut unit).unwrap();
/// assert_eq!(unit, [7u8; 37]);
///
/// // Eight 512-byte sectors starting at sector 1000, in one call.
/// let mut image = vec![0u8; 8 * 512];
/// xts.encrypt_sectors(512, 1000, &mut image).unwrap();
/// let mut third = image[2 * 512..3 * 512].to_vec();
/// xts.decrypt_sector(1002, &mut third).unwrap();
/// assert_eq!(third, vec![0u8; 512]);
/// ```
#[derive(Clone)]
pub struct Xts {
    engine: XtsEngine,
    backend: Backend,
    size: KeySize,
    /// K1 == K2 (compared in constant time): encryption is refused.
    halves_equal: bool,
    /// Threads one multi-sector call may use (1: the calling thread alone).
    threads: u8,
}

impl Xts {
    /// The longest data unit: 2^20 blocks.
    pub const MAX_DATA_UNIT_LEN: usize = BLOCK_LEN << 20;

    /// The shortest data unit: one block.
    pub const MIN_DATA_UNIT_LEN: usize = BLOCK_LEN;

    /// Expands a 32-byte (XTS-AES-128) or 64-byte (XTS-AES-256) key for the
    /// preferred backend ([`Backend::preferred`]).
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// Expands the key for the named backend; an error if it is unavailable.
    ///
    /// A key with equal halves is accepted here, but [`Xts::encrypt`] and the
    /// other encrypting calls refuse it (see the module notes).
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[32, 64])?;
        let (k1, k2) = key.split_at(key.len() / 2);
        let rk1 = RoundKeys::expand(k1)?;
        let rk2 = RoundKeys::expand(k2)?;
        let engine = XtsEngine::pair(backend, &rk1, &rk2)?;
        Ok(Xts {
            engine,
            backend,
            size: rk1.size,
            halves_equal: ct_eq(k1, k2),
            threads: 1,
        })
    }

    /// The same key with every multi-sector call ([`Xts::encrypt_sectors`]
    /// and the like) of at least [`MIN_SEGMENT`](crate::parallel::MIN_SEGMENT)
    /// bytes per extra thread split at sector boundaries over up to
    /// `threads` threads: the same bytes at every split. A single data unit
    /// ([`Xts::encrypt`] and the like) of that size is split as well, into
    /// block ranges each from the tweak times its power of alpha (the last
    /// range takes the ciphertext stealing). 0 and 1 mean one thread; see
    /// [`parallel`](crate::parallel).
    #[cfg(feature = "std")]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = super::parallel::clamp_threads(threads);
        self
    }

    /// Threads one multi-sector call may use (see [`Xts::with_threads`]).
    pub fn threads(&self) -> usize {
        usize::from(self.threads)
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The size of each half of the key (AES-128 or AES-256).
    pub fn key_size(&self) -> KeySize {
        self.size
    }

    /// The tweak of data unit (sector) number `sector`: its 128-bit
    /// little-endian encoding, as IEEE 1619 specifies.
    pub fn sector_tweak(sector: u128) -> Block {
        sector.to_le_bytes()
    }

    /// Encrypts one data unit (16 bytes to 2^24 bytes) in place.
    pub fn encrypt(&self, tweak: &Block, buf: &mut [u8]) -> Result<()> {
        self.unit(true, tweak, InOut::in_place(buf))
    }

    /// Decrypts one data unit in place.
    pub fn decrypt(&self, tweak: &Block, buf: &mut [u8]) -> Result<()> {
        self.unit(false, tweak, InOut::in_place(buf))
    }

    /// Encrypts one data unit from `src` into `dst` (equal lengths).
    pub fn encrypt_to(&self, tweak: &Block, src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.unit(true, tweak, InOut::new(src, dst)?)
    }

    /// Decrypts one data unit from `src` into `dst` (equal lengths).
    pub fn decrypt_to(&self, tweak: &Block, src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.unit(false, tweak, InOut::new(src, dst)?)
    }

    /// Encrypts data unit number `sector` in place (tweak from
    /// [`Xts::sector_tweak`]); any length from 16 bytes to 2^24 bytes.
    pub fn encrypt_sector(&self, sector: u128, buf: &mut [u8]) -> Result<()> {
        self.encrypt(&Self::sector_tweak(sector), buf)
    }

    /// Decrypts data unit number `sector` in place.
    pub fn decrypt_sector(&self, sector: u128, buf: &mut [u8]) -> Result<()> {
        self.decrypt(&Self::sector_tweak(sector), buf)
    }

    /// Encrypts `buf`, consecutive sectors of `sector_size` bytes numbered
    /// from `first_sector`, in place.
    ///
    /// `sector_size` is a multiple of 16 from 16 to 2^24 (512 and 4096 are
    /// the usual ones), else [`Error::InvalidSectorSize`]; `buf` must hold a
    /// whole number of sectors, else [`Error::PartialSector`]; the sector
    /// numbers must not pass 2^128 - 1, else [`Error::CounterOverflow`]. An
    /// empty buffer is a no-op.
    pub fn encrypt_sectors(
        &self,
        sector_size: usize,
        first_sector: u128,
        buf: &mut [u8],
    ) -> Result<()> {
        self.sectors(true, sector_size, first_sector, InOut::in_place(buf))
    }

    /// Decrypts consecutive sectors in place, as [`Xts::encrypt_sectors`].
    pub fn decrypt_sectors(
        &self,
        sector_size: usize,
        first_sector: u128,
        buf: &mut [u8],
    ) -> Result<()> {
        self.sectors(false, sector_size, first_sector, InOut::in_place(buf))
    }

    /// Encrypts consecutive sectors from `src` into `dst` (equal lengths).
    pub fn encrypt_sectors_to(
        &self,
        sector_size: usize,
        first_sector: u128,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<()> {
        self.sectors(true, sector_size, first_sector, InOut::new(src, dst)?)
    }

    /// Decrypts consecutive sectors from `src` into `dst` (equal lengths).
    pub fn decrypt_sectors_to(
        &self,
        sector_size: usize,
        first_sector: u128,
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<()> {
        self.sectors(false, sector_size, first_sector, InOut::new(src, dst)?)
    }

    fn check_encrypt(&self, encrypt: bool) -> Result<()> {
        if encrypt && self.halves_equal {
            Err(Error::XtsEqualKeyHalves)
        } else {
            Ok(())
        }
    }

    fn sectors(&self, encrypt: bool, sector_size: usize, first: u128, io: InOut<'_>) -> Result<()> {
        if sector_size < BLOCK_LEN
            || !sector_size.is_multiple_of(BLOCK_LEN)
            || sector_size > Self::MAX_DATA_UNIT_LEN
        {
            return Err(Error::InvalidSectorSize { size: sector_size });
        }
        if !io.len().is_multiple_of(sector_size) {
            return Err(Error::PartialSector {
                len: io.len(),
                sector_size,
            });
        }
        self.check_encrypt(encrypt)?;
        let count = io.len() / sector_size;
        if count == 0 {
            return Ok(());
        }
        first
            .checked_add(count as u128 - 1)
            .ok_or(Error::CounterOverflow)?;
        #[cfg(feature = "std")]
        {
            let parts = super::parallel::segments(io.len(), sector_size, self.threads());
            if parts > 1 {
                super::parallel::xts_sectors(&self.engine, parts, encrypt, sector_size, first, io);
                return Ok(());
            }
        }
        if encrypt {
            self.engine.encrypt_sectors(sector_size, first, io);
        } else {
            self.engine.decrypt_sectors(sector_size, first, io);
        }
        Ok(())
    }

    fn unit(&self, encrypt: bool, tweak: &Block, io: InOut<'_>) -> Result<()> {
        let len = io.len();
        if !(Self::MIN_DATA_UNIT_LEN..=Self::MAX_DATA_UNIT_LEN).contains(&len) {
            return Err(Error::InvalidDataUnitLength { len });
        }
        self.check_encrypt(encrypt)?;
        let mut t = *tweak;
        self.engine.encrypt_tweak(&mut t);
        #[cfg(feature = "std")]
        {
            let parts = super::parallel::segments(len, BLOCK_LEN, self.threads());
            if parts > 1 {
                super::parallel::xts_unit(&self.engine, parts, encrypt, &t, io);
                t.zeroize();
                return Ok(());
            }
        }
        // A unit of whole blocks goes through the bulk kernel; any other
        // finishes by ciphertext stealing (the backend's unit entry).
        match (len.is_multiple_of(BLOCK_LEN), encrypt) {
            (true, true) => self.engine.encrypt(&mut t, io),
            (true, false) => self.engine.decrypt(&mut t, io),
            (false, true) => self.engine.encrypt_stealing(&mut t, io),
            (false, false) => self.engine.decrypt_stealing(&mut t, io),
        }
        t.zeroize();
        Ok(())
    }
}

impl core::fmt::Debug for Xts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print key material.
        f.debug_struct("Xts")
            .field("backend", &self.backend)
            .field("key_size", &self.size)
            .finish_non_exhaustive()
    }
}
