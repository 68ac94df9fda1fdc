//! CUDA samples used by the papers (NUBA §6.3, NDP §5.4, HMS §5.3), one file each,
//! modelled after the public CUDA sources (thread/block shapes, shared and constant memory,
//! access order).

use crate::registry::BenchSpec;

pub mod blackscholes;
pub mod convsep;
pub mod fwt;
pub mod scalarprod;
pub mod transpose;

#[cfg(test)]
mod tests;

/// The CUDA-samples benchmarks of this folder.
pub const SPECS: &[BenchSpec] = &[
    blackscholes::SPEC,
    fwt::SPEC,
    convsep::SPEC,
    transpose::SPEC,
    scalarprod::SPEC,
];
