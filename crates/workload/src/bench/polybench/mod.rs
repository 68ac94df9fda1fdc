//! PolyBench/GPU (Grauer-Gray, Xu, Searles, Ayalasomayajula, Cavazos, InPar 2012), the CUDA
//! version of PolyBench: one file per benchmark, each modelled after the suite's public
//! CUDA source (PolyBench/GPU 1.0, `CUDA/<BENCH>/<bench>.cu`): its kernel split and host
//! launch loop, `DIM_THREAD_BLOCK_X/Y`, row-major float (`DATA_TYPE float`) arrays, the
//! kernels' loops and initial data. The benchmarks REC (rec.md §4.3), NUBA (nuba.md §6.3)
//! and NDP (ndp.md §5.4) run; inputs sized by `crate::scale` from those papers.

use crate::registry::BenchSpec;

pub mod atax;
pub mod bicg;
mod common;
pub mod conv2d;
pub mod conv3d;
pub mod fdtd2d;
pub mod gemm;
pub mod gemver;
pub mod gesummv;
pub mod jacobi2d;
pub mod lu;
pub mod mm2;
pub mod mm3;
pub mod mvt;

#[cfg(test)]
mod tests;

/// The PolyBench/GPU benchmarks.
pub const SPECS: &[BenchSpec] = &[
    atax::SPEC,
    conv2d::SPEC,
    gemm::SPEC,
    gemver::SPEC,
    jacobi2d::SPEC,
    lu::SPEC,
    mm2::SPEC,
    mm3::SPEC,
    bicg::SPEC,
    gesummv::SPEC,
    mvt::SPEC,
    conv3d::SPEC,
    fdtd2d::SPEC,
];
