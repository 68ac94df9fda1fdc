//! Helpers shared by the dense benchmarks: launch descriptions, closure-driven hosts and
//! per-thread registers that survive `__syncthreads()` phases.

use crate::memory::Memory;
use crate::model::{Host, Kernel, Thread};
use crate::program::{Dim3, KernelInfo, WorkloadError};
use std::sync::Mutex;

/// A [`KernelInfo`] from its parts.
pub(crate) fn kinfo(name: &str, grid: Dim3, block: Dim3, regs: u32, smem: u32) -> KernelInfo {
    KernelInfo {
        name: name.to_string(),
        grid,
        block,
        regs_per_thread: regs,
        smem_per_block: smem,
    }
}

/// A host program written as a closure over its own state: called once per launch, it may
/// update memory the way the public host code does between kernels and returns the next
/// kernel (or `None` at the end).
pub(crate) struct FnHost<F>(pub F);

impl<F> Host for FnHost<F>
where
    F: FnMut(&mut Memory) -> Option<Box<dyn Kernel>> + Send,
{
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        (self.0)(mem)
    }
}

/// Box a closure host.
pub(crate) fn host<F>(f: F) -> Box<dyn Host>
where
    F: FnMut(&mut Memory) -> Option<Box<dyn Kernel>> + Send + 'static,
{
    Box::new(FnHost(f))
}

/// A fixed launch sequence (no data-dependent host control).
pub(crate) fn seq(kernels: Vec<Box<dyn Kernel>>) -> Box<dyn Host> {
    let mut it = kernels.into_iter();
    host(move |_m| it.next())
}

/// Per-thread registers of one thread block that live across barrier phases (the kernel
/// trait runs each phase of a thread separately, so values a CUDA thread keeps in registers
/// across `__syncthreads()` are kept here, indexed by local thread id and slot).
pub(crate) struct Regs {
    slots: usize,
    v: Mutex<Vec<f32>>,
}

impl Regs {
    /// Registers for `threads` threads with `slots` values each.
    pub(crate) fn new(threads: usize, slots: usize) -> Self {
        Regs {
            slots,
            v: Mutex::new(vec![0.0; threads * slots]),
        }
    }
    /// Value of `slot` of thread `local`.
    pub(crate) fn get(&self, local: u64, slot: usize) -> f32 {
        self.v.lock().unwrap()[local as usize * self.slots + slot]
    }
    /// Set `slot` of thread `local`.
    pub(crate) fn set(&self, local: u64, slot: usize, x: f32) {
        self.v.lock().unwrap()[local as usize * self.slots + slot] = x;
    }
}

/// A parameter-validation error.
pub(crate) fn bad(msg: String) -> WorkloadError {
    WorkloadError::Msg(msg)
}

/// The per-thread SASS counts of the dense models (issue 7 §1) record everything but the
/// `BAR` between phases and the final `EXIT`, which the warp merger adds itself.
///
/// Entry of a compiled kernel (sm_70+ SASS, counting rules of issue 7 §1): `MOV R1,
/// c[0x0][0x28]` (the stack pointer every kernel loads), one `S2R` per special register read
/// (`sregs`), `ints` further integer instructions forming the index (`IMAD`, `ULDC` of a
/// parameter), the bound test `ISETP` and its predicated `EXIT`: `2 + sregs + ints`
/// instructions, one of them a branch. Kernels without a bound test pass their count through
/// [`entry`].
#[track_caller]
pub(crate) fn prologue(t: &mut Thread<'_>, sregs: u32, ints: u32) {
    t.alu(2 + sregs + ints);
    t.branch(1);
}

/// Entry of a compiled kernel without a bound test: `MOV R1, c[0x0][0x28]`, `sregs` `S2R`
/// and `ints` index instructions (`IMAD`, `ULDC`, `LEA`).
#[track_caller]
pub(crate) fn entry(t: &mut Thread<'_>, sregs: u32, ints: u32) {
    t.alu(1 + sregs + ints);
}

/// Control of one iteration of a loop nvcc does not fully unroll: the induction update and
/// the compare (`IADD3`, `ISETP`) and the back-edge `BRA`: 2 int + 1 branch.
#[track_caller]
pub(crate) fn loop_step(t: &mut Thread<'_>) {
    t.alu(2);
    t.branch(1);
}

/// The `loops` parameter of models whose loops nvcc unrolls (scalarprod, km and its
/// `invert_mapping`, kmeans-transpose): `unrolled` (the default: the compiled schedule,
/// nvcc 13 for sm_90, validation/gpu/h200/sass.txt, loads hoisted ahead of their uses
/// where the kernel allows) or `rolled` (every such loop one iteration at a time, as the
/// models were written before they followed the SASS: the loop body as the NDP compiler
/// pass marks it, one offload block per iteration, spec ndp.md §3.3; `locus repro ndp`
/// runs km and scalarprod rolled in every variant, its Baseline included, so that all of
/// them run the same code). While offload markers are recorded a marked loop is rolled
/// whatever this says. `true` for rolled.
pub(crate) fn rolled_loops(p: &crate::registry::Params, name: &str) -> Result<bool, WorkloadError> {
    match p.str("loops", "unrolled").as_str() {
        "unrolled" => Ok(false),
        "rolled" => Ok(true),
        o => Err(bad(format!(
            "{name}: loops={o}: use unrolled (nvcc's schedule, the default) or rolled (one iteration at a time, as NDP's offload blocks)"
        ))),
    }
}

/// [`crate::registry::ParamSpec`] of the `loops` parameter ([`rolled_loops`]).
pub(crate) const LOOPS_PARAM: crate::registry::ParamSpec = crate::registry::ParamSpec {
    name: "loops",
    default: "unrolled",
    help: "unrolled (nvcc's schedule: loads hoisted ahead of their uses) | rolled (every loop one iteration at a time, as NDP's per-iteration offload blocks; a marked loop is always so while offload markers are recorded)",
};

/// How nvcc 13 (sm_90) runs the unrolled part of a loop it unrolls by 4 with wider
/// bodies (scalarProdGPU's element loop, invert_mapping's feature loop in
/// validation/gpu/h200/sass.txt): of `left` iterations (a multiple of 4, the remainder
/// run apart), chunks of 16 while more than 12 remain, one chunk of 8 if more than 4
/// remain, then chunks of 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unrolled {
    pub sixteens: u64,
    pub eight: bool,
    pub fours: u64,
}

impl Unrolled {
    /// The chunks of `left` iterations.
    pub(crate) fn of(left: u64) -> Unrolled {
        let sixteens = if left > 12 {
            (left - 12).div_ceil(16)
        } else {
            0
        };
        let rest = left - 16 * sixteens;
        let eight = rest > 4;
        let rest = if eight { rest - 8 } else { rest };
        Unrolled {
            sixteens,
            eight,
            fours: rest / 4,
        }
    }
}
