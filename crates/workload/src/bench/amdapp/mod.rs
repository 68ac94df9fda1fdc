//! AMD APP SDK benchmarks (OpenCL samples), one file each, modelled after the public
//! sources: REC's SimpleConvolution (rec.md §4.3, Table 3).

use crate::registry::BenchSpec;

pub mod simpleconv;

#[cfg(test)]
mod tests;

/// The AMD APP SDK benchmarks.
pub const SPECS: &[BenchSpec] = &[simpleconv::SPEC];
