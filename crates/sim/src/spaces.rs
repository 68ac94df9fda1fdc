//! GPU memory spaces of the HMS placement model (Huang & Li; spec
//! `hms-placement-model.md` §2): the texture path (1-D and 2-D, its own per-SM cache, 2-D
//! textures laid out in tiles), the constant cache (warp broadcast, one replay per extra
//! distinct address), shared memory banks (bank-conflict replays) and replay issue cost of
//! divergent global accesses, plus the per-object placement override (`[place]`,
//! `--place obj=space`).
//!
//! This file holds the configuration (`[spaces]`), the placement table and its legality
//! rules (§2.2 read/write and capacity, §4 constraints), the replay rules of §3.2.4 as pure
//! functions (unit-tested against hand-derived cases) and the counters. The timing lives in
//! `system/spaces.rs`. Everything is off unless `spaces.enabled` (preset `k80`), so other
//! presets time and report exactly as before.

use locus_workload::{DataObject, LaneAddr};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How replay cause (1), global address divergence, is counted (spec §3.2.4, §7 #12).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GlobalReplay {
    /// The paper's literal rule: `max(0, ceil(Σ lane bytes / transaction) - 1)`.
    Literal,
    /// `max(0, distinct transaction-sized segments touched - 1)`: also counts scattered
    /// divergence (each lane in its own segment).
    Segments,
}

/// What a block copies into its shared memory for an object placed there
/// (`system/staging.rs`; spec §4's shared rule).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SharedStage {
    /// The spec's literal rule (§4: "the per-block footprint (whole array ...)", §7 #19:
    /// offset = addr - base): every block copies the whole object, which must fit
    /// `shared_bytes_per_block`.
    Whole,
    /// A named reading, not the spec's: each block copies only the contiguous range of
    /// the object its own accesses span (offset = addr - the range's start), so an array
    /// far larger than a block's shared memory may be placed there when each block reads
    /// a slice of it (HMS Table IV's triad B(G→S): B is 1 MB, a block reads 512 B). The
    /// largest range of any block must fit, checked at each launch.
    BlockRange,
}

/// `[spaces]`: the memory spaces of spec §2 (defaults: spec §2.4, K80 per GK210 die).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpacesCfg {
    /// Model the spaces (off: texture and constant loads go through the L1 like global
    /// ones, shared accesses take `sm.smem_latency` with no bank conflicts, no replays).
    pub enabled: bool,
    /// Texture (read-only) cache per SM, bytes (§2.4: 48 KB).
    pub tex_bytes: u32,
    /// Its associativity (default, the spec gives none: 6 ways make 48 KB of 32 B lines
    /// 256 sets).
    pub tex_ways: u32,
    /// Its line, bytes (§2.2: 32 B sectors). A 2-D texture tile is one line.
    pub tex_line_bytes: u32,
    /// Texture cache hit latency, SM cycles (default: the spec gives none; §2.4's
    /// `hit_lat` is the L2's).
    pub tex_hit_latency: u32,
    /// Constant cache per SM, bytes (§2.4: 8 KB).
    pub const_cache_bytes: u32,
    /// Its associativity (default).
    pub const_ways: u32,
    /// Its line, bytes (§2.2: 64 B, GPGPU-Sim).
    pub const_line_bytes: u32,
    /// Constant cache hit latency, SM cycles (default).
    pub const_hit_latency: u32,
    /// Constant memory capacity, bytes: the sum of objects placed `const` (§2.4: 64 KB).
    pub const_bytes: u64,
    /// Shared memory banks (§2.4: 32).
    pub shared_banks: u32,
    /// Bank width, bytes (§2.4: 4; 8 is Kepler's optional 8-byte mode).
    pub shared_bank_bytes: u32,
    /// Shared memory per block, bytes: an object placed `shared` must fit (§2.4: 48 KB).
    pub shared_bytes_per_block: u64,
    /// What a block copies into shared memory for an object placed there: `whole` (the
    /// spec's rule, default) or `block-range` (the range its own accesses span).
    pub shared_stage: SharedStage,
    /// Transaction size of replay rule (1), bytes (§2.4: 128).
    pub global_transaction_bytes: u32,
    /// Replay rule (1) (§7 #12: literal by default).
    pub global_replay: GlobalReplay,
    /// Largest 1-D texture, elements (§2.2: 2^27).
    pub tex1d_max_elems: u64,
    /// Largest 2-D texture side, elements (§2.2: 65536).
    pub tex2d_max_side: u64,
}

