//! Physical frame allocator with page-groups (CODA §4.2.2; spec §3.2).
//!
//! Frames come in groups of N adjacent frames (N = nodes). A group is entirely FGP or
//! entirely CGP and switches mode only when all its frames are free. Converting a free group
//! to CGP yields one CGP frame on each node (frame `g·N + i` lives on node i); when no free
//! group exists, a CGP request falls back to FGP and the fallback is counted (spec A25).

use serde::Serialize;

use crate::mapping::Mode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupMode {
    Free,
    Fgp,
    Cgp,
}

/// Allocation counters.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FrameStats {
    pub fgp_frames: u64,
    pub cgp_frames: u64,
    pub groups_to_fgp: u64,
    pub groups_to_cgp: u64,
    /// CGP requests served as FGP because no free group was left.
    pub cgp_fallbacks: u64,
}

/// The allocator.
#[derive(Clone, Debug)]
pub struct Frames {
    n: u64,
    groups: u64,
    mode: Vec<GroupMode>,
    used: Vec<u8>,
    next_fresh: u64,
    fgp_free: Vec<u64>,
    cgp_free: Vec<Vec<u64>>,
    /// Frames in use now: coarse ones per node, fine-grained ones (each striped over
    /// every node) in all. Kept for the free-memory fraction Carrefour checks.
    live_cgp: Vec<u64>,
    live_fgp: u64,
    pub stats: FrameStats,
}

impl Frames {
    /// `nodes` nodes, `groups` page-groups (= frames per node).
    pub fn new(nodes: u32, groups: u64) -> Self {
        Frames {
            n: nodes as u64,
            groups,
            mode: Vec::new(),
            used: Vec::new(),
            next_fresh: 0,
            fgp_free: Vec::new(),
            cgp_free: vec![Vec::new(); nodes as usize],
            live_cgp: vec![0; nodes as usize],
            live_fgp: 0,
            stats: FrameStats::default(),
        }
    }

    fn take_free_group(&mut self) -> Option<u64> {
        // prefer never-used groups (lazy: the tables grow only with use)
        if self.next_fresh < self.groups {
            let g = self.next_fresh;
            self.next_fresh += 1;
            self.mode.push(GroupMode::Free);
            self.used.push(0);
            return Some(g);
        }
        (0..self.next_fresh).find(|&g| self.mode[g as usize] == GroupMode::Free)
    }

    /// A frame of the given mode; for CGP, on node `node`. Returns (ppn, actual mode).
    pub fn alloc(&mut self, mode: Mode, node: u32) -> Option<(u64, Mode)> {
        match mode {
            Mode::Cgp => {
                if let Some(f) = self.cgp_free[node as usize].pop() {
                    return Some(self.mark(f, Mode::Cgp));
                }
                if let Some(g) = self.take_free_group() {
                    self.mode[g as usize] = GroupMode::Cgp;
                    self.stats.groups_to_cgp += 1;
                    for i in (0..self.n).rev() {
                        self.cgp_free[i as usize].push(g * self.n + i);
                    }
                    let f = self.cgp_free[node as usize].pop()?;
                    return Some(self.mark(f, Mode::Cgp));
                }
                self.stats.cgp_fallbacks += 1;
                self.alloc(Mode::Fgp, 0)
            }
            Mode::Fgp => {
                if let Some(f) = self.fgp_free.pop() {
                    return Some(self.mark(f, Mode::Fgp));
                }
                let g = self.take_free_group()?;
                self.mode[g as usize] = GroupMode::Fgp;
                self.stats.groups_to_fgp += 1;
                for i in (0..self.n).rev() {
                    self.fgp_free.push(g * self.n + i);
                }
                let f = self.fgp_free.pop()?;
                Some(self.mark(f, Mode::Fgp))
            }
        }
    }

    fn mark(&mut self, ppn: u64, mode: Mode) -> (u64, Mode) {
        self.used[(ppn / self.n) as usize] += 1;
        match mode {
            Mode::Fgp => {
                self.stats.fgp_frames += 1;
                self.live_fgp += 1;
            }
            Mode::Cgp => {
                self.stats.cgp_frames += 1;
                self.live_cgp[(ppn % self.n) as usize] += 1;
            }
        }
        (ppn, mode)
    }

