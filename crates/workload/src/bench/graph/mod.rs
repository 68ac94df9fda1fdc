//! GraphBIG-style graph benchmarks (CSR, one thread per vertex or edge, 1024-thread blocks).

use crate::registry::BenchSpec;

/// The graph benchmarks.
pub const SPECS: &[BenchSpec] = &[];