impl Default for SpacesCfg {
    fn default() -> Self {
        SpacesCfg {
            enabled: false,
            tex_bytes: 48 << 10,
            tex_ways: 6,
            tex_line_bytes: 32,
            tex_hit_latency: 100,
            const_cache_bytes: 8 << 10,
            const_ways: 4,
            const_line_bytes: 64,
            const_hit_latency: 40,
            const_bytes: 64 << 10,
            shared_banks: 32,
            shared_bank_bytes: 4,
            shared_bytes_per_block: 48 << 10,
            shared_stage: SharedStage::Whole,
            global_transaction_bytes: 128,
            global_replay: GlobalReplay::Literal,
            tex1d_max_elems: 1 << 27,
            tex2d_max_side: 65536,
        }
    }
}

impl SpacesCfg {
    /// Check sizes (`[spaces]`); the message names the key and the fix.
    pub fn validate(&self) -> Result<(), String> {
        let p2 = |v: u64| v.is_power_of_two();
        for (k, line, bytes, ways) in [
            ("tex", self.tex_line_bytes, self.tex_bytes, self.tex_ways),
            (
                "const",
                self.const_line_bytes,
                self.const_cache_bytes,
                self.const_ways,
            ),
        ] {
            if !p2(line as u64) || !(4..=1024).contains(&line) {
                return Err(format!(
                    "spaces.{k}_line_bytes = {line}: must be a power of two from 4 to 1024"
                ));
            }
            let lines = bytes as u64 / line as u64;
            if ways == 0
                || lines == 0
                || !lines.is_multiple_of(ways as u64)
                || !p2(lines / ways as u64)
            {
                return Err(format!(
                    "spaces.{k}_* cache: {bytes} B of {line} B lines in {ways} ways must give a power-of-two number of sets: change spaces.{k}_bytes or spaces.{k}_ways (K80: 49152 B, 32 B lines, 6 ways = 256 sets)"
                ));
            }
        }
        if self.shared_banks == 0 || self.shared_banks > 64 {
            return Err(format!(
                "spaces.shared_banks = {}: must be 1..=64 (Kepler: 32)",
                self.shared_banks
            ));
        }
        if !matches!(self.shared_bank_bytes, 4 | 8) {
            return Err(format!(
                "spaces.shared_bank_bytes = {}: must be 4 or 8 (Kepler's two bank modes)",
                self.shared_bank_bytes
            ));
        }
        if !p2(self.global_transaction_bytes as u64) || self.global_transaction_bytes < 32 {
            return Err(format!(
                "spaces.global_transaction_bytes = {}: must be a power of two >= 32 (spec: 128)",
                self.global_transaction_bytes
            ));
        }
        Ok(())
    }
}

/// Where an object's accesses go (`--place obj=...`, spec §2.2's G, T, 2T, C, S).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceSpace {
    Global,
    Tex1d,
    /// A 2-D texture of `width` elements per row, laid out in tiles of one texture line.
    Tex2d {
        width: u64,
    },
    Const,
    Shared,
}

