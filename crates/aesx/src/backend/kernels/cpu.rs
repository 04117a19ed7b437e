//! CPU features as proofs: zero-sized tokens that only detection makes.
//!
//! Each token's one field is private to this module, and this module has no
//! children (but its tests), so nothing else in the crate can build a token: the only way
//! to get one is [`features`], which hands it out only when the CPU (and the
//! operating system, for the wider registers) supports what the token
//! names. Holding a token is therefore the proof that calling the matching
//! `#[target_feature]` code is sound, in the manner of ring's `cpu` module.
//! Detection runs once per process and is cached. The x86 tokens and the
//! AArch64 ones ([`ArmCrypto`], [`ArmSha3`]) follow the same pattern, each
//! set compiled only for its architecture.
//!
//! Without std there is no run-time detection; the tokens then stand for
//! what the build enables (`-C target-feature`), which the CPU must have
//! for the program to run at all.

use core::sync::atomic::{AtomicU8, Ordering};

/// Set in a cache once it holds a detection result (so a result of zero
/// bits is cached too).
const DONE: u8 = 0x80;

/// The bits `detect` returns (below [`DONE`]), computed on the first call
/// with this `cache` and read from it after that. Two threads may both
/// detect; they store the same value.
pub(crate) fn cached(cache: &AtomicU8, detect: impl FnOnce() -> u8) -> u8 {
    let mut bits = cache.load(Ordering::Relaxed);
    if bits & DONE == 0 {
        bits = detect() | DONE;
        cache.store(bits, Ordering::Relaxed);
    }
    bits & !DONE
}

/// Each flag's bit where the flag is set.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn bits(flags: &[(bool, u8)]) -> u8 {
    flags
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, b)| acc | b)
}

#[cfg(all(feature = "std", target_arch = "aarch64"))]
use std::arch::is_aarch64_feature_detected as std_detected;
#[cfg(all(feature = "std", target_arch = "x86_64"))]
use std::arch::is_x86_feature_detected as std_detected;

/// Whether the CPU has every named target feature: asked at run time with
/// std, and read from the build's own features without it. A macro because
/// both `is_*_feature_detected!` and `cfg!(target_feature)` take the
/// feature's name as a literal, which a function cannot pass on.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! has {
    ($($f:tt),+) => {{
        #[cfg(feature = "std")]
        let all = true $(&& std_detected!($f))+;
        #[cfg(not(feature = "std"))]
        let all = true $(&& cfg!(target_feature = $f))+;
        all
    }};
}

// The tokens: zero-sized, their one field private to this module, so only
// detection here can make one; each compiled only for its architecture.

/// AES-NI, SSE4.1 (with SSSE3 and SSE2) and PCLMULQDQ: the `aesni` tier.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aesni(());

/// AVX2 (with AVX and the OS saving ymm state).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx2(());

/// [`Aesni`] and [`Avx2`] plus VAES and VPCLMULQDQ: the `vaes256` tier.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vaes256(());

/// [`Vaes256`] plus AVX-512 F, BW and VL (and the OS saving zmm state):
/// the `vaes512` tier.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vaes512(());

/// FEAT_AES and FEAT_PMULL (with Advanced SIMD): the `armv8` backend's
/// baseline, what its `#[target_feature(enable = "aes")]` kernels need
/// (Rust's `aes` target feature covers both instructions sets).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArmCrypto(());

/// FEAT_SHA3 (EOR3), made only where [`ArmCrypto`] is made too: together
/// they prove what the `"aes,sha3"` kernels need.
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArmSha3(());

// A wider tier includes the narrower ones (detection checks all of their
// features before it makes the wider token), so the wider tokens can be
// narrowed.
#[cfg(target_arch = "x86_64")]
impl Vaes256 {
    pub(crate) fn aesni(self) -> Aesni {
        Aesni(())
    }
}

#[cfg(target_arch = "x86_64")]
impl Vaes512 {
    pub(crate) fn aesni(self) -> Aesni {
        Aesni(())
    }
}

// Each architecture's detection bits (each below the cache's `DONE`), its
// `Features` (a token per field, where detection found the features) and
// `Features::from_bits`.

#[cfg(target_arch = "x86_64")]
const AESNI: u8 = 1;
#[cfg(target_arch = "x86_64")]
const AVX2: u8 = 2;
#[cfg(target_arch = "x86_64")]
const VAES256: u8 = 4;
#[cfg(target_arch = "x86_64")]
const VAES512: u8 = 8;

