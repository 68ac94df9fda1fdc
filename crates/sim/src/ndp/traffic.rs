//! Off-chip traffic of a workload's offload blocks without timing: every marked block
//! instance's lines translated by the configured placement, then its messages as offloaded
//! ([`super::offload::offloaded`]) and as run on the GPU ([`super::offload::on_gpu`]), summed
//! by packet kind. No cache is modelled (every load line counts as a miss; a hit would
//! turn an RDF into a GPU-built response on the same GPU link), so this is the traffic of
//! naive offload (NDP(1.0)) against the GPU with cold caches: an upper bound of what the
//! partitioned execution saves on the GPU links, and what it adds to the memory network.

use super::offload::{gpu_link_bytes, network_link_bytes, offloaded, on_gpu};
use super::offload::{LineAccess, MemInst, Msg, Sizes};
use super::packets::{aligned, line_shape, Packet};
use super::select::BlockDesc;
use crate::config::Config;
use crate::mapping::AddressMap;
use crate::placement::Placement;
use locus_workload::program::{BlockProgram, InstClass, Space};
use locus_workload::Workload;

/// Traffic of a workload's offload blocks, bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Offload-block instances seen (warp x block executions).
    pub instances: u64,
    /// Offloaded: GPU-link bytes by packet kind (index of [`Packet::ALL`]).
    pub gpu_link_by_kind: [u64; 11],
    /// Offloaded: all GPU-link bytes.
    pub gpu_link: u64,
    /// Offloaded: link-bytes on the stacks' hypercube (bytes x hops).
    pub network: u64,
    /// The same instances on the GPU: GPU-link bytes.
    pub baseline_gpu_link: u64,
}

