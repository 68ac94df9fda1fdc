//! Built-in benchmarks, one file each, grouped by the suite they are modelled after:
//! `graph/` (GraphBIG-style graph kernels and their input generators), `dense/` (Rodinia and
//! Parboil kernels) and the basics here. Each file exports a `SPEC: BenchSpec`.

use crate::registry::BenchSpec;
use std::sync::OnceLock;

pub mod amdapp;
#[cfg(test)]
mod audit;
pub mod cudasdk;
pub mod dense;
pub mod graph;
pub mod heteromark;
pub mod mantevo;
pub mod mars;
pub mod micro;
pub mod parboil;
pub mod polybench;
pub mod rodinia;
pub mod shoc;
pub mod tango;
#[cfg(test)]
pub(crate) mod testing;
pub mod vectoradd;

/// Every built-in benchmark, in listing order.
pub fn all() -> &'static [BenchSpec] {
    static ALL: OnceLock<Vec<BenchSpec>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = vec![vectoradd::SPEC];
        v.extend_from_slice(graph::SPECS);
        v.extend_from_slice(dense::SPECS);
        v.extend_from_slice(polybench::SPECS);
        v.extend_from_slice(shoc::SPECS);
        v.extend_from_slice(tango::SPECS);
        v.extend_from_slice(mars::SPECS);
        v.extend_from_slice(heteromark::SPECS);
        v.extend_from_slice(amdapp::SPECS);
        v.extend_from_slice(cudasdk::SPECS);
        v.extend_from_slice(rodinia::SPECS);
        v.extend_from_slice(parboil::SPECS);
        v.extend_from_slice(mantevo::SPECS);
        v.extend_from_slice(&[
            micro::SINGLE,
            micro::STREAM,
            micro::RANDOM,
            micro::CHAIN,
            micro::CHASE,
        ]);
        v
    })
}
