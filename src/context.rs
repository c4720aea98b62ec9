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
}

impl RunCtx {
    pub fn new(now: DateTime, seed: u64) -> RunCtx {
        RunCtx { now, seed }
    }
}

impl Default for RunCtx {
    /// A fixed instant (2024-01-01T00:00:00Z) and seed 0, for tests.
    fn default() -> RunCtx {
        RunCtx {
            now: DateTime::from_millis(1_704_067_200_000),
            seed: 0,
        }
    }
}
