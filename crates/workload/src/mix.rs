//! Instruction mix of a workload without timing: every block of every launch is generated
//! (functionally executed) and its warp instructions counted by class and memory space.
//! This is what `locus analyze mix` prints and what docs/workloads.md lists: warp
//! instructions per memory instruction, the figure issue 7 §1 compares with compiled code
//! (the vectorAdd trace: 5.7). A timing run issues exactly these instructions, so the
//! counts equal the `warp_insts` / `mem_insts` of its statistics.

use crate::program::{BlockProgram, InstClass, Space, Workload, WorkloadError};
use serde::Serialize;

/// Counts of one kernel launch (or of a whole program).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Mix {
    pub name: String,
    pub launches: u64,
    pub blocks: u64,
    pub warp_insts: u64,
    /// Memory warp instructions (loads, stores, atomics of every space).
    pub mem_insts: u64,
    /// Warp instructions by class, in `InstClass::ALL` order.
    pub by_class: [u64; 9],
    /// Memory warp instructions by space (`Space::ALL` order) and kind (load, store, atomic).
    pub by_space: [[u64; 3]; 5],
}

impl Mix {
    /// Warp instructions per memory instruction (0 when there is no memory instruction).
    pub fn insts_per_mem(&self) -> f64 {
        if self.mem_insts == 0 {
            0.0
        } else {
            self.warp_insts as f64 / self.mem_insts as f64
        }
    }
    fn add_block(&mut self, bp: &BlockProgram) {
        self.blocks += 1;
        for w in &bp.warps {
            for i in &w.insts {
                self.warp_insts += 1;
                self.by_class[i.class as usize] += 1;
                if i.class.is_mem() {
                    self.mem_insts += 1;
                    let kind = match i.class {
                        InstClass::Load => 0,
                        InstClass::Store => 1,
                        _ => 2,
                    };
                    self.by_space[i.space as usize][kind] += 1;
                }
            }
        }
    }
    fn merge(&mut self, o: &Mix) {
        self.launches += o.launches;
        self.blocks += o.blocks;
        self.warp_insts += o.warp_insts;
        self.mem_insts += o.mem_insts;
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            *a += b;
        }
        for (a, b) in self.by_space.iter_mut().zip(&o.by_space) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
    }
    /// Short description of the memory spaces used, e.g. `global 3 ld/st, shared 2`.
    pub fn spaces(&self) -> String {
        Space::ALL
            .iter()
            .filter_map(|s| {
                let n: u64 = self.by_space[*s as usize].iter().sum();
                (n > 0).then(|| {
                    format!(
                        "{} {:.0}%",
                        s.name(),
                        100.0 * n as f64 / self.mem_insts as f64
                    )
                })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The mix of a whole program: one row per distinct kernel name (launches merged), in
/// order of first launch, and the total.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MixReport {
    pub workload: String,
    pub kernels: Vec<Mix>,
    pub total: Mix,
}

/// Generate every block of at most `max_launches` launches of `w` and count instructions.
pub fn instruction_mix(
    w: &mut dyn Workload,
    line_bytes: u32,
    max_launches: usize,
) -> Result<MixReport, WorkloadError> {
    let mut rep = MixReport {
        workload: w.name().to_string(),
        total: Mix {
            name: "total".into(),
            ..Mix::default()
        },
        ..MixReport::default()
    };
    let mut bp = BlockProgram::default();
    for _ in 0..max_launches {
        let Some(info) = w.begin_launch()? else { break };
        let mut m = Mix {
            name: info.name.clone(),
            launches: 1,
            ..Mix::default()
        };
        for b in 0..info.num_blocks() {
            w.gen_block(b, false, line_bytes, &mut bp)?;
            m.add_block(&bp);
        }
        rep.total.merge(&m);
        match rep.kernels.iter_mut().find(|k| k.name == m.name) {
            Some(k) => k.merge(&m),
            None => rep.kernels.push(m),
        }
    }
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The vectorAdd model at the trace's size issues the trace's instruction counts:
    /// 1,563 active warps x 17 + 5 idle warps x 7 (the trace's idle warps: 6).
    #[test]
    fn vectoradd_mix_is_its_sass_count() {
        let p: BTreeMap<String, String> = [("n", "50000"), ("block", "256")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut w = crate::registry::build("vectoradd", &p, 1).unwrap();
        let r = instruction_mix(&mut w, 128, 100).unwrap();
        assert_eq!(r.total.blocks, 196);
        assert_eq!(r.total.mem_insts, 1563 * 3);
        assert_eq!(r.total.warp_insts, 1563 * 17 + 5 * 7);
        assert_eq!(
            r.total.by_space[Space::Global as usize],
            [1563 * 2, 1563, 0]
        );
        assert_eq!(r.total.by_class[InstClass::Fp as usize], 1563 * 3);
        assert_eq!(r.kernels.len(), 1);
        assert_eq!(
            r.kernels[0],
            Mix {
                name: "vectorAdd".into(),
                ..r.total.clone()
            }
        );
    }
}
