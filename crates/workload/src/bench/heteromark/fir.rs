//! Hetero-Mark FIR (`src/fir/cuda/fir_cuda_benchmark.cu`, kernel `fir_cuda`; the HIP
//! version `fir_hip` is the same kernel): a finite impulse response filter over a signal
//! processed in data blocks.
//!
//! The host (`FirCudaBenchmark::Run`) keeps the whole signal on the host and owns device
//! buffers for one data block: per data block it copies the block into `input_buffer`, the
//! last `num_tap` samples of the previous block into `history_buffer` (zeros before the
//! first), launches `fir_cuda<<<num_data_per_block / 64, 64>>>` and copies `output_buffer`
//! back. Each thread computes one output: `sum += coeff[i] * input[tid - i]` for the taps
//! that fall inside the block and `coeff[i] * history[num_tap - (i - tid)]` for those that
//! reach into the previous block. Data as the suite initialises it: `input[i] = i`,
//! `coeff[i] = i` (`FirBenchmark::Initialize`), 16 taps.
//!
//! Input. Paper: REC Table 3 (rec.md §4.3), FIR with a 128 MB footprint, run in MGPUSim's
//! port of this benchmark, which filters the whole signal in one launch (one data block of
//! 16 Mi samples: input and output buffers, 2 x 64 MiB). Suite default: 1024 blocks of 1024
//! samples. Rule 1 of `scale.rs` (the footprint grows with the block length only): factor
//! just under 1/4 (the 128 B of coefficients and history count too), so one data block of
//! 4,194,240 samples (just under 32 MiB). `nblocks` > 1 runs the suite's host loop over data blocks with the history carried
//! between launches.

use crate::bench::dense::common::{bad, kinfo, loop_step, prologue};
use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};
use std::sync::{Arc, Mutex};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "fir",
    suite: "Hetero-Mark",
    category: "-",
    about: "FIR filter, one output per thread over 16 taps, host loop over data blocks with history (fir_cuda); 32 MiB",
    params: &[
        ParamSpec {
            name: "npb",
            default: "4194240",
            help: "samples per data block = threads per launch (multiple of 64)",
        },
        ParamSpec {
            name: "nblocks",
            default: "1",
            help: "data blocks, one launch each (Hetero-Mark's host loop)",
        },
        ParamSpec {
            name: "taps",
            default: "16",
            help: "filter taps (num_tap)",
        },
    ],
    build,
};

/// The paper's data block: REC's 128 MB = input + output buffers of 16 Mi samples.
const PAPER_NPB: u64 = 16 << 20;
/// Threads per block of the launch.
const BLOCK: u64 = 64;

/// The default block length: rule 1 of `scale.rs` on the paper's footprint.
pub fn default_npb() -> u64 {
    let fp = 2 * PAPER_NPB * 4 + 2 * 16 * 4;
    dim(PAPER_NPB, linear_factor(fp, 1), BLOCK)
}

/// `fir_cuda`: one output sample per thread.
struct FirKernel {
    input: ObjId,
    output: ObjId,
    coeff: ObjId,
    history: ObjId,
    taps: u64,
    npb: u64,
}

impl Kernel for FirKernel {
    fn info(&self) -> KernelInfo {
        kinfo(
            "fir_cuda",
            Dim3::x((self.npb / BLOCK) as u32),
            Dim3::x(BLOCK as u32),
            16,
            0,
        )
    }
    /// Per thread (sm_70+ SASS, the counting rules of docs/workloads.md): entry `MOV; S2R
    /// x2; IMAD` and the bound test `ISETP` + predicated `EXIT` (6). Per tap (the loop bound
    /// is a kernel argument, so the loop stays rolled): the branch condition `tid >= i`
    /// (`ISETP` + `BRA`), then either `coeff[i]` and `input[tid - i]` (`IMAD.WIDE`, `IADD3;
    /// IMAD.WIDE`, two `LDG`) or `coeff[i]` and `history[num_tap - (i - tid)]` (`IMAD.WIDE`,
    /// one three-operand `IADD3; IMAD.WIDE`), one `FFMA`, and the loop step (`IADD3; ISETP; BRA`). Then
    /// `IMAD.WIDE; STG`. 16 taps: 6 + 16 x 11 + 2 = 184 instructions, 33 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gx();
        prologue(t, 2, 1);
        if tid > self.npb {
            return;
        }
        let mut sum = 0.0f32;
        for i in 0..self.taps {
            t.alu(1);
            t.branch(1);
            if tid >= i {
                t.alu(3);
                let c: f32 = t.ld(self.coeff, i);
                let x: f32 = t.ld(self.input, tid - i);
                t.fp(1);
                sum += c * x;
            } else {
                t.alu(3);
                let c: f32 = t.ld(self.coeff, i);
                let h: f32 = t.ld(self.history, self.taps - (i - tid));
                t.fp(1);
                sum += c * h;
            }
            loop_step(t);
        }
        t.alu(1);
        t.st(self.output, tid, sum);
    }
}

