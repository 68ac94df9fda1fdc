//! Needleman-Wunsch (Rodinia `nw`, `needle_cuda_shared_1/2`): the `(N+1)^2` score matrix is
//! filled in 16x16 tiles along anti-diagonals, one launch per tile diagonal (first the upper-
//! left triangle with grids 1..=B, then the lower-right with grids B-1..=1, B = N/16), 16
//! threads per block. A block stages the 16x16 reference tile and the halo (north-west
//! corner, west column, north row) of its 17x17 score tile in shared memory, sweeps the tile's
//! 31 inner anti-diagonals with a barrier after each, and writes its 16x16 tile back.
//! CODA Table 2: block-exclusive (spec §7 NW row; per-launch block ids).

use super::common::{bad, entry, host, kinfo};
use crate::gen::rng::Rng;
use crate::memory::Memory;
use crate::model::{Kernel, ModelWorkload, Thread};
use crate::program::{Dim3, KernelInfo, ObjId, WorkloadError};
use crate::registry::{BenchSpec, ParamSpec, Params};

/// Registry entry.
pub const SPEC: BenchSpec = BenchSpec {
    name: "nw",
    suite: "Rodinia",
    category: "block-exclusive",
    about: "Needleman-Wunsch: per anti-diagonal launches of 16-thread blocks, 17x17 smem tiles \
            (needle_cuda_shared_1, needle_cuda_shared_2)",
    params: &[
        ParamSpec {
            name: "n",
            default: "2048",
            help: "sequence length (multiple of 16)",
        },
        ParamSpec {
            name: "penalty",
            default: "10",
            help: "gap penalty",
        },
    ],
    build,
};

const BS: u64 = 16;
/// Shared-memory word offset of `ref[16][16]` after `temp[17][17]`.
const REF: u32 = 17 * 17;

/// Substitution score of residues `a`, `b` (a fixed symmetric BLOSUM-like table: positive on
/// the diagonal, small negative or zero elsewhere).
pub(crate) fn subst(a: i32, b: i32) -> i32 {
    if a == b {
        4 + a % 5
    } else {
        1 - (a * 7 + b * 7 + a * b) % 5
    }
}

/// `needle_cuda_shared_1` (upper-left) or `_2` (lower-right) for diagonal `i`.
struct Needle {
    reference: ObjId,
    matrix: ObjId,
    cols: u64,
    penalty: i32,
    i: u64,
    block_width: u64,
    second: bool,
}

impl Needle {
    fn tile(&self, bx: u64) -> (u64, u64) {
        if self.second {
            (bx + self.block_width - self.i, self.block_width - bx - 1)
        } else {
            (bx, self.i - 1 - bx)
        }
    }
}

fn tw(y: u64, x: u64) -> u32 {
    (y * 17 + x) as u32
}

