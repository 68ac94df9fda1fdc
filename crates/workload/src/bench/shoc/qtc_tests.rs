//! Tests of the SHOC QTC model: the clustering against a host run of the same algorithm,
//! the launch sequence of `QTC()`, the distance matrix's memory space and the default size.

use super::qtc::{default_points, footprint, generate, grow, rule1_points, Ctx, RULE2_HALVINGS};
use crate::bench::testing::{each_block, obj};
use crate::model::ModelWorkload;
use crate::program::{InstClass, Space};
use crate::registry;
use crate::scale::FOOTPRINT_CAP_BYTES;
use std::collections::BTreeMap;

fn build(kv: &[(&str, &str)], seed: u64) -> ModelWorkload {
    let ov: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    registry::build("shoc-qtc", &ov, seed).unwrap()
}

/// `QTC()` on the host: the clusters in the order found.
fn host_qtc(n: u64, threshold: f32, seed: u64) -> Vec<Vec<i32>> {
    let d = generate(n, threshold, seed);
    let maxd = d.max_degree as usize;
    let degrees: Vec<usize> = (0..n as usize)
        .map(|i| {
            d.indr[i * maxd..][..maxd]
                .iter()
                .filter(|&&v| v >= 0)
                .count()
        })
        .collect();
    let mut clustered = vec![0u8; n as usize];
    let mut ungrpd: Vec<usize> = (0..n as usize).collect();
    let mut clusters = Vec::new();
    loop {
        let pc = ungrpd.len();
        let blocks = pc.min(256);
        let c = Ctx {
            n0: n as usize,
            maxd,
            threshold,
            dist: &d.dist,
            indr: &d.indr,
            clustered: &clustered,
        };
        // per block: the first seed of the best cardinality, degree pruning; then the
        // first block of the best
        let (mut best, mut winner) = (-1i64, 0usize);
        for b in 0..blocks {
            let (mut bc, mut bs) = (-1i64, 0usize);
            for &seed in ungrpd.iter().skip(b).step_by(blocks) {
                if degrees[seed] as i64 <= bc {
                    continue;
                }
                let cnt = grow(&c, seed, degrees[seed], pc).0.len() as i64;
                if cnt > bc {
                    bc = cnt;
                    bs = seed;
                }
            }
            if bc > best {
                best = bc;
                winner = bs;
            }
        }
        let members = grow(&c, winner, degrees[winner], pc).0;
        assert_eq!(members.len() as i64, best);
        for &m in &members {
            clustered[m as usize] = 1;
        }
        ungrpd.retain(|&p| clustered[p] == 0);
        clusters.push(members);
        if best <= 1 || ungrpd.is_empty() {
            return clusters;
        }
    }
}

#[test]
fn qtc_finds_the_host_clusters_and_launches_as_qtc() {
    let (n, thr, seed) = (150u64, 2.0f32, 3u64);
    let want = host_qtc(n, thr, seed);
    assert!(want.len() > 3 && want[0].len() > 3, "{want:?}");
    let mut w = build(&[("points", "150"), ("threshold", "2")], seed);
    let names = each_block(&mut w, |_, _| {});
    let mains = names.iter().filter(|k| *k == "QTC_device").count();
    assert_eq!(mains, want.len());
    assert_eq!(names[0], "compute_degrees");
    assert_eq!(
        names[1..5],
        [
            "QTC_device",
            "reduce_card_device",
            "trim_ungrouped_pnts_indr_array",
            "update_clustered_pnts_mask"
        ]
    );
    let m = w.memory();
    let clustered: Vec<u8> = m.to_vec(obj(&w, "clustered_pnts_mask"));
    let mut expect = vec![0u8; n as usize];
    for c in &want {
        for &p in c {
            expect[p as usize] = 1;
        }
    }
    assert_eq!(clustered, expect);
    // the last trim wrote the last cluster's members, in order
    let last = want.last().unwrap();
    let result: Vec<i32> = m.to_vec(obj(&w, "result"));
    assert_eq!(&result[..last.len()], &last[..]);
    // each found cluster's diameter is within the threshold (QT's definition)
    let d = generate(n, thr, seed);
    for c in &want {
        for &a in c {
            for &b in c {
                if a != b {
                    assert!(d.dist[a as usize * n as usize + b as usize] <= thr);
                }
            }
        }
    }
    // the ungrouped points left, in their original order
    let ungrpd: Vec<i32> = m.to_vec(obj(&w, "ungrpd_pnts_indr"));
    let left: Vec<i32> = (0..n as i32).filter(|&p| expect[p as usize] == 0).collect();
    assert_eq!(&ungrpd[..left.len()], &left[..]);
    let degrees: Vec<i32> = m.to_vec(obj(&w, "degrees"));
    for (i, &got) in degrees.iter().enumerate() {
        let want = d.indr[i * d.max_degree as usize..][..d.max_degree as usize]
            .iter()
            .filter(|&&v| v >= 0)
            .count();
        assert_eq!(got as usize, want);
    }
}

