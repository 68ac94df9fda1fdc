//! Sectored L1 and L2 caches (`system.sector_bytes`, `l2.dram_fetch_bytes`): a miss
//! fetches the sectors a warp touched, not the whole line (NVIDIA's 32-byte sectors of a
//! 128-byte line). Closed forms on the micro-benchmarks.

mod common;
use common::{cfg, run};
use locus_sim::Report;

/// h100 (sectored: 32-byte sectors, 64-byte DRAM fetches) with `sets`, a machine small
/// enough to run in a test.
fn h100(sets: &[&str]) -> locus_sim::Config {
    let mut all = vec!["system.sms_per_node=16"];
    all.extend_from_slice(sets);
    cfg("h100", &all)
}

/// Whole lines, and sectors without a larger DRAM fetch, on h100.
const LINES: [&str; 2] = ["system.sector_bytes=0", "l2.dram_fetch_bytes=0"];
const SECTORS: [&str; 2] = ["system.sector_bytes=32", "l2.dram_fetch_bytes=0"];

fn conserved(r: &Report) {
    let k = &r.sim.total.counters;
    assert_eq!(k.reqs_created, k.reqs_retired, "every request completes");
    for l in &r.sim.links {
        assert_eq!(l.bytes_sent, l.bytes_received, "link {}", l.name);
    }
}

const RANDOM: [(&str, &str); 3] = [("n", "4M"), ("threads", "16k"), ("per_thread", "2")];

/// Each lane of `random` reads 4 bytes of a random line: a sectored miss reads one sector
/// (32 bytes) or, with a 64-byte DRAM fetch, one aligned pair, where whole lines read 128
/// (a read is wider only where two lanes of a warp share a line: rare over 16 MB).
#[test]
fn a_scattered_read_fetches_its_sector_not_its_line() {
    let lines = run(&h100(&LINES), "random", &RANDOM);
    let s32 = run(&h100(&SECTORS), "random", &RANDOM);
    let f64 = run(&h100(&[]), "random", &RANDOM);
    for r in [&lines, &s32, &f64] {
        conserved(r);
    }
    let (l, s, f) = (
        &lines.sim.total.counters,
        &s32.sim.total.counters,
        &f64.sim.total.counters,
    );
    assert_eq!(l.dram_read_bytes, 128 * l.dram_reads, "whole lines");
    let rare = |bytes: u64, reads: u64, unit: u64| {
        assert_eq!(bytes % unit, 0, "whole {unit}-byte blocks");
        assert!(
            bytes >= unit * reads && bytes * 1000 < 1001 * unit * reads,
            "{bytes} bytes in {reads} reads of {unit}"
        );
    };
    rare(s.dram_read_bytes, s.dram_reads, 32);
    rare(f.dram_read_bytes, f.dram_reads, 64);
    // another lane's sector of a line already fetched is a hit with whole lines only
    assert!(s.dram_reads >= l.dram_reads && f.dram_reads >= l.dram_reads);
    assert!(
        f.dram_reads <= s.dram_reads,
        "a fetched pair serves its other sector"
    );
    assert!(
        4 * s.dram_read_bytes < 2 * l.dram_read_bytes,
        "sectors read {} bytes, lines {}",
        s.dram_read_bytes,
        l.dram_read_bytes
    );
}

/// A coalesced stream touches every sector of every line: sectored caches then move
/// exactly what whole lines do, request for request and cycle for cycle.
#[test]
fn a_stream_touching_whole_lines_is_unchanged_by_sectors() {
    let p = [("n", "1M")];
    let lines = run(&h100(&LINES), "stream", &p);
    let sect = run(&h100(&[]), "stream", &p);
    conserved(&sect);
    let (l, s) = (&lines.sim.total.counters, &sect.sim.total.counters);
    assert_eq!(s.dram_reads, l.dram_reads);
    assert_eq!(s.dram_read_bytes, l.dram_read_bytes);
    assert_eq!(s.l2_misses, l.l2_misses);
    assert_eq!(sect.sim.total.cycles, lines.sim.total.cycles);
}

/// Write-backs carry their dirty sectors: `vectoradd` writes every sector of C, so with
/// an L2 too small to keep C each DRAM write is a whole line's 128 bytes (a partly dirty
/// line's write-back: `SetAssoc`'s unit test).
#[test]
fn write_backs_carry_the_dirty_sectors() {
    let p = [("n", "1M")];
    let small = ["l2.bytes_per_node=1310720", "l2.ways=16"];
    let mut a = small.to_vec();
    a.extend(SECTORS);
    let s = run(&h100(&a), "vectoradd", &p);
    conserved(&s);
    let k = &s.sim.total.counters;
    assert!(k.dram_writes > 0, "C does not fit: lines are written back");
    assert_eq!(
        k.dram_write_bytes,
        128 * k.dram_writes,
        "every sector of C is written"
    );
}

/// Bad sector settings are refused before the run, naming the key and the fix.
#[test]
fn bad_sector_settings_are_refused() {
    let load = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        locus_sim::preset::load(Some("h100"), None, &sets)
    };
    for (sets, key) in [
        (&["system.sector_bytes=48"][..], "system.sector_bytes = 48"),
        (&["system.sector_bytes=16"][..], "system.sector_bytes = 16"),
        (
            &["system.sector_bytes=256"][..],
            "system.sector_bytes = 256",
        ),
        (
            &["system.sector_bytes=0", "l2.dram_fetch_bytes=64"][..],
            "l2.dram_fetch_bytes = 64",
        ),
        (
            &["system.sector_bytes=64", "l2.dram_fetch_bytes=32"][..],
            "l2.dram_fetch_bytes = 32",
        ),
        (
            &["system.sector_bytes=32", "l2.organisation=home-side"][..],
            "set system.sector_bytes = 0",
        ),
    ] {
        let e = load(sets).expect_err(key).to_string();
        assert!(e.contains(key), "{sets:?}: {e}");
    }
    assert!(load(&["system.sector_bytes=32", "l2.dram_fetch_bytes=128"]).is_ok());
    let h = load(&[]).unwrap();
    assert_eq!(
        (h.system.sector_bytes, h.l2.dram_fetch_bytes),
        (32, 64),
        "h100's [SECT]"
    );
}

/// Warps that touch different sectors of one line at nearly the same time (matrixMul's
/// 16-float tile rows, half a line each; SpMV's gathers) read each sector once: a miss the
/// outstanding fill does not cover reads only the rest and merges the line's entry, so
/// the sectored machine never reads more DRAM bytes than whole lines (an earlier version
/// sent such misses alone, and the next miss on the same sectors read them again: 1.9x on
/// matrixMul).
#[test]
fn concurrent_misses_on_other_sectors_read_each_sector_once() {
    for (w, p) in [
        ("matmul", &[("m", "128"), ("k", "128"), ("n", "256")][..]),
        ("shoc-spmv", &[("iterations", "2")][..]),
        (
            "convsep",
            &[("width", "384"), ("height", "256"), ("iterations", "1")][..],
        ),
    ] {
        let lines = run(&h100(&LINES), w, p);
        let sect = run(&h100(&[]), w, p);
        conserved(&sect);
        let (l, s) = (&lines.sim.total.counters, &sect.sim.total.counters);
        assert!(
            s.dram_read_bytes <= l.dram_read_bytes,
            "{w}: sectors read {} bytes, whole lines {}",
            s.dram_read_bytes,
            l.dram_read_bytes
        );
        assert!(s.dram_read_bytes > 0, "{w}");
    }
}
