//! What a run shares everywhere: the injected clock and the random seed.
//! `bson::DateTime::now()` traps on wasm32, and runs must be reproducible, so
//! nothing in the engine reads the real time or real randomness.
use bson::DateTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunCtx {
    /// `$$NOW`, `new Date()`, `ISODate()`, `$currentDate`: one instant per run.
    pub now: DateTime,
    /// Seed for `$rand` and `$sample`.
    pub seed: u64,
    /// The run's time zone: local-time dates (`new Date(2003, 0, 7)`, date
    /// strings without a zone) are read in it. `None`: UTC.
    pub tz: Option<crate::tzdb::Tz>,
}

impl RunCtx {
    pub fn new(now: DateTime, seed: u64) -> RunCtx {
        RunCtx {
            now,
            seed,
            tz: None,
        }
    }

    /// The run's pseudo-random sequence for one consumer (`$rand`, `$sample`):
    /// each names its own stream, so one's draws do not shift the other's.
    pub fn random(&self, stream: u64) -> SplitMix64 {
        SplitMix64(self.seed ^ stream)
    }
}

/// The engine's one pseudo-random generator (splitmix64), seeded from the run.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in [0, 1), with the 53 bits a double holds.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Default for RunCtx {
    /// A fixed instant (2024-01-01T00:00:00Z) and seed 0, for tests.
    fn default() -> RunCtx {
        RunCtx {
            now: DateTime::from_millis(1_704_067_200_000),
            seed: 0,
            tz: None,
        }
    }
}
