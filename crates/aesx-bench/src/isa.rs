//! `aesx bench --isa TIER`: one x86 instruction tier, aesx forced onto it
//! and the peers held to the same instructions, so that the table says how
//! aesx compares on the machines that have only that tier.
//!
//! The tiers are the backends of the library's x86 family
//! (`Backend::family`), and each stands for the CPU class its needs
//! (`Backend::needs`) describe: whether it uses VAES/VPCLMULQDQ and whether
//! it uses AVX-512 decide what the peers are held to, so a tier added to
//! the list is a tier here with no edit. Today: AES-NI without VAES or
//! AVX-512 (Intel Haswell to Cascade Lake, AMD Zen 1 and 2; Skylake-SP and
//! Cascade Lake have AVX-512, but neither OpenSSL nor AWS-LC has AES code
//! that uses it without VAES), VAES on ymm without AVX-512 (AMD Zen 3,
//! Intel Alder and Raptor Lake), and VAES with AVX-512 (Ice Lake and later
//! servers, AMD Zen 4 and 5).
//!
//! OpenSSL and AWS-LC are restricted through the variable
//! `OPENSSL_ia32cap`, their documented capability mask. Both read it while
//! the program is being loaded (OpenSSL from its `.init` section, AWS-LC
//! from a constructor), before `main`, so setting it from inside this
//! process would come too late (and `set_var` in a running program races
//! with other threads reading the environment). Instead, when the variable
//! is not already what the tier needs, `aesx` runs itself again with it
//! set ([`ensure_environment`]), and the new process's libraries start
//! restricted.
//!
//! ring and RustCrypto pick their code from CPUID themselves and have no
//! such switch. They are counted only in the tiers where the code they pick
//! on this CPU is the code they would run on a CPU of that tier: ring's
//! fastest x86 code is its VAES-AVX2 GCM (it has no AVX-512 code), so it
//! counts in `vaes256` and `vaes512`; RustCrypto's `aes` runs its VAES-512
//! code on a CPU with AVX-512 (even one block at a time goes through that
//! backend), so it counts in `vaes512` only.

use std::ffi::OsStr;
use std::process::Command;

use aesx::Backend;

use super::impls::Impl;
use aesx_file::CommandError;

/// The capability variable OpenSSL and AWS-LC read.
pub const ENV: &str = "OPENSSL_ia32cap";
/// Set in the re-run process, so that a variable that does not reach it is
/// reported instead of re-running forever.
const GUARD: &str = "AESX_BENCH_ISA_RERUN";

// OpenSSL's second logical vector (LV1) is CPUID leaf 7, sub-leaf 0: EBX in
// bits 0-31, ECX in bits 32-63. AWS-LC's second value has the same layout.
/// AVX-512 F, DQ, IFMA, PF, ER, CD, BW, VL (leaf 7 EBX bits 16, 17, 21, 26,
/// 27, 28, 30, 31).
const AVX512_EBX: u64 =
    1 << 16 | 1 << 17 | 1 << 21 | 1 << 26 | 1 << 27 | 1 << 28 | 1 << 30 | 1 << 31;
/// AVX-512 VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ (leaf 7 ECX bits 1, 6, 11,
/// 12, 14).
const AVX512_ECX: u64 = (1 << 1 | 1 << 6 | 1 << 11 | 1 << 12 | 1 << 14) << 32;
/// VAES (leaf 7 ECX bit 9) and VPCLMULQDQ (ECX bit 10).
const VAES_VPCLMULQDQ: u64 = (1 << 9 | 1 << 10) << 32;
/// OpenSSL's LV3 is CPUID leaf 7 sub-leaf 1 EDX (bits 0-31): bit 19 is
/// AVX10, the successor of AVX-512. (AWS-LC reads only LV0 and LV1.)
const AVX10: u64 = 1 << 19;

/// The family of the library's list whose backends are the tiers.
const X86: &str = "x86";

/// An x86 tier: a backend of the list's x86 family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tier(Backend);

