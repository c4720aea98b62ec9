//! The compact copy against chrono-tz itself: same names, same offsets at every
//! transition (and the second before), and on a grid from 1800 to 2100.
use super::Tz;
use chrono::{Offset, TimeZone};

fn chrono_offset(tz: chrono_tz::Tz, secs: i64) -> i32 {
    let t = chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default();
    tz.offset_from_utc_datetime(&t.naive_utc())
        .fix()
        .local_minus_utc()
}

#[test]
fn names_match_chrono_tz() {
    let mut theirs: Vec<&str> = chrono_tz::TZ_VARIANTS.iter().map(|t| t.name()).collect();
    theirs.sort_unstable();
    let ours: Vec<&str> = Tz::names().collect();
    assert_eq!(ours, theirs);
    assert!(Tz::parse("america/new_york").is_none());
    assert!(Tz::parse("").is_none());
    assert_eq!(
        Tz::parse("Europe/Paris").map(Tz::name),
        Some("Europe/Paris")
    );
}

#[test]
fn offsets_match_chrono_tz() {
    let db = super::db();
    for name in Tz::names() {
        let ours = Tz::parse(name).unwrap_or_else(|| panic!("{name}"));
        let theirs: chrono_tz::Tz = name.parse().unwrap_or_else(|_| panic!("{name}"));
        let zone = &db.zones[usize::from(db.names[usize::from(ours.0)].1)];
        for &t in &zone.times {
            for s in [t - 1, t, t + 1] {
                assert_eq!(ours.offset_at(s), chrono_offset(theirs, s), "{name} at {s}");
            }
        }
        // Every 23 days and 7 hours from 1800 to 2100, and the far past and future.
        let mut s = -5_364_662_400;
        while s < 4_102_444_800 {
            assert_eq!(ours.offset_at(s), chrono_offset(theirs, s), "{name} at {s}");
            s += 23 * 86_400 + 7 * 3_600;
        }
        for s in [-8_000_000_000_000, 8_000_000_000_000] {
            assert_eq!(ours.offset_at(s), chrono_offset(theirs, s), "{name} at {s}");
        }
    }
}

/// The page's wasm compiles `tznames.bin` in and loads the rest: it must be
/// exactly the names part of `tzdata.bin`.
#[test]
fn names_file_is_the_start_of_the_data() {
    let whole: &'static [u8] = include_bytes!("tzdata.bin");
    let names: &'static [u8] = include_bytes!("tznames.bin");
    assert!(whole.starts_with(names));
    let (from_names, zones) = super::parse(names).expect("names parse");
    assert!(zones.is_empty());
    let (all_names, all_zones) = super::parse(whole).expect("data parses");
    assert_eq!(from_names, all_names);
    assert!(!all_zones.is_empty());
    assert!(super::load(
        whole.to_vec(),
        include_str!("names.tsv").to_string()
    ));
    let paris = Tz::parse("Europe/Paris").expect("known");
    assert_eq!(paris.offset_at(1_720_000_000), 7200);
    assert!(!super::wanted());
}
