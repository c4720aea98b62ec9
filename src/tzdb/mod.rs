//! Olson time zones: every name chrono-tz knows and the UTC offsets in effect,
//! from `tzdata.bin`, a compact copy of chrono-tz's tables written by
//! `tools/tzdb.py` (about 18 KB gzipped where chrono-tz's tables took about
//! 130 KB of the page's download). Only total offsets are kept: all the date
//! operators need. The tests check every name and transition against chrono-tz.
//!
//! The page's wasm carries only the names (`tznames.bin`, the start of
//! `tzdata.bin`), so that names are checked at once; the offsets and the zones'
//! display names are fetched when a run first asks for them ([`wanted`], [`load`]),
//! as the collation data is.
use std::sync::OnceLock;

#[cfg(not(target_arch = "wasm32"))]
static DATA: &[u8] = include_bytes!("tzdata.bin");
#[cfg(target_arch = "wasm32")]
static DATA: &[u8] = include_bytes!("tznames.bin");

/// A named time zone (its position in the sorted list of names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tz(u16);

struct Zone {
    /// Offset in seconds before the first transition.
    first: i32,
    /// Transition instants (seconds since the epoch, ascending) and the offset from each.
    times: Vec<i64>,
    offsets: Vec<i32>,
}

#[derive(Default)]
struct Db {
    names: Vec<(&'static str, u16)>,
    /// Empty while only the names are there (the page's wasm before [`load`]).
    zones: Vec<Zone>,
    /// Each zone's display names (`names.tsv`).
    display: names::Table,
}

static LOADED: OnceLock<Db> = OnceLock::new();

fn db() -> &'static Db {
    static DB: OnceLock<Db> = OnceLock::new();
    LOADED.get().unwrap_or_else(|| {
        DB.get_or_init(|| {
            #[cfg(not(target_arch = "wasm32"))]
            let display = names::table(include_str!("names.tsv"));
            #[cfg(target_arch = "wasm32")]
            let display = names::Table::default();
            parse(DATA).map_or_else(Db::default, |(names, zones)| Db {
                names,
                zones,
                display,
            })
        })
    })
}

thread_local! {
    static WANTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a run asked for offsets or display names that are not loaded,
/// since the last call (the page then loads them and runs again).
pub fn wanted() -> bool {
    WANTED.with(|w| w.replace(false))
}

/// Load the whole `tzdata.bin` and `names.tsv` (once; later calls change
/// nothing). False for data whose names differ from the compiled ones.
pub fn load(data: Vec<u8>, display_names: String) -> bool {
    if LOADED.get().is_some() {
        return true;
    }
    let data: &'static [u8] = Box::leak(data.into_boxed_slice());
    let display_names: &'static str = Box::leak(display_names.into_boxed_str());
    let Some((names, zones)) = parse(data) else {
        return false;
    };
    if names != db().names || zones.is_empty() {
        return false;
    }
    let display = names::table(display_names);
    LOADED
        .set(Db {
            names,
            zones,
            display,
        })
        .is_ok()
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

fn unzigzag(n: u64) -> i64 {
    (n >> 1) as i64 ^ -((n & 1) as i64)
}

impl<'a> Reader<'a> {
    fn uvar(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.data.get(self.pos)?;
            self.pos += 1;
            n |= u64::from(b & 0x7F) << shift;
            if b < 0x80 {
                return Some(n);
            }
        }
        None
    }

    fn svar(&mut self) -> Option<i64> {
        self.uvar().map(unzigzag)
    }

    fn bytes(&mut self, len: usize) -> Option<&'a [u8]> {
        let b = self.data.get(self.pos..self.pos.checked_add(len)?)?;
        self.pos += len;
        Some(b)
    }
}

