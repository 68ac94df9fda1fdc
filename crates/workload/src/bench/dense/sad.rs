//! Parboil SAD (`mb_sad_calc`, `larger_sad_calc_8`, `larger_sad_calc_16`): H.264 motion
//! estimation. `mb_sad_calc` computes, for every 4x4 block of the current frame, the sum of
//! absolute differences against the reference frame (read through the 2-D texture path,
//! clamped) at all 33x33 = 1089 positions of a +-16 pixel search window; 61 threads cover the
//! 1089 positions of one 4x4 block (18 each, Parboil's `CEIL_POS`), and a block holds
//! `tb_w x tb_h` 4x4 blocks (Parboil's `THREADS_W`/`THREADS_H`). The SADs of the 4x4 blocks go
//! to their exclusive, contiguous rows of `blk_sad` (1096 u16 per block, 41 block shapes per
//! macroblock); the larger kernels then add them up to 8x4, 4x8, 8x8 (32x4 threads per
//! macroblock) and 16x8, 8x16, 16x16 (32 threads per macroblock).
//!
//! Default instance (spec A13, CODA §6.3): a 244x16 frame with 1x4 4x4-blocks per thread
//! block gives exactly 61 thread blocks of 244 threads for `mb_sad_calc` (6 blocks per SM, so
//! Eq. 1 leaves a GPU idle), at the price of a small footprint. The frame is stored padded to
//! whole macroblocks; 4x4 columns of the padded last macroblock beyond the real width are not
//! computed (their SADs stay 0), as Parboil's grid is sized from the real width.

use super::common::{bad, entry, kinfo, loop_step, prologue, seq};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "sad",
    suite: "Parboil",
    category: "core-exclusive",
    about: "Parboil SAD: mb_sad_calc (61 TBs by default) + larger_sad_calc_8/16",
    params: &[
        ParamSpec {
            name: "width",
            default: "244",
            help: "frame width in pixels (multiple of 4)",
        },
        ParamSpec {
            name: "height",
            default: "16",
            help: "frame height in pixels (multiple of 16)",
        },
        ParamSpec {
            name: "tb_w",
            default: "1",
            help: "4x4 blocks per thread block in x (THREADS_W)",
        },
        ParamSpec {
            name: "tb_h",
            default: "4",
            help: "4x4 blocks per thread block in y (THREADS_H)",
        },
    ],
    build,
};

/// Search positions (33 x 33).
pub(crate) const MAX_POS: u64 = 1089;
/// Positions per 4x4 block in `blk_sad` (padded).
pub(crate) const MPP: u64 = 1096;
const POS_PER_THREAD: u64 = 18;
const CEIL_POS: u64 = MAX_POS.div_ceil(POS_PER_THREAD); // 61

/// Frame geometry shared by the kernels.
#[derive(Clone, Copy)]
pub(crate) struct Geo {
    /// Real width and height in pixels.
    pub w: u64,
    pub h: u64,
    /// Macroblocks per row / column (padded).
    pub mbw: u64,
    pub mbh: u64,
}

impl Geo {
    fn pitch(&self) -> u64 {
        self.mbw * 16
    }
    fn macroblocks(&self) -> u64 {
        self.mbw * self.mbh
    }
    /// Row of `blk_sad` of 4x4 block (`bx`, `by`) (type 7 region).
    pub(crate) fn row4x4(&self, bx: u64, by: u64) -> u64 {
        let mbi = (by / 4) * self.mbw + bx / 4;
        self.macroblocks() * 25 + mbi * 16 + (by % 4) * 4 + bx % 4
    }
}

/// `mb_sad_calc`.
struct MbSad {
    blk_sad: ObjId,
    frame: ObjId,
    reference: ObjId,
    g: Geo,
    tb_w: u64,
    tb_h: u64,
}