/// Analyse every launch of `w` on the machine `cfg` (its placement and `ndp.stack_nodes`),
/// at most `max_blocks` thread blocks per launch (0 = all).
pub fn analyze(cfg: &Config, w: &mut dyn Workload, max_blocks: u64) -> Result<Traffic, String> {
    let stacks: Vec<u32> = if cfg.ndp.stack_nodes.is_empty() {
        (0..cfg.system.nodes)
            .filter(|&n| n != cfg.ndp.gpu_node)
            .collect()
    } else {
        cfg.ndp.stack_nodes.clone()
    };
    let mut stack_of = vec![u32::MAX; cfg.system.nodes as usize];
    for (i, &n) in stacks.iter().enumerate() {
        stack_of[n as usize] = i as u32;
    }
    let mut pl = Placement::new(cfg);
    pl.set_objects(w.objects());
    let map = AddressMap::new(cfg);
    let line = cfg.system.line_bytes;
    let z = Sizes {
        line_bytes: line,
        flit: cfg.ndp.flit_bytes,
        stacks: stacks.len() as u32,
    };
    let mut bp = BlockProgram {
        offload_markers: true,
        record_lanes: true,
        ..Default::default()
    };
    let mut t = Traffic::default();
    let (mut acc, mut msgs): (Vec<LineAccess>, Vec<Msg>) = (Vec::new(), Vec::new());
    let mut spans: Vec<(bool, usize, usize)> = Vec::new();
    while let Some(info) = w.begin_launch().map_err(|e| e.to_string())? {
        let n = match max_blocks {
            0 => info.num_blocks(),
            m => info.num_blocks().min(m),
        };
        for b in 0..n {
            w.gen_block(b, false, line, &mut bp)
                .map_err(|e| e.to_string())?;
            for wp in &bp.warps {
                for m in &wp.offload {
                    acc.clear();
                    spans.clear();
                    let mut d = BlockDesc {
                        live_ins: m.live_ins as u32,
                        live_outs: m.live_outs as u32,
                        nsu_insts: m.nsu_insts as u32,
                        ..Default::default()
                    };
                    for (ii, i) in wp.insts[m.begin as usize..m.end as usize]
                        .iter()
                        .enumerate()
                    {
                        let lanes = wp.lanes_of(m.begin as usize + ii);
                        let al = lanes.is_some_and(|ls| aligned(ls, line as u64));
                        let store = match (i.class, i.space) {
                            (InstClass::Load, Space::Global | Space::Texture) => false,
                            (InstClass::Store, Space::Global) => true,
                            _ => continue, // constants come from the NSU's constant cache
                        };
                        if store {
                            d.stores += 1;
                        } else {
                            d.loads += 1;
                        }
                        let start = acc.len();
                        for l in wp.lines_of(i) {
                            let (pa, mode) = pl.translate(l.addr, l.obj, cfg.ndp.gpu_node);
                            let node = map.locate(pa, mode).node;
                            let s = stack_of[node as usize];
                            if s == u32::MAX {
                                return Err(format!(
                                    "ndp traffic: a page of {:#x} is on node {node}, which is not in ndp.stack_nodes",
                                    l.addr
                                ));
                            }
                            let (active, aligned) =
                                line_shape(lanes, al, l.addr, l.bytes as u32, line);
                            acc.push(LineAccess {
                                stack: s,
                                active,
                                aligned,
                                gpu_hit: false,
                            });
                        }
                        spans.push((store, start, acc.len()));
                    }
                    let insts: Vec<MemInst<'_>> = spans
                        .iter()
                        .map(|&(store, a, b)| MemInst {
                            store,
                            lines: &acc[a..b],
                        })
                        .collect();
                    msgs.clear();
                    if offloaded(&d, m.lanes as u32, &insts, z, &mut msgs).is_none() {
                        continue;
                    }
                    t.instances += 1;
                    for x in &msgs {
                        if x.from == super::offload::End::Gpu || x.to == super::offload::End::Gpu {
                            let k = Packet::ALL.iter().position(|&p| p == x.packet).unwrap_or(0);
                            t.gpu_link_by_kind[k] += x.bytes as u64;
                        }
                    }
                    t.gpu_link += gpu_link_bytes(&msgs);
                    t.network += network_link_bytes(&msgs);
                    msgs.clear();
                    on_gpu(&insts, z, &mut msgs);
                    t.baseline_gpu_link += gpu_link_bytes(&msgs);
                }
            }
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// vectorAdd on ndp-8hmc: per full warp the offloaded block puts 96 B on the GPU links
    /// (command, 2 RDFs, a WTA, an invalidation, the ack) where the GPU moves 480 B
    /// (2 x (request + line), the masked write and its ack): exactly 1/5.
    #[test]
    fn vectoradd_offload_cuts_gpu_link_bytes_to_a_fifth() {
        let cfg = crate::preset::load(Some("ndp-8hmc"), None, &[]).unwrap();
        let o = BTreeMap::from([("n".to_string(), "8192".to_string())]);
        let mut w = locus_workload::registry::build("vectoradd", &o, 1).unwrap();
        let t = analyze(&cfg, &mut w, 0).unwrap();
        assert_eq!(t.instances, 8192 / 32);
        assert_eq!(t.gpu_link, 96 * 256);
        assert_eq!(t.baseline_gpu_link, 480 * 256);
        let by = |p: Packet| t.gpu_link_by_kind[Packet::ALL.iter().position(|&k| k == p).unwrap()];
        assert_eq!(by(Packet::Rdf), 2 * 16 * 256);
        assert_eq!(by(Packet::Inval), 16 * 256);
        assert_eq!(
            by(Packet::RdfResp),
            0,
            "no cache model: no GPU-built responses"
        );
        // random pages: the B response and the C write usually leave the target's stack
        assert!(t.network > 0);
    }
}

#[cfg(test)]
mod measure {
    use super::*;
    use std::collections::BTreeMap;

    /// The measurement quoted in the NDP report (debug build, a minute):
    /// `cargo test -p locus-sim --lib ndp::traffic::measure -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn default_inputs_on_ndp_8hmc() {
        let cfg = crate::preset::load(Some("ndp-8hmc"), None, &[]).unwrap();
        for (name, max) in [("vectoradd", 0), ("bicg", 0), ("km", 64)] {
            let mut w = locus_workload::registry::build(name, &BTreeMap::new(), 1).unwrap();
            let t = analyze(&cfg, &mut w, max).unwrap();
            let kinds: Vec<String> = Packet::ALL
                .iter()
                .zip(t.gpu_link_by_kind)
                .filter(|(_, b)| *b > 0)
                .map(|(p, b)| format!("{}={b}", p.name()))
                .collect();
            println!(
                "{name}: {} instances; GPU links offloaded {} B vs on GPU {} B ({:.3}); hypercube {} link-B; by kind {}",
                t.instances,
                t.gpu_link,
                t.baseline_gpu_link,
                t.gpu_link as f64 / t.baseline_gpu_link.max(1) as f64,
                t.network,
                kinds.join(" ")
            );
        }
    }
}
