//! Which dynamic block instances are offloaded (spec ndp.md §4.2-§4.4): a static ratio,
//! the hill climber's ratio ([`super::hill`]), and the cache-locality-aware check per
//! static block.
//!
//! The check (§4.4, the benefit as printed, the default):
//! `Score = ceil(AvgLines x AvgMissRate) x 128 B x 32 + stores x 4 B x 32
//!          - (live-ins + live-outs) x 4 B x 32`;
//! with `ndp.paper_literal_benefit = false` the spec's per-warp unit fix drops the `x 32` of
//! the load term;
//! a block with `Score <= 0` runs on the GPU. The statistics are global per static block,
//! cumulative, updated in both modes (the GPU's own L1/L2 outcomes of a block run on the
//! GPU, the RDF probes of an offloaded one), so a suppressed block keeps learning. Before
//! `min_samples` instances the static Eq. 1 score (every line a miss) decides.

use super::hill::{HillClimber, HillParams};
use super::packets::{WARP, WORD_BYTES};
use super::OffloadMode;

/// What the kernel's markers say about one static offload block (`OFLD.BEG` / `OFLD.END`
/// operands, §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockDesc {
    /// Load instructions in the block.
    pub loads: u32,
    /// Store instructions in the block.
    pub stores: u32,
    /// Live-in registers per thread (sent in the offload command).
    pub live_ins: u32,
    /// Live-out registers per thread (returned in the offload ack).
    pub live_outs: u32,
    /// NSU instructions (Table 1's block size: loads, stores and `@NSU` ALU work).
    pub nsu_insts: u32,
}

/// Observed locality of one static block (cumulative over its instances).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockStats {
    pub instances: u64,
    /// Line requests of the block's loads (RDFs when offloaded).
    pub lines: u64,
    /// Of those, hits in the GPU's L1 or L2.
    pub hits: u64,
}

impl BlockStats {
    /// Record one instance with `lines` load lines, `hits` of which hit on chip.
    pub fn record(&mut self, lines: u64, hits: u64) {
        self.instances += 1;
        self.lines += lines;
        self.hits += hits.min(lines);
    }
}

/// The §4.4 score of `d` given `s` (bytes per warp); `literal` uses the printed benefit
/// (lines x 128 B x SIMD width). With fewer than `min_samples` instances every line is
/// taken as a miss (the static Eq. 1, §3.3).
pub fn score(
    d: &BlockDesc,
    s: &BlockStats,
    line_bytes: u32,
    min_samples: u64,
    literal: bool,
) -> f64 {
    let (lines, miss) = if s.instances == 0 || s.instances < min_samples {
        (d.loads as f64, 1.0)
    } else {
        let lines = s.lines as f64 / s.instances as f64;
        let miss = 1.0 - s.hits as f64 / s.lines.max(1) as f64;
        (lines, miss)
    };
    let mut load = (lines * miss - 1e-9).ceil().max(0.0) * line_bytes as f64;
    if literal {
        load *= WARP as f64;
    }
    let word = (WORD_BYTES * WARP) as f64;
    load + d.stores as f64 * word - (d.live_ins + d.live_outs) as f64 * word
}

/// xorshift64* stream of one SM (§4.2 \[DEFAULT\]: a deterministic generator per SM).
#[derive(Clone, Copy, Debug)]
pub struct SmRng(u64);

