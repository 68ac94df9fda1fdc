//! BlackScholes (CUDA samples `5_Domain_Specific/BlackScholes`, kernel `BlackScholesGPU`):
//! European call and put prices by the Black-Scholes formula, two options per thread
//! (`float2` loads and stores, 128 threads per block, grid `ceil(optN / 2 / 128)`), the
//! host launching the kernel `NUM_ITERATIONS` = 512 times over the same data. SFU-heavy:
//! per option `rsqrtf`, `__fdividef` (x3 with the two in `cndGPU`), `__logf`, `__expf` (x3)
//! and a full division.
//!
//! Data as the sample: stock price uniform in [5, 30), strike in [1, 100), years in
//! [0.25, 10), riskless rate 0.02, volatility 0.30.
//!
//! Input. Paper: NUBA Table 2 (nuba.md §6.3), BH with a 48 MB footprint (five float arrays:
//! 2,516,582 options). Rule 1 of `scale.rs`: factor 2/3, options a multiple of 256 (one
//! block's two options per thread): 1,677,568 (32 MiB). Rule 2 halves the work-only
//! dimension first, the sample's `NUM_ITERATIONS` = 512 launches over the same data:
//! [`ITER_HALVINGS`] = 3 times, to 64, keeping rule 1's options. On `coda-4gpu` 64
//! iterations take 53.0 s of host CPU time (session 23's engine, idle, 2026-11-29;
//! BENCHMARKS.md), 128 would take about twice that. (Sessions 18-22 halved 4 times, to 32,
//! when 64 ran past 80 s.)

use crate::bench::dense::common::{bad, kinfo, prologue, seq};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "blackscholes",
    suite: "CUDA samples",
    category: "-",
    about: "Black-Scholes call/put, 2 options per thread with float2 accesses, 512 launches in the sample (32 by default), SFU-heavy (BlackScholesGPU); 32 MiB",
    params: &[
        ParamSpec {
            name: "options",
            default: "1677568",
            help: "options (even)",
        },
        ParamSpec {
            name: "iterations",
            default: "64",
            help: "kernel launches over the same data (NUM_ITERATIONS: 512, halved three times by rule 2)",
        },
    ],
    build,
};

const BLOCK: u64 = 128;
const RISKFREE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;
/// The sample's `NUM_ITERATIONS`.
pub const PAPER_ITERATIONS: u64 = 512;
/// Halvings of rule 2 applied to the iterations (the option count stays rule 1's).
pub const ITER_HALVINGS: u32 = 3;

/// The default option count (rule 1 on NUBA's 48 MiB).
pub fn default_options() -> u64 {
    let paper = (48u64 << 20) / 20;
    dim(paper, linear_factor(paper * 20, 1), 2 * BLOCK)
}

