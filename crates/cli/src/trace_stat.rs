//! Rendering of `locus trace stat` (the numbers come from `locus_trace::stat`).

use anyhow::Result;
use std::path::Path;

/// Print the statistics of the trace at `path` as a table or JSON.
pub fn print(path: &Path, json: bool) -> Result<()> {
    let s = locus_trace::stat::stat(path)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&s)?);
        return Ok(());
    }
    println!("trace {}", s.path);
    println!("  data objects (MemcpyHtoD):");
    for o in &s.objects {
        println!("    {:<8} base {:#x} {} bytes", o.name, o.base, o.bytes);
    }
    for k in &s.kernels {
        let c = &k.counts;
        println!(
            "  kernel {} {} grid ({},{},{}) block ({},{},{}) shmem {} nregs {} sm_{} ({}) tracer v{}",
            k.id,
            k.name,
            k.grid[0],
            k.grid[1],
            k.grid[2],
            k.block[0],
            k.block[1],
            k.block[2],
            k.shmem,
            k.nregs,
            k.binary_version.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
            k.generation,
            k.tracer_version
        );
        println!(
            "    {} blocks, {} warps, {} instructions, {} memory ({} thread addresses), footprint {} lines / {} pages",
            c.thread_blocks, c.warps, c.instructions, c.mem_instructions, c.thread_addresses, c.lines_128b, c.pages_4k
        );
        let mix: Vec<String> = c.by_class.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("    mix: {}", mix.join(", "));
        let sp: Vec<String> = c.by_space.iter().map(|(k, v)| format!("{k} {v}")).collect();
        if !sp.is_empty() {
            println!("    memory spaces: {}", sp.join(", "));
        }
        let ob: Vec<String> = c
            .bytes_by_object
            .iter()
            .filter(|o| o.bytes > 0)
            .map(|o| format!("{} {} B", o.name, o.bytes))
            .collect();
        if !ob.is_empty() {
            println!("    bytes by object: {}", ob.join(", "));
        }
        let sh: Vec<String> = k
            .page_sharing
            .iter()
            .map(|b| format!("{}:{}", b.blocks, b.pages))
            .collect();
        println!("    pages by thread blocks: {}", sh.join(" "));
        for w in &k.warnings {
            println!("    warning: {w}");
        }
    }
    let t = &s.totals;
    println!(
        "  total: {} kernels, {} blocks, {} warps, {} instructions, {} memory instructions",
        s.kernels.len(),
        t.thread_blocks,
        t.warps,
        t.instructions,
        t.mem_instructions
    );
    for w in &s.warnings {
        println!("  warning: {w}");
    }
    Ok(())
}
