//! XTS on the portable backend.
//!
//! The generic kernels in `backend/kernels/xts.rs` already hand the block
//! cipher 128 independent blocks per call (and 32 sector tweaks per call), the
//! shape a bitsliced implementation wants, and their tweak update is a
//! branch-free shift and masked XOR; so the portable backend takes them as
//! they are. This file is where a soft-specific kernel (for example one that
//! whitens inside the bitsliced representation) would go.
//!
//! Included from `backend/mod.rs` by path so that `soft/mod.rs` stays
//! untouched.

use super::SoftAes;
use crate::backend::kernels::xts::XtsKernels;

impl XtsKernels for SoftAes {}
