//! Hetero-Mark benchmarks (NUCAR-DEV/Hetero-Mark, the CUDA/HIP versions), one file each,
//! modelled after the public sources: REC's FIR and PR (rec.md §4.3, Table 3).

use crate::registry::BenchSpec;

pub mod fir;
pub mod pagerank;

#[cfg(test)]
pub(crate) mod tests;

/// The Hetero-Mark benchmarks.
pub const SPECS: &[BenchSpec] = &[fir::SPEC, pagerank::SPEC];
