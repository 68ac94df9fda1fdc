//! `locus-dram`: an event-driven model of one HBM2 channel for the Locus multi-GPU
//! simulator (coda spec §2.3; JEDEC JESD235 HBM2, legacy mode).
//!
//! The simulator instantiates one [`Channel`] per HBM channel, pushes line requests with
//! channel-local addresses, and calls [`Channel::tick`] after every push and at the times it
//! returns. Time is in picoseconds. Banks, row buffers, FR-FCFS/FCFS scheduling, open or
//! closed pages, refresh and all major JEDEC timing rules are modelled; see [`channel`] for
//! the model and [`config`] for the parameters and the address mapping.
//!
//! With the `dramsim3` feature, `validate::cross_check` runs the same traffic through
//! DRAMsim3 configured identically (`configs/hbm2_locus.ini`) and compares bandwidth and
//! latency.

#![warn(missing_docs)]

pub mod channel;
pub mod config;
pub mod stats;
pub mod validate;

#[cfg(test)]
mod tests;

pub use channel::{Channel, CommandKind, CommandRecord, Completion, DramAddress};
pub use config::{peak_bandwidth_gbs, DramConfig, PagePolicy, Scheduler};
pub use stats::ChannelStats;
