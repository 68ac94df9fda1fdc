//! `locus trace stat`: what an Accel-Sim trace contains.

use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum TraceCmd {
    /// Kernels, shapes, instruction mix, bytes per data object, footprint, page sharing.
    Stat(StatArgs),
}

#[derive(Args)]
pub struct StatArgs {
    /// Trace folder or its kernelslist.g.
    pub path: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(c: TraceCmd) -> Result<()> {
    match c {
        TraceCmd::Stat(a) => crate::trace_stat::print(&a.path, a.json),
    }
}
