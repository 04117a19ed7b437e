//! What the registry asks of each backend family's key type ([`Family`]),
//! and the [`Shape`]s an engine's payload can take: the block shape
//! (the family key itself), the GCM one (the key with its GHASH key) and the
//! XTS one (data and tweak keys).

use super::gcm::{GcmKernels, GcmKey};
use super::mac::MacKernels;
use super::siv::SivKernels;
use super::xts::{XtsKernels, XtsKeys};
use super::CbcManyKernels;
use crate::backend::{Backend, BackendSet};
use crate::error::Result;
use crate::key::RoundKeys;

/// A backend family's key type: what `families!` needs of each entry. The
/// kernel traits are supertraits: every mode runs on every family, and
/// every shape can be built from any family.
pub(crate) trait Family:
    GcmKernels + XtsKernels + MacKernels + SivKernels + CbcManyKernels + Clone
{
    /// Expands `rk` for `backend`, one of this family's; fails unless the CPU
    /// runs it.
    fn new(backend: Backend, rk: &RoundKeys) -> Result<Self>;

    /// The backends of this family that this CPU and build can run.
    fn available() -> BackendSet;
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
    /// The pair of `data` and the tweak key `k2` on the same backend.
    pub(crate) fn new(data: K, backend: Backend, k2: &RoundKeys) -> Result<Self> {
        let tweak = K::new(backend, k2)?;
        Ok(XtsKeys { data, tweak })
    }
}

/// The XTS shape of an engine: each family's data and tweak keys.
pub(crate) enum XtsPair {}

impl Shape for XtsPair {
    type Of<K: Family> = XtsKeys<K>;
}
