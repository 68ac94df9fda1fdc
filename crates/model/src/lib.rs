//! `locus-model`: the HMS analytical placement model (Huang & Li, "Performance Modeling for
//! Optimal Data Placement on GPU with Heterogeneous Memory Systems"; spec
//! `hms-placement-model.md`). From one profiled *sample* placement of a kernel it predicts
//! the kernel's time under any *target* placement of its arrays over global, 1-D / 2-D
//! texture, constant and shared memory, `T = T_comp + T_mem - T_overlap` (spec §3.1, Eq. 1),
//! and ranks the legal placements (spec §4).
//!
//! Modules, in the order of the spec:
//! - [`space`]: the five memory components and their properties (spec §2.2);
//! - [`profile`]: the model's input, a [`profile::Profile`] per kernel (instruction counts,
//!   the warp-level access stream in one global order, the measured sample, spec §3.7);
//! - [`cache`]: set-associative LRU caches (texture, constant, L2; spec §3.6 step 4);
//! - [`memsim`]: trace rewriting (§3.5) and the memory-system pass that counts replays of
//!   causes (1)-(4) (§3.2.4), addressing instructions (§3.2.3), cache events and the
//!   post-L2 DRAM stream;
//! - [`dram`]: address mapping, Algorithm 1 (§3.3.3), the row-buffer FSM, Kingman's G/G/1
//!   delay and the bank-weighted DRAM latency (Eqs. 6-10);
//! - [`model`]: Eqs. 1-5 and 11-19 with Sim et al.'s terms, every ablation as a flag (§6.4);
//! - [`train`]: the T_overlap regression (Eq. 11) and Table IV's training / test sets (§5.3);
//! - [`search`]: enumerate legal placements, predict, rank (§4).

#![warn(missing_docs)]

pub mod cache;
pub mod dram;
pub mod memsim;
pub mod model;
pub mod profile;
pub mod search;
pub mod space;
pub mod train;

pub use model::{predict, Flags, Hw, Prediction};
pub use profile::Profile;
pub use space::Place;
