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
    fn thread(&self, t: &mut Thread<'_>, _p: u32) {
        let total = t.total_threads();
        let mut i = t.gid();
        while i < self.n {
            let _: u32 = t.ld(self.a, i);
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
