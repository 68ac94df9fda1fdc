//! AMD APP SDK SimpleConvolution (`SimpleConvolution_Kernels.cl`, kernel
//! `simpleConvolution`; MGPUSim ports it as `amdappsdk/simpleconvolution`): a
//! non-separable 2-D convolution, one work-item per output pixel (1-D NDRange of
//! `width * height`, work-groups of 256).
//!
//! Per work-item: `x = tid % width`, `y = tid / width`; the mask window is clamped to the
//! image (`left = max(x - vstep, 0)`, `right = min(x + vstep, width - 1)`, likewise `top`,
//! `bottom`), then `for i in left..=right { for j in top..=bottom { sum += (float)input[j *
//! width + i] * mask[maskIndex] } }` (columns outer, rows inner, as the sample) and
//! `output[tid] = (uint)(sum + 0.5f)`. Input pixels are `uint` in 0..256, the mask `float`;
//! both in global memory.
//!
//! Input. Paper: REC Table 3 (rec.md §4.3), SC with a 512 MB footprint (input and output,
//! 4 B each per pixel: 8192 x 8192, mask 3 x 3 as the sample's default). Rule 1 of
//! `scale.rs` (width and height grow the footprint): factor about 1/4, rounded down to
//! multiples of 16: 2032 x 2032 (31.5 MiB).

use crate::bench::dense::common::{bad, kinfo, loop_step};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};
use crate::scale::{dim, linear_factor};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "simpleconv",
    suite: "AMD APP SDK",
    category: "-",
    about: "2-D convolution, one work-item per pixel, 3x3 mask window clamped at the borders (simpleConvolution); 31.5 MiB",
    params: &[
        ParamSpec {
            name: "width",
            default: "2032",
            help: "image width",
        },
        ParamSpec {
            name: "height",
            default: "2032",
            help: "image height (width * height a multiple of 256)",
        },
        ParamSpec {
            name: "mask",
            default: "3",
            help: "mask width = height (odd)",
        },
    ],
    build,
};

const BLOCK: u64 = 256;
const PAPER_SIDE: u64 = 8192;

/// Rule 1 on the paper's 8192 x 8192 image (input + output + 3x3 mask).
pub fn default_side() -> u64 {
    let fp = PAPER_SIDE * PAPER_SIDE * 8 + 9 * 4;
    dim(PAPER_SIDE, linear_factor(fp, 2), 16)
}

/// `simpleConvolution`.
struct SimpleConv {
    input: ObjId,
    mask: ObjId,
    output: ObjId,
    w: u64,
    h: u64,
    mw: u64,
}

impl Kernel for SimpleConv {
    fn info(&self) -> KernelInfo {
        kinfo(
            "simpleConvolution",
            Dim3::x((self.w * self.h / BLOCK) as u32),
            Dim3::x(BLOCK as u32),
            20,
            0,
        )
    }
    /// Per work-item (sm_70+ SASS equivalent, docs/workloads.md rules): entry `MOV; S2R x2;
    /// IMAD`; `tid / width` and `tid % width` by a variable (about 20 int + 2); `vstep`,
    /// `hstep` (4); the four clamps (`ISETP; SEL` or `IADD3`, 8); the outer loop entry test
    /// (`ISETP; BRA`). Per column `i`: the inner loop entry test (`ISETP; BRA`) and the loop
    /// step. Per window element: `maskIndex` (`IADD3; IMAD`), `index` (`IMAD`), two
    /// `IMAD.WIDE`, `LDG` of the pixel and of the mask value, `I2F` (1 sfu), `FFMA`, the
    /// loop step. Then `FADD`, `F2I` (1 sfu), `IMAD.WIDE; STG`. An interior pixel with a
    /// 3x3 mask: 40 + 3 x 5 + 9 x 12 + 4 = 167 instructions, 19 of them memory.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let tid = t.gx();
        t.alu(4);
        t.alu(22);
        let (x, y) = (tid % self.w, tid / self.w);
        let step = (self.mw - 1) / 2;
        t.alu(4);
        let left = x.saturating_sub(step);
        let right = (x + step).min(self.w - 1);
        let top = y.saturating_sub(step);
        let bottom = (y + step).min(self.h - 1);
        t.alu(8);
        t.alu(1);
        t.branch(1);
        let mut sum = 0.0f32;
        for i in left..=right {
            t.alu(1);
            t.branch(1);
            for j in top..=bottom {
                t.alu(3);
                // maskIndex = (j - (y - hstep)) * maskWidth + (i - (x - vstep)), in u32
                // arithmetic that wraps back into range
                let mi = (j + step - y) * self.mw + (i + step - x);
                let idx = j * self.w + i;
                t.alu(2);
                let px: u32 = t.ld(self.input, idx);
                let mv: f32 = t.ld(self.mask, mi);
                t.sfu(1);
                t.fp(1);
                sum += px as f32 * mv;
                loop_step(t);
            }
            loop_step(t);
        }
        t.fp(1);
        t.sfu(1);
        t.alu(1);
        t.st(self.output, tid, (sum + 0.5) as u32);
    }
}

/// The host reference (the sample's `simpleConvolutionCPUReference`, in the kernel's order).
#[cfg(test)]
pub(crate) fn reference(input: &[u32], mask: &[f32], w: u64, h: u64, mw: u64) -> Vec<u32> {
    let step = (mw - 1) / 2;
    (0..w * h)
        .map(|tid| {
            let (x, y) = (tid % w, tid / w);
            let mut sum = 0.0f32;
            for i in x.saturating_sub(step)..=(x + step).min(w - 1) {
                for j in y.saturating_sub(step)..=(y + step).min(h - 1) {
                    let mi = (j + step - y) * mw + (i + step - x);
                    sum += input[(j * w + i) as usize] as f32 * mask[mi as usize];
                }
            }
            (sum + 0.5) as u32
        })
        .collect()
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let w = p.u64("width", default_side())?;
    let h = p.u64("height", default_side())?;
    let mw = p.u64("mask", 3)?;
    if w == 0 || h == 0 || (w * h) % BLOCK != 0 || mw % 2 == 0 || mw > w.min(h) {
        return Err(bad(format!(
            "simpleconv: need width * height a positive multiple of {BLOCK} and an odd mask \
             no larger than the image (got width={w}, height={h}, mask={mw})"
        )));
    }
    let mut rng = Rng::new(p.seed);
    let input: Vec<u32> = (0..w * h).map(|_| rng.below(256) as u32).collect();
    let maskv: Vec<f32> = (0..mw * mw).map(|_| rng.f32()).collect();
    let mut m = Memory::new();
    let input = m.alloc_from("inputBuffer", &input, true);
    let mask = m.alloc_from("maskBuffer", &maskv, true);
    let output = m.alloc::<u32>("outputBuffer", w * h, false);
    let k = SimpleConv {
        input,
        mask,
        output,
        w,
        h,
        mw,
    };
    Ok(ModelWorkload::new(
        "simpleconv",
        m,
        crate::bench::dense::common::seq(vec![Box::new(k)]),
    ))
}
