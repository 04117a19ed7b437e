//! What is measured: mode × key size × message size, and the bytes each case
//! runs on.
//!
//! A mode is one entry in [`MODES`]; adding XTS or GCM means adding its entry
//! here and one match arm per implementation family (`aesx_impl.rs`,
//! `peers.rs`).

use std::fmt;

/// A mode of operation as the benchmark names it (encryption and decryption
/// are separate modes where their speed differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// One `encrypt_block` call per 16-byte block: the per-call cost.
    Block,
    /// ECB encryption over the whole buffer in one call.
    Ecb,
    /// CBC encryption (sequential by nature).
    CbcEnc,
    /// CBC decryption (parallel).
    CbcDec,
    /// CTR with a 128-bit big-endian counter.
    Ctr,
    /// XTS encryption: one data unit per call, the tweak counting up.
    XtsEnc,
    /// XTS decryption.
    XtsDec,
    /// GCM sealing: one message per call under a fresh nonce, with its tag.
    GcmEnc,
    /// GCM opening: the same authentic message each call, tag verified.
    GcmDec,
    /// AES-GCM-SIV sealing (RFC 8452), a fresh nonce per message.
    GcmSivEnc,
    /// AES-GCM-SIV opening of the same authentic message each call.
    GcmSivDec,
    /// XAES-256-GCM sealing (24-byte nonce).
    XaesEnc,
    /// XAES-256-GCM opening.
    XaesDec,
    /// CCM sealing (12-byte nonce, 16-byte tag).
    CcmEnc,
    /// CCM opening.
    CcmDec,
    /// AES-CMAC of the message; the output is the tag.
    Cmac,
    /// AES key wrap (RFC 3394) of the message; the size is the data wrapped.
    Kw,
}

/// Static facts about a mode.
#[derive(Clone, Copy, Debug)]
pub struct ModeSpec {
    /// The mode.
    pub mode: Mode,
    /// Name on the command line and in reports.
    pub name: &'static str,
    /// The input must be a whole number of 16-byte blocks.
    pub whole_blocks: bool,
    /// `--threads` may split one buffer among threads (each part is an
    /// independent stream or set of blocks, which is how a parallel
    /// implementation would process it).
    pub splits: bool,
    /// Bytes of IV / counter block / nonce / tweak.
    pub iv_len: usize,
    /// AES keys per mode key (XTS: a data key and a tweak key).
    pub key_halves: usize,
    /// Key sizes the mode is defined for.
    pub key_bits: &'static [u32],
    /// Shortest message (XTS: one block).
    pub min_size: usize,
    /// Longest message (XTS: 2^20 blocks per data unit, IEEE 1619).
    pub max_size: usize,
    /// In the suite `aesx bench` runs without `--mode` (the CPU-only modes
    /// are not, to keep its run time; `--mode` reaches them).
    pub default: bool,
}

/// Every key size AES has.
const ALL_KEY_BITS: &[u32] = &[128, 192, 256];

/// A [`ModeSpec::new`] flag: [`ModeSpec::whole_blocks`].
const BLOCKS: u8 = 1;
/// A [`ModeSpec::new`] flag: [`ModeSpec::splits`].
const SPLITS: u8 = 2;
/// A [`ModeSpec::new`] flag: [`ModeSpec::default`].
const SUITE: u8 = 4;

impl ModeSpec {
    /// A mode with the facts most modes share: any length from one byte
    /// up, every key size, one AES key; `flags` (`BLOCKS | SPLITS | SUITE`)
    /// says which of the three yes-or-no facts hold. The builders below
    /// state where a mode differs otherwise.
    const fn new(mode: Mode, name: &'static str, iv_len: usize, flags: u8) -> ModeSpec {
        ModeSpec {
            mode,
            name,
            whole_blocks: flags & BLOCKS != 0,
            splits: flags & SPLITS != 0,
            iv_len,
            key_halves: 1,
            key_bits: ALL_KEY_BITS,
            min_size: 1,
            max_size: usize::MAX,
            default: flags & SUITE != 0,
        }
    }

    /// Defined for these key sizes only.
    const fn keys(self, key_bits: &'static [u32]) -> ModeSpec {
        ModeSpec { key_bits, ..self }
    }

    /// XTS: a data key and a tweak key, one block to 2^20 blocks per data
    /// unit (IEEE 1619), no 192-bit keys.
    const fn xts(self) -> ModeSpec {
        ModeSpec {
            key_halves: 2,
            key_bits: &[128, 256],
            min_size: 16,
            max_size: 16 << 20,
            ..self
        }
    }

    /// Messages from `min_size` to `max_size` bytes.
    const fn sizes(self, min_size: usize, max_size: usize) -> ModeSpec {
        ModeSpec {
            min_size,
            max_size,
            ..self
        }
    }
}

