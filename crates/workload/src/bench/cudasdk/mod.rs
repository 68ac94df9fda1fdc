//! CUDA samples used by the papers (NUBA §6.3, NDP §5.4, HMS §5.3), one file each,
//! modelled after the public CUDA sources (thread/block shapes, shared and constant memory,
//! access order).

use crate::registry::BenchSpec;

#[cfg(test)]
mod tests;

/// The CUDA-samples benchmarks of this folder.
pub const SPECS: &[BenchSpec] = &[];
