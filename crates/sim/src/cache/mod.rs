//! Caches: a set-associative LRU tag store shared by the L1 and L2 models, and miss-status
//! holding registers (MSHRs) that merge misses to the same line.

pub mod mshr;
pub mod sectors;
pub mod set_assoc;

pub use mshr::{Mshrs, SectorAdd};
pub use sectors::SectorGeom;
pub use set_assoc::{Evicted, SetAssoc};
