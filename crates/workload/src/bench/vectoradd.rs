//! vectorAdd (CUDA samples): `C[i] = A[i] + B[i]`, one element per thread, 256 threads per
//! block. The simplest streaming kernel: every line is used by exactly one warp.

use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

pub const SPEC: BenchSpec = BenchSpec {
    name: "vectoradd",
    suite: "CUDA samples",
    category: "-",
    about: "C = A + B over float vectors; pure streaming, 256 threads/block",
    params: &[
        ParamSpec {
            name: "n",
            default: "4M",
            help: "elements per vector",
        },
        ParamSpec {
            name: "block",
            default: "256",
            help: "threads per block",
        },
    ],
    build,
};

struct VecAdd {
    a: ObjId,
    b: ObjId,
    c: ObjId,
    n: u64,
    block: u32,
}

impl Kernel for VecAdd {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "vectorAdd".into(),
            grid: Dim3::x(self.n.div_ceil(self.block as u64) as u32),
            block: Dim3::x(self.block),
            regs_per_thread: 12,
            smem_per_block: 0,
        }
    }
    /// Per thread, the instructions of the compiled kernel (sm_80 SASS of the CUDA sample,
    /// as in ../shared/traces/vectoradd): `MOV; S2R; S2R; IMAD; ISETP` (the index and the
    /// bound check), the predicated `EXIT` of out-of-range threads, then `HFMA2.MMA`
    /// (sizeof(float) into a register), `ULDC.64; IMAD.WIDE x2` (the two source
    /// addresses), `LDG x2`, `IMAD.WIDE` (the destination address), `FADD x2`, `STG` and the
    /// final `EXIT`: 17 warp instructions, 3 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        t.alu(5);
        t.branch(1);
        if i < self.n {
            t.fp(1);
            t.alu(3);
            let x: f32 = t.ld(self.a, i);
            let y: f32 = t.ld(self.b, i);
            t.alu(1);
            t.fp(2);
            t.st(self.c, i, x + y);
        }
    }
}

struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 4 << 20)?;
    let block = p.u64("block", 256)?;
    if n == 0 || !(32..=1024).contains(&block) {
        return Err(WorkloadError::Msg(
            "vectoradd: need n > 0 and 32 <= block <= 1024".into(),
        ));
    }
    let mut rng = crate::gen::rng::Rng::new(p.seed);
    let mut m = Memory::new();
    let av: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let bv: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let a = m.alloc_from("A", &av, true);
    let b = m.alloc_from("B", &bv, true);
    let c = m.alloc::<f32>("C", n, false);
    let k = VecAdd {
        a,
        b,
        c,
        n,
        block: block as u32,
    };
    Ok(ModelWorkload::new(
        "vectoradd",
        m,
        Box::new(Once(Some(Box::new(k)))),
    ))
}