/// `cndGPU`: polynomial approximation of the cumulative normal distribution.
fn cnd(d: f32) -> f32 {
    const A1: f32 = 0.319_381_53;
    const A2: f32 = -0.356_563_78;
    const A3: f32 = 1.781_477_9;
    const A4: f32 = -1.821_256;
    const A5: f32 = 1.330_274_5;
    const RSQRT2PI: f32 = 0.398_942_3;
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let c = RSQRT2PI * (-0.5 * d * d).exp() * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

/// `BlackScholesBodyGPU`: (call, put) of one option.
pub(crate) fn body(s: f32, x: f32, t: f32) -> (f32, f32) {
    let sqrt_t = t.sqrt();
    let d1 =
        ((s / x).ln() + (RISKFREE + 0.5 * VOLATILITY * VOLATILITY) * t) / (VOLATILITY * sqrt_t);
    let d2 = d1 - VOLATILITY * sqrt_t;
    let (c1, c2) = (cnd(d1), cnd(d2));
    let exp_rt = (-RISKFREE * t).exp();
    (
        s * c1 - x * exp_rt * c2,
        x * exp_rt * (1.0 - c2) - s * (1.0 - c1),
    )
}

fn split(v: u64) -> (f32, f32) {
    (f32::from_bits(v as u32), f32::from_bits((v >> 32) as u32))
}

fn join(a: f32, b: f32) -> u64 {
    a.to_bits() as u64 | ((b.to_bits() as u64) << 32)
}

/// `BlackScholesGPU`: options `2 opt` and `2 opt + 1` per thread.
#[derive(Clone, Copy)]
struct Bs {
    call: ObjId,
    put: ObjId,
    price: ObjId,
    strike: ObjId,
    years: ObjId,
    opt_n: u64,
}

impl Kernel for Bs {
    fn info(&self) -> KernelInfo {
        kinfo(
            "BlackScholesGPU",
            Dim3::x((self.opt_n / 2).div_ceil(BLOCK) as u32),
            Dim3::x(BLOCK as u32),
            32,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, docs/workloads.md rules): entry `MOV; S2R x2; IMAD`,
    /// `optN / 2` (3 int), `ISETP` + predicated `EXIT` (9); three `IMAD.WIDE` and three
    /// `LDG.64`; per option 9 SFU (`MUFU.RSQ`, `MUFU.RCP` x5 for the `__fdividef`s and the
    /// division `S / X`, `MUFU.LG2`, `MUFU.EX2` x3) and 44 FP (the formula, the division's
    /// Newton steps, the two polynomials); two `IMAD.WIDE` and two `STG.64`. 125
    /// instructions, 5 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let opt = t.gx();
        prologue(t, 2, 4);
        if opt >= self.opt_n / 2 {
            return;
        }
        t.alu(3);
        let s: u64 = t.ld(self.price, opt);
        let x: u64 = t.ld(self.strike, opt);
        let y: u64 = t.ld(self.years, opt);
        let (s, x, y) = (split(s), split(x), split(y));
        let mut out = [(0.0f32, 0.0f32); 2];
        for (k, o) in out.iter_mut().enumerate() {
            let (sv, xv, yv) = if k == 0 {
                (s.0, x.0, y.0)
            } else {
                (s.1, x.1, y.1)
            };
            t.sfu(2);
            t.fp(8);
            t.sfu(3);
            t.fp(12);
            t.sfu(2);
            t.fp(12);
            t.sfu(2);
            t.fp(12);
            *o = body(sv, xv, yv);
        }
        t.alu(2);
        t.st(self.call, opt, join(out[0].0, out[1].0));
        t.st(self.put, opt, join(out[0].1, out[1].1));
    }
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("options", default_options())?;
    let iters = p.u64("iterations", PAPER_ITERATIONS >> ITER_HALVINGS)?;
    if n < 2 || n % 2 != 0 || iters == 0 {
        return Err(bad(format!(
            "blackscholes: need an even options >= 2 and iterations >= 1 (got options={n}, \
             iterations={iters})"
        )));
    }
    let mut rng = Rng::new(p.seed);
    let mut uni = |lo: f32, hi: f32| lo + (hi - lo) * rng.f32();
    let mut pairs = |lo: f32, hi: f32| -> Vec<u64> {
        (0..n / 2)
            .map(|_| {
                let a = uni(lo, hi);
                join(a, uni(lo, hi))
            })
            .collect()
    };
    let price = pairs(5.0, 30.0);
    let strike = pairs(1.0, 100.0);
    let years = pairs(0.25, 10.0);
    let mut m = Memory::new();
    let call = m.alloc::<u64>("d_CallResult", n / 2, false);
    let put = m.alloc::<u64>("d_PutResult", n / 2, false);
    let price = m.alloc_from("d_StockPrice", &price, true);
    let strike = m.alloc_from("d_OptionStrike", &strike, true);
    let years = m.alloc_from("d_OptionYears", &years, true);
    let k = Bs {
        call,
        put,
        price,
        strike,
        years,
        opt_n: n,
    };
    let ks: Vec<Box<dyn Kernel>> = (0..iters).map(|_| Box::new(k) as Box<dyn Kernel>).collect();
    Ok(ModelWorkload::new("blackscholes", m, seq(ks)))
}

/// Host reference (the sample's `BlackScholesCPU`: the same formula in double precision).
#[cfg(test)]
pub(crate) fn reference(s: f64, x: f64, t: f64) -> (f64, f64) {
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
        let c = 0.398_942_280_401_432_7
            * (-0.5 * d * d).exp()
            * (k * (0.319_381_53
                + k * (-0.356_563_782
                    + k * (1.781_477_937 + k * (-1.821_255_978 + k * 1.330_274_429)))));
        if d > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let (r, v) = (RISKFREE as f64, VOLATILITY as f64);
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let exp_rt = (-r * t).exp();
    (
        s * cnd(d1) - x * exp_rt * cnd(d2),
        x * exp_rt * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
    )
}

/// Split a `float2` stored as u64.
#[cfg(test)]
pub(crate) fn split_pair(v: u64) -> (f32, f32) {
    split(v)
}
