//! Micro-benchmarks with closed-form expectations, used by the simulator's tests and for
//! calibration: a single load, a read stream, uniform random reads, a dependent compute
//! chain and a pointer chase.

use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// One thread loads one 4-byte word: the unloaded latency of the memory path.
pub const SINGLE: BenchSpec = BenchSpec {
    name: "single-load",
    suite: "Locus micro",
    category: "-",
    about: "one thread, one load: the unloaded latency of the memory path",
    params: &[ParamSpec {
        name: "offset",
        default: "0",
        help: "byte offset of the load in a 1 MB object",
    }],
    build: build_single,
};

/// Every thread reads `per_thread` consecutive 4-byte words, warp-coalesced.
pub const STREAM: BenchSpec = BenchSpec {
    name: "stream",
    suite: "Locus micro",
    category: "-",
    about: "read-only stream, fully coalesced: sustains the memory bandwidth",
    params: &[
        ParamSpec {
            name: "n",
            default: "8M",
            help: "elements (4 B) read",
        },
        ParamSpec {
            name: "block",
            default: "256",
            help: "threads per block",
        },
        ParamSpec {
            name: "per_thread",
            default: "4",
            help: "elements per thread (grid-stride)",
        },
        ParamSpec {
            name: "code",
            default: "bare",
            help: "bare (the loads alone, all in flight at once: the bandwidth closed forms) | compiled (validation/gpu/kernels.cu's `micro::stream` as nvcc 13 compiles it for sm_90: 18 set-up instructions, then per element LEA, LEA.HI.X, LDG, four loop instructions and BRA, the next element's address waiting for the load)",
        },
    ],
    build: build_stream,
};

/// Every thread loads `per_thread` words at uniformly random positions of a large array.
pub const RANDOM: BenchSpec = BenchSpec {
    name: "random",
    suite: "Locus micro",
    category: "-",
    about: "uniform random 4-byte reads over a large array (one line per lane)",
    params: &[
        ParamSpec {
            name: "n",
            default: "16M",
            help: "array elements (4 B)",
        },
        ParamSpec {
            name: "threads",
            default: "64k",
            help: "threads",
        },
        ParamSpec {
            name: "per_thread",
            default: "4",
            help: "loads per thread",
        },
    ],
    build: build_random,
};

/// One warp runs a chain of `ops` dependent compute instructions of one class, optionally
/// after a load whose value the chain consumes: the closed form of compute timing (each
/// dependent instruction waits for its predecessor's class latency; the first use of a
/// loaded value waits for the load).
pub const CHAIN: BenchSpec = BenchSpec {
    name: "chain",
    suite: "Locus micro",
    category: "-",
    about: "one warp, a dependent chain of compute instructions (after an optional load)",
    params: &[
        ParamSpec {
            name: "ops",
            default: "100",
            help: "instructions in the chain",
        },
        ParamSpec {
            name: "class",
            default: "int",
            help: "int, fp, sfu or branch",
        },
        ParamSpec {
            name: "load",
            default: "0",
            help: "1: the chain starts from a value loaded from memory",
        },
    ],
    build: build_chain,
};

/// One thread follows a pointer chain: each load's address is computed (one integer
/// instruction) from the previous load, so every hop is the unloaded load-to-use latency of
/// the level the footprint lives in plus that instruction. `validation/gpu/kernels.cu`'s
/// `chase` kernel is the same walk on a real GPU (its `latency` mode times it with `clock64`).
pub const CHASE: BenchSpec = BenchSpec {
    name: "chase",
    suite: "Locus micro",
    category: "-",
    about: "one thread, dependent loads (pointer chase) cycling over a footprint: load-to-use latency per level",
    params: &[
        ParamSpec {
            name: "footprint_kb",
            default: "16",
            help: "KiB the chain cycles over (footprint / stride hops, rounded down, to a traversal)",
        },
        ParamSpec {
            name: "stride",
            default: "128",
            help: "bytes between consecutive hops (multiple of 4)",
        },
        ParamSpec {
            name: "warm",
            default: "0",
            help: "hops before the counted ones (footprint / stride of them: one traversal warms the caches)",
        },
        ParamSpec {
            name: "hops",
            default: "4096",
            help: "counted hops (the kernel's cycles minus those of hops=0, over hops, is the latency)",
        },
    ],
    build: build_chase,
};

struct Chase {
    a: ObjId,
    /// Elements (4 B) between hops, and hops in one traversal.
    step: u64,
    lines: u64,
    total: u64,
}
impl Kernel for Chase {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "chase".into(),
            grid: Dim3::x(1),
            block: Dim3::x(1),
            regs_per_thread: 8,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let mut i = 0u64;
        for _ in 0..self.total {
            // the loaded word is the next hop's index (kernels.cu fills the array so); the
            // address arithmetic (one IMAD) waits for the load, the next load for it
            let _: u32 = t.ld(self.a, i * self.step);
            t.alu(1);
            i = (i + 1) % self.lines;
        }
    }
}