impl Tier {
    /// Every tier, slowest first (the list's order).
    pub fn all() -> impl DoubleEndedIterator<Item = Tier> {
        Backend::ALL
            .into_iter()
            .filter(|b| b.family() == X86)
            .map(Tier)
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The aesx backend of the tier.
    pub fn backend(self) -> Backend {
        self.0
    }

    /// Whether the tier's code uses VAES and VPCLMULQDQ.
    fn vaes(self) -> bool {
        self.0.needs().contains("VAES")
    }

    /// Whether the tier's code uses AVX-512.
    fn avx512(self) -> bool {
        self.0.needs().contains("AVX-512")
    }

    /// An unknown name is a usage error.
    pub fn parse(s: &str) -> Result<Tier, CommandError> {
        let t = s.trim();
        let bare = t
            .get(..5)
            .filter(|p| p.eq_ignore_ascii_case("aesx-"))
            .map_or(t, |_| &t[5..]);
        Tier::all()
            .find(|x| x.name().eq_ignore_ascii_case(bare))
            .ok_or_else(|| {
                let names: Vec<&str> = Tier::all().map(Tier::name).collect();
                CommandError::usage(format!(
                    "unknown --isa '{s}' (expected one of {})",
                    names.join(", ")
                ))
            })
    }

    /// A tier this CPU lacks is a failure (exit 1): the run cannot be done
    /// here. `has` says whether a backend is available.
    pub fn require(self, has: impl Fn(Backend) -> bool) -> Result<(), CommandError> {
        if has(self.backend()) {
            return Ok(());
        }
        let needs = self.backend().needs();
        let here: Vec<&str> = Tier::all()
            .filter(|t| has(t.backend()))
            .map(Tier::name)
            .collect();
        Err(CommandError::failure(format!(
            "--isa {}: this CPU lacks {needs} (tiers it has: {})",
            self.name(),
            if here.is_empty() {
                "none".to_string()
            } else {
                here.join(", ")
            }
        )))
    }

    /// The `OPENSSL_ia32cap` value that holds OpenSSL and AWS-LC to the
    /// tier, or `None` when the variable must be unset (they use all the
    /// CPU has).
    ///
    /// Fields are separated by ':'; an empty field keeps that vector as
    /// detected and `~` clears the bits that follow. OpenSSL zeroes the
    /// vectors whose fields are missing, and counts a field as present only
    /// if a ':' follows it, hence the trailing "::". AWS-LC reads the first
    /// two fields only (the first, empty, leaves its vector alone) and takes
    /// the second's hex digits up to the next ':'.
    pub fn ia32cap(self) -> Option<String> {
        let lv1 = match (self.vaes(), self.avx512()) {
            (_, true) => return None,
            (true, false) => AVX512_EBX | AVX512_ECX,
            (false, false) => AVX512_EBX | AVX512_ECX | VAES_VPCLMULQDQ,
        };
        Some(format!(":~{lv1:#x}::~{AVX10:#x}::"))
    }

    /// Whether a peer's row belongs in this tier's run.
    pub fn counts(self, peer: Impl) -> bool {
        match peer {
            Impl::OpenSsl | Impl::AwsLc => true,
            // ring's best x86 code is VAES-AVX2 GCM; RustCrypto runs VAES-512
            // code on any CPU with AVX-512.
            Impl::Ring => self.vaes(),
            Impl::RustCrypto => self.avx512(),
            Impl::Aesx(_) => false,
            #[cfg(feature = "cuda")]
            Impl::Cuda => false,
        }
    }

    /// The header lines: what the tier stands for and how every peer was
    /// held to it (or why it is missing).
    pub fn describe(self) -> Vec<String> {
        let (without, cpus) = match (self.vaes(), self.avx512()) {
            (false, false) => (", no VAES, no AVX-512", "Haswell..Cascade Lake, Zen 1/2"),
            (true, false) => (", no AVX-512", "Zen 3, Alder/Raptor Lake"),
            (true, true) => ("", "Ice Lake and later, Zen 4/5"),
            (false, true) => (", no VAES", "no such CPU class"),
        };
        let mut v = vec![format!(
            "isa {}: aesx-{} against peers held to the same CPU class: {}{without} ({cpus})",
            self.name(),
            self.name(),
            self.0.needs()
        )];
        v.push(match self.ia32cap() {
            Some(cap) => format!(
                "  openssl, aws-lc-rs: restricted, {ENV}={cap} (clears {}AVX-512 and AVX10; \
                 read at load time, so aesx ran itself again with it set)",
                if self.vaes() {
                    ""
                } else {
                    "VAES, VPCLMULQDQ, "
                }
            ),
            None => format!("  openssl, aws-lc-rs: unrestricted ({ENV} unset): all this CPU has"),
        });
        v.push(
            match (self.counts(Impl::Ring), self.counts(Impl::RustCrypto)) {
                (false, false) => "  ring, rustcrypto: left out: they cannot be restricted, and here \
                                   they run VAES code (ring VAES-AVX2 GCM, RustCrypto VAES-512)",
                (true, false) => "  ring: counted (its best x86 code is VAES-AVX2, as on such a CPU); \
                                  rustcrypto: left out (here it runs VAES-512 code, and cannot be restricted)",
                (true, true) => "  ring, rustcrypto: counted (their own detection picks their best code, \
                                 as on any such CPU)",
                (false, true) => "  ring: left out (it runs VAES code here); rustcrypto: counted",
            }
            .to_string(),
        );
        v
    }
}

/// Makes sure that this process's OpenSSL and AWS-LC were loaded under the
/// tier's `OPENSSL_ia32cap`. If not, runs aesx again with the same
/// arguments and the variable set (or removed), replacing this process on
/// Unix; elsewhere waits for it and returns its exit status.
pub fn ensure_environment(tier: Tier) -> Result<Option<std::process::ExitCode>, CommandError> {
    let want = tier.ia32cap();
    let have = std::env::var_os(ENV);
    if have.as_deref() == want.as_deref().map(OsStr::new) {
        return Ok(None);
    }
    if std::env::var_os(GUARD).is_some() {
        return Err(CommandError::failure(format!(
            "--isa {}: {ENV} is {:?} after aesx ran itself again to set it to {:?}",
            tier.name(),
            have,
            want
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| CommandError::failure(format!("--isa: cannot find the aesx binary: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.args(std::env::args_os().skip(1))
        .env(GUARD, tier.name());
    match &want {
        Some(v) => cmd.env(ENV, v),
        None => cmd.env_remove(ENV),
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let e = cmd.exec();
        Err(CommandError::failure(format!(
            "--isa: running aesx again with {ENV} set: {e}"
        )))
    }
    #[cfg(not(unix))]
    {
        let status = cmd
            .status()
            .map_err(|e| CommandError::failure(format!("--isa: running aesx again: {e}")))?;
        Ok(Some(std::process::ExitCode::from(
            status.code().unwrap_or(1).clamp(0, 255) as u8,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_are_usage_errors() {
        for t in Tier::all() {
            assert_eq!(Tier::parse(t.name()).unwrap(), t);
            assert_eq!(
                Tier::parse(&format!("AESX-{}", t.name().to_uppercase())).unwrap(),
                t
            );
        }
        for bad in ["", "soft", "armv8", "avx2", "vaes", "aesx-"] {
            assert!(
                matches!(Tier::parse(bad), Err(CommandError::Usage(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_missing_tier_is_a_failure_naming_what_is_there() {
        let only_aesni = |b: Backend| b == Backend::Aesni;
        assert!(Tier(Backend::Aesni).require(only_aesni).is_ok());
        match Tier(Backend::Vaes512).require(only_aesni) {
            Err(CommandError::Failure(m)) => {
                assert!(
                    m.contains("AVX-512") && m.contains("tiers it has: aesni"),
                    "{m}"
                )
            }
            other => panic!("{other:?}"),
        }
        match Tier(Backend::Aesni).require(|_| false) {
            Err(CommandError::Failure(m)) => assert!(m.contains("none"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn masks_clear_the_documented_bits() {
        assert_eq!(Tier(Backend::Vaes512).ia32cap(), None);
        let aesni = Tier(Backend::Aesni).ia32cap().unwrap();
        let vaes256 = Tier(Backend::Vaes256).ia32cap().unwrap();
        let lv1 = |s: &str| {
            let f: Vec<&str> = s.split(':').collect();
            assert_eq!(f.len(), 6, "{s}");
            assert_eq!((f[0], f[2], f[4], f[5]), ("", "", "", ""), "{s}");
            assert_eq!(f[3], "~0x80000", "{s}");
            u64::from_str_radix(f[1].strip_prefix("~0x").unwrap(), 16).unwrap()
        };
        let (a, v) = (lv1(&aesni), lv1(&vaes256));
        // VAES is bit 41, VPCLMULQDQ bit 42: cleared for aesni only.
        assert_eq!(a & (1 << 41 | 1 << 42), 1 << 41 | 1 << 42);
        assert_eq!(v & (1 << 41 | 1 << 42), 0);
        for bit in [16, 17, 21, 28, 30, 31] {
            assert!(a & v & (1 << bit) != 0, "AVX-512 bit {bit}");
        }
        // AVX2 (bit 5), AES-NI and PCLMULQDQ (other vector) stay.
        assert_eq!((a | v) & (1 << 5), 0);
    }

    #[test]
    fn peers_by_tier() {
        assert!(Tier::all().all(|t| t.counts(Impl::OpenSsl) && t.counts(Impl::AwsLc)));
        let (aesni, vaes256, vaes512) = (
            Tier(Backend::Aesni),
            Tier(Backend::Vaes256),
            Tier(Backend::Vaes512),
        );
        assert!(!aesni.counts(Impl::Ring) && vaes256.counts(Impl::Ring));
        assert!(!vaes256.counts(Impl::RustCrypto) && vaes512.counts(Impl::RustCrypto));
    }

    #[test]
    fn the_tiers_are_the_x86_family_of_the_list() {
        let x86: Vec<Backend> = Backend::ALL
            .into_iter()
            .filter(|b| b.family() == "x86")
            .collect();
        assert_eq!(Tier::all().map(Tier::backend).collect::<Vec<_>>(), x86);
        assert!(!x86.is_empty());
    }
}
