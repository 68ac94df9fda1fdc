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
    use crate::model::{Host, Kernel, Merge, Thread};
    use crate::program::{Dim3, InstClass, KernelInfo, ObjId};

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
        run_merge(n, shift, boundary, branch, inner, Merge::Positional)
    }
    fn run_merge(
        n: u64,
        shift: bool,
        boundary: bool,
        branch: bool,
        inner: bool,
        merge: Merge,
    ) -> SplitReport {
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
        w.set_merge(merge);
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

    /// Under the reconverging merge (the default) the same synthetic kernels issue exactly
    /// the min-PC estimate and nothing is flagged; under the positional merge the shifted
    /// kernels issue more (the counts of the tests above).
    #[test]
    fn reconverging_merge_issues_the_estimate() {
        let n = 20;
        for (shift, inner) in [(true, false), (false, true)] {
            let pos = run_merge(n, shift, false, false, inner, Merge::Positional);
            let rec = run_merge(n, shift, false, false, inner, Merge::Reconverge);
            let (p, r) = (&pos.kernels[0].split, &rec.kernels[0].split);
            assert!(pos.flagged() && !rec.flagged());
            assert_eq!(p.issued, p.insts, "positional issues its alignment");
            assert_eq!(r.issued, r.converged, "reconverging issues the estimate");
            assert!(r.issued < p.issued);
            assert_eq!((r.shifted_warps, r.longest_run), (0, 0));
            // the diagnostic of the recorded streams is the same under both merges
            assert_eq!((r.insts, r.shifted), (p.insts, p.shifted));
        }
        // thread 0's extra store: the store, then the loop and the last store once
        let r = run_merge(n, true, false, false, false, Merge::Reconverge);
        assert_eq!(r.kernels[0].split.issued, 1 + 2 * (4 * n + 1));
    }

    /// The four kernels of [`Shapes`] (one warp of 32 lanes, `a[i] = 1`): their warp
    /// instructions as (class, lane count, mask of a memory instruction's lanes).
    #[derive(Clone, Copy, PartialEq)]
    enum Shape {
        /// lane `i` runs `i % 4 + 1` iterations of `LD a; FFMA; BRA`, then `ST`.
        Trips,
        /// 3 iterations of `LD a; if ((i + k) % 2 == 0) LD a; IADD`, then `ST`.
        IfInLoop,
        /// `if (i < 8) { FFMA; LD a } else { IADD }`, then `ST`.
        IfElse,
        /// `if (i < 16) { IADD; helper } else { helper; SFU }`, then `ST`; `helper` records a
        /// load from its own line (no `#[track_caller]`): one program counter for both
        /// calls, as a called (not inlined) function has.
        Helper,
    }
    struct Shapes {
        a: ObjId,
        shape: Shape,
    }
    fn helper(t: &mut Thread<'_>, a: ObjId) {
        let _: f32 = t.ld(a, t.gid());
    }
    impl Kernel for Shapes {
        fn info(&self) -> KernelInfo {
            KernelInfo {
                name: "shapes".into(),
                grid: Dim3::x(1),
                block: Dim3::x(32),
                regs_per_thread: 16,
                smem_per_block: 0,
            }
        }
        fn thread(&self, t: &mut Thread<'_>, _p: u32) {
            let i = t.gid();
            let a = self.a;
            match self.shape {
                Shape::Trips => {
                    for _ in 0..i % 4 + 1 {
                        let _: f32 = t.ld(a, i);
                        t.fp(1);
                        t.branch(1);
                    }
                }
                Shape::IfInLoop => {
                    for k in 0..3 {
                        let _: f32 = t.ld(a, i);
                        if (i + k).is_multiple_of(2) {
                            let _: f32 = t.ld(a, 31 - i);
                        }
                        t.alu(1);
                    }
                }
                Shape::IfElse => {
                    if i < 8 {
                        t.fp(1);
                        let _: f32 = t.ld(a, i);
                    } else {
                        t.alu(1);
                    }
                }
                Shape::Helper => {
                    if i < 16 {
                        t.alu(1);
                        helper(t, a);
                    } else {
                        helper(t, a);
                        t.sfu(1);
                    }
                }
            }
            t.st(a, i, 1.0f32);
        }
    }

    type Issued = Vec<(InstClass, u8, u32)>;

    fn issue(shape: Shape, merge: Merge) -> Issued {
        let mut m = Memory::new();
        let a = m.alloc_from::<f32>("a", &[0.0; 32], false);
        let mut w = ModelWorkload::new(
            "shapes",
            m,
            Box::new(Once(Some(Box::new(Shapes { a, shape })))),
        );
        w.set_merge(merge);
        let mut bp = BlockProgram {
            record_lanes: true,
            ..Default::default()
        };
        let mut l = w.next_launch().unwrap().unwrap();
        l.block(0, false, 128, &mut bp).unwrap();
        let wp = &bp.warps[0];
        let mut v: Issued = wp
            .insts
            .iter()
            .enumerate()
            .map(|(k, i)| {
                let mask = wp
                    .lanes_of(k)
                    .unwrap()
                    .iter()
                    .fold(0u32, |m, l| m | 1 << l.lane);
                (i.class, i.lanes, mask)
            })
            .collect();
        assert_eq!(v.pop().map(|x| x.0), Some(InstClass::Exit));
        v
    }

    use crate::program::InstClass::{Branch as B, Fp, Int, Load as L, Sfu, Store as S};

    /// lane `i` with `i % 4 == r`: the lanes of residue >= `r`.
    fn from_residue(r: u32) -> u32 {
        (0..32).filter(|i| i % 4 >= r).fold(0, |m, i| m | 1 << i)
    }

    /// Per-lane trip counts: each iteration `k` issues once for the lanes still in the loop
    /// (32, 24, 16, 8 lanes), then one store of all 32: 4 x 3 + 1 = 13 instructions. The
    /// positional merge splits the lanes that left against those still looping: positions 3,
    /// 6 and 9 issue `ST` (the lanes that left) beside `LD`: 16 instructions.
    #[test]
    fn per_lane_trip_counts_reconverge_after_the_loop() {
        let mut want: Issued = Vec::new();
        for r in 0..4 {
            let m = from_residue(r);
            let n = m.count_ones() as u8;
            want.extend([(L, n, m), (Fp, n, 0), (B, n, 0)]);
        }
        want.push((S, 32, u32::MAX));
        assert_eq!(issue(Shape::Trips, Merge::Reconverge), want);
        let pos = issue(Shape::Trips, Merge::Positional);
        assert_eq!(pos.len(), 16);
        assert_eq!(pos[3], (S, 8, from_residue(0) & !from_residue(1)));
        assert_eq!(pos[4], (L, 24, from_residue(1)));
    }

    /// An `if` without `else` inside a loop: every iteration issues `LD` (32 lanes), the
    /// `if` body's `LD` (the 16 lanes of one parity, alternating) and `IADD` (32): 3 x 3 + 1
    /// = 10 instructions. Positional: lanes that skipped the body run `IADD` and the next
    /// iteration's `LD` one position ahead, until they skip a body in turn: 14.
    #[test]
    fn if_without_else_in_a_loop_reconverges_each_iteration() {
        let even = 0x5555_5555u32;
        let mut want: Issued = Vec::new();
        for k in 0..3 {
            let body = if k % 2 == 0 { even } else { !even };
            want.extend([(L, 32, u32::MAX), (L, 16, body), (Int, 32, 0)]);
        }
        want.push((S, 32, u32::MAX));
        assert_eq!(issue(Shape::IfInLoop, Merge::Reconverge), want);
        // positional: even lanes `X Y Z X Z X Y Z S`, odd lanes `X Z X Y Z X Z S` (X, Y,
        // Z: the loop's load, the body's load, IADD): positions 1, 2, 3, 6 and 7 split
        let pos = issue(Shape::IfInLoop, Merge::Positional);
        assert_eq!(pos.len(), 14);
        let split: Vec<bool> = pos.iter().map(|x| x.1 == 16).collect();
        assert_eq!(split.iter().filter(|&&b| b).count(), 11);
    }

    /// `if`/`else`: the `if` path (earlier lines) issues first, then the `else` path, then
    /// the store with all lanes: 4 instructions. Positional: the `else` lanes' `ST` pairs
    /// with the `if` lanes' `LD`, and the `if` lanes' `ST` comes alone: 5.
    #[test]
    fn if_else_issues_both_paths_then_reconverges() {
        let low = 0xFFu32;
        assert_eq!(
            issue(Shape::IfElse, Merge::Reconverge),
            vec![(Fp, 8, 0), (L, 8, low), (Int, 24, 0), (S, 32, u32::MAX)]
        );
        assert_eq!(
            issue(Shape::IfElse, Merge::Positional),
            vec![
                (Fp, 8, 0),
                (Int, 24, 0),
                (L, 8, low),
                (S, 24, !low),
                (S, 8, low)
            ]
        );
    }

    /// A helper called from two places records one program counter (its own line, above
    /// the kernel): min-PC issues the `else` lanes' call first (smallest PC), then the `if`
    /// lanes' `IADD` and call, the `else` lanes' `SFU`, the store: 5 instructions; the two
    /// calls never merge, since the lanes reach them at different steps.
    #[test]
    fn helper_called_from_two_places() {
        let low = 0xFFFFu32;
        assert_eq!(
            issue(Shape::Helper, Merge::Reconverge),
            vec![
                (L, 16, !low),
                (Int, 16, 0),
                (L, 16, low),
                (Sfu, 16, 0),
                (S, 32, u32::MAX)
            ]
        );
    }

    /// Same seed, same program: two generations under each merge give identical warps.
    #[test]
    fn reconverging_merge_is_deterministic() {
        for shape in [Shape::Trips, Shape::IfInLoop, Shape::IfElse, Shape::Helper] {
            assert_eq!(
                issue(shape, Merge::Reconverge),
                issue(shape, Merge::Reconverge)
            );
        }
    }
}
