//! Rodinia and Parboil benchmarks (dense, stencil and sparse-matrix kernels).

use crate::registry::BenchSpec;

/// The dense/stencil/sparse benchmarks.
pub const SPECS: &[BenchSpec] = &[];
