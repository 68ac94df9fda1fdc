//! Parboil benchmarks beyond those under `dense/` (issue 8, "The four papers' benchmarks"),
//! one file each, modelled after the public CUDA sources of Parboil 2.5.

use crate::registry::BenchSpec;

pub mod lbm;
pub mod stencil;

#[cfg(test)]
mod tests;

/// The Parboil benchmarks of this folder.
pub const SPECS: &[BenchSpec] = &[lbm::SPEC, stencil::SPEC];
