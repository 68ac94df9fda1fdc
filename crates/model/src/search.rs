//! Placement search (spec §4): the legal placements of a kernel's arrays under the read /
//! write and capacity rules (§4 constraints \[D\]), each predicted and ranked.

use crate::model::{Flags, Model, Prediction};
use crate::profile::Profile;
use crate::space::Place;
use crate::train::Coefs;

/// Checks `target` against the §4 rules: textures and constant memory are read-only; the
/// constant arrays fit 64 KB; a 1-D texture holds at most 2^27 elements, a 2-D one at most
/// 65536 x 65536; the shared arrays fit the per-block shared memory. The error names the
/// object and the rule.
pub fn legal(p: &Profile, target: &[Place], hw: &crate::model::Hw) -> Result<(), String> {
    if target.len() != p.objects.len() {
        return Err(format!(
            "placement has {} entries, the kernel has {} objects",
            target.len(),
            p.objects.len()
        ));
    }
    let mut const_bytes = 0;
    let mut shared_bytes = 0;
    // the named reading `block-range`: a block holds the range of a moved object it reads
    let spans = if hw.mem.shared_block_range {
        p.block_spans()
    } else {
        Vec::new()
    };
    for (i, (o, &t)) in p.objects.iter().zip(target).enumerate() {
        if t == o.place {
            // objects that stay where they are still take their space: every constant
            // array of the kernel shares the 64 KB (spec §4, §7 #28), every shared one the
            // block's shared memory
            match t {
                Place::Shared => shared_bytes += o.bytes,
                Place::Const => const_bytes += o.bytes,
                _ => {}
            }
            continue;
        }
        if t.read_only() && o.written {
            return Err(format!(
                "`{}` is written by the kernel, so it cannot be placed in {} (read-only); keep it in global or shared",
                o.name, t
            ));
        }
        let elems = o.bytes / u64::from(o.elem_bytes.max(1));
        match t {
            Place::Const => const_bytes += o.bytes,
            Place::Tex1D if elems > hw.tex1d_max_elems => {
                return Err(format!(
                    "`{}` has {elems} elements, more than a 1-D texture's {}",
                    o.name, hw.tex1d_max_elems
                ));
            }
            Place::Tex2D => {
                let w = if o.row_elems > 0 {
                    o.row_elems
                } else {
                    (elems as f64).sqrt().ceil() as u64
                };
                if w > hw.tex2d_max_dim || elems.div_ceil(w.max(1)) > hw.tex2d_max_dim {
                    return Err(format!(
                        "`{}` does not fit a 2-D texture of {} x {}",
                        o.name, hw.tex2d_max_dim, hw.tex2d_max_dim
                    ));
                }
            }
            Place::Shared => shared_bytes += spans.get(i).map_or(o.bytes, |s| s.0),
            _ => {}
        }
    }
    if const_bytes > hw.const_bytes {
        return Err(format!(
            "the arrays placed in constant memory take {const_bytes} B, more than its {} B",
            hw.const_bytes
        ));
    }
    if shared_bytes > hw.smem_per_block {
        return Err(format!(
            "the arrays placed in shared memory take {shared_bytes} B per block, more than {} B{}",
            hw.smem_per_block,
            if hw.mem.shared_block_range {
                ""
            } else {
                " (each block copies a moved array whole, spec §4; the named reading spaces.shared_stage = \"block-range\" copies only the range each block reads)"
            }
        ));
    }
    Ok(())
}

/// Every legal placement that moves only objects the kernel accesses (others stay put),
/// the sample first; exhaustive up to `limit` candidates, otherwise the single-object
/// moves (the greedy first step of §4 \[D\]).
pub fn enumerate(p: &Profile, hw: &crate::model::Hw, limit: usize) -> Vec<Vec<Place>> {
    let all: Vec<usize> = (0..p.objects.len())
        .filter(|&i| p.objects[i].accesses > 0)
        .collect();
    enumerate_objects(p, hw, limit, &all)
}

