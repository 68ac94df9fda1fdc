//! One module per subcommand.

pub mod analyze;
pub mod classify;
pub mod common;
pub mod lanes;
pub mod list;
pub mod mix;
pub mod model;
pub mod repro;
pub mod run;
pub mod trace;
pub mod validate;
pub mod validate_gpu;
