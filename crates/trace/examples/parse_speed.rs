//! Parse a trace folder N times and print the parse rate in MB/s of (decompressed) trace
//! text: `cargo run --release -p locus-trace --example parse_speed -- <folder> [N]`.

use locus_trace::{KernelList, KernelReader, TraceBlock};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/traces/vectoradd"
        )
        .into()
    }));
    let n: u32 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(20);
    let list = KernelList::open(&dir)?;
    let mut block = TraceBlock::default();
    let mut bytes = 0u64;
    let mut insts = 0u64;
    let t0 = Instant::now();
    for _ in 0..n {
        for k in list.kernels() {
            let mut r = KernelReader::open(k)?;
            while r.next_block(&mut block)? {
                insts += block.num_insts() as u64;
            }
            bytes += r.pos().offset;
        }
    }
    let s = t0.elapsed().as_secs_f64();
    println!(
        "{}: {n} passes, {:.1} MB parsed in {s:.3} s = {:.1} MB/s, {:.1} M inst/s",
        dir.display(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / s,
        insts as f64 / 1e6 / s
    );
    Ok(())
}