impl PlaceSpace {
    /// Parse `global | tex1d | tex2d | tex2d:<width> | const | shared` (also `tex`,
    /// `texture`, `constant`). `tex2d` without a width takes [`default_width`].
    pub fn parse(s: &str) -> Result<(PlaceSpace, Option<u64>), String> {
        let s = s.trim().to_ascii_lowercase();
        let (head, arg) = match s.split_once(':') {
            Some((h, a)) => (h.to_string(), Some(a.to_string())),
            None => (s.clone(), None),
        };
        let sp = match head.as_str() {
            "global" | "g" => PlaceSpace::Global,
            "tex1d" | "tex" | "texture" | "t" => PlaceSpace::Tex1d,
            "tex2d" | "2t" => PlaceSpace::Tex2d { width: 0 },
            "const" | "constant" | "c" => PlaceSpace::Const,
            "shared" | "s" => PlaceSpace::Shared,
            _ => {
                return Err(format!(
                    "unknown space `{s}`: use global, tex1d, tex2d (or tex2d:<row width in elements>), const or shared"
                ))
            }
        };
        let width = match (sp, arg) {
            (PlaceSpace::Tex2d { .. }, Some(a)) => {
                Some(a.parse::<u64>().ok().filter(|&w| w > 0).ok_or_else(|| {
                    format!("`{s}`: the width after `tex2d:` must be a whole number >= 1")
                })?)
            }
            (_, Some(_)) => return Err(format!("`{s}`: only tex2d takes a width (tex2d:<width>)")),
            _ => None,
        };
        Ok((sp, width))
    }
    /// Texture and constant memory are read-only in a kernel (spec §2.2).
    pub fn read_only(self) -> bool {
        matches!(
            self,
            PlaceSpace::Tex1d | PlaceSpace::Tex2d { .. } | PlaceSpace::Const
        )
    }
    pub fn name(self) -> &'static str {
        match self {
            PlaceSpace::Global => "global",
            PlaceSpace::Tex1d => "tex1d",
            PlaceSpace::Tex2d { .. } => "tex2d",
            PlaceSpace::Const => "const",
            PlaceSpace::Shared => "shared",
        }
    }
}

/// Row width of a 2-D texture given without one: the power of two nearest above
/// `sqrt(elements)` (a square-ish array).
pub fn default_width(elems: u64) -> u64 {
    ((elems as f64).sqrt().ceil() as u64)
        .max(1)
        .next_power_of_two()
}

/// Check `[place]` syntax without the workload (`Config::validate`).
pub fn validate_place(place: &BTreeMap<String, String>, enabled: bool) -> Result<(), String> {
    if place.is_empty() {
        return Ok(());
    }
    if !enabled {
        return Err(
            "[place] / --place needs the memory spaces model: use preset k80 or --set spaces.enabled=true"
                .into(),
        );
    }
    for (o, v) in place {
        PlaceSpace::parse(v).map_err(|e| format!("place.{o} = {v}: {e}"))?;
    }
    Ok(())
}

