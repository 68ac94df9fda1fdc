//! vectorAdd (CUDA samples): `C[i] = A[i] + B[i]`, one element per thread, 256 threads per
//! block. The simplest streaming kernel: every line is used by exactly one warp.
//!
//! Default input: NDP's VADD (ndp.md §5.4, Table 2: 50M elements, 600 MB for the three
//! vectors) brought under the footprint cap by rule 1 of [`crate::scale`]: 2,796,032
//! elements (the largest multiple of the 256-thread block whose three vectors fit 32 MiB).

use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

pub const SPEC: BenchSpec = BenchSpec {
    name: "vectoradd",
    suite: "CUDA samples",
    category: "-",
    about: "vectorAdd: C = A + B over float vectors; pure streaming, 256 threads/block",
    params: &[
        ParamSpec {
            name: "n",
            default: "2796032",
            help: "elements per vector (default: rule 1 on NDP's VADD, 50M elements)",
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
    ///
    /// NDP offload block 0 (spec ndp.md §3.2 / Fig. 2, Table 1: 4 NSU instructions): from
    /// the first load to the store, `LD A; LD B; FADD@NSU; ST C`; the destination address
    /// (`IMAD.WIDE`) stays on the GPU; no live-ins (every operand comes from memory), no
    /// live-outs.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let i = t.gid();
        t.alu(5);
        t.branch(1);
        if i < self.n {
            t.fp(1);
            t.alu(3);
            t.ofld_begin(0, 0, 4);
            let x: f32 = t.ld(self.a, i);
            let y: f32 = t.ld(self.b, i);
            t.alu(1);
            t.fp(2);
            t.st(self.c, i, x + y);
            t.ofld_end(0);
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

#[cfg(test)]
mod tests {
    use crate::program::{BlockProgram, InstClass, OffloadMark};
    use crate::registry::Params;
    use crate::Workload;
    use std::collections::BTreeMap;

    fn block(markers: bool, n: &str, b: u64) -> BlockProgram {
        let o = BTreeMap::from([("n".to_string(), n.to_string())]);
        let p = Params::resolve(&super::SPEC, &o, 1).unwrap();
        let mut w = super::build(&p).unwrap();
        w.begin_launch().unwrap().unwrap();
        let mut bp = BlockProgram {
            offload_markers: markers,
            ..Default::default()
        };
        w.gen_block(b, false, 128, &mut bp).unwrap();
        bp
    }

    /// The offload markers (NDP §3.4) span exactly `LD A .. ST C` of every warp and change
    /// nothing else: the instruction stream is the same with and without them, and
    /// without them nothing is recorded.
    #[test]
    fn offload_block_spans_the_loads_to_the_store() {
        let on = block(true, "1000", 3);
        let off = block(false, "1000", 3);
        for (a, b) in on.warps.iter().zip(&off.warps) {
            assert_eq!(a.insts, b.insts);
            assert_eq!(a.lines, b.lines);
            assert!(b.offload.is_empty());
            let [m] = a.offload[..] else {
                panic!("one instance per warp: {:?}", a.offload)
            };
            let span = &a.insts[m.begin as usize..m.end as usize];
            let classes: Vec<InstClass> = span.iter().map(|i| i.class).collect();
            use InstClass::*;
            assert_eq!(classes, [Load, Load, Int, Fp, Fp, Store]);
            assert_eq!(
                (m.block, m.live_ins, m.live_outs, m.nsu_insts),
                (0, 0, 0, 4)
            );
        }
        // the last block of n = 1000 (threads 768..1023): lanes past n skip the block
        assert_eq!(on.warps.len(), 8);
        let lanes: Vec<u8> = on
            .warps
            .iter()
            .flat_map(|w| w.offload.iter().map(|m: &OffloadMark| m.lanes))
            .collect();
        assert_eq!(lanes, [32, 32, 32, 32, 32, 32, 32, 8]);
    }

    /// `C = A + B` on `n` elements (a partial last block when `n` is not a multiple of
    /// 256) against the host sum; fails if a thread's index or the bounds test is wrong.
    fn check(n: &str) {
        let o = BTreeMap::from([("n".to_string(), n.to_string())]);
        let mut w = crate::registry::build("vectoradd", &o, 2).unwrap();
        let ids = |w: &crate::model::ModelWorkload, s: &str| crate::bench::testing::obj(w, s);
        let a: Vec<f32> = w.memory().to_vec(ids(&w, "A"));
        let b: Vec<f32> = w.memory().to_vec(ids(&w, "B"));
        assert_eq!(crate::bench::testing::launches(&mut w), ["vectorAdd"]);
        let c: Vec<f32> = w.memory().to_vec(ids(&w, "C"));
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(c, want);
    }

    #[test]
    fn sum_equals_host_sum() {
        check("1000");
    }

    /// The default input (4M elements; about 10 s in a debug build).
    #[test]
    #[ignore]
    fn default_sum_equals_host_sum() {
        check("4M");
    }
}