    /// Free frame `ppn`; a group whose frames are all free returns to the Free state and
    /// may switch mode on its next use.
    pub fn free(&mut self, ppn: u64) {
        let g = (ppn / self.n) as usize;
        if g >= self.used.len() || self.used[g] == 0 {
            return;
        }
        self.used[g] -= 1;
        match self.mode[g] {
            GroupMode::Fgp => {
                self.fgp_free.push(ppn);
                self.live_fgp -= 1;
            }
            GroupMode::Cgp => {
                self.cgp_free[(ppn % self.n) as usize].push(ppn);
                self.live_cgp[(ppn % self.n) as usize] -= 1;
            }
            GroupMode::Free => {}
        }
        if self.used[g] == 0 {
            let gg = g as u64;
            self.fgp_free.retain(|f| f / self.n != gg);
            for l in &mut self.cgp_free {
                l.retain(|f| f / self.n != gg);
            }
            self.mode[g] = GroupMode::Free;
        }
    }

    /// Fraction of node `node`'s frames free now: its coarse frames in use and its share
    /// (1/N) of every fine-grained frame in use count as taken.
    pub fn free_fraction(&self, node: u32) -> f64 {
        if self.groups == 0 {
            return 0.0;
        }
        let used = self.live_cgp.get(node as usize).copied().unwrap_or(0) as f64
            + self.live_fgp as f64 / self.n as f64;
        (1.0 - used / self.groups as f64).max(0.0)
    }

    /// Mode of the group holding `ppn` (None if never used or free).
    pub fn group_mode(&self, ppn: u64) -> Option<Mode> {
        match self.mode.get((ppn / self.n) as usize)? {
            GroupMode::Fgp => Some(Mode::Fgp),
            GroupMode::Cgp => Some(Mode::Cgp),
            GroupMode::Free => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::DualModeMap;

    #[test]
    fn converting_a_group_gives_one_cgp_frame_per_node() {
        let mut f = Frames::new(4, 100);
        let m = DualModeMap::new(4, 4096, 128);
        let mut got = Vec::new();
        for node in 0..4 {
            let (ppn, mode) = f.alloc(Mode::Cgp, node).unwrap();
            assert_eq!(mode, Mode::Cgp);
            assert_eq!(m.cgp_node(ppn), node, "frame lives on the requested node");
            got.push(ppn / 4);
        }
        assert!(
            got.iter().all(|&g| g == got[0]),
            "all four came from one group"
        );
        assert_eq!(f.stats.groups_to_cgp, 1);
    }

    #[test]
    fn free_fraction_counts_coarse_frames_per_node_and_fine_ones_striped() {
        let mut f = Frames::new(4, 10);
        assert_eq!(f.free_fraction(1), 1.0);
        let (a, _) = f.alloc(Mode::Cgp, 1).unwrap();
        let (b, _) = f.alloc(Mode::Cgp, 1).unwrap();
        // node 1: 2 of its 10 frames; node 0 none
        assert!((f.free_fraction(1) - 0.8).abs() < 1e-12);
        assert_eq!(f.free_fraction(0), 1.0);
        // one fine-grained frame takes a quarter frame on every node
        let (c, _) = f.alloc(Mode::Fgp, 0).unwrap();
        assert!((f.free_fraction(0) - 0.975).abs() < 1e-12);
        assert!((f.free_fraction(1) - 0.775).abs() < 1e-12);
        for x in [a, b, c] {
            f.free(x);
        }
        assert_eq!((f.free_fraction(0), f.free_fraction(1)), (1.0, 1.0));
    }

    #[test]
    fn groups_never_mix_modes() {
        let mut f = Frames::new(4, 1000);
        let mut frames = Vec::new();
        for i in 0..500u32 {
            let mode = if i % 3 == 0 { Mode::Fgp } else { Mode::Cgp };
            let (ppn, m) = f.alloc(mode, i % 4).unwrap();
            frames.push((ppn, m));
        }
        for &(ppn, m) in &frames {
            assert_eq!(f.group_mode(ppn), Some(m));
        }
        let mut uniq: Vec<u64> = frames.iter().map(|x| x.0).collect();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), frames.len(), "no frame handed out twice");
    }

    #[test]
    fn group_switches_mode_only_when_fully_free_and_falls_back() {
        let mut f = Frames::new(2, 1);
        let (a, _) = f.alloc(Mode::Fgp, 0).unwrap();
        // the only group is FGP with one frame used: a CGP request must fall back to FGP
        let (b, mb) = f.alloc(Mode::Cgp, 1).unwrap();
        assert_eq!(mb, Mode::Fgp);
        assert_eq!(f.stats.cgp_fallbacks, 1);
        f.free(a);
        f.free(b);
        let (_, mc) = f.alloc(Mode::Cgp, 1).unwrap();
        assert_eq!(mc, Mode::Cgp, "the freed group converted");
        assert!(
            f.alloc(Mode::Cgp, 1).is_none(),
            "memory exhausted: no frame at all"
        );
    }
}