/// The object a `--place` name means: its exact name, else the one object whose name
/// contains it ignoring case (`weights` finds SHOC's `D__WEIGHTS`).
pub fn find_object(objs: &[DataObject], name: &str) -> Result<usize, String> {
    if let Some(i) = objs.iter().position(|o| o.name == name) {
        return Ok(i);
    }
    let low = name.to_ascii_lowercase();
    let hits: Vec<usize> = (0..objs.len())
        .filter(|&i| objs[i].name.to_ascii_lowercase().contains(&low))
        .collect();
    let names = || {
        objs.iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match hits.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "place.{name}: the workload has no object `{name}`; its objects: {}",
            names()
        )),
        _ => Err(format!(
            "place.{name}: `{name}` matches several objects ({}); give the full name",
            hits.iter()
                .map(|&i| objs[i].name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Resolve `[place]` against the workload's objects, applying the legality rules of spec
/// §2.2 and §4: constant objects together fit `spaces.const_bytes`; a 1-D texture has at
/// most `tex1d_max_elems` elements, a 2-D one sides of at most `tex2d_max_side`; a shared
/// object fits `shared_bytes_per_block`. Returns the space of each object (`None`: as the
/// workload issues it).
///
/// Texture and constant memory are read-only *in a kernel* (§2.2): an object the workload
/// writes may still be placed there, and the placement applies in the launches that do not
/// write it (the simulator decides per launch and reports, per kernel, the placements it
/// did not apply: `KernelStats::place_not_applied`), as a program binds a texture or
/// copies to constant memory for the kernels that only read the array.
pub fn resolve(
    place: &BTreeMap<String, String>,
    objs: &[DataObject],
    cfg: &SpacesCfg,
) -> Result<Vec<Option<PlaceSpace>>, String> {
    let mut out = vec![None; objs.len()];
    let mut const_total = 0u64;
    let mut const_names = Vec::new();
    for (name, v) in place {
        let (mut sp, width) =
            PlaceSpace::parse(v).map_err(|e| format!("place.{name} = {v}: {e}"))?;
        let i = find_object(objs, name)?;
        let o = &objs[i];
        let elem = o.elem_bytes.max(1) as u64;
        let elems = o.bytes / elem;
        let what = format!("place.{name} = {v} (object `{}`, {} B)", o.name, o.bytes);
        match &mut sp {
            PlaceSpace::Tex1d if elems > cfg.tex1d_max_elems => {
                return Err(format!(
                    "{what}: refused, a 1-D texture holds at most {} elements (spaces.tex1d_max_elems) and this object has {elems}",
                    cfg.tex1d_max_elems
                ))
            }
            PlaceSpace::Tex2d { width: w } => {
                *w = width.unwrap_or_else(|| default_width(elems));
                let h = elems.div_ceil(*w);
                if *w > cfg.tex2d_max_side || h > cfg.tex2d_max_side {
                    return Err(format!(
                        "{what}: refused, a 2-D texture of width {} has {h} rows; each side may be at most {} (spaces.tex2d_max_side): give another width (tex2d:<width>)",
                        *w, cfg.tex2d_max_side
                    ));
                }
            }
            PlaceSpace::Const => {
                const_total += o.bytes;
                const_names.push(o.name.clone());
                if const_total > cfg.const_bytes {
                    return Err(format!(
                        "{what}: refused, constant memory holds {} B (spaces.const_bytes) and the objects placed there ({}) need {const_total} B; shrink the input or place fewer objects in const",
                        cfg.const_bytes,
                        const_names.join(", ")
                    ));
                }
            }
            PlaceSpace::Shared
                if o.bytes > cfg.shared_bytes_per_block
                    && cfg.shared_stage == SharedStage::Whole =>
            {
                return Err(format!(
                    "{what}: refused, shared memory holds {} B per block (spaces.shared_bytes_per_block) and each block copies the whole object (spaces.shared_stage = \"whole\", the spec's rule); shrink the input, or copy only the range each block reads with spaces.shared_stage = \"block-range\"",
                    cfg.shared_bytes_per_block
                ))
            }
            _ => {}
        }
        out[i] = Some(sp);
    }
    Ok(out)
}

/// Replay cause (4): bank-conflict replays of one shared access (spec §3.2.4 precise rule):
/// the largest number of distinct `bank_bytes` words any one bank is asked for, minus one.
/// Lanes reading the same word are served by one broadcast. `addr` is the byte offset in
/// shared memory (any offset that keeps it modulo `banks * bank_bytes` will do). A lane
/// touches up to four words (`LDS.64`: two, `LDS.128`: four); the whole warp counts as one
/// request (the hardware's split of wide accesses into phases is not modelled).
pub fn bank_conflict_replays(lanes: &[LaneAddr], banks: u32, bank_bytes: u32) -> u32 {
    // (bank, word) of every word touched, at most 32 lanes x 4 words
    let mut words = [0u64; 128];
    let mut n = 0;
    let bb = bank_bytes.max(1) as u64;
    for l in lanes {
        let first = l.addr / bb;
        let last = (l.addr + l.bytes.max(1) as u64 - 1) / bb;
        for w in first..=last.min(first + 3) {
            if n < words.len() {
                words[n] = w;
                n += 1;
            }
        }
    }
    let words = &mut words[..n];
    words.sort_unstable();
    let mut per_bank = [0u32; 64];
    let mut prev = None;
    for &w in words.iter() {
        if prev == Some(w) {
            continue;
        }
        prev = Some(w);
        per_bank[(w % banks as u64) as usize] += 1;
    }
    per_bank
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .saturating_sub(1)
}

/// Number of distinct values among `keys` (sorted in place); for at most 32 lanes.
pub fn distinct(keys: &mut [u64]) -> u32 {
    keys.sort_unstable();
    let mut d = 0;
    for i in 0..keys.len() {
        if i == 0 || keys[i] != keys[i - 1] {
            d += 1;
        }
    }
    d
}

/// Replay cause (3): constant address divergence, `distinct addresses - 1` (spec §3.2.4);
/// a warp-uniform address is one broadcast, no replay.
pub fn const_divergence_replays(lanes: &[LaneAddr]) -> u32 {
    let mut k = [0u64; 32];
    let n = lanes.len().min(32);
    for (d, l) in k.iter_mut().zip(lanes) {
        *d = l.addr;
    }
    distinct(&mut k[..n]).saturating_sub(1)
}

/// Replay cause (1): global address divergence (spec §3.2.4): literal
/// `ceil(Σ bytes / transaction) - 1` or distinct transaction segments minus one.
pub fn global_replays(lanes: &[LaneAddr], transaction: u32, rule: GlobalReplay) -> u32 {
    let t = transaction.max(1) as u64;
    match rule {
        GlobalReplay::Literal => {
            let bytes: u64 = lanes.iter().map(|l| l.bytes as u64).sum();
            (bytes.div_ceil(t) as u32).saturating_sub(1)
        }
        GlobalReplay::Segments => {
            let mut k = [0u64; 32];
            let n = lanes.len().min(32);
            for (d, l) in k.iter_mut().zip(lanes) {
                *d = l.addr / t;
            }
            distinct(&mut k[..n]).saturating_sub(1)
        }
    }
}

/// Tile shape of a 2-D texture: `tile` elements (one texture line) as `(w, h)`, `w` the
/// larger power of two, `w * h = tile` (8 floats in a 32 B line: 4 x 2).
pub fn tile_shape(tile: u64) -> (u64, u64) {
    let bits = tile.max(1).trailing_zeros();
    let w = 1u64 << bits.div_ceil(2);
    (w, tile.max(1) / w)
}

/// Byte offset of element `idx` of a 2-D texture of `width` elements per row in the tiled
/// (block-linear) layout: tiles of one texture line (`line` bytes) each, row-major over
/// tiles, so a 2-D neighbourhood shares lines (spec §2.2, §7 #20).
pub fn tiled_offset(idx: u64, width: u64, elem: u64, line: u64) -> u64 {
    let elem = elem.max(1);
    let per_line = (line / elem).max(1);
    let (tw, th) = tile_shape(per_line);
    let (x, y) = (idx % width, idx / width);
    let tiles_per_row = width.div_ceil(tw);
    let tile = (y / th) * tiles_per_row + x / tw;
    let inside = (y % th) * tw + x % tw;
    (tile * per_line + inside) * elem
}

/// Counters of the memory spaces (per kernel in `KernelStats::spaces`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct SpaceCounters {
    /// Replays by cause (spec §3.2.4 causes 1-4).
    pub replays_global_divergence: u64,
    pub replays_const_miss: u64,
    pub replays_const_divergence: u64,
    pub replays_shared_bank_conflict: u64,
    /// Warp instructions issued including replays (`warp_insts` + every replay).
    pub issued_insts: u64,
    /// Texture cache line lookups, hits and misses (1-D and 2-D).
    pub tex_requests: u64,
    pub tex_hits: u64,
    pub tex_misses: u64,
    /// Constant cache line lookups, hits and misses.
    pub const_requests: u64,
    pub const_hits: u64,
    pub const_misses: u64,
    /// Shared memory instructions, and those with at least one bank conflict.
    pub shared_insts: u64,
    pub shared_conflicted_insts: u64,
    /// Warp memory instructions whose space `[place]` changed.
    pub placed_insts: u64,
    /// Warp instructions the shared-memory staging of objects placed `shared` added
    /// (the copy in at each block's start, the copy back of written ones at its end).
    pub staged_insts: u64,
    /// Bytes those copies moved (the object's size per block, twice when written back).
    pub staged_bytes: u64,
}

impl SpaceCounters {
    /// `self - e`, field by field.
    pub fn since(&self, e: &SpaceCounters) -> SpaceCounters {
        SpaceCounters {
            replays_global_divergence: self.replays_global_divergence - e.replays_global_divergence,
            replays_const_miss: self.replays_const_miss - e.replays_const_miss,
            replays_const_divergence: self.replays_const_divergence - e.replays_const_divergence,
            replays_shared_bank_conflict: self.replays_shared_bank_conflict
                - e.replays_shared_bank_conflict,
            issued_insts: self.issued_insts - e.issued_insts,
            tex_requests: self.tex_requests - e.tex_requests,
            tex_hits: self.tex_hits - e.tex_hits,
            tex_misses: self.tex_misses - e.tex_misses,
            const_requests: self.const_requests - e.const_requests,
            const_hits: self.const_hits - e.const_hits,
            const_misses: self.const_misses - e.const_misses,
            shared_insts: self.shared_insts - e.shared_insts,
            shared_conflicted_insts: self.shared_conflicted_insts - e.shared_conflicted_insts,
            placed_insts: self.placed_insts - e.placed_insts,
            staged_insts: self.staged_insts - e.staged_insts,
            staged_bytes: self.staged_bytes - e.staged_bytes,
        }
    }
    /// All replays.
    pub fn replays(&self) -> u64 {
        self.replays_global_divergence
            + self.replays_const_miss
            + self.replays_const_divergence
            + self.replays_shared_bank_conflict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(addrs: impl IntoIterator<Item = u64>, bytes: u16) -> Vec<LaneAddr> {
        addrs
            .into_iter()
            .enumerate()
            .map(|(i, addr)| LaneAddr {
                lane: i as u8,
                bytes,
                addr,
            })
            .collect()
    }

    #[test]
    fn sixteen_byte_lanes_touch_four_words() {
        // two lanes, 16 B each, 64 words apart (banks 0..3 twice): 2-way on 4 banks
        let two = [
            LaneAddr {
                lane: 0,
                addr: 0,
                bytes: 16,
            },
            LaneAddr {
                lane: 1,
                addr: 256,
                bytes: 16,
            },
        ];
        assert_eq!(bank_conflict_replays(&two, 32, 4), 1);
        // 16 B apart: words 0..7 on banks 0..7, no conflict
        let apart = [two[0], LaneAddr { addr: 16, ..two[1] }];
        assert_eq!(bank_conflict_replays(&apart, 32, 4), 0);
    }

    #[test]
    fn bank_conflicts_hand_derived() {
        // stride 1 word: 32 lanes on 32 banks, no conflict
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|i| i * 4), 4), 32, 4),
            0
        );
        // stride 2 words: banks 0,2,..,30 twice each: 2-way, one replay
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|i| i * 8), 4), 32, 4),
            1
        );
        // stride 32 words: every lane on bank 0, 32 distinct words: 31 replays
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|i| i * 128), 4), 32, 4),
            31
        );
        // broadcast: every lane the same word, no conflict
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|_| 64), 4), 32, 4),
            0
        );
        // stride 3 (odd): conflict-free
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|i| i * 12), 4), 32, 4),
            0
        );
        // 16 lanes on word 0, 16 lanes on word 32 (same bank 0): 2 distinct words, 1 replay
        let mixed = (0..32).map(|i| if i < 16 { 0 } else { 128 });
        assert_eq!(bank_conflict_replays(&lanes(mixed, 4), 32, 4), 1);
        // 8-byte lanes in 4-byte banks, consecutive: 64 words over 32 banks: 2 per bank
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|i| i * 8), 8), 32, 4),
            1
        );
        // ... and conflict-free in the 8-byte bank mode
        assert_eq!(
            bank_conflict_replays(&lanes((0..32).map(|i| i * 8), 8), 32, 8),
            0
        );
    }

    #[test]
    fn constant_divergence_is_distinct_minus_one() {
        assert_eq!(const_divergence_replays(&lanes((0..32).map(|_| 100), 4)), 0);
        assert_eq!(
            const_divergence_replays(&lanes((0..32).map(|i| i * 4), 4)),
            31
        );
        assert_eq!(
            const_divergence_replays(&lanes((0..32).map(|i| (i % 4) * 4), 4)),
            3
        );
    }

    #[test]
    fn global_replay_rules() {
        // 32 x 4 B contiguous = 128 B: one transaction, no replay under both rules
        let l = lanes((0..32).map(|i| i * 4), 4);
        assert_eq!(global_replays(&l, 128, GlobalReplay::Literal), 0);
        assert_eq!(global_replays(&l, 128, GlobalReplay::Segments), 0);
        // 32 x 8 B = 256 B: one replay
        let l = lanes((0..32).map(|i| i * 8), 8);
        assert_eq!(global_replays(&l, 128, GlobalReplay::Literal), 1);
        // scattered 4 B lanes 1 KB apart: literal sees 128 B (no replay), segments 31
        let l = lanes((0..32).map(|i| i * 1024), 4);
        assert_eq!(global_replays(&l, 128, GlobalReplay::Literal), 0);
        assert_eq!(global_replays(&l, 128, GlobalReplay::Segments), 31);
    }

    #[test]
    fn tiles_keep_a_2d_neighbourhood_in_one_line() {
        assert_eq!(tile_shape(8), (4, 2));
        assert_eq!(tile_shape(32), (8, 4));
        assert_eq!(tile_shape(4), (2, 2));
        // width 64 floats, 32 B lines: (x, y) and (x, y + 1) share a line for even y
        let line = |x: u64, y: u64| tiled_offset(y * 64 + x, 64, 4, 32) / 32;
        assert_eq!(line(0, 0), line(3, 1));
        assert_ne!(line(0, 0), line(4, 0));
        assert_ne!(line(0, 1), line(0, 2));
        // the layout is a bijection on a whole number of tiles
        let mut seen: Vec<u64> = (0..64 * 8).map(|i| tiled_offset(i, 64, 4, 32)).collect();
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(i, &o)| o == i as u64 * 4));
    }

    fn obj(name: &str, bytes: u64, ro: bool) -> DataObject {
        DataObject {
            name: name.into(),
            base: 0,
            bytes,
            elem_bytes: 4,
            read_only: ro,
        }
    }

    #[test]
    fn illegal_placements_are_refused_naming_object_and_rule() {
        let cfg = SpacesCfg::default();
        let objs = vec![
            obj("D__WEIGHTS", 40 << 10, true),
            obj("out", 1024, false),
            obj("big", 100 << 10, true),
            obj("weights2", 30 << 10, true),
        ];
        let p = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
        // a written object may be texture or constant: the rule is per kernel (§2.2),
        // applied by the simulator per launch
        let r = resolve(&p("out", "const"), &objs, &cfg).unwrap();
        assert_eq!(r[1], Some(PlaceSpace::Const));
        // capacity: constant 64 KB, shared 48 KB per block
        let e = resolve(&p("big", "const"), &objs, &cfg).unwrap_err();
        assert!(e.contains("spaces.const_bytes") && e.contains("big"), "{e}");
        let e = resolve(&p("big", "shared"), &objs, &cfg).unwrap_err();
        assert!(e.contains("shared_bytes_per_block"), "{e}");
        // two const objects that fit alone but not together
        let mut two = p("D__WEIGHTS", "const");
        two.insert("weights2".into(), "const".into());
        let e = resolve(&two, &objs, &cfg).unwrap_err();
        assert!(e.contains("D__WEIGHTS") && e.contains("weights2"), "{e}");
        // unknown and ambiguous names
        let e = resolve(&p("nope", "global"), &objs, &cfg).unwrap_err();
        assert!(e.contains("no object") && e.contains("D__WEIGHTS"), "{e}");
        let e = resolve(&p("weights", "global"), &objs, &cfg).unwrap_err();
        assert!(e.contains("several"), "{e}");
        // legal ones
        let r = resolve(&p("D__WEIGHTS", "const"), &objs, &cfg).unwrap();
        assert_eq!(r[0], Some(PlaceSpace::Const));
        let r = resolve(&p("out", "shared"), &objs, &cfg).unwrap();
        assert_eq!(r[1], Some(PlaceSpace::Shared));
        let r = resolve(&p("big", "tex2d:128"), &objs, &cfg).unwrap();
        assert_eq!(r[2], Some(PlaceSpace::Tex2d { width: 128 }));
        assert!(PlaceSpace::parse("tex3d").is_err());
        assert!(PlaceSpace::parse("const:4").is_err());
        assert!(validate_place(&p("a", "const"), false).is_err());
    }
}