impl Kernel for Needle {
    fn info(&self) -> KernelInfo {
        let name = if self.second {
            "needle_cuda_shared_2"
        } else {
            "needle_cuda_shared_1"
        };
        kinfo(
            name,
            Dim3::x(self.i as u32),
            Dim3::x(16),
            18,
            (17 * 17 + 16 * 16) * 4,
        )
    }
    fn phases(&self) -> u32 {
        3 + 16 + 15 + 1
    }
    /// Per thread, the instructions of Rodinia `needle_cuda_shared_1` / `_2` (sm_70+ SASS,
    /// issue 7 §1 counting; every loop has a constant trip count of 16 or 15 and is fully
    /// unrolled, so no loop control). Entry: `MOV; S2R x2`, the `ULDC` of `cols` and `i`,
    /// the tile coordinates and `index`, `index_n`, `index_w`, `index_nw` (6) and the two
    /// shared-memory bases of the thread (2): 11 int; the `tx == 0` test (`ISETP; BRA`) and
    /// for lane 0 `IMAD.WIDE; LDG; STS`; the 16 rows of `ref`: `IMAD.WIDE; LDG; STS` each.
    /// West column: `IMAD; IMAD.WIDE; LDG; STS`; north row: `IMAD.WIDE; LDG; STS`. Each of
    /// the 31 anti-diagonal steps: `ISETP; BRA` (`tx <= m`), then for active lanes `LDS` x4
    /// (addresses at constant offsets from the thread's base), `IADD3` x3 and `IMNMX` x2,
    /// `STS`. Write-back: 16 x (`LDS; IMAD.WIDE; STG`), `EXIT`.
    fn thread(&self, t: &mut Thread<'_>, phase: u32) {
        let tx = t.tid.x as u64;
        let (bxi, byi) = self.tile(t.block.x as u64);
        let cols = self.cols;
        let base = cols * BS * byi + BS * bxi;
        let index = base + tx + cols + 1;
        let index_n = base + tx + 1;
        let index_w = base + cols;
        let index_nw = base;
        let p = self.penalty;
        match phase {
            0 => {
                entry(t, 2, 8);
                t.alu(1);
                t.branch(1);
                if tx == 0 {
                    t.alu(1);
                    let v: i32 = t.ld(self.matrix, index_nw);
                    t.sh_st(tw(0, 0), v as u32);
                }
                for ty in 0..BS {
                    t.alu(1);
                    let r: i32 = t.ld(self.reference, index + cols * ty);
                    t.sh_st(REF + (ty * BS + tx) as u32, r as u32);
                }
            }
            1 => {
                t.alu(2);
                let v: i32 = t.ld(self.matrix, index_w + cols * tx);
                t.sh_st(tw(tx + 1, 0), v as u32);
            }
            2 => {
                t.alu(1);
                let v: i32 = t.ld(self.matrix, index_n);
                t.sh_st(tw(0, tx + 1), v as u32);
            }
            3..=33 => {
                t.alu(1);
                t.branch(1);
                let (x, y) = if phase < 19 {
                    let m = (phase - 3) as u64;
                    if tx > m {
                        return;
                    }
                    (tx + 1, m - tx + 1)
                } else {
                    let m = (33 - phase) as u64; // 14 ..= 0
                    if tx > m {
                        return;
                    }
                    (tx + BS - m, BS - tx)
                };
                let d = t.sh_ld(tw(y - 1, x - 1)) as i32;
                let r = t.sh_ld(REF + ((y - 1) * BS + x - 1) as u32) as i32;
                let w = t.sh_ld(tw(y, x - 1)) as i32;
                let n = t.sh_ld(tw(y - 1, x)) as i32;
                t.alu(5);
                let v = (d + r).max(w - p).max(n - p);
                t.sh_st(tw(y, x), v as u32);
            }
            _ => {
                for ty in 0..BS {
                    let v = t.sh_ld(tw(ty + 1, tx + 1)) as i32;
                    t.alu(1);
                    t.st(self.matrix, index + ty * cols, v);
                }
            }
        }
    }
}

/// Rodinia's input setup: two random sequences of residues 1..=10 in row 0 / column 0,
/// `reference[i][j] = subst(seq1[i], seq2[j])`, then row 0 and column 0 set to `-k*penalty`.
pub(crate) fn nw_inputs(rng: &mut Rng, n: u64, penalty: i32) -> (Vec<i32>, Vec<i32>) {
    let cols = (n + 1) as usize;
    let s1: Vec<i32> = (0..cols).map(|_| rng.below(10) as i32 + 1).collect();
    let s2: Vec<i32> = (0..cols).map(|_| rng.below(10) as i32 + 1).collect();
    let mut reference = vec![0i32; cols * cols];
    for i in 1..cols {
        for j in 1..cols {
            reference[i * cols + j] = subst(s1[i], s2[j]);
        }
    }
    let mut items = vec![0i32; cols * cols];
    for i in 1..cols {
        items[i * cols] = -(i as i32) * penalty;
        items[i] = -(i as i32) * penalty;
    }
    (items, reference)
}

fn build(p: &Params) -> Result<ModelWorkload, WorkloadError> {
    let n = p.u64("n", 2048)?;
    let penalty = p.u64("penalty", 10)? as i32;
    if n == 0 || n % BS != 0 {
        return Err(bad("nw: n must be a positive multiple of 16".into()));
    }
    let mut rng = Rng::new(p.seed);
    let (items, reference) = nw_inputs(&mut rng, n, penalty);
    let mut m = Memory::new();
    let reference = m.alloc_from("referrence_cuda", &reference, true);
    let matrix = m.alloc_from("matrix_cuda", &items, false);
    let bw = n / BS;
    let cols = n + 1;
    // launch list: (i, second)
    let mut order: Vec<(u64, bool)> = (1..=bw).map(|i| (i, false)).collect();
    order.extend((1..bw).rev().map(|i| (i, true)));
    let mut it = order.into_iter();
    let h = host(move |_m: &mut Memory| {
        let (i, second) = it.next()?;
        Some(Box::new(Needle {
            reference,
            matrix,
            cols,
            penalty,
            i,
            block_width: bw,
            second,
        }) as Box<dyn Kernel>)
    });
    Ok(ModelWorkload::new("nw", m, h))
}