/// Every mode, in report order.
pub const MODES: &[ModeSpec] = &[
    ModeSpec::new(Mode::Block, "block", 0, BLOCKS | SPLITS | SUITE),
    ModeSpec::new(Mode::Ecb, "ecb", 0, BLOCKS | SPLITS | SUITE),
    ModeSpec::new(Mode::CbcEnc, "cbc-enc", 16, BLOCKS | SUITE),
    ModeSpec::new(Mode::CbcDec, "cbc-dec", 16, BLOCKS | SPLITS | SUITE),
    ModeSpec::new(Mode::Ctr, "ctr", 16, SPLITS | SUITE),
    ModeSpec::new(Mode::XtsEnc, "xts-enc", 16, SPLITS | SUITE).xts(),
    ModeSpec::new(Mode::XtsDec, "xts-dec", 16, SPLITS | SUITE).xts(),
    ModeSpec::new(Mode::GcmEnc, "gcm-enc", 12, SUITE),
    ModeSpec::new(Mode::GcmDec, "gcm-dec", 12, SUITE),
    ModeSpec::new(Mode::GcmSivEnc, "gcm-siv-enc", 12, 0).keys(&[128, 256]),
    ModeSpec::new(Mode::GcmSivDec, "gcm-siv-dec", 12, 0).keys(&[128, 256]),
    ModeSpec::new(Mode::XaesEnc, "xaes-enc", 24, 0).keys(&[256]),
    ModeSpec::new(Mode::XaesDec, "xaes-dec", 24, 0).keys(&[256]),
    // A 12-byte nonce leaves a 3-byte length field.
    ModeSpec::new(Mode::CcmEnc, "ccm-enc", 12, 0).sizes(1, (1 << 24) - 1),
    ModeSpec::new(Mode::CcmDec, "ccm-dec", 12, 0).sizes(1, (1 << 24) - 1),
    ModeSpec::new(Mode::Cmac, "cmac", 0, 0),
    // KW takes multiples of 8 bytes, at least 16: whole blocks are a
    // subset that keeps the size list shared with the other modes.
    ModeSpec::new(Mode::Kw, "kw", 0, BLOCKS).sizes(16, usize::MAX),
];

impl Mode {
    /// The mode's static facts.
    pub fn spec(self) -> &'static ModeSpec {
        // MODES holds every variant; the fallback only satisfies the types.
        MODES.iter().find(|s| s.mode == self).unwrap_or(&MODES[0])
    }

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Whether the row is one of the one-shot AEADs (GCM-SIV, XAES, CCM).
    pub fn one_shot_aead(self) -> bool {
        matches!(
            self,
            Mode::GcmSivEnc
                | Mode::GcmSivDec
                | Mode::XaesEnc
                | Mode::XaesDec
                | Mode::CcmEnc
                | Mode::CcmDec
        )
    }

    /// The modes aesx runs on the CPU only: the one-shot AEADs, CMAC and KW.
    pub fn cpu_only(self) -> bool {
        self.one_shot_aead() || matches!(self, Mode::Cmac | Mode::Kw)
    }

    /// Whether each call opens a sealed message (the `*-dec` AEAD rows).
    pub fn opens(self) -> bool {
        matches!(
            self,
            Mode::GcmDec | Mode::GcmSivDec | Mode::XaesDec | Mode::CcmDec
        )
    }

    /// Parses a mode name (case-insensitive).
    pub fn parse(s: &str) -> Option<Mode> {
        MODES
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case(s.trim()))
            .map(|m| m.mode)
    }

    /// The names of every mode, for error messages.
    pub fn all_names() -> String {
        MODES.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
    }

    /// Whether a message of `size` bytes is valid in this mode.
    pub fn accepts(self, size: usize) -> bool {
        let spec = self.spec();
        size > 0
            && size >= spec.min_size
            && size <= spec.max_size
            && (!spec.whole_blocks || size.is_multiple_of(16))
    }

    /// Whether the mode is defined for `key_bits`-bit AES keys.
    pub fn has_key_bits(self, key_bits: u32) -> bool {
        self.spec().key_bits.contains(&key_bits)
    }

    /// The next IV, tweak or nonce after `iv`, for the modes that take a new
    /// one per message: XTS tweaks count up as little-endian 128-bit sector
    /// numbers (IEEE 1619), GCM nonces as a big-endian count in their last 8
    /// bytes (XAES's 24-byte nonces likewise). Others keep their running
    /// state and never call this.
    pub fn next_iv(self, iv: &mut [u8]) {
        match iv.len() {
            16 => {
                let mut b = [0u8; 16];
                b.copy_from_slice(iv);
                iv.copy_from_slice(&u128::from_le_bytes(b).wrapping_add(1).to_le_bytes());
            }
            n @ (12 | 24) => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&iv[n - 8..]);
                iv[n - 8..].copy_from_slice(&u64::from_be_bytes(b).wrapping_add(1).to_be_bytes());
            }
            _ => {}
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Default message sizes: one block, small packets, an Ethernet MTU (1500,
/// for the modes that take partial blocks), pages, and a bulk buffer.
pub const DEFAULT_SIZES: &[usize] = &[16, 64, 256, 1024, 1500, 4096, 16384, 1 << 20];

/// Default key sizes.
pub const DEFAULT_KEY_BITS: &[u32] = &[128, 256];

/// One measured situation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Case {
    /// Mode of operation.
    pub mode: Mode,
    /// AES key size in bits (128, 192, 256).
    pub key_bits: u32,
    /// Message size in bytes (one call processes one message).
    pub size: usize,
}