#[test]
fn qtc_reads_the_distance_matrix_through_the_chosen_space() {
    for (space, want) in [("global", Space::Global), ("texture", Space::Texture)] {
        let mut w = build(
            &[("points", "90"), ("threshold", "2"), ("dist_space", space)],
            5,
        );
        let dist = obj(&w, "distance_matrix");
        let (mut hits, mut barriers) = (0u64, 0u64);
        each_block(&mut w, |name, bp| {
            for wp in &bp.warps {
                for inst in &wp.insts {
                    if inst.class == InstClass::Barrier && name == "QTC_device" {
                        barriers += 1;
                    }
                    if inst.class == InstClass::Load && inst.nlines > 0 {
                        let l = &wp.lines[inst.first_line as usize];
                        if l.obj == dist {
                            assert_eq!(inst.space, want);
                            hits += 1;
                        }
                    }
                }
            }
        });
        assert!(hits > 0);
        // the growth steps are separated by the kernel's __syncthreads()
        assert!(barriers > 0);
    }
}

#[test]
fn qtc_default_follows_the_scale_rule() {
    let n = default_points();
    let spec = registry::find("shoc-qtc").unwrap();
    let p = spec.params.iter().find(|p| p.name == "points").unwrap();
    assert_eq!(p.default, n.to_string());
    // rule 1 on the paper's 4096 points: the largest count whose footprint (with the
    // maximum degree of the 4096-point data) fits
    let d = generate(4096, 1.0, 1).max_degree;
    assert!(footprint(4096, d) > FOOTPRINT_CAP_BYTES);
    let full = rule1_points();
    assert!(footprint(full, d) <= FOOTPRINT_CAP_BYTES);
    assert!(footprint(full + 1, d) > FOOTPRINT_CAP_BYTES);
    assert_eq!(n, full >> RULE2_HALVINGS);
}

#[test]
fn qtc_bad_input_names_the_parameter() {
    let ov: BTreeMap<String, String> = [("points".to_string(), "10".to_string())].into();
    let e = registry::build("shoc-qtc", &ov, 1).err().unwrap();
    assert!(e.to_string().contains("`points`"));
    let ov: BTreeMap<String, String> = [("dist_space".to_string(), "constant".to_string())].into();
    let e = registry::build("shoc-qtc", &ov, 1).err().unwrap();
    assert!(e.to_string().contains("dist_space"));
}

/// QTC on its default point set: the clustered mask is the host QT clustering's, the last
/// trim holds the last cluster's members.
#[test]
#[ignore]
fn qtc_default_finds_the_host_clusters() {
    let p = crate::bench::heteromark::tests::params("shoc-qtc", &[], 1);
    let (n, thr) = (
        p.u64("points", 0).unwrap(),
        p.f64("threshold", 0.0).unwrap() as f32,
    );
    let want = host_qtc(n, thr, 1);
    let mut w = build(&[], 1);
    let names = each_block(&mut w, |_, _| {});
    assert_eq!(
        names.iter().filter(|k| *k == "QTC_device").count(),
        want.len()
    );
    let m = w.memory();
    let clustered: Vec<u8> = m.to_vec(obj(&w, "clustered_pnts_mask"));
    let mut expect = vec![0u8; n as usize];
    for c in &want {
        for &q in c {
            expect[q as usize] = 1;
        }
    }
    assert_eq!(clustered, expect);
    let last = want.last().unwrap();
    let result: Vec<i32> = m.to_vec(obj(&w, "result"));
    assert_eq!(&result[..last.len()], &last[..]);
}