fn build_chase(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let footprint = p.u64("footprint_kb", 16)? << 10;
    let stride = p.u64("stride", 128)?;
    let warm = p.u64("warm", 0)?;
    let hops = p.u64("hops", 4096)?;
    if stride == 0 || stride % 4 != 0 || footprint < stride {
        return Err(WorkloadError::Msg(format!(
            "chase: footprint = {footprint} B, stride = {stride} B: need stride a positive multiple of 4, at most the footprint"
        )));
    }
    if footprint > 4 << 30 || warm + hops > 1 << 24 {
        return Err(WorkloadError::Msg(
            "chase: footprint at most 4 GiB and warm + hops at most 16M".into(),
        ));
    }
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", footprint / 4, true);
    Ok(once(
        "chase",
        m,
        Chase {
            a,
            step: stride / 4,
            lines: footprint / stride,
            total: warm + hops,
        },
    ))
}

struct Chain {
    a: ObjId,
    ops: u32,
    class: u8,
    load: bool,
}
impl Kernel for Chain {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "chain".into(),
            grid: Dim3::x(1),
            block: Dim3::x(32),
            regs_per_thread: 8,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        if self.load {
            let _: u32 = t.ld(self.a, t.gid());
        }
        match self.class {
            0 => t.alu(self.ops),
            1 => t.fp(self.ops),
            2 => t.sfu(self.ops),
            _ => t.branch(self.ops),
        }
    }
}

fn build_chain(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let ops = p.u64("ops", 100)?;
    if ops > 1 << 20 {
        return Err(WorkloadError::Msg("chain: ops must be at most 1M".into()));
    }
    let class = match p.str("class", "int").as_str() {
        "int" => 0,
        "fp" => 1,
        "sfu" => 2,
        "branch" => 3,
        other => {
            return Err(WorkloadError::Msg(format!(
                "chain: class = {other}: expected int, fp, sfu or branch"
            )))
        }
    };
    let load = p.u64("load", 0)? != 0;
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", 1024, true);
    Ok(once(
        "chain",
        m,
        Chain {
            a,
            ops: ops as u32,
            class,
            load,
        },
    ))
}

struct Single {
    a: ObjId,
    idx: u64,
}
impl Kernel for Single {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "single".into(),
            grid: Dim3::x(1),
            block: Dim3::x(1),
            regs_per_thread: 8,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let _: u32 = t.ld(self.a, self.idx);
    }
}

struct Stream {
    a: ObjId,
    n: u64,
    block: u32,
    per_thread: u64,
    /// `code=compiled`: the compiled kernel's instructions (see [`Stream::thread`]).
    compiled: bool,
}
impl Kernel for Stream {
    fn info(&self) -> KernelInfo {
        let threads = self.n.div_ceil(self.per_thread);
        KernelInfo {
            name: "stream".into(),
            grid: Dim3::x(threads.div_ceil(self.block as u64) as u32),
            block: Dim3::x(self.block),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    /// `code=bare`: the loads alone, so every load of a warp is in flight at once.
    /// `code=compiled`: `micro::stream` of validation/gpu/kernels.cu as its SASS runs it
    /// (validation/gpu/h200/sass.txt: 51 warp instructions per warp at 4 elements, the
    /// measured count): 9 instructions and the bound `EXIT`, 8 of set-up, then per element
    /// `LEA; LEA.HI.X; LDG.E.STRONG.SYS; IADD3; IADD3.X; ISETP x2; BRA`; the final `EXIT`
    /// is the one the simulator issues for every warp. The volatile load's destination register (R2) is the next element's address
    /// register, so the next `LEA` waits for the load (a write-after-write hazard): one
    /// load of a warp in flight at a time. The model's dependence rule (the first compute
    /// instruction after a load waits for it) gives the same serialisation one instruction
    /// earlier.
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let total = t.total_threads();
        let mut i = t.gid();
        if self.compiled {
            t.alu(9);
            t.branch(1);
            if i >= self.n {
                return;
            }
            t.alu(8);
        }
        while i < self.n {
            if self.compiled {
                t.alu(2);
            }
            let _: u32 = t.ld(self.a, i);
            if self.compiled {
                t.alu(4);
                t.branch(1);
            }
            i += total;
        }
    }
}

struct Random {
    a: ObjId,
    idx: ObjId,
    per_thread: u64,
    threads: u64,
}
impl Kernel for Random {
    fn info(&self) -> KernelInfo {
        KernelInfo {
            name: "random".into(),
            grid: Dim3::x(self.threads.div_ceil(256) as u32),
            block: Dim3::x(256),
            regs_per_thread: 16,
            smem_per_block: 0,
        }
    }
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let g = t.gid();
        if g >= self.threads {
            return;
        }
        for k in 0..self.per_thread {
            // the random positions are precomputed host-side (kernel parameters), so the
            // loads are independent of each other
            let j: u32 = t.peek(self.idx, g * self.per_thread + k);
            let _: u32 = t.ld(self.a, j as u64);
        }
    }
}

