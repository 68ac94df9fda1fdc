//! SHOC benchmarks (Danalis et al., "The Scalable HeterOgeneous Computing (SHOC) benchmark
//! suite", GPGPU-3 2010; CUDA sources of github.com/vetter/shoc, levels 1 and 2), one file
//! per benchmark, modelled after the public CUDA kernels: thread/block shapes, data layouts,
//! access order, shared-memory staging and the memory space each array is read through.
//! REC (rec.md §4.3) runs Stencil2D; the HMS placement model (hms-placement-model.md §5.3,
//! Table IV) evaluates the others, moving arrays between memory spaces: where cheap a model
//! takes a `<array>_space` parameter naming the space of an input array
//! ([`common::MemSpace`]).

use crate::registry::BenchSpec;

pub mod bfs;
pub mod common;
pub mod fft;
pub mod md;
pub mod md5hash;
pub mod neuralnet;
pub mod qtc;
pub mod reduction;
pub mod s3d;
pub mod scan;
pub mod sort;
pub mod spmv;
pub mod stencil2d;
pub mod triad;

#[cfg(test)]
mod qtc_tests;
#[cfg(test)]
mod tests;

/// The SHOC benchmarks.
pub const SPECS: &[BenchSpec] = &[
    stencil2d::SPEC,
    triad::SPEC,
    reduction::SPEC,
    scan::SPEC,
    md::SPEC,
    spmv::SPEC,
    bfs::SPEC,
    fft::SPEC,
    sort::SPEC,
    md5hash::SPEC,
    s3d::SPEC,
    neuralnet::SPEC,
    qtc::SPEC,
];
