//! What the registry asks of each backend family's key type ([`Family`]),
//! and the [`Shape`]s an engine's payload can take: the block shape
//! (the family key itself), the GCM one (the key with its GHASH key) and the
//! XTS one (data and tweak keys).

use super::gcm::{GcmKernels, GcmKey};
use super::mac::MacKernels;
use super::siv::SivKernels;
use super::xts::{XtsKernels, XtsKeys};
use super::CbcManyKernels;
use crate::key::RoundKeys;

/// A backend family's key type: what the registry needs of each family.
/// The kernel traits are supertraits: every mode runs on every family, and
/// every shape can be built from any family.
///
/// A family serves one or more backends, its tiers, numbered by the family
/// from 0 (slowest first); the list of backends in the registry says which
/// backend is which tier of which family.
pub(crate) trait Family:
    GcmKernels + XtsKernels + MacKernels + SivKernels + CbcManyKernels + Clone
{
    /// Expands `rk` for this family's tier `tier`; `None` unless this CPU
    /// and build run it.
    fn with_tier(tier: u8, rk: &RoundKeys) -> Option<Self>;

    /// Whether this CPU and build run the family's tier `tier`.
    fn runs(tier: u8) -> bool;
}

/// What an engine holds for a family's key type `K`.
pub(crate) trait Shape {
    type Of<K: Family>: Clone;
}

/// The family's key type itself: ECB, CBC, CTR, the MACs, key wrap.
pub(crate) enum Plain {}

impl Shape for Plain {
    type Of<K: Family> = K;
}

/// The GCM shape of an engine: each family's key with its GHASH key.
pub(crate) enum WithGhash {}

impl Shape for WithGhash {
    type Of<K: Family> = GcmKey<K>;
}

impl<K: Family> XtsKeys<K> {
    /// The pair of `data` and the tweak key `k2` on the same tier.
    pub(crate) fn new(data: K, tier: u8, k2: &RoundKeys) -> Option<Self> {
        let tweak = K::with_tier(tier, k2)?;
        Some(XtsKeys { data, tweak })
    }
}

/// The XTS shape of an engine: each family's data and tweak keys.
pub(crate) enum XtsPair {}

impl Shape for XtsPair {
    type Of<K: Family> = XtsKeys<K>;
}
