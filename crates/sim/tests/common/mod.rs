//! Helpers shared by the simulator's integration tests.
#![allow(dead_code)] // each test file uses a subset

use locus_dram::Channel;
use locus_sim::{preset, Config, Report};
use std::collections::BTreeMap;

/// Preset `preset_name` with `key=value` overrides.
pub fn cfg(preset_name: &str, sets: &[&str]) -> Config {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::load(Some(preset_name), None, &sets).unwrap()
}

/// Run built-in `workload` with `params` (seed 7) on `c`.
pub fn run(c: &Config, workload: &str, params: &[(&str, &str)]) -> Report {
    let p: BTreeMap<String, String> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut w = locus_workload::registry::build(workload, &p, 7).unwrap();
    locus_sim::simulate(c, &mut w).unwrap()
}

/// DRAM latency of one read arriving at `t` at a fresh channel.
pub fn dram_read(c: &Config, t: u64) -> u64 {
    let mut ch = Channel::new(&c.dram);
    ch.push(t, 0, 0, c.system.line_bytes, false);
    let mut done = Vec::new();
    let mut now = t;
    loop {
        if let Some(d) = done.first() {
            let d: &locus_dram::Completion = d;
            return d.time_ps - t;
        }
        match ch.tick(now, &mut done) {
            Some(n) => now = n,
            None if done.is_empty() => panic!("read never completed"),
            None => {}
        }
    }
}

/// A host that launches the given kernels in order, once each: the synthetic NUBA tests
/// (replication, migration, LAB) drive the simulator with hand-written kernels.
pub struct Seq(pub Vec<Box<dyn locus_workload::model::Kernel>>);
impl locus_workload::model::Host for Seq {
    fn next_kernel(
        &mut self,
        _m: &mut locus_workload::Memory,
    ) -> Option<Box<dyn locus_workload::model::Kernel>> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }
}

/// The NUBA page tests' kernel (nuba_migration.rs, nuba_replication.rs): pages of one
/// object, each read (or written) by one block only.
pub mod pages {
    use locus_workload::model::{Kernel, Thread};
    use locus_workload::{Dim3, KernelInfo, ObjId};

    /// 4 B elements per 4 KB page.
    pub const PAGE: u64 = 1024;
    /// Pages each block reads.
    pub const PAGES_PER_BLOCK: u64 = 2;
    /// Blocks of each kernel (4 per partition of the 8-partition machine).
    pub const BLOCKS: u64 = 32;

    /// `BLOCKS` blocks of 128 threads; block `b` reads its own `PAGES_PER_BLOCK` pages of
    /// `data` `reps` times, or (`write`) writes each of their words once.
    pub struct Pass {
        pub name: &'static str,
        pub reps: u64,
        pub write: bool,
        pub data: ObjId,
    }
    impl Kernel for Pass {
        fn info(&self) -> KernelInfo {
            KernelInfo {
                name: self.name.into(),
                grid: Dim3::x(BLOCKS as u32),
                block: Dim3::x(128),
                regs_per_thread: 16,
                smem_per_block: 0,
            }
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            let b = t.block_id();
            let l = t.local_id();
            let n = PAGES_PER_BLOCK * PAGE;
            let mut acc = 0u32;
            for _ in 0..self.reps {
                for i in (l..n).step_by(128) {
                    if self.write {
                        t.st::<u32>(self.data, b * n + i, 1);
                    } else {
                        acc = acc.wrapping_add(t.ld::<u32>(self.data, b * n + i));
                    }
                }
            }
            std::hint::black_box(acc);
        }
    }
}
