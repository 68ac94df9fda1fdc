//! Issue 8: kernel models whose warps never reconverge. [`lane_split`] runs a kernel-model
//! workload (every block of every launch, as the simulator generates them) and measures per
//! kernel how the lanes' operation streams align in the warp instructions the model forms
//! ([`LaneSplit`]): the fraction of warp instructions with a partial mask (any divergence)
//! and of *shifted* ones, issued at different positions by different lanes of one warp, the
//! mark of a lane whose stream lost its alignment with its neighbours. A real GPU's SIMT
//! stack reconverges at a branch's immediate post-dominator, so a shifted run of code the
//! lanes share is a defect of the model (the scalarProd defect that `locus validate gpu`
//! found: thread 0's extra store at the start of a shared phase split every later
//! instruction of warp 0 in two).
//!
//! `locus analyze lanes` prints it (`--all --markdown`: docs/reconvergence.md).

use crate::model::ModelWorkload;
pub use crate::model::{LaneSplit, SHIFT_RUN, SHIFT_WINDOW};
use crate::program::{BlockProgram, Workload, WorkloadError};
use serde::Serialize;

/// One kernel's alignment: launches of the same name merged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelSplit {
    pub name: String,
    pub launches: u64,
    pub split: LaneSplit,
}

impl KernelSplit {
    /// The never-reconverging signature: a warp with [`SHIFT_RUN`] consecutive shifted
    /// positions.
    pub fn flagged(&self) -> bool {
        self.split.shifted_warps > 0
    }
}

/// A workload's alignment: one row per distinct kernel name, in order of first launch.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SplitReport {
    pub workload: String,
    pub kernels: Vec<KernelSplit>,
    pub total: LaneSplit,
}

impl SplitReport {
    /// Any kernel flagged ([`KernelSplit::flagged`]).
    pub fn flagged(&self) -> bool {
        self.kernels.iter().any(KernelSplit::flagged)
    }
}