/// The host loop of `FirCudaBenchmark::Run`: per data block, copy in the block and the
/// history, launch, copy the output back (into `out`) and keep the block's last samples as
/// the next history.
struct FirHost {
    signal: Vec<f32>,
    out: Arc<Mutex<Vec<f32>>>,
    k: FirKernel,
    nblocks: u64,
    count: u64,
}

impl Host for FirHost {
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        let (npb, taps) = (self.k.npb, self.k.taps);
        if self.count > 0 {
            // cudaMemcpy D2H of the finished block's output; the next history
            let done = self.count - 1;
            let mut out = self.out.lock().unwrap();
            for i in 0..npb {
                out[(done * npb + i) as usize] = mem.get(self.k.output, i);
            }
            for i in 0..taps {
                let v = self.signal[(done * npb + npb - taps + i) as usize];
                mem.set(self.k.history, i, v);
            }
        }
        if self.count == self.nblocks {
            return None;
        }
        let base = self.count * npb;
        for i in 0..npb {
            mem.set(self.k.input, i, self.signal[(base + i) as usize]);
        }
        self.count += 1;
        Some(Box::new(FirKernel { ..self.k }))
    }
}

/// The host's copy of the filtered signal, shared with the host program.
pub(crate) type HostOutput = Arc<Mutex<Vec<f32>>>;

/// Build the workload and a handle to the host's output signal (filled as blocks finish).
pub(crate) fn build_with_output(p: &Params) -> Result<(ModelWorkload, HostOutput), WorkloadError> {
    let npb = p.u64("npb", default_npb())?;
    let nblocks = p.u64("nblocks", 1)?;
    let taps = p.u64("taps", 16)?;
    if npb == 0 || npb % BLOCK != 0 || nblocks == 0 || taps == 0 || taps > npb {
        return Err(bad(format!(
            "fir: need npb a positive multiple of {BLOCK}, nblocks >= 1 and 1 <= taps <= npb \
             (got npb={npb}, nblocks={nblocks}, taps={taps})"
        )));
    }
    let total = npb
        .checked_mul(nblocks)
        .filter(|&n| n <= crate::registry::MAX_PARAM)
        .ok_or_else(|| bad("fir: npb * nblocks is too large (at most 2^28 samples)".into()))?;
    let signal: Vec<f32> = (0..total).map(|i| i as f32).collect();
    let coeffs: Vec<f32> = (0..taps).map(|i| i as f32).collect();
    let mut m = Memory::new();
    let input = m.alloc::<f32>("input_buffer", npb, true);
    let output = m.alloc::<f32>("output_buffer", npb, false);
    let coeff = m.alloc_from("coeff_buffer", &coeffs, true);
    let history = m.alloc::<f32>("history_buffer", taps, true);
    let out = Arc::new(Mutex::new(vec![0.0f32; total as usize]));
    let host = FirHost {
        signal,
        out: out.clone(),
        k: FirKernel {
            input,
            output,
            coeff,
            history,
            taps,
            npb,
        },
        nblocks,
        count: 0,
    };
    Ok((ModelWorkload::new("fir", m, Box::new(host)), out))
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    build_with_output(p).map(|(w, _)| w)
}

/// The suite's `Verify`: the whole signal filtered on the host, in the kernel's order.
#[cfg(test)]
pub(crate) fn reference(signal: &[f32], coeff: &[f32]) -> Vec<f32> {
    (0..signal.len())
        .map(|n| {
            let mut s = 0.0f32;
            for (j, c) in coeff.iter().enumerate() {
                let x = if n >= j { signal[n - j] } else { 0.0 };
                s += c * x;
            }
            s
        })
        .collect()
}