/// The bytes a case runs on: key, IV and the first input. Every
/// implementation gets the same ones, so outputs can be compared.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Key (`key_bits / 8` bytes).
    pub key: Vec<u8>,
    /// IV, initial counter block or nonce (`iv_len` bytes; may be empty).
    pub iv: Vec<u8>,
    /// The input of the first call.
    pub input: Vec<u8>,
    /// Associated data (GCM; empty by default).
    pub aad: Vec<u8>,
    /// gcm-dec: the authentic ciphertext and tag of `input` under `iv`,
    /// which every call opens.
    pub sealed: Option<(Vec<u8>, [u8; 16])>,
    /// Threads aesx's own call may split one message over (`--threads`
    /// for the modes the library splits; 1 otherwise).
    pub threads: usize,
}

impl Setup {
    /// Deterministic pseudo-random bytes for `case` (a different stream per
    /// case, so that no two cases share keys or data).
    pub fn generate(case: &Case) -> Setup {
        let seed = (case.mode as u64) << 48 ^ (case.key_bits as u64) << 32 ^ case.size as u64;
        let mut rng = SplitMix(seed ^ 0x6165_7378_6265_6e63);
        let mut bytes = |n: usize| (0..n).map(|_| rng.next() as u8).collect::<Vec<u8>>();
        let spec = case.mode.spec();
        let key = bytes(case.key_bits as usize / 8 * spec.key_halves);
        let iv = bytes(spec.iv_len);
        let input = bytes(case.size);
        Setup {
            key,
            iv,
            input,
            aad: Vec::new(),
            sealed: None,
            threads: 1,
        }
    }
}

/// SplitMix64: a small, well-mixed generator for test data (not for keys
/// that protect anything).
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Splits `size` bytes into at most `n` parts of whole blocks (the last part
/// takes any partial block); empty parts are dropped, and a last part
/// shorter than `min` joins the one before it.
pub fn split_sizes(size: usize, n: usize, min: usize) -> Vec<usize> {
    let blocks = size / 16;
    let n = n.max(1);
    let mut parts = Vec::with_capacity(n);
    let mut left = size;
    for i in 0..n {
        let share = if i + 1 == n {
            left
        } else {
            (blocks / n + usize::from(i < blocks % n)) * 16
        };
        let share = share.min(left);
        if share > 0 {
            parts.push(share);
        }
        left -= share;
    }
    if parts.len() > 1 && parts.last().is_some_and(|&l| l < min) {
        let last = parts.pop().unwrap_or(0);
        if let Some(prev) = parts.last_mut() {
            *prev += last;
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_everything() {
        for size in [16, 17, 64, 1500, 4096, 1 << 20] {
            for n in 1..5 {
                let p = split_sizes(size, n, 16);
                assert_eq!(p.iter().sum::<usize>(), size, "{size} {n}");
                assert!(p.iter().all(|&s| s >= 16));
                assert!(p.len() <= n);
                assert!(p[..p.len() - 1].iter().all(|s| s % 16 == 0));
            }
        }
    }

    #[test]
    fn modes_round_trip_names() {
        for m in MODES {
            assert_eq!(Mode::parse(m.name), Some(m.mode));
            assert_eq!(m.mode.spec().name, m.name);
        }
        assert_eq!(Mode::parse("nope"), None);
        assert!(!Mode::Ecb.accepts(1500));
        assert!(Mode::Ctr.accepts(1500));
        assert!(Mode::XtsEnc.accepts(1500) && !Mode::XtsEnc.accepts(15));
        assert!(Mode::XtsDec.accepts(16 << 20) && !Mode::XtsDec.accepts((16 << 20) + 1));
        assert!(!Mode::XtsDec.has_key_bits(192) && Mode::GcmEnc.has_key_bits(192));
        let mut t = [0xffu8; 16];
        t[1] = 0;
        Mode::XtsEnc.next_iv(&mut t);
        assert_eq!(&t[..2], &[0, 1]);
        let mut n = [0u8; 12];
        n[11] = 0xff;
        Mode::GcmEnc.next_iv(&mut n);
        assert_eq!(&n[10..], &[1, 0]);
    }
}
