//! Helpers shared by the SHOC models: launch descriptions, closure-driven hosts, the memory
//! space of a placeable input array (HMS §5.3 moves arrays between spaces) and the SASS
//! counting helpers of the model rules (docs/workloads.md).

use crate::memory::{Elem, Memory};
use crate::model::{Host, Kernel, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::Params;

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
/// update memory the way SHOC's host code does between kernels and returns the next kernel
/// (or `None` at the end).
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

/// A parameter-validation error.
pub(crate) fn bad(msg: String) -> WorkloadError {
    WorkloadError::Msg(msg)
}

/// Memory space an input array is read through. SHOC's default placement of each array is
/// the model's default; a `<array>_space` parameter moves a read-only input the way the HMS
/// placement tests do (hms-placement-model.md §5.3, Table IV): `global` (`LDG`, its address
/// formed by an `IMAD.WIDE`), `texture` (`tex1Dfetch` on a 1-D texture bound to the array:
/// the element index is the operand, no address arithmetic) or `constant` (`__constant__`
/// copy of the array: one `IADD`/`LEA` for the byte offset). HMS §6.2: addressing
/// instructions per 1-D float element G 2, T 0, C 1 on Kepler; on the sm_70+ counting of
/// these models a global element costs one `IMAD.WIDE`, so G 1, T 0, C 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// `LDG` through L1/L2.
    Global,
    /// `TEX`/`LDG.CONSTANT` through the texture / read-only path.
    Texture,
    /// `LDC` from the constant cache.
    Constant,
}

impl MemSpace {
    /// The `key` parameter (`global`, `texture` or `constant`), `default` when absent;
    /// `allowed` lists the spaces this array may take (HMS §7 item 28: constant only for
    /// small read-only arrays, texture only for read-only ones).
    pub(crate) fn param(
        p: &Params,
        key: &str,
        default: MemSpace,
        allowed: &[MemSpace],
    ) -> Result<MemSpace, WorkloadError> {
        let s = p.str(key, default.name());
        let sp = match s.as_str() {
            "global" => MemSpace::Global,
            "texture" => MemSpace::Texture,
            "constant" => MemSpace::Constant,
            _ => {
                return Err(bad(format!(
                    "parameter `{key}` = `{s}`: expected one of {}",
                    names(allowed)
                )))
            }
        };
        if !allowed.contains(&sp) {
            return Err(bad(format!(
                "parameter `{key}` = `{s}`: this array may be placed in {} only",
                names(allowed)
            )));
        }
        Ok(sp)
    }
    /// The parameter spelling.
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Texture => "texture",
            MemSpace::Constant => "constant",
        }
    }
    /// Address instructions one element access costs in this space (see the type doc).
    pub fn addr_insts(self) -> u32 {
        match self {
            MemSpace::Global | MemSpace::Constant => 1,
            MemSpace::Texture => 0,
        }
    }
}