/// Decode `tzdata.bin` (the format is described in `tools/tzdb.py`), or only
/// its names when the data ends after them (`tznames.bin`: no zones).
#[allow(clippy::type_complexity)]
fn parse(data: &'static [u8]) -> Option<(Vec<(&'static str, u16)>, Vec<Zone>)> {
    const WEEK: i64 = 7 * 86_400;
    const YEAR: i64 = 52 * WEEK;
    let mut r = Reader { data, pos: 0 };
    if r.bytes(5)? != b"TZDB2" {
        return None;
    }
    let mut offs = Reader {
        data,
        pos: usize::try_from(r.uvar()?).ok()?,
    };
    let n_names = usize::try_from(r.uvar()?).ok()?;
    let n_zones = usize::try_from(r.uvar()?).ok()?;
    let mut names = Vec::with_capacity(n_names);
    for _ in 0..n_names {
        let len = usize::try_from(r.uvar()?).ok()?;
        let name = std::str::from_utf8(r.bytes(len)?).ok()?;
        names.push((name, u16::try_from(r.uvar()?).ok()?));
    }
    if r.pos == data.len() {
        return Some((names, Vec::new()));
    }
    let (mut zones, mut counts) = (Vec::with_capacity(n_zones), Vec::with_capacity(n_zones));
    for _ in 0..n_zones {
        let first = i32::try_from(r.svar()?).ok()?;
        let n = usize::try_from(r.uvar()?).ok()?;
        counts.push(n);
        zones.push(Zone {
            first,
            times: Vec::with_capacity(n),
            offsets: Vec::with_capacity(n),
        });
    }
    for (zone, n) in zones.iter_mut().zip(counts) {
        let mut t = 0i64;
        for i in 0..n {
            let back = i
                .checked_sub(2)
                .and_then(|j| Some((*zone.times.get(j)?, *zone.offsets.get(j)?)));
            let off;
            match r.uvar()? {
                // A yearly rule: 52 or 53 weeks after the transition two before.
                tag @ (0 | 1) => {
                    let (bt, bo) = back?;
                    t = bt.checked_add(YEAR + WEEK * i64::try_from(tag).ok()?)?;
                    off = bo;
                }
                tag => {
                    let k = tag - 2;
                    let unit = [900, 60, 1][usize::try_from(k % 3).ok()?];
                    t = t.checked_add(unzigzag(k / 3).checked_mul(unit)?)?;
                    off = match offs.uvar()? {
                        0 => back?.1,
                        v if v % 2 == 1 => {
                            i32::try_from(unzigzag((v - 1) / 2).checked_mul(900)?).ok()?
                        }
                        v => i32::try_from(unzigzag((v - 2) / 2)).ok()?,
                    };
                }
            }
            zone.times.push(t);
            zone.offsets.push(off);
        }
    }
    let valid = names.iter().all(|(_, z)| usize::from(*z) < zones.len());
    valid.then_some((names, zones))
}

impl Tz {
    /// The zone with exactly this Olson name (case-sensitive, as chrono-tz).
    pub fn parse(name: &str) -> Option<Tz> {
        let names = &db().names;
        let i = names
            .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
            .ok()?;
        u16::try_from(i).ok().map(Tz)
    }

    pub fn name(self) -> &'static str {
        db().names
            .get(usize::from(self.0))
            .map_or("UTC", |(n, _)| n)
    }

    /// Seconds east of UTC in effect at `secs` seconds since the epoch.
    pub fn offset_at(self, secs: i64) -> i32 {
        let db = db();
        let Some(zone) = db
            .names
            .get(usize::from(self.0))
            .and_then(|(_, z)| db.zones.get(usize::from(*z)))
        else {
            if db.zones.is_empty() {
                WANTED.with(|w| w.set(true));
            }
            return 0;
        };
        match zone.times.partition_point(|&t| t <= secs) {
            0 => zone.first,
            i => zone.offsets.get(i - 1).copied().unwrap_or(zone.first),
        }
    }

    /// Every known name, sorted.
    pub fn names() -> impl Iterator<Item = &'static str> {
        db().names.iter().map(|(n, _)| *n)
    }
}

pub mod civil;
mod names;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
