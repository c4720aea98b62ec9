//! The zone names JavaScript prints in a date's `toString()` and `Date()`
//! ("GMT+0100 (Central European Standard Time)"), as V8 does: ICU's English
//! long names, one standard and one daylight name per zone (V8 asks ICU once,
//! for the current date), the daylight one when daylight time is in effect.
//! `names.tsv` holds what Node printed for every zone (tools/tz_names.mjs).
use super::civil::{civil_from_days, days_from_civil};
use super::Tz;
use std::collections::HashMap;

/// Zone name → (standard name, daylight name).
pub(super) type Table = HashMap<&'static str, (&'static str, &'static str)>;

/// Read `names.tsv`.
pub(super) fn table(text: &'static str) -> Table {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split('\t');
            let (zone, std, dst) = (parts.next()?, parts.next()?, parts.next()?);
            Some((zone, (std, if dst == "-" { std } else { dst })))
        })
        .collect()
}

/// V8's largest time it asks the zone about as it is (2^31 - 1 seconds); times
/// outside 0 to this are moved to an equivalent year first (see `equivalent`).
const MAX_EPOCH_MS: i64 = 2_147_483_647_000;
const MS_PER_DAY: i64 = 86_400_000;

impl Tz {
    /// The name V8 prints for this zone at `ms` (milliseconds since the epoch).
    pub fn display_name(self, ms: i64) -> &'static str {
        let (std, dst) = super::db()
            .display
            .get(self.name())
            .copied()
            .unwrap_or(("", ""));
        if self.is_daylight(ms) {
            dst
        } else {
            std
        }
    }

    /// Whether daylight time is in effect, as V8 asks it: for times before
    /// 1970 or after 2038 in the equivalent year of 2008-2037 (V8's
    /// DateCache::EquivalentTime). Our tables keep total offsets only, so an
    /// offset counts as daylight time when it is above the lowest offset of
    /// the 9 months before and the lowest of the 9 months after (a zone that
    /// moved its standard offset keeps the new one on the later side).
    pub fn is_daylight(self, ms: i64) -> bool {
        const QUARTER: i64 = 91 * 86_400;
        let ms = if (0..=MAX_EPOCH_MS).contains(&ms) {
            ms
        } else {
            equivalent(ms)
        };
        let secs = ms.div_euclid(1000);
        let now = self.offset_at(secs);
        let lowest = |sign: i64| {
            (1..=3)
                .map(|k| self.offset_at(secs + sign * k * QUARTER))
                .min()
                .unwrap_or(now)
        };
        now > lowest(-1) && now > lowest(1)
    }
}

/// V8's DateCache::EquivalentTime: the same month, day and time of day in a
/// year of 2008-2037 that starts on the same weekday and has the same length.
fn equivalent(ms: i64) -> i64 {
    let days = ms.div_euclid(MS_PER_DAY);
    let within = ms - days * MS_PER_DAY;
    let (year, month, day) = civil_from_days(days);
    let week_day = (days_from_civil(year, 1, 1) + 4).rem_euclid(7);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let recent = if leap { 1956 } else { 1967 } + (week_day * 12) % 28;
    let eq_year = 2008 + (recent + 3 * 28 - 2008) % 28;
    (days_from_civil(eq_year, month, 1) + day - 1) * MS_PER_DAY + within
}
