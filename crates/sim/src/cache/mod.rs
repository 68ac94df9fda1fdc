//! Caches: a set-associative LRU tag store shared by the L1 and L2 models, and miss-status
//! holding registers (MSHRs) that merge misses to the same line.

pub mod mshr;
pub mod set_assoc;

pub use mshr::Mshrs;
pub use set_assoc::{Evicted, SetAssoc};