struct Once(Option<Box<dyn Kernel>>);
impl Host for Once {
    fn next_kernel(&mut self, _m: &mut Memory) -> Option<Box<dyn Kernel>> {
        self.0.take()
    }
}

fn once(name: &str, m: Memory, k: impl Kernel + 'static) -> ModelWorkload {
    ModelWorkload::new(name, m, Box::new(Once(Some(Box::new(k)))))
}

fn build_single(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let off = p.u64("offset", 0)?;
    if off >= 1 << 20 {
        return Err(WorkloadError::Msg(
            "single-load: offset must be below 1M".into(),
        ));
    }
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", 1 << 18, true);
    Ok(once("single-load", m, Single { a, idx: off / 4 }))
}

fn build_stream(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 8 << 20)?;
    let block = p.u64("block", 256)?;
    let per_thread = p.u64("per_thread", 4)?;
    if n == 0 || per_thread == 0 || !(32..=1024).contains(&block) {
        return Err(WorkloadError::Msg(
            "stream: need n > 0, per_thread > 0, 32 <= block <= 1024".into(),
        ));
    }
    let compiled = match p.str("code", "bare").as_str() {
        "bare" => false,
        "compiled" => true,
        o => {
            return Err(WorkloadError::Msg(format!(
                "stream: code={o}: use bare (the loads alone) or compiled (kernels.cu's micro::stream as nvcc compiles it)"
            )))
        }
    };
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", n, true);
    Ok(once(
        "stream",
        m,
        Stream {
            a,
            n,
            block: block as u32,
            per_thread,
            compiled,
        },
    ))
}

fn build_random(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 16 << 20)?;
    let threads = p.u64("threads", 64 << 10)?;
    let per_thread = p.u64("per_thread", 4)?;
    if n == 0 || threads == 0 || per_thread == 0 || n > u32::MAX as u64 {
        return Err(WorkloadError::Msg(
            "random: need 0 < n < 2^32, threads > 0, per_thread > 0".into(),
        ));
    }
    let mut rng = Rng::new(p.seed);
    let mut m = Memory::new();
    let a = m.alloc::<u32>("a", n, true);
    let pos: Vec<u32> = (0..threads * per_thread)
        .map(|_| rng.below(n) as u32)
        .collect();
    let idx = m.alloc_from::<u32>("positions", &pos, true);
    Ok(once(
        "random",
        m,
        Random {
            a,
            idx,
            per_thread,
            threads,
        },
    ))
}

#[cfg(test)]
mod tests {
    use crate::program::{BlockProgram, InstClass, Workload};
    use crate::registry;
    use std::collections::BTreeMap;

    /// Warp 0's instruction classes of block 0 of `stream` with `code`.
    fn warp0(code: &str) -> Vec<InstClass> {
        let ov: BTreeMap<String, String> = [("n", "32768"), ("code", code)]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut w = registry::build("stream", &ov, 1).unwrap();
        let mut l = w.next_launch().unwrap().unwrap();
        let mut bp = BlockProgram::default();
        l.block(0, false, 128, &mut bp).unwrap();
        bp.warps[0].insts.iter().map(|i| i.class).collect()
    }

    /// `stream code=compiled` issues the sm_90 SASS of kernels.cu's `micro::stream`: 51
    /// warp instructions per warp at 4 elements per thread (Nsight Compute's count on the
    /// H200: 3,342,336 for 65,536 warps), every load followed by integer work before the
    /// next load (so the dependence rule serialises them, as the SASS's register reuse
    /// does); `code=bare` (the default) issues the 4 loads back to back. Fails if either
    /// form changes or a bad `code` is accepted.
    #[test]
    fn stream_compiled_form_issues_the_sass_count_and_serialises_its_loads() {
        let c = warp0("compiled");
        assert_eq!(c.len(), 51, "{c:?}");
        assert_eq!(c.iter().filter(|k| **k == InstClass::Load).count(), 4);
        for (i, k) in c.iter().enumerate() {
            if *k == InstClass::Load {
                assert_eq!(c[i + 1], InstClass::Int, "a load's result is waited for");
            }
        }
        let b = warp0("bare");
        assert_eq!(b.iter().filter(|k| **k == InstClass::Load).count(), 4);
        assert!(b[..4].iter().all(|k| *k == InstClass::Load), "{b:?}");
        let ov: BTreeMap<String, String> = [("code".to_string(), "x".to_string())].into();
        let e = registry::build("stream", &ov, 1)
            .err()
            .expect("code=x is refused");
        assert!(e.to_string().contains("code=x"), "{e}");
    }
}
