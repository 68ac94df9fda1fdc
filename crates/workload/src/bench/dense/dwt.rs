//! 2D discrete wavelet transform (Rodinia `dwt2d`, forward 5/3, integer path). Launch
//! sequence of the public CUDA code (`components.cu`, `dwt_cuda/fdwt53.cu`, `io.h`):
//!
//! 1. `c_CopySrcToComponents<int>`: 256 threads per block; 192 threads copy the block's
//!    768 interleaved RGB bytes as 32-bit words into shared memory, then every thread splits
//!    its pixel into the `c_r`, `c_g`, `c_b` planes (`value - 128`). Pure streaming.
//! 2. For each component, `levels` launches of `fdwt53Kernel<WIN_X, 8>` (`WIN_X` = 192, 128
//!    or 64 threads by image width). Block (bx, by) owns a `WIN_X`-column strip of
//!    `8 * steps` rows (`steps = ceil(sy / 120)`): each thread walks its column down the
//!    strip in 8-row sliding-window steps, threads 0-2 also load the halo columns
//!    (1 right, 2 left), every column starts 2 rows above the strip (halo rows, mirrored at
//!    the image border). Vertical lifting runs per column in shared memory, horizontal
//!    lifting across the buffer after a barrier, and each thread writes one output column of
//!    the low or high band (`parityIdx`) into the four linearly stored bands. Between levels
//!    the host copies the LL band back into the input (`cudaMemcpy`) and the image halves.
//!
//! Page sharing (CODA Table 2: core-majority; spec §7 row DWT): an image row is written by
//! the `sx / WIN_X` blocks of one strip row (consecutive ids, usually one Eq. 1 window) and
//! read as halo by the strip rows above and below, so most pages stay on one GPU and the
//! halo rows and strip rows that straddle a window boundary are shared.

use super::common::{bad, entry, host, kinfo, loop_step, prologue, Regs};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "dwt",
    suite: "Rodinia",
    category: "core-majority",
    about: "dwt2d: RGB -> 3 planes (c_CopySrcToComponents), then fdwt53Kernel tiles with halo \
            rows/columns per level",
    params: &[
        ParamSpec {
            name: "width",
            default: "1024",
            help: "image width in pixels (multiple of 2^levels)",
        },
        ParamSpec {
            name: "height",
            default: "1024",
            help: "image height in pixels (multiple of 2^levels)",
        },
        ParamSpec {
            name: "levels",
            default: "3",
            help: "decomposition levels (Rodinia run script: -l 3)",
        },
    ],
    build,
};

const COPY_THREADS: u64 = 256;
const WIN_Y: i64 = 8;

/// `c_CopySrcToComponents<int>(d_r, d_g, d_b, d_src, pixels)`.
struct CopyComponents {
    src: ObjId,
    planes: [ObjId; 3],
    pixels: u64,
    grid: u32,
}

impl Kernel for CopyComponents {
    fn info(&self) -> KernelInfo {
        kinfo(
            "c_CopySrcToComponents",
            Dim3::x(self.grid),
            Dim3::x(COPY_THREADS as u32),
            10,
            (COPY_THREADS * 3) as u32,
        )
    }
    fn phases(&self) -> u32 {
        2
    }
    /// Per thread, the instructions of Rodinia dwt2d `c_CopySrcToComponents<int>` (sm_70+
    /// SASS, issue 7 §1 counting): `MOV; S2R x2; IMAD` (`gX`), the `x*4 < 768` test
    /// (`ISETP; BRA`); for the 192 copying lanes the source index and address (`IMAD; SHF;
    /// IMAD.WIDE`), `LDG`, the shared address (1), `STS`; after the barrier `x*3` (1),
    /// `LDS` x3, the output position and its bound test (`IADD3; ISETP; EXIT`), per plane
    /// `IADD3` (`- 128`) and `IMAD.WIDE`, `STG` (unrolled), `EXIT`: 30 instructions (the `BAR` included) for
    /// a copying lane, 8 of them memory.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let x = t.tid.x as u64;
        let gx = t.block.x as u64 * COPY_THREADS;
        if phase == 0 {
            entry(t, 2, 1);
            t.alu(1);
            t.branch(1);
            if x * 4 < COPY_THREADS * 3 {
                t.alu(4);
                let w: u32 = t.ld(self.src, (gx * 3) / 4 + x);
                t.sh_st(x as u32, w);
            }
            return;
        }
        t.alu(1);
        let mut rgb = [0i32; 3];
        for (k, c) in rgb.iter_mut().enumerate() {
            let b = x * 3 + k as u64;
            let w = t.sh_ld((b / 4) as u32);
            *c = ((w >> (8 * (b % 4))) & 0xFF) as i32;
        }
        let pos = gx + x;
        prologue(t, 0, 0);
        if pos < self.pixels {
            for (k, c) in rgb.iter().enumerate() {
                t.alu(2);
                t.st(self.planes[k], pos, c - 128);
            }
        }
    }
}