impl Kernel for MbSad {
    fn info(&self) -> KernelInfo {
        let gx = (self.g.w / 4).div_ceil(self.tb_w) as u32;
        let gy = (self.g.h / 4).div_ceil(self.tb_h) as u32;
        let threads = (CEIL_POS * self.tb_w * self.tb_h) as u32;
        let smem = (self.tb_w * self.tb_h * 16 * 4) as u32;
        kinfo(
            "mb_sad_calc",
            Dim3::new(gx, gy, 1),
            Dim3::x(threads),
            20,
            smem,
        )
    }
    fn phases(&self) -> u32 {
        2
    }
    /// Per thread, the instructions of Parboil sad `mb_sad_calc` (sm_70+ SASS, issue 7 §1
    /// counting). Before the barrier: `MOV; S2R x3`, `ULDC`, the sub-block and position
    /// index (`threadIdx.x / CEIL_POS` by a constant: `IMAD.HI; SHF`, `lidx`: 3), the
    /// macroblock and 4x4-block coordinates (6), the two bound tests (`ISETP` x2) and
    /// `EXIT` (17); the frame and search origins, `cur_o`, the position range and the
    /// `blk_sad` offset (10); the `lidx < 16` test (`ISETP; BRA`) and for those lanes the
    /// pixel address (4), `LDG`, the shared address (1), `STS`. After it: the loop guard
    /// (`ISETP; BRA`), the 16 pixels of the block read once (`LDS` x16, hoisted out of the
    /// loop), then per search position the offsets `pos % 33`, `pos / 33` by a constant
    /// and the origins (4), the 3 further x and y coordinates (6) and their 8 `I2F`
    /// conversions (`tex2D` takes float coordinates; the texture unit clamps), the 4x4
    /// `TEX` (fully unrolled), per pixel `IADD3; IABS; IADD3` (48), the output address (1),
    /// `STG`, the loop control (3): 87 per position, 17 of them memory; `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let x = t.tid.x as u64;
        let tidx = x % CEIL_POS;
        let sub = x / CEIL_POS;
        let bx = t.block.x as u64 * self.tb_w + sub % self.tb_w;
        let by = t.block.y as u64 * self.tb_h + sub / self.tb_w;
        if phase == 0 {
            prologue(t, 3, 11);
        }
        if bx * 4 >= self.g.w || by * 4 >= self.g.h {
            return;
        }
        let pitch = self.g.pitch();
        if phase == 0 {
            t.alu(11);
            t.branch(1);
            // stage the current 4x4 block in shared memory
            if tidx < 16 {
                t.alu(5);
                let px = bx * 4 + tidx % 4;
                let py = by * 4 + tidx / 4;
                let v: u16 = t.ld(self.frame, py * pitch + px);
                t.sh_st((sub * 16 + tidx) as u32, v as u32);
            }
            return;
        }
        t.alu(1);
        t.branch(1);
        let mut cur = [0i32; 16];
        for (i, c) in cur.iter_mut().enumerate() {
            *c = t.sh_ld((sub * 16) as u32 + i as u32) as i32;
        }
        let row = self.g.row4x4(bx, by);
        let end = (tidx * POS_PER_THREAD + POS_PER_THREAD).min(MAX_POS);
        for pos in tidx * POS_PER_THREAD..end {
            let dx = (pos % 33) as i64 - 16;
            let dy = (pos / 33) as i64 - 16;
            t.alu(10);
            t.sfu(8);
            let mut sad = 0i32;
            for (i, c) in cur.iter().enumerate() {
                let rx = (bx as i64 * 4 + (i % 4) as i64 + dx).clamp(0, self.g.w as i64 - 1);
                let ry = (by as i64 * 4 + (i / 4) as i64 + dy).clamp(0, self.g.h as i64 - 1);
                let r: u16 = t.ld_tex(self.reference, ry as u64 * pitch + rx as u64);
                sad += (c - r as i32).abs();
            }
            t.alu(49);
            t.st(self.blk_sad, row * MPP + pos, sad as u16);
            loop_step(t);
        }
    }
}

/// Add two packed u16 pairs lane-wise (`ushort2` addition).
fn add2(a: u32, b: u32) -> u32 {
    let lo = (a as u16).wrapping_add(b as u16) as u32;
    let hi = ((a >> 16) as u16).wrapping_add((b >> 16) as u16) as u32;
    lo | (hi << 16)
}

/// `larger_sad_calc_8` (`big = false`) or `larger_sad_calc_16` (`big = true`).
struct Larger {
    blk_sad: ObjId,
    g: Geo,
    big: bool,
}

