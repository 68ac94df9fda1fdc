//! Tango GRU (`GPU/GRU/gru_host.cu` + `gru_kernel.cu`, Karki et al., GPGPU 2019), registry
//! name `tango-gru`: inference of a one-layer Keras GRU (100 units, one input feature,
//! `hard_sigmoid` gates, `tanh` candidate) on a two-element sequence. Tango's host copies
//! the input `x = 0.98` to the device, launches `GPU_forward_pass_gru<<<1, (10, 10)>>>`
//! (the recurrent cell, [`super::layers::GruCell`]) on a zero hidden state, copies the state
//! back and computes the dense output layer on the CPU; then copies `x = 0.88` and launches
//! the cell again on the state it left. So the GPU work is `steps` launches of one block.
//!
//! Differences from Tango's source: the trained weights Tango reads from `data/GRU/*.txt`
//! are seeded (uniform in `[-a, a)`, `a = sqrt(3 / (units + 1))`, biases in `[-0.05,
//! 0.05)`); inputs after the second step (only with `steps > 2`) are seeded in `[0, 1)`; the
//! CPU dense layer is not modelled (no device work). The cell's race on `GPU_states` is
//! resolved as the GRU intends (see [`super::layers::GruCell`]).
//!
//! Input: NUBA (§6.3 Table 2) runs Tango's default and lists 2 MB for GRU. Tango's default
//! is hard-coded: 100 units (a 10 x 10 block, `__shared__ float update_gate[100]`) and 2
//! steps; its device buffers are 3 recurrent matrices of 100 x 100 floats plus 7 vectors,
//! about 121 KB, far below rule 1's cap of [`crate::scale`], so the default is Tango's size
//! as is (NUBA's 2 MB is not what these buffers add up to; it is kept beside ours in
//! docs/workloads.md, not matched). `units` must be a square (the block is `side` x `side`)
//! of at most 1024.
//!
//! Sharing: one block means one SM touches every page, so `locus analyze classify --paper
//! nuba` measures low sharing where NUBA (Fig. 3) reports most GRU pages shared by 26-64
//! SMs; Tango's launch shape cannot produce that, and the model keeps Tango's shape.

use super::layers::{GruCell, GruObjs};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Host, Kernel, ModelWorkload};
use crate::program::WorkloadError;
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "tango-gru",
    suite: "Tango",
    category: "-",
    about: "Tango GRU inference (100-unit Keras GRU cell, one 10x10 block, one launch per \
            time step on the carried hidden state): GPU_forward_pass_gru",
    params: &[
        ParamSpec {
            name: "units",
            default: "100",
            help: "hidden units, a square <= 1024: the block is sqrt(units) x sqrt(units) \
                   (Tango 100, hard-coded)",
        },
        ParamSpec {
            name: "steps",
            default: "2",
            help: "time steps = launches (Tango 2: x = 0.98, 0.88; later inputs seeded)",
        },
    ],
    build,
};

/// Tango's inputs of the two time steps.
pub const TANGO_X: [f32; 2] = [0.98, 0.88];

/// Bytes of the device buffers Tango's host allocates for `units` hidden units: three
/// recurrent matrices, three input weight vectors, three biases, the state and `x`.
pub fn footprint(units: u64) -> u64 {
    (3 * units * units + 3 * units + 3 * units + units + 1) * 4
}

/// The host: before each launch, `cudaMemcpy` of that step's input into `x_t`.
struct GruHost {
    cell: GruObjs,
    side: u32,
    xs: Vec<f32>,
    step: usize,
}

impl Host for GruHost {
    fn next_kernel(&mut self, mem: &mut Memory) -> Option<Box<dyn Kernel>> {
        let x = *self.xs.get(self.step)?;
        self.step += 1;
        mem.set(self.cell.x, 0, x);
        Some(Box::new(GruCell::new(self.cell, self.side)))
    }
}

/// The inputs of `steps` time steps: Tango's two, then seeded values in `[0, 1)`.
pub fn inputs(steps: u32, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed ^ 0x6752_5530);
    (0..steps as usize)
        .map(|s| TANGO_X.get(s).copied().unwrap_or_else(|| rng.f32()))
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let units = p.u64("units", 100)?;
    let steps = p.u64("steps", 2)?;
    let side = (units as f64).sqrt().round() as u64;
    if units == 0 || units > 1024 || side * side != units {
        return Err(WorkloadError::Msg(format!(
            "tango-gru: units = {units} must be a square in 1..=1024 (the block is \
             sqrt(units) x sqrt(units) threads, Tango's 10 x 10 for 100)"
        )));
    }
    if steps == 0 || steps > 100_000 {
        return Err(WorkloadError::Msg(format!(
            "tango-gru: steps = {steps} must be in 1..=100000"
        )));
    }
    let (mem, cell) = network(units, p.seed);
    Ok(ModelWorkload::new(
        "tango-gru",
        mem,
        Box::new(GruHost {
            cell,
            side: side as u32,
            xs: inputs(steps as u32, p.seed),
            step: 0,
        }),
    ))
}

/// Allocate the cell's buffers in Tango's `cudaMalloc` order with seeded weights and a
/// zero state.
pub fn network(units: u64, seed: u64) -> (Memory, GruObjs) {
    let mut rng = Rng::new(seed);
    let mut m = Memory::new();
    let a = (3.0 / (units + 1) as f64).sqrt();
    let w = |rng: &mut Rng, n: u64| -> Vec<f32> {
        (0..n)
            .map(|_| ((rng.f64() * 2.0 - 1.0) * a) as f32)
            .collect()
    };
    let bias = |rng: &mut Rng| -> Vec<f32> {
        (0..units)
            .map(|_| ((rng.f64() - 0.5) * 0.1) as f32)
            .collect()
    };
    let (kh, bh, uh) = (
        w(&mut rng, units),
        bias(&mut rng),
        w(&mut rng, units * units),
    );
    let (kr, br, ur) = (
        w(&mut rng, units),
        bias(&mut rng),
        w(&mut rng, units * units),
    );
    let (kz, bz, uz) = (
        w(&mut rng, units),
        bias(&mut rng),
        w(&mut rng, units * units),
    );
    let kernel_h = m.alloc_from("GPU_kernel_h_w", &kh, true);
    let bias_h = m.alloc_from("GPU_bias_h", &bh, true);
    let rec_h = m.alloc_from("GPU_rec_h_w", &uh, true);
    let kernel_r = m.alloc_from("GPU_kernel_r_w", &kr, true);
    let bias_r = m.alloc_from("GPU_bias_r", &br, true);
    let rec_r = m.alloc_from("GPU_rec_r_w", &ur, true);
    let kernel_z = m.alloc_from("GPU_kernel_z_w", &kz, true);
    let bias_z = m.alloc_from("GPU_bias_z", &bz, true);
    let rec_z = m.alloc_from("GPU_rec_z_w", &uz, true);
    let x = m.alloc::<f32>("GPU_x", 1, false);
    let states = m.alloc::<f32>("GPU_states", units, false);
    (
        m,
        GruObjs {
            x,
            states,
            kernel_h,
            kernel_r,
            kernel_z,
            bias_h,
            bias_r,
            bias_z,
            rec_h,
            rec_r,
            rec_z,
        },
    )
}