/// Mirror a coordinate at the image border (`DWTIO::mirror`), clamped into the image for
/// the far-out columns of blocks wider than a small image (the CUDA code reads outside the
/// buffer there; those values never reach the output).
fn mirror(d: i64, size: i64) -> i64 {
    let m = if d >= size {
        2 * size - 2 - d
    } else if d < 0 {
        -d
    } else {
        d
    };
    m.clamp(0, size - 1)
}

/// Index of coefficient (x, y) in the four linearly stored bands (`VerticalDWTBandIO`).
pub(crate) fn band_index(x: i64, y: i64, sx: i64, sy: i64) -> i64 {
    let (cx, cy) = ((sx + 1) / 2, (sy + 1) / 2);
    if x & 1 == 1 {
        x / 2 + cx * cy + (y / 2) * (sx / 2) + (y & 1) * ((sx * sy) / 2)
    } else {
        x / 2 + (y / 2) * cx + (y & 1) * cy * sx
    }
}

/// Window width `fdwt53` selects for an image of width `sx`.
fn win_x(sx: i64) -> i64 {
    if sx >= 960 {
        192
    } else if sx >= 480 {
        128
    } else {
        64
    }
}

/// `fdwt53Kernel<WIN_X, 8>(in, out, sx, sy, steps)`: 4 barrier phases per window step
/// (load + vertical lifting, horizontal predict, horizontal update, band writes).
struct Fdwt53 {
    input: ObjId,
    output: ObjId,
    sx: i64,
    sy: i64,
    win: i64,
    steps: i64,
    /// Raw pixels of the last 3 rows of each (main, boundary) column kept in registers.
    regs: Regs,
}

impl Fdwt53 {
    fn new(input: ObjId, output: ObjId, sx: i64, sy: i64) -> Self {
        let win = win_x(sx);
        Fdwt53 {
            input,
            output,
            sx,
            sy,
            win,
            steps: (sy + 15 * WIN_Y - 1) / (15 * WIN_Y),
            regs: Regs::new(win as usize, 6),
        }
    }
    fn stride(&self) -> u32 {
        (self.win + 3) as u32
    }
    /// Shared-buffer word of (buffer row, column relative to the tile, from -2).
    fn buf(&self, row: i64, col: i64) -> u32 {
        row as u32 * self.stride() + (col + 2) as u32
    }
    fn load_column(&self, t: &mut Thread<'_>, col: i64, slot: usize, w: i64) {
        let local = t.local_id();
        let first_y = t.block.y as i64 * WIN_Y * self.steps;
        let x = mirror(t.block.x as i64 * self.win + col, self.sx);
        let row0 = first_y - 2 + w * WIN_Y;
        let mut raw = [0i32; 3];
        if w == 0 {
            t.alu(3);
            for (i, r) in raw.iter_mut().enumerate() {
                let y = mirror(row0 + i as i64, self.sy);
                *r = t.ld(self.input, (y * self.sx + x) as u64);
            }
        } else {
            for (i, r) in raw.iter_mut().enumerate() {
                *r = self.regs.get(local, slot + i).to_bits() as i32;
            }
        }
        for (i, r) in raw.iter().enumerate() {
            t.sh_st(self.buf(i as i64, col), *r as u32);
        }
        t.alu(WIN_Y as u32);
        let mut v = [0i32; WIN_Y as usize];
        for (i, p) in v.iter_mut().enumerate() {
            let y = mirror(row0 + 3 + i as i64, self.sy);
            *p = t.ld(self.input, (y * self.sx + x) as u64);
        }
        for (i, p) in v.iter().enumerate() {
            t.sh_st(self.buf(3 + i as i64, col), *p as u32);
        }
        for i in 0..3 {
            let p = v[WIN_Y as usize - 3 + i];
            self.regs.set(local, slot + i, f32::from_bits(p as u32));
        }
        // vertical lifting: predict odd rows, then update even rows 2..=WIN_Y
        for r in (1..WIN_Y + 2).step_by(2) {
            let p = t.sh_ld(self.buf(r - 1, col)) as i32;
            let c = t.sh_ld(self.buf(r, col)) as i32;
            let n = t.sh_ld(self.buf(r + 1, col)) as i32;
            t.alu(3);
            t.sh_st(self.buf(r, col), (c - (p + n) / 2) as u32);
        }
        for r in (2..WIN_Y + 2).step_by(2) {
            let p = t.sh_ld(self.buf(r - 1, col)) as i32;
            let c = t.sh_ld(self.buf(r, col)) as i32;
            let n = t.sh_ld(self.buf(r + 1, col)) as i32;
            t.alu(3);
            t.sh_st(self.buf(r, col), (c + (p + n + 2) / 4) as u32);
        }
    }
    /// Horizontal lifting over output rows 2..2+WIN_Y for columns `cols`, items dealt
    /// round-robin to the threads.
    fn horizontal(&self, t: &mut Thread<'_>, first: i64, count: i64, update: bool) {
        let items = count * WIN_Y;
        let mut i = t.local_id() as i64;
        while i < items {
            let row = 2 + i / count;
            let col = first + 2 * (i % count);
            t.alu(4);
            let p = t.sh_ld(self.buf(row, col - 1)) as i32;
            let c = t.sh_ld(self.buf(row, col)) as i32;
            let n = t.sh_ld(self.buf(row, col + 1)) as i32;
            t.alu(3);
            let v = if update {
                c + (p + n + 2) / 4
            } else {
                c - (p + n) / 2
            };
            t.sh_st(self.buf(row, col), v as u32);
            i += self.win;
            loop_step(t);
        }
    }
}

