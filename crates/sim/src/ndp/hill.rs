//! The dynamic offload ratio: Algorithm 1 of the paper (spec ndp.md §4.3), a hill climber
//! run at the end of every epoch (30 000 SM cycles) on the throughput of offload-block
//! instructions (offloaded or not) per cycle.
//!
//! Reading of the out-of-order extracted text (the spec's reconstruction and its \[DEFAULT\]
//! choices): the direction flips when the epoch's IPC fell; the last `window` flips are kept;
//! more flips than half the window shrink the step by `step_unit` (down to `step_min`),
//! otherwise it grows (up to `step_max`); the ratio moves by the current step, clamped to
//! `[step_unit, 1 - step_unit]`, so exploration never stops. At the end of the first epoch
//! the IPC is recorded and the ratio moves once, so the second epoch tests a new point.
//! `literal = true` follows the printed lines instead (the ratio moves by `step_unit` only
//! inside the printed guard; the step also grows when it is at its minimum and flips
//! dominate). `hold_idle = true` is a reading of ours, not the paper's: an epoch in which no
//! offload-block instruction counted (IPC 0: a kernel without blocks ran) leaves the
//! controller as it was, instead of moving the ratio on a comparison of two zeros.

/// Parameters of Algorithm 1 (`ndp.*`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HillParams {
    pub init_ratio: f64,
    pub step_max: f64,
    pub step_min: f64,
    pub step_unit: f64,
    pub window: usize,
    pub literal: bool,
    /// Skip epochs whose IPC is 0 (`ndp.hill_hold_idle`; not the paper's).
    pub hold_idle: bool,
}

impl Default for HillParams {
    /// The paper's values (§5.2 Table 2, Algorithm 1).
    fn default() -> Self {
        HillParams {
            init_ratio: 0.1,
            step_max: 0.15,
            step_min: 0.05,
            step_unit: 0.05,
            window: 4,
            literal: false,
            hold_idle: false,
        }
    }
}

/// Tolerance of step and ratio comparisons (steps are sums of 0.05s).
const EPS: f64 = 1e-9;

/// The controller's state: one global ratio for the whole GPU, kept across kernels.
#[derive(Clone, Debug)]
pub struct HillClimber {
    p: HillParams,
    ratio: f64,
    step: f64,
    dir: f64,
    /// Ring of the last `window` flips (bit i = epoch i of the ring).
    flips: u64,
    len: usize,
    prev_ipc: Option<f64>,
    epochs: u64,
}

impl HillClimber {
    /// A controller at the initial ratio and the largest step, climbing upwards.
    pub fn new(p: HillParams) -> Self {
        assert!(p.window <= 64, "ndp.window is at most 64");
        HillClimber {
            p,
            ratio: p.init_ratio,
            step: p.step_max,
            dir: 1.0,
            flips: 0,
            len: 0,
            prev_ipc: None,
            epochs: 0,
        }
    }

    /// The offload ratio in force.
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    /// The current step size.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Epochs seen.
    pub fn epochs(&self) -> u64 {
        self.epochs
    }

    fn clamp(&self, r: f64) -> f64 {
        r.clamp(self.p.step_unit, 1.0 - self.p.step_unit)
    }

