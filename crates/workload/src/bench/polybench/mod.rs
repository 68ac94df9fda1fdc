//! PolyBench/GPU (Grauer-Gray, Xu, Searles, Ayalasomayajula, Cavazos, InPar 2012), the CUDA
//! version of PolyBench: one file per benchmark, each modelled after the suite's public
//! CUDA source (PolyBench/GPU 1.0, `CUDA/<BENCH>/<bench>.cu`): its kernel split and host
//! launch loop, `DIM_THREAD_BLOCK_X/Y`, row-major float (`DATA_TYPE float`) arrays, the
//! kernels' loops and initial data. The benchmarks REC (rec.md §4.3), NUBA (nuba.md §6.3)
//! and NDP (ndp.md §5.4) run; inputs sized by `crate::scale` from those papers.
//!
//! Where a suite file computes a grid extent from the other dimension (2DConvolution.cu and
//! gemm.cu size `grid.x` from NI), the models use the dimension the thread index runs over;
//! the two agree on the suite's square inputs, and every model's defaults are square.
//! Host buffers the suite copies to the device without initialising them start at zero.
//! Each model's doc comment gives its paper input, how its dimensions follow from it, and
//! which rule of `crate::scale` set its default; `common` gives the counting rules shared by
//! the kernels (loops unrolled by 4, no `__restrict__`: accumulators stored every iteration).

use crate::registry::BenchSpec;

pub mod atax;
pub mod bicg;
pub mod common;
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
