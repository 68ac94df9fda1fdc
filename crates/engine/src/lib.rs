//! The Locus discrete-event engine. It knows nothing of GPUs: picosecond time, clocks, a
//! deterministic event queue and bandwidth/latency ports. Everything above it (SMs, caches,
//! links, DRAM) is a state machine driven by events popped from [`EventQueue`].

pub mod port;
pub mod queue;
pub mod time;

pub use port::Port;
pub use queue::EventQueue;
pub use time::{Clock, Ps};