    /// End of an epoch whose offload-block IPC was `ipc`: update direction, step and
    /// ratio; returns the new ratio.
    pub fn end_epoch(&mut self, ipc: f64) -> f64 {
        self.epochs += 1;
        if self.p.hold_idle && ipc == 0.0 {
            return self.ratio;
        }
        let Some(prev) = self.prev_ipc else {
            self.prev_ipc = Some(ipc);
            if !self.p.literal {
                self.ratio = self.clamp(self.ratio + self.dir * self.step);
            }
            return self.ratio;
        };
        let worse = ipc < prev;
        if worse {
            self.dir = -self.dir;
        }
        // history.push_back(worse); pop_front beyond the window
        let w = self.p.window;
        self.flips = (self.flips << 1) | worse as u64;
        self.len = (self.len + 1).min(w);
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        self.flips &= mask;
        let changes = self.flips.count_ones() as usize;
        let (min, max, unit) = (self.p.step_min, self.p.step_max, self.p.step_unit);
        if self.p.literal {
            if 2 * changes > w && min < self.step - EPS {
                self.step -= unit;
            } else if self.step < max - EPS {
                self.step += unit;
            }
            if self.ratio >= unit - EPS && self.ratio <= 1.0 - unit + EPS {
                self.ratio += self.dir * unit;
            }
        } else {
            if 2 * changes > w {
                if self.step > min + EPS {
                    self.step -= unit;
                }
            } else if self.step < max - EPS {
                self.step += unit;
            }
            self.ratio = self.clamp(self.ratio + self.dir * self.step);
        }
        self.prev_ipc = Some(ipc);
        self.ratio
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(curve: impl Fn(f64) -> f64, epochs: usize, p: HillParams) -> Vec<f64> {
        let mut h = HillClimber::new(p);
        let mut rs = vec![h.ratio()];
        for _ in 0..epochs {
            let ipc = curve(h.ratio());
            rs.push(h.end_epoch(ipc));
        }
        rs
    }

    /// A hump with its optimum at 0.4 (a streaming kernel, Fig. 9): from 0.1 the climber
    /// reaches the optimum within the window (4 epochs) and then stays within one largest
    /// step of it, averaging the optimum.
    #[test]
    fn converges_to_the_optimum_within_the_window() {
        let rs = run(|r| 1.0 - (r - 0.4) * (r - 0.4), 40, HillParams::default());
        let first = rs.iter().position(|&r| (r - 0.4).abs() < 1e-6).unwrap();
        assert!(first <= 4, "reached 0.4 after {first} epochs: {rs:?}");
        for &r in &rs[first..] {
            assert!((r - 0.4).abs() <= 0.15 + 1e-9, "strayed to {r}: {rs:?}");
        }
        let tail = &rs[rs.len() - 20..];
        let mean = tail.iter().sum::<f64>() / tail.len() as f64;
        assert!((mean - 0.4).abs() < 0.05, "mean {mean}");
    }

    /// The optimum at 0 (STN): the ratio stays low but never reaches 0 (the prose: "it
    /// continually tries non-zero offload ratios").
    #[test]
    fn optimum_at_zero_keeps_exploring_low_ratios() {
        let rs = run(|r| 1.0 - r, 40, HillParams::default());
        for &r in &rs[6..] {
            assert!((0.05 - 1e-9..=0.35).contains(&r), "{rs:?}");
        }
        assert!(rs[6..].iter().all(|&r| r > 0.0));
    }

    /// Reversals in more than half the window shrink the step to its minimum; the literal
    /// form's `else if` grows it again at the minimum.
    #[test]
    fn frequent_reversals_shrink_the_step() {
        let mut h = HillClimber::new(HillParams::default());
        let mut ipc = 100.0;
        for _ in 0..8 {
            h.end_epoch(ipc);
            ipc -= 1.0; // every epoch worse: every epoch a reversal
        }
        assert!((h.step() - 0.05).abs() < 1e-9, "step {}", h.step());
        let mut lit = HillClimber::new(HillParams {
            literal: true,
            ..HillParams::default()
        });
        let mut ipc = 100.0;
        let mut steps = Vec::new();
        for _ in 0..10 {
            lit.end_epoch(ipc);
            ipc -= 1.0;
            steps.push(lit.step());
        }
        assert!(
            steps[6..].iter().any(|&s| s > 0.05 + 1e-9),
            "literal: bounces off the minimum {steps:?}"
        );
    }

    /// Epochs at IPC 0 (a kernel without offload blocks): Algorithm 1 as printed keeps
    /// its direction on the equal IPCs and climbs with no signal (0.25, 0.40, ...); with
    /// `hold_idle` the controller stays at its initial ratio and step, and the first epoch
    /// with blocks behaves as the very first epoch does.
    #[test]
    fn idle_epochs_climb_unless_held() {
        let mut lit = HillClimber::new(HillParams::default());
        let climbed: Vec<f64> = (0..4).map(|_| lit.end_epoch(0.0)).collect();
        assert!((climbed[3] - 0.7).abs() < 1e-9, "{climbed:?}");
        let mut h = HillClimber::new(HillParams {
            hold_idle: true,
            ..HillParams::default()
        });
        for _ in 0..4 {
            assert!((h.end_epoch(0.0) - 0.1).abs() < 1e-9);
        }
        assert_eq!(h.epochs(), 4);
        assert!((h.step() - 0.15).abs() < 1e-9);
        assert!(
            (h.end_epoch(5.0) - 0.25).abs() < 1e-9,
            "moves once, as at the start"
        );
        assert!((h.end_epoch(4.0) - 0.1).abs() < 1e-9, "worse: reverses");
    }

    /// Steady improvement keeps the direction and the largest step up to the clamp.
    #[test]
    fn monotone_curve_climbs_to_the_clamp() {
        let rs = run(|r| r, 12, HillParams::default());
        assert!(
            (rs[1] - 0.25).abs() < 1e-9 && (rs[2] - 0.4).abs() < 1e-9,
            "{rs:?}"
        );
        assert!(rs.iter().all(|&r| r <= 0.95 + 1e-9));
        assert!(rs.iter().any(|&r| (r - 0.95).abs() < 1e-9), "{rs:?}");
    }
}
