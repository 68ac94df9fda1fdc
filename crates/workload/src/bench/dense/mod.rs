//! Rodinia and Parboil benchmarks (dense, stencil and sparse-matrix kernels), one file each,
//! modelled after the public CUDA sources (thread/block shapes, data layouts, access order).

use crate::registry::BenchSpec;

pub mod cfd;
pub(crate) mod common;
pub mod dwt;
pub mod ge;
pub mod hs;
pub mod hs3d;
pub mod km;
pub mod kmeans_transpose;
pub mod matmul;
pub mod mg;
pub mod mm;
pub mod nn;
pub mod nw;
pub mod sad;
pub mod spmv;
pub mod spmv_csr;
pub mod stencil2d;

#[cfg(test)]
mod tests;

/// The dense/stencil/sparse benchmarks.
pub const SPECS: &[BenchSpec] = &[
    kmeans_transpose::SPEC,
    km::SPEC,
    matmul::SPEC,
    mm::SPEC,
    stencil2d::SPEC,
    spmv_csr::SPEC,
    spmv::SPEC,
    nw::SPEC,
    ge::SPEC,
    nn::SPEC,
    sad::SPEC,
    cfd::SPEC,
    hs3d::SPEC,
    hs::SPEC,
    dwt::SPEC,
    mg::SPEC,
];