impl Kernel for Fdwt53 {
    fn info(&self) -> KernelInfo {
        let gx = (self.sx + self.win - 1) / self.win;
        let gy = (self.sy + WIN_Y * self.steps - 1) / (WIN_Y * self.steps);
        let smem = (self.stride() as i64 * (WIN_Y + 3) * 4) as u32;
        kinfo(
            "fdwt53Kernel",
            Dim3::new(gx as u32, gy as u32, 1),
            Dim3::x(self.win as u32),
            24,
            smem,
        )
    }
    fn phases(&self) -> u32 {
        4 * self.steps as u32
    }
    /// Per thread, the instructions of Rodinia dwt2d `fdwt53Kernel<WIN_X, 8>` (sm_70+ SASS,
    /// issue 7 §1 counting, on this model's structure). Entry: `MOV; S2R x3`, `ULDC`, the
    /// column, the strip's first row, the loader's offsets and the buffer column (8), the
    /// border choice of the loader (`ISETP; BRA`). Per column loaded: one address per
    /// global row (`IADD3`/`IMAD.WIDE`: 3 on the first step, then 8), `LDG` and `STS` per
    /// row (shared addresses at constant offsets), the unrolled vertical lifting (5 predict
    /// and 4 update steps: `LDS` x3, 3 int (`/2`, `/4` are shifts), `STS`); the halo test
    /// `tx < 3` (`ISETP; BRA`). Horizontal lifting, per item: the row and column by a
    /// constant divisor and the shared address (4), `LDS` x3, 3 int, `STS`, the loop
    /// control (3). Output: the parity column, `ox`, the rows and the bound test (5 +
    /// `ISETP; BRA`); per row (unrolled) the row test (`ISETP; BRA`), `LDS`, the band
    /// offset and address (2), `STG`; then the step-loop control (3), `EXIT` after the last.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let w = (phase / 4) as i64;
        let tx = t.tid.x as i64;
        match phase % 4 {
            0 => {
                if w == 0 {
                    entry(t, 3, 9);
                    t.branch(1);
                }
                self.load_column(t, tx, 0, w);
                t.alu(1);
                t.branch(1);
                if tx < 3 {
                    let col = tx + if tx == 0 { self.win } else { -3 };
                    self.load_column(t, col, 3, w);
                }
            }
            1 => self.horizontal(t, -1, self.win / 2 + 1, false),
            2 => self.horizontal(t, 0, self.win / 2, true),
            _ => {
                let half = self.win / 2;
                let out_col = if tx < half {
                    2 * tx
                } else {
                    2 * (tx - half) + 1
                };
                let ox = t.block.x as i64 * self.win + out_col;
                let first_y = t.block.y as i64 * WIN_Y * self.steps + w * WIN_Y;
                t.alu(6);
                t.branch(1);
                if ox >= self.sx {
                    return;
                }
                for r in 0..WIN_Y {
                    let y = first_y + r;
                    t.alu(1);
                    t.branch(1);
                    if y >= self.sy {
                        break;
                    }
                    let v = t.sh_ld(self.buf(2 + r, out_col)) as i32;
                    t.alu(2);
                    let idx = band_index(ox, y, self.sx, self.sy);
                    t.st(self.output, idx as u64, v);
                }
                loop_step(t);
            }
        }
    }
}