/// Generate every block of at most `max_launches` launches of `w` and measure how its
/// warps' lanes align.
pub fn lane_split(
    w: &mut ModelWorkload,
    line_bytes: u32,
    max_launches: usize,
) -> Result<SplitReport, WorkloadError> {
    let mut rep = SplitReport {
        workload: w.name().to_string(),
        ..SplitReport::default()
    };
    let mut bp = BlockProgram::default();
    for _ in 0..max_launches {
        let Some(info) = w.begin_launch()? else { break };
        let mut k = KernelSplit {
            name: info.name.clone(),
            launches: 1,
            ..KernelSplit::default()
        };
        for b in 0..info.num_blocks() {
            w.gen_block_split(b, line_bytes, &mut bp, &mut k.split)?;
        }
        rep.total.merge(&k.split);
        match rep.kernels.iter_mut().find(|x| x.name == k.name) {
            Some(x) => {
                x.launches += 1;
                x.split.merge(&k.split);
            }
            None => rep.kernels.push(k),
        }
    }
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Memory;
    use crate::model::{Host, Kernel, Thread};
    use crate::program::{Dim3, KernelInfo, ObjId};

    /// One block of 64 threads: `n` iterations of a loop every thread runs (`LD; FFMA; IADD;
    /// BRA`, four call sites), then a store of its sum. `shift`: thread 0 first does one extra store (the
    /// scalarProd defect). `boundary`: threads >= 40 do nothing (`if (i < 40)`). `branch`:
    /// odd threads take an `else` of the same length as the `if`. `inner`: thread 0 runs one
    /// more instruction in the loop's first iteration (an `if` without `else` inside it).
    struct Synth {
        a: ObjId,
        c: ObjId,
        n: u64,
        shift: bool,
        boundary: bool,
        branch: bool,
        inner: bool,
    }
    impl Kernel for Synth {
        fn info(&self) -> KernelInfo {
            KernelInfo {
                name: "synth".into(),
                grid: Dim3::x(1),
                block: Dim3::x(64),
                regs_per_thread: 16,
                smem_per_block: 0,
            }
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            let i = t.gid();
            if self.boundary && i >= 40 {
                return;
            }
            if self.shift && i == 0 {
                t.st(self.c, 64, 1.0f32);
            }
            if self.branch {
                if i.is_multiple_of(2) {
                    t.alu(2);
                } else {
                    t.fp(2);
                }
            }
            let mut sum = 0.0f32;
            for k in 0..self.n {
                let x: f32 = t.ld(self.a, k * 64 + i);
                t.fp(1);
                if self.inner && i == 0 && k == 0 {
                    t.sfu(1);
                }
                sum += x;
                t.alu(1);
                t.branch(1);
            }
            t.st(self.c, i, sum);
        }
    }
    struct Once(Option<Box<dyn Kernel>>);
    impl Host for Once {
        fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
            self.0.take()
        }
    }
    fn run(n: u64, shift: bool, boundary: bool, branch: bool) -> SplitReport {
        run_inner(n, shift, boundary, branch, false)
    }
    fn run_inner(n: u64, shift: bool, boundary: bool, branch: bool, inner: bool) -> SplitReport {
        let mut m = Memory::new();
        let a = m.alloc_from::<f32>("a", &vec![1.0; (64 * n) as usize], true);
        let c = m.alloc::<f32>("c", 65, false);
        let k = Synth {
            a,
            c,
            n,
            shift,
            boundary,
            branch,
            inner,
        };
        let mut w = ModelWorkload::new("synth", m, Box::new(Once(Some(Box::new(k)))));
        lane_split(&mut w, 128, 10).unwrap()
    }

    /// Aligned: 2 warps x (4 n + 1) instructions, none partial or shifted.
    #[test]
    fn aligned_warps_have_no_split() {
        let n = 20;
        let r = run(n, false, false, false);
        let s = &r.kernels[0].split;
        assert_eq!(
            (s.warps, s.insts, s.partial, s.shifted),
            (2, 2 * (4 * n + 1), 0, 0)
        );
        assert_eq!(s.converged, s.insts);
        assert!(!r.flagged());
    }

    /// Thread 0's extra store shifts lane 0 by one position: warp 0 issues the extra store
    /// and then every instruction twice (lanes 1..31, lane 0 one position later),
    /// `1 + 2 (4 n + 1)`, all partial. Shifted: at position 0 the loop's first load (lane 0 runs it at
    /// position 1), at positions 1 ..= 4 n both instructions; not the extra store (no other
    /// lane runs it) nor lane 0's last store (alone at its position). Warp 1 is untouched.
    #[test]
    fn lane_zero_shift_is_detected() {
        let n = 20;
        let r = run(n, true, false, false);
        let s = &r.kernels[0].split;
        let w0 = 1 + 2 * (4 * n + 1);
        assert_eq!(s.insts, w0 + (4 * n + 1));
        assert_eq!(s.partial, w0, "every instruction of warp 0 is partial");
        assert_eq!(s.shifted, 1 + 2 * 4 * n);
        assert_eq!(s.shifted_warps, 1);
        // reconverged (min-PC): the store, then the 31 lanes' stream once
        assert_eq!(s.converged, 1 + 2 * (4 * n + 1));
        assert_eq!(s.longest_run, 4 * n + 1);
        // the run starts at the loop's load (its line found in this file's text)
        let load = include_str!("reconverge.rs")
            .lines()
            .position(|l| l.contains("t.ld(self.a, k * 64 + i)"))
            .unwrap()
            + 1;
        assert!(
            s.longest_at.ends_with(&format!("reconverge.rs:{load}:32")),
            "{}",
            s.longest_at
        );
        assert!(r.flagged());
        // a short shared loop leaves a run below SHIFT_RUN: not flagged
        let short = run(3, true, false, false);
        assert_eq!(short.kernels[0].split.longest_run, 13);
        assert!(!short.flagged());
    }

    /// Boundary threads (`if (i < 40)`): warp 1 runs 8 lanes, every instruction partial,
    /// nothing shifted.
    #[test]
    fn boundary_divergence_is_not_flagged() {
        let n = 20;
        let r = run(n, false, true, false);
        let s = &r.kernels[0].split;
        assert_eq!(s.insts, 2 * (4 * n + 1));
        assert_eq!(s.partial, 4 * n + 1);
        assert_eq!((s.shifted, s.shifted_warps), (0, 0));
        assert_eq!(s.converged, s.insts);
        assert!(!r.flagged());
    }

    /// An `if`/`else` of equal length: two partial instructions per position of the
    /// branch, aligned again after it.
    #[test]
    fn if_else_divergence_is_not_flagged() {
        let n = 20;
        let r = run(n, false, false, true);
        let s = &r.kernels[0].split;
        assert_eq!(s.insts, 2 * (2 * 2 + 4 * n + 1));
        assert_eq!(s.partial, 2 * 4);
        assert_eq!((s.shifted, s.shifted_warps), (0, 0));
        assert_eq!(s.converged, s.insts);
        assert!(!r.flagged());
    }

    /// Thread 0's extra instruction inside the loop's first iteration (an `if` without
    /// `else`): the model never reconverges after it, so lane 0 runs one position behind for
    /// the rest of the loop (flagged) while a reconverging execution issues the loop once plus
    /// the one instruction: warp 0 issues `4 n + 2` reconverged against `1 + 2 (4 n + 1) - 2`
    /// aligned position by position (the loop's first two positions are shared).
    #[test]
    fn if_inside_a_loop_is_flagged_and_reconverges() {
        let n = 20;
        let r = run_inner(n, false, false, false, true);
        let s = &r.kernels[0].split;
        assert!(r.flagged());
        assert_eq!(s.converged, (4 * n + 2) + (4 * n + 1));
        assert_eq!(s.insts, (2 + 2 * (4 * n - 1) + 1) + (4 * n + 1));
    }
}