impl SmRng {
    /// The stream of SM `sm` under `seed` (never the all-zero state).
    pub fn new(seed: u64, sm: u32) -> Self {
        let mut z = seed ^ (sm as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        SmRng(z | 1)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The offload decision of every SM: mode, ratio source and per-block statistics.
#[derive(Clone, Debug)]
pub struct Selector {
    mode: OffloadMode,
    static_ratio: f64,
    hill: HillClimber,
    rng: Vec<SmRng>,
    stats: Vec<BlockStats>,
    line_bytes: u32,
    min_samples: u64,
    literal: bool,
    /// Instances suppressed by the cache-aware check.
    pub suppressed: u64,
}

impl Selector {
    /// A selector for `sms` SMs and `blocks` static blocks.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mode: OffloadMode,
        static_ratio: f64,
        hill: HillParams,
        sms: u32,
        blocks: usize,
        seed: u64,
        line_bytes: u32,
        min_samples: u32,
        literal: bool,
    ) -> Self {
        Selector {
            mode,
            static_ratio,
            hill: HillClimber::new(hill),
            rng: (0..sms).map(|s| SmRng::new(seed, s)).collect(),
            stats: vec![BlockStats::default(); blocks],
            line_bytes,
            min_samples: min_samples as u64,
            literal,
            suppressed: 0,
        }
    }

    /// The ratio in force (1 for naive, 0 when off).
    pub fn ratio(&self) -> f64 {
        match self.mode {
            OffloadMode::None => 0.0,
            OffloadMode::Naive => 1.0,
            OffloadMode::Static => self.static_ratio,
            OffloadMode::Dyn | OffloadMode::DynCache => self.hill.ratio(),
        }
    }

    /// Make room for the statistics of static blocks `0..n` (blocks are numbered per
    /// kernel by the System as they first appear).
    pub fn ensure_blocks(&mut self, n: usize) {
        if self.stats.len() < n {
            self.stats.resize(n, BlockStats::default());
        }
    }

    /// The controller (for its epoch updates).
    pub fn hill_mut(&mut self) -> &mut HillClimber {
        &mut self.hill
    }

    /// Statistics of static block `b`.
    pub fn stats(&self, b: usize) -> &BlockStats {
        &self.stats[b]
    }

    /// Record an instance of block `b` (either mode) with its load lines and hits.
    pub fn observe(&mut self, b: usize, lines: u64, hits: u64) {
        self.stats[b].record(lines, hits);
    }

    /// Offload this instance of block `b` (descriptor `d`) issued by SM `sm`?
    pub fn decide(&mut self, sm: u32, b: usize, d: &BlockDesc) -> bool {
        if self.mode == OffloadMode::None {
            return false;
        }
        if self.mode == OffloadMode::DynCache
            && score(
                d,
                &self.stats[b],
                self.line_bytes,
                self.min_samples,
                self.literal,
            ) <= 0.0
        {
            self.suppressed += 1;
            return false;
        }
        if self.mode == OffloadMode::Naive {
            return true;
        }
        let r = self.ratio();
        self.rng[sm as usize].next_f64() < r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A single indirect load (1 load, 1 live-out; BFS / STCL, §3.10).
    const GATHER: BlockDesc = BlockDesc {
        loads: 1,
        stores: 0,
        live_ins: 0,
        live_outs: 1,
        nsu_insts: 1,
    };

    fn sel(mode: OffloadMode) -> Selector {
        Selector::new(mode, 0.4, HillParams::default(), 4, 2, 7, 128, 1, false)
    }

    /// The cache-aware check suppresses a block whose lines hit in the GPU caches and
    /// offloads the same block when they miss.
    #[test]
    fn cache_aware_check_suppresses_a_block_whose_data_hit() {
        let mut s = sel(OffloadMode::DynCache);
        // block 0: 8 lines per instance, all hit; block 1: 8 lines, all miss
        for _ in 0..10 {
            s.observe(0, 8, 8);
            s.observe(1, 8, 0);
        }
        assert!(score(&GATHER, s.stats(0), 128, 1, false) < 0.0);
        assert!(score(&GATHER, s.stats(1), 128, 1, false) > 0.0);
        let offl = (0..1000).filter(|_| s.decide(0, 0, &GATHER)).count();
        assert_eq!(offl, 0, "hit block never offloaded");
        assert_eq!(s.suppressed, 1000);
        // the missing block is offloaded at about the controller's ratio (0.1 initially)
        let n = (0..10_000).filter(|_| s.decide(1, 1, &GATHER)).count();
        assert!((800..1200).contains(&n), "{n}");
        // without the check the hit block is offloaded too
        let mut d = sel(OffloadMode::Dyn);
        d.observe(0, 8, 8);
        assert!((0..1000).any(|_| d.decide(0, 0, &GATHER)));
    }

    /// The score's terms: ceil of expected missing lines, stores and registers.
    #[test]
    fn score_closed_form() {
        let st = BlockStats {
            instances: 4,
            lines: 10,
            hits: 5,
        };
        // 2.5 lines x 0.5 miss = 1.25 -> 2 lines = 256 B; 1 store = 128 B; 2 regs = 256 B
        let d = BlockDesc {
            loads: 2,
            stores: 1,
            live_ins: 1,
            live_outs: 1,
            nsu_insts: 4,
        };
        assert_eq!(score(&d, &st, 128, 1, false), 128.0);
        assert_eq!(score(&d, &st, 128, 1, true), 256.0 * 32.0 + 128.0 - 256.0);
        // before any sample: every load line a miss (static Eq. 1)
        assert_eq!(
            score(&d, &BlockStats::default(), 128, 1, false),
            2.0 * 128.0 + 128.0 - 256.0
        );
    }

    /// Static ratios offload their share, naive everything, none nothing; per-SM streams
    /// are reproducible.
    #[test]
    fn ratios_and_determinism() {
        let mut s = sel(OffloadMode::Static);
        let n = (0..20_000).filter(|i| s.decide(i % 4, 0, &GATHER)).count();
        assert!((7_600..8_400).contains(&n), "{n}");
        let mut a = sel(OffloadMode::Static);
        let mut b = sel(OffloadMode::Static);
        let va: Vec<bool> = (0..100).map(|_| a.decide(2, 0, &GATHER)).collect();
        let vb: Vec<bool> = (0..100).map(|_| b.decide(2, 0, &GATHER)).collect();
        assert_eq!(va, vb);
        let mut nv = sel(OffloadMode::Naive);
        assert!((0..100).all(|_| nv.decide(0, 0, &GATHER)));
        let mut off = sel(OffloadMode::None);
        assert!((0..100).all(|_| !off.decide(0, 0, &GATHER)));
    }
}