/// Host reference: `levels` of the forward 5/3 transform of `img` (`sx` x `sy`, row-major)
/// with the kernel's band layout and LL copy-back between levels (tests).
#[cfg(test)]
pub(crate) fn fdwt53_ref(img: &[i32], sx: usize, sy: usize, levels: u32) -> Vec<i32> {
    let mut input = img.to_vec();
    let mut out = vec![0i32; img.len()];
    let (mut w, mut h) = (sx as i64, sy as i64);
    for l in 0..levels {
        let at = |v: &Vec<i32>, x: i64, y: i64| v[(mirror(y, h) * w + mirror(x, w)) as usize];
        // vertical: predict odd rows from raw even rows, update even rows from predicted odd
        let mut v = input[..(w * h) as usize].to_vec();
        for y in (1..h).step_by(2) {
            for x in 0..w {
                let (p, n) = (at(&input, x, y - 1), at(&input, x, y + 1));
                v[(y * w + x) as usize] -= (p + n) / 2;
            }
        }
        let pv = v.clone();
        for y in (0..h).step_by(2) {
            for x in 0..w {
                let (p, n) = (at(&pv, x, y - 1), at(&pv, x, y + 1));
                v[(y * w + x) as usize] += (p + n + 2) / 4;
            }
        }
        let src = v.clone();
        for x in (1..w).step_by(2) {
            for y in 0..h {
                let (p, n) = (at(&src, x - 1, y), at(&src, x + 1, y));
                v[(y * w + x) as usize] -= (p + n) / 2;
            }
        }
        let pv = v.clone();
        for x in (0..w).step_by(2) {
            for y in 0..h {
                let (p, n) = (at(&pv, x - 1, y), at(&pv, x + 1, y));
                v[(y * w + x) as usize] += (p + n + 2) / 4;
            }
        }
        for y in 0..h {
            for x in 0..w {
                out[band_index(x, y, w, h) as usize] = v[(y * w + x) as usize];
            }
        }
        if l + 1 < levels {
            let (cx, cy) = ((w + 1) / 2, (h + 1) / 2);
            input[..(cx * cy) as usize].copy_from_slice(&out[..(cx * cy) as usize]);
            w = cx;
            h = cy;
        }
    }
    out
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let (sx, sy) = (p.u64("width", 1024)?, p.u64("height", 1024)?);
    let levels = p.u64("levels", 3)?;
    let unit = 1u64 << levels.min(20);
    if !(1..=10).contains(&levels) || sx % unit != 0 || sy % unit != 0 {
        return Err(bad(
            "dwt: 1 <= levels <= 10, width/height multiples of 2^levels".into(),
        ));
    }
    if sx / (unit / 2) < 4 || sy / (unit / 2) < 4 || sx * sy > (1 << 26) {
        return Err(bad(
            "dwt: the last level needs >= 4 x 4 pixels; at most 64M pixels".into(),
        ));
    }
    let pixels = sx * sy;
    let aligned = pixels.div_ceil(COPY_THREADS) * COPY_THREADS * 3;
    let mut rng = Rng::new(p.seed);
    // a smooth gradient plus noise, like a photograph
    let mut src = vec![0u8; aligned as usize];
    for y in 0..sy {
        for x in 0..sx {
            for c in 0..3u64 {
                let base = ((x * (c + 1) + y * (3 - c)) * 255 / (sx + sy) / 2) as i64;
                let v = (base + rng.below(64) as i64).clamp(0, 255);
                src[((y * sx + x) * 3 + c) as usize] = v as u8;
            }
        }
    }
    let mut m = Memory::new();
    let d_src = m.alloc_from("d_src", &src, true);
    let planes = [
        m.alloc::<i32>("c_r", pixels, false),
        m.alloc::<i32>("c_g", pixels, false),
        m.alloc::<i32>("c_b", pixels, false),
    ];
    let outs = [
        m.alloc::<i32>("c_r_out", pixels, false),
        m.alloc::<i32>("c_g_out", pixels, false),
        m.alloc::<i32>("c_b_out", pixels, false),
    ];
    let _backup = m.alloc::<i32>("backup", pixels, false);
    let (mut comp, mut level) = (0usize, 0u64);
    let mut started = false;
    let (mut w, mut h) = (sx as i64, sy as i64);
    let hst = host(move |m: &mut Memory| {
        if !started {
            started = true;
            return Some(Box::new(CopyComponents {
                src: d_src,
                planes,
                pixels,
                grid: (aligned / (COPY_THREADS * 3)) as u32,
            }) as Box<dyn Kernel>);
        }
        if level == levels {
            // next component: nStage2dDWT starts again at full size
            comp += 1;
            level = 0;
            w = sx as i64;
            h = sy as i64;
        }
        if comp >= 3 {
            return None;
        }
        if level > 0 {
            // memCopy(in, out, llSizeX, llSizeY) and recurse on the LL band
            let (cx, cy) = ((w + 1) / 2, (h + 1) / 2);
            for i in 0..(cx * cy) as u64 {
                let v: i32 = m.get(outs[comp], i);
                m.set(planes[comp], i, v);
            }
            w = cx;
            h = cy;
        }
        level += 1;
        Some(Box::new(Fdwt53::new(planes[comp], outs[comp], w, h)) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("dwt", m, hst))
}
