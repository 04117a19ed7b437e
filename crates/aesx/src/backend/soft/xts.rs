//! XTS on the portable backend: the generic kernels of
//! `backend/kernels/xts.rs`, unchanged.
//!
//! Those kernels already hand the block cipher 128 independent blocks per
//! call (and 32 sector tweaks per call), the shape a bitsliced
//! implementation wants, and their tweak update is a branch-free shift and
//! masked XOR; a kernel of the backend's own would add nothing.

use super::SoftAes;
use crate::backend::kernels::xts::XtsKernels;

impl XtsKernels for SoftAes {}