/// What this CPU has, as tokens.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Features {
    pub(crate) aesni: Option<Aesni>,
    /// For the soft backend's AVX2 words and the VEX-encoded AES-NI
    /// kernels.
    pub(crate) avx2: Option<Avx2>,
    pub(crate) vaes256: Option<Vaes256>,
    pub(crate) vaes512: Option<Vaes512>,
}

#[cfg(target_arch = "x86_64")]
impl Features {
    /// The tokens for the bits `detect` found.
    fn from_bits(bits: u8) -> Features {
        Features {
            aesni: (bits & AESNI != 0).then_some(Aesni(())),
            avx2: (bits & AVX2 != 0).then_some(Avx2(())),
            vaes256: (bits & VAES256 != 0).then_some(Vaes256(())),
            vaes512: (bits & VAES512 != 0).then_some(Vaes512(())),
        }
    }
}

#[cfg(target_arch = "aarch64")]
const CRYPTO: u8 = 1;
#[cfg(target_arch = "aarch64")]
const SHA3: u8 = 2;

/// What this CPU has, as tokens.
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Features {
    pub(crate) crypto: Option<ArmCrypto>,
    pub(crate) sha3: Option<ArmSha3>,
}

#[cfg(target_arch = "aarch64")]
impl Features {
    /// The tokens for the bits `detect` found.
    fn from_bits(bits: u8) -> Features {
        Features {
            crypto: (bits & CRYPTO != 0).then_some(ArmCrypto(())),
            sha3: (bits & SHA3 != 0).then_some(ArmSha3(())),
        }
    }
}

/// The CPU's features, detected on the first call and cached.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) fn features() -> Features {
    static CACHE: AtomicU8 = AtomicU8::new(0);
    Features::from_bits(cached(&CACHE, detect))
}

/// The feature bits; a tier's bit is set only if every narrower tier's is.
#[cfg(target_arch = "x86_64")]
fn detect() -> u8 {
    let aesni = has!("aes", "sse4.1", "pclmulqdq");
    let avx2 = has!("avx", "avx2");
    let vaes256 = aesni && avx2 && has!("vaes", "vpclmulqdq");
    let vaes512 = vaes256 && has!("avx512f", "avx512bw", "avx512vl");
    bits(&[
        (aesni, AESNI),
        (avx2, AVX2),
        (vaes256, VAES256),
        (vaes512, VAES512),
    ])
}

/// The feature bits; `SHA3` is set only if `CRYPTO` is.
#[cfg(target_arch = "aarch64")]
fn detect() -> u8 {
    // Rust's "aes" covers FEAT_AES and FEAT_PMULL together; asking for
    // "pmull" too keeps the requirement explicit (without std there is no
    // separate "pmull" target feature to test, and "aes" implies it).
    #[cfg(feature = "std")]
    let crypto = has!("neon", "aes", "pmull");
    #[cfg(not(feature = "std"))]
    let crypto = has!("neon", "aes");
    let sha3 = crypto && has!("sha3");
    bits(&[(crypto, CRYPTO), (sha3, SHA3)])
}

#[cfg(all(test, target_arch = "aarch64", feature = "std"))]
mod arm_tests {
    use super::*;

    #[test]
    fn tokens_agree_with_std_detection_and_nest() {
        use std::arch::is_aarch64_feature_detected as d;
        let f = features();
        assert_eq!(f.crypto.is_some(), d!("neon") && d!("aes") && d!("pmull"));
        assert_eq!(f.sha3.is_some(), f.crypto.is_some() && d!("sha3"));
        // The cached answer is the same answer.
        let g = features();
        assert_eq!((f.crypto, f.sha3), (g.crypto, g.sha3));
    }
}

#[cfg(all(test, target_arch = "x86_64", feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn tokens_agree_with_std_detection_and_nest() {
        let f = features();
        let std_has = |s: &[bool]| s.iter().all(|&b| b);
        use std::arch::is_x86_feature_detected as d;
        assert_eq!(
            f.aesni.is_some(),
            std_has(&[d!("aes"), d!("sse4.1"), d!("pclmulqdq")])
        );
        assert_eq!(f.avx2.is_some(), std_has(&[d!("avx"), d!("avx2")]));
        assert_eq!(
            f.vaes256.is_some(),
            f.aesni.is_some() && f.avx2.is_some() && std_has(&[d!("vaes"), d!("vpclmulqdq")])
        );
        assert_eq!(
            f.vaes512.is_some(),
            f.vaes256.is_some() && std_has(&[d!("avx512f"), d!("avx512bw"), d!("avx512vl")])
        );
        // The cached answer is the same answer.
        let g = features();
        assert_eq!(
            (f.aesni, f.avx2, f.vaes256, f.vaes512),
            (g.aesni, g.avx2, g.vaes256, g.vaes512)
        );
    }
}