fn names(v: &[MemSpace]) -> String {
    v.iter()
        .map(|s| format!("`{}`", s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Load element `idx` of `o` through `sp`, without its address arithmetic (recorded at the
/// caller's site, so every call site stays one instruction).
#[track_caller]
#[inline]
pub(crate) fn ld_in<T: Elem>(t: &mut Thread<'_>, sp: MemSpace, o: ObjId, idx: u64) -> T {
    match sp {
        MemSpace::Global => t.ld(o, idx),
        MemSpace::Texture => t.ld_tex(o, idx),
        MemSpace::Constant => t.ld_const(o, idx),
    }
}

/// The address arithmetic and load of element `idx` of `o` through `sp`
/// ([`MemSpace::addr_insts`] int instructions, then the load).
#[track_caller]
#[inline]
pub(crate) fn addr_ld<T: Elem>(t: &mut Thread<'_>, sp: MemSpace, o: ObjId, idx: u64) -> T {
    t.alu(sp.addr_insts());
    ld_in(t, sp, o, idx)
}

/// Entry of a compiled kernel (sm_70+ SASS, issue 7 §1 counting): `MOV R1, c[0x0][0x28]`,
/// one `S2R` per special register read (`sregs`), `ints` index instructions; with `bound`
/// the `ISETP` and predicated `EXIT` of a bound test follow (1 int + 1 branch).
#[track_caller]
pub(crate) fn entry(t: &mut Thread<'_>, sregs: u32, ints: u32, bound: bool) {
    t.alu(1 + sregs + ints + bound as u32);
    if bound {
        t.branch(1);
    }
}

/// Control of one iteration of a loop nvcc does not fully unroll: the induction update and
/// the compare (`IADD3`, `ISETP`) and the back-edge `BRA`: 2 int + 1 branch.
#[track_caller]
pub(crate) fn loop_step(t: &mut Thread<'_>) {
    t.alu(2);
    t.branch(1);
}

/// Per-thread values of one block kept across `__syncthreads()` phases (a CUDA thread keeps
/// them in registers; the model runs each phase of a thread separately).
pub(crate) struct Regs<T: Copy + Default> {
    slots: usize,
    v: std::sync::Mutex<Vec<T>>,
}

impl<T: Copy + Default> Regs<T> {
    /// `slots` values for each of `threads` threads.
    pub(crate) fn new(threads: usize, slots: usize) -> Self {
        Regs {
            slots,
            v: std::sync::Mutex::new(vec![T::default(); threads * slots]),
        }
    }
    /// Value of `slot` of thread `local`.
    pub(crate) fn get(&self, local: u64, slot: usize) -> T {
        self.v.lock().unwrap()[local as usize * self.slots + slot]
    }
    /// Set `slot` of thread `local`.
    pub(crate) fn set(&self, local: u64, slot: usize, x: T) {
        self.v.lock().unwrap()[local as usize * self.slots + slot] = x;
    }
}

/// The warp-synchronous tail of SHOC's tree reductions on a `volatile` shared array, no
/// barriers: Reduction's and Scan's `if (tid < warpSize) { sdata[tid] += sdata[tid + 32];
/// .. += sdata[tid + 1]; }` (every lane, offsets 32..1) and SpMV's `if (id < 16) s[t] +=
/// s[t + 16]; .. if (id < 1) ..` (lanes below the offset, offsets 16..1). The lanes run each
/// step in lock-step, but the model runs a warp's lanes one after the other, so lane 0
/// would read slots that later lanes have not updated yet. The block's inputs are mirrored
/// here when they are written and each lane takes its lock-step values from
/// [`WarpTail::step`], recording the same loads and stores as the real code. One block is
/// generated at a time, so one mirror per kernel suffices.
pub(crate) struct WarpTail {
    inputs: std::sync::Mutex<Vec<f32>>,
    offsets: &'static [u64],
    every_lane: bool,
}

impl WarpTail {
    /// A tail over `slots` mirrored values with the given step offsets (largest first, at
    /// most 32); `every_lane`: all 32 lanes add at every step (else only lanes below the
    /// offset).
    pub(crate) fn new(slots: usize, offsets: &'static [u64], every_lane: bool) -> Self {
        assert!(offsets[0] <= 32, "a warp tail spans at most 64 slots");
        WarpTail {
            inputs: std::sync::Mutex::new(vec![0.0; slots]),
            offsets,
            every_lane,
        }
    }
    /// Record slot `j` as written before the tail.
    pub(crate) fn set_input(&self, j: u64, v: f32) {
        self.inputs.lock().unwrap()[j as usize] = v;
    }
    /// Value of slot `base + lane` after lock-step step `k` of the warp whose window of
    /// `2 * offsets[0]` slots starts at `base`.
    pub(crate) fn step(&self, base: u64, lane: u64, k: usize) -> f32 {
        let w = 2 * self.offsets[0] as usize;
        let b = base as usize;
        let mut v = [0f32; 64];
        v[..w].copy_from_slice(&self.inputs.lock().unwrap()[b..b + w]);
        for (s, &off) in self.offsets.iter().enumerate() {
            let off = off as usize;
            let prev = v;
            let active = if self.every_lane {
                32.min(w - off)
            } else {
                off
            };
            for j in 0..active {
                v[j] = prev[j] + prev[j + off];
            }
            if s == k {
                break;
            }
        }
        v[lane as usize]
    }
}
