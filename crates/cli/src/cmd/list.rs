//! `locus presets` and `locus workloads`.

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct PresetsArgs {
    /// Print the full TOML of this preset.
    #[arg(long)]
    pub show: Option<String>,
}

pub fn presets(a: PresetsArgs) -> Result<()> {
    if let Some(name) = a.show {
        let p = locus_sim::preset::find(&name)?;
        print!("{}", p.toml);
        return Ok(());
    }
    println!("{:<18} description", "preset");
    for p in locus_sim::preset::PRESETS {
        println!("{:<18} {}", p.name, p.about);
    }
    println!("\nuse: locus run --preset NAME; see one with: locus presets --show NAME");
    Ok(())
}

#[derive(Args)]
pub struct WorkloadsArgs {
    /// Show the parameters of every workload.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

pub fn workloads(a: WorkloadsArgs) -> Result<()> {
    println!(
        "{:<18} {:<14} {:<16} about",
        "workload", "suite", "CODA category"
    );
    for b in locus_workload::registry::all() {
        println!(
            "{:<18} {:<14} {:<16} {}",
            b.name, b.suite, b.category, b.about
        );
        if a.verbose {
            for p in b.params {
                println!("{:<20}--param {}={:<10} {}", "", p.name, p.default, p.help);
            }
        }
    }
    println!("\nuse: locus run --workload NAME [--param NAME=VALUE]; -v lists parameters");
    Ok(())
}
