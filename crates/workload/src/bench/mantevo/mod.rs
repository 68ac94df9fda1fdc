//! Mantevo mini-apps (Heroux et al., "Improving performance via mini-applications", Sandia
//! report SAND2009-5574; CUDA sources of github.com/Mantevo/miniFE, folder `cuda/src`), one
//! file per mini-app, modelled after the public CUDA kernels and host code. The NDP paper
//! (ndp.md §5.4, Table 1) runs MiniFE.

use crate::registry::BenchSpec;

pub mod minife;

#[cfg(test)]
mod tests;

/// The Mantevo mini-apps.
pub const SPECS: &[BenchSpec] = &[minife::SPEC];
