//! Time is an integer number of picoseconds so that SM, DRAM, link and NSU clocks can all
//! differ without rounding drift.

/// Simulated time in picoseconds.
pub type Ps = u64;

/// A clock domain: converts cycles to picoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Length of one cycle in picoseconds.
    pub period: Ps,
}

impl Clock {
    /// A clock of `ghz` gigahertz (period rounded to the nearest picosecond, at least 1).
    pub fn ghz(ghz: f64) -> Clock {
        Clock {
            period: ((1000.0 / ghz).round() as Ps).max(1),
        }
    }
    /// `n` cycles in picoseconds.
    #[inline]
    pub fn cycles(&self, n: u64) -> Ps {
        n * self.period
    }
    /// The first cycle edge at or after `t`.
    #[inline]
    pub fn next_edge(&self, t: Ps) -> Ps {
        t.div_ceil(self.period) * self.period
    }
    /// Whole cycles elapsed in `t`.
    #[inline]
    pub fn to_cycles(&self, t: Ps) -> u64 {
        t / self.period
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn two_ghz_is_500ps() {
        let c = Clock::ghz(2.0);
        assert_eq!(c.period, 500);
        assert_eq!(c.cycles(3), 1500);
        assert_eq!(c.next_edge(501), 1000);
        assert_eq!(c.next_edge(1000), 1000);
    }
}
