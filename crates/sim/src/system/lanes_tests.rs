//! Per-lane addresses on request (issue 7 §4): what a policy sees through
//! `System::lanes_of` once `System::record_lane_addresses` is on.

use super::System;
use crate::preset;
use locus_workload::{coalesce, registry, Space};
use std::collections::BTreeMap;

fn run(record: bool) -> (System, String) {
    let c = preset::load(Some("coda-4gpu"), None, &[]).unwrap();
    let p: BTreeMap<String, String> = [("n".to_string(), "8k".to_string())].into();
    let mut w = registry::build("hs", &p, 7).unwrap();
    let mut s = System::new(&c);
    s.record_lane_addresses(record);
    let r = s.run(&mut w, &mut |_| {}).unwrap();
    (s, serde_json::to_string(&r.sim).unwrap())
}

/// With lane recording on, the statistics are those of a run without it (it only
/// records), and every memory instruction of the blocks left on the SMs has its lane
/// addresses, which coalesce to exactly its line requests.
#[test]
fn recorded_lanes_coalesce_to_the_lines_and_change_no_statistic() {
    let (plain, a) = run(false);
    let (s, b) = run(true);
    assert_eq!(a, b);
    let mut checked = 0;
    for sm in 0..s.sms.len() {
        for w in 0..s.max_warps {
            let wg = sm * s.max_warps + w;
            let warp = &s.warps[wg];
            let Some(bs) = s.sms[sm].blocks.get(warp.block_slot as usize) else {
                continue;
            };
            let Some(prog) = bs.prog.warps.get(warp.wib as usize) else {
                continue;
            };
            if prog.insts.is_empty() {
                continue;
            }
            assert!(plain.lanes_of(sm, wg, 0).is_none(), "off: nothing recorded");
            for (i, inst) in prog.insts.iter().enumerate() {
                let lanes = s.lanes_of(sm, wg, i).expect("recorded");
                if !inst.class.is_mem() || inst.space == Space::Shared {
                    continue;
                }
                assert_eq!(lanes.len(), inst.lanes as usize);
                let want = prog.lines_of(inst);
                let addrs: Vec<(u64, u32)> =
                    lanes.iter().map(|l| (l.addr, l.bytes as u32)).collect();
                let mut got = Vec::new();
                coalesce(&addrs, s.cfg.system.line_bytes, want[0].obj, &mut got);
                assert_eq!(got, want);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} instructions checked");
}
