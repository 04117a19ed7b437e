//! Backends: which code runs the AES rounds, chosen once at run time.
//!
//! Three floors, as the folders show them:
//! - [`kernels`], the contract: the kernel traits every family implements,
//!   `Family` and the shapes, `InOut`, the CPU tokens, and the portable
//!   GF(2^128) arithmetic that the soft family and the split calls of
//!   `modes/parallel.rs` share. It imports nothing else of `backend`
//!   (its tests use the soft family as a reference).
//! - the families, one folder and one key type each ([`soft`], `x86`,
//!   `aarch64`): each imports only the contract (and its own children).
//! - the registry: [`registry`] (detection: what this machine runs,
//!   [`BackendSet`]) and [`engine`] (the enum over the families and the one
//!   `match` per call), which import the families; both read [`list`], the
//!   one list of backends ([`Backend`], each one's name, C number, CPU
//!   needs, family and tier), which is plain data and imports nothing, so
//!   that `error.rs` can name a `Backend` from below.
//! - [`schedule`]: which core the x86 kernels order their work for (from
//!   CPUID, forceable), beside the tier a backend names.
//!
//! A key object holds an [`Engine`] (its family's own round-key layout) and
//! every call goes through one `match` on it, never one per block.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod engine;
pub(crate) mod kernels;
pub(crate) mod list;
pub(crate) mod registry;
pub(crate) mod schedule;
pub(crate) mod soft;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

pub(crate) use engine::Engine;
pub(crate) use kernels::inout::InOut;
pub(crate) use kernels::CbcLanes;
pub use list::Backend;
pub use registry::{BackendIter, BackendSet};
pub use schedule::{Schedule, UnknownSchedule};