/// As [`enumerate`], moving only the objects `movable` (indices into `p.objects`).
pub fn enumerate_objects(
    p: &Profile,
    hw: &crate::model::Hw,
    limit: usize,
    movable: &[usize],
) -> Vec<Vec<Place>> {
    let sample = p.sample_placement();
    let space: usize = movable
        .iter()
        .fold(1usize, |a, _| a.saturating_mul(Place::ALL.len()));
    let mut out = vec![sample.clone()];
    if space <= limit {
        let mut idx = vec![0usize; movable.len()];
        loop {
            let mut cand = sample.clone();
            for (k, &i) in movable.iter().enumerate() {
                cand[i] = Place::ALL[idx[k]];
            }
            if cand != sample && legal(p, &cand, hw).is_ok() {
                out.push(cand);
            }
            // odometer
            let mut k = 0;
            while k < idx.len() {
                idx[k] += 1;
                if idx[k] < Place::ALL.len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
            if k == idx.len() {
                break;
            }
        }
    } else {
        for &i in movable {
            for t in Place::ALL {
                let mut cand = sample.clone();
                cand[i] = t;
                if cand != sample && legal(p, &cand, hw).is_ok() {
                    out.push(cand);
                }
            }
        }
    }
    out
}

/// Predicts every candidate and sorts them fastest first (ties by candidate order, so the
/// ranking is deterministic).
pub fn rank(
    m: &Model,
    cands: &[Vec<Place>],
    flags: Flags,
    coefs: Option<&Coefs>,
) -> Vec<(Vec<Place>, Prediction)> {
    rank_with_progress(m, cands, flags, coefs, |_| {})
}

/// [`rank`], calling `done(n)` after the `n`-th candidate is predicted (a progress bar:
/// an exhaustive search of a kernel with many arrays predicts thousands, minutes on a
/// large profile).
pub fn rank_with_progress(
    m: &Model,
    cands: &[Vec<Place>],
    flags: Flags,
    coefs: Option<&Coefs>,
    mut done: impl FnMut(usize),
) -> Vec<(Vec<Place>, Prediction)> {
    let mut r: Vec<(usize, Vec<Place>, Prediction)> = cands
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let p = m.predict(c, flags, coefs).ok().map(|p| (i, c.clone(), p));
            done(i + 1);
            p
        })
        .collect();
    r.sort_by(|a, b| a.2.total.total_cmp(&b.2.total).then(a.0.cmp(&b.0)));
    r.into_iter().map(|(_, c, p)| (c, p)).collect()
}

/// A placement written as the moves from the sample: `weights=const,x=tex1d`, or `sample`.
pub fn describe(p: &Profile, placement: &[Place]) -> String {
    let moves: Vec<String> = p
        .objects
        .iter()
        .zip(placement)
        .filter(|(o, t)| o.place != **t)
        .map(|(o, t)| format!("{}({}→{})", o.name, o.place.short(), t.short()))
        .collect();
    if moves.is_empty() {
        "sample".into()
    } else {
        moves.join("+")
    }
}

/// The object called `name`: the exact name, else the one accessed object whose name
/// contains it, case-insensitively (`weights` finds `D__WEIGHTS`).
pub fn find_object(p: &Profile, name: &str) -> Option<usize> {
    if let Some(i) = p.object(name) {
        return Some(i);
    }
    let low = name.to_ascii_lowercase();
    let hits: Vec<usize> = (0..p.objects.len())
        .filter(|&i| {
            p.objects[i].accesses > 0 && p.objects[i].name.to_ascii_lowercase().contains(&low)
        })
        .collect();
    (hits.len() == 1).then(|| hits[0])
}

/// Parses `obj=space,...` into a placement derived from the sample; errors name the bad
/// object or component and list the valid ones.
pub fn parse_target(p: &Profile, spec: &str) -> Result<Vec<Place>, String> {
    let mut t = p.sample_placement();
    for part in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, space) = part
            .split_once('=')
            .ok_or_else(|| format!("`{part}`: expected obj=space (e.g. weights=const)"))?;
        let i = find_object(p, name.trim()).ok_or_else(|| {
            let names: Vec<&str> = p
                .objects
                .iter()
                .filter(|o| o.accesses > 0)
                .map(|o| o.name.as_str())
                .collect();
            format!(
                "no object `{name}` in kernel `{}`; its objects: {}",
                p.kernel,
                names.join(", ")
            )
        })?;
        t[i] = Place::parse(space.trim()).ok_or_else(|| {
            format!(
                "`{space}` is not a memory component; use global, tex1d, tex2d, const or shared"
            )
        })?;
    }
    Ok(t)
}