impl Kernel for Larger {
    fn info(&self) -> KernelInfo {
        let grid = Dim3::new(self.g.mbw as u32, self.g.mbh as u32, 1);
        if self.big {
            kinfo("larger_sad_calc_16", grid, Dim3::new(32, 1, 1), 16, 0)
        } else {
            kinfo("larger_sad_calc_8", grid, Dim3::new(32, 4, 1), 16, 0)
        }
    }
    /// Per thread, the instructions of Parboil sad `larger_sad_calc_8` / `_16` (sm_70+
    /// SASS, issue 7 §1 counting): `MOV; S2R x4`, `ULDC`, `tx`, `ty`, the macroblock count
    /// and index (4) and the input and three output pointers (`IMAD; LEA; LEA.HI.X` each:
    /// 12) (22, no bound test), the loop guard `ISETP; BRA`; per iteration the input and
    /// output addresses (`IMAD.WIDE` x4; the other rows at constant offsets), `LDG` x4, the
    /// five packed additions (`IADD3` x5), `STG` x5, the loop control (3): 21 per
    /// iteration, 9 of them memory; `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, _phase: u32) {
        let mbs = self.g.macroblocks();
        let mbi = t.block.y as u64 * self.g.mbw + t.block.x as u64;
        let half = MPP / 2; // u32 pairs per row
                            // (input row, its neighbours at +1/+row/+row+1, outputs) in rows of MPP u16
        let (bi, s01, s10, s11, o_v, o_h, o_sum, v_step, h_step) = if self.big {
            (
                mbs * 5 + mbi * 4,
                1,
                2,
                3,
                mbs * 3 + mbi * 2,
                mbs + mbi * 2,
                mbi,
                1,
                1,
            )
        } else {
            let tx = t.tid.y as u64 & 1;
            let ty = t.tid.y as u64 >> 1;
            (
                mbs * 25 + mbi * 16 + ty * 8 + tx * 2,
                1,
                4,
                5,
                mbs * 17 + mbi * 8 + ty * 4 + tx * 2,
                mbs * 9 + mbi * 8 + ty * 4 + tx,
                mbs * 5 + mbi * 4 + ty * 2 + tx,
                1,
                2,
            )
        };
        entry(t, 4, 17);
        t.alu(1);
        t.branch(1);
        let mut sp = t.tid.x as u64;
        while sp < MAX_POS.div_ceil(2) {
            t.alu(4);
            let i00: u32 = t.ld(self.blk_sad, bi * half + sp);
            let i01: u32 = t.ld(self.blk_sad, (bi + s01) * half + sp);
            let i10: u32 = t.ld(self.blk_sad, (bi + s10) * half + sp);
            let i11: u32 = t.ld(self.blk_sad, (bi + s11) * half + sp);
            t.alu(2);
            t.st(self.blk_sad, o_v * half + sp, add2(i00, i10));
            t.st(self.blk_sad, (o_v + v_step) * half + sp, add2(i01, i11));
            t.alu(2);
            t.st(self.blk_sad, o_h * half + sp, add2(i00, i01));
            t.st(self.blk_sad, (o_h + h_step) * half + sp, add2(i10, i11));
            t.alu(1);
            t.st(
                self.blk_sad,
                o_sum * half + sp,
                add2(add2(i00, i01), add2(i10, i11)),
            );
            sp += 32;
            loop_step(t);
        }
    }
}

/// Build the geometry from the parameters.
pub(crate) fn geometry(w: u64, h: u64) -> Geo {
    Geo {
        w,
        h,
        mbw: w.div_ceil(16),
        mbh: h.div_ceil(16),
    }
}

/// Generate a reference frame and a current frame that is the reference shifted by a small
/// motion plus noise (8-bit pixels in u16, padded to whole macroblocks).
pub(crate) fn frames(rng: &mut Rng, g: Geo) -> (Vec<u16>, Vec<u16>) {
    let (pw, ph) = (g.mbw * 16, g.mbh * 16);
    let mut reference = vec![0u16; (pw * ph) as usize];
    for y in 0..g.h {
        for x in 0..g.w {
            let smooth = (x * 3 + y * 5) % 200;
            reference[(y * pw + x) as usize] = (smooth + rng.below(56)) as u16;
        }
    }
    let (mx, my) = (3i64, -2i64);
    let mut cur = vec![0u16; (pw * ph) as usize];
    for y in 0..g.h as i64 {
        for x in 0..g.w as i64 {
            let sx = (x + mx).clamp(0, g.w as i64 - 1);
            let sy = (y + my).clamp(0, g.h as i64 - 1);
            let v =
                reference[(sy as u64 * pw + sx as u64) as usize] as i64 + rng.below(9) as i64 - 4;
            cur[(y as u64 * pw + x as u64) as usize] = v.clamp(0, 255) as u16;
        }
    }
    (reference, cur)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (w, h) = (p.u64("width", 244)?, p.u64("height", 16)?);
    let (tb_w, tb_h) = (p.u64("tb_w", 1)?, p.u64("tb_h", 4)?);
    if w < 4
        || w % 4 != 0
        || h < 16
        || h % 16 != 0
        || tb_w == 0
        || tb_h == 0
        || CEIL_POS * tb_w * tb_h > 1024
    {
        return Err(bad(
            "sad: width multiple of 4, height multiple of 16, 61*tb_w*tb_h <= 1024".into(),
        ));
    }
    let g = geometry(w, h);
    let mut rng = Rng::new(p.seed);
    let (rv, cv) = frames(&mut rng, g);
    let mut m = Memory::new();
    let reference = m.alloc_from("ref_image", &rv, true);
    let frame = m.alloc_from("cur_image", &cv, true);
    let blk_sad = m.alloc::<u16>("d_sads", g.macroblocks() * 41 * MPP, false);
    let ks: Vec<Box<dyn Kernel>> = vec![
        Box::new(MbSad {
            blk_sad,
            frame,
            reference,
            g,
            tb_w,
            tb_h,
        }),
        Box::new(Larger {
            blk_sad,
            g,
            big: false,
        }),
        Box::new(Larger {
            blk_sad,
            g,
            big: true,
        }),
    ];
    Ok(ModelWorkload::new("sad", m, seq(ks)))
}
