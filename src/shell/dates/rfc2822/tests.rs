//! The hand-written parser against chrono's `parse_from_rfc2822` on strings
//! assembled from valid and invalid pieces of every part.
use super::parse;

fn chrono_millis(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc2822(s)
        .ok()
        .map(|d| d.timestamp_millis())
}

#[test]
fn same_answers_as_chrono() {
    let weekdays = [
        "",
        "Tue, ",
        "tue,",
        "TUE , ",
        "Mon, ",
        "Sun, ",
        "Tue ",
        "Tuesday, ",
        "Xyz, ",
    ];
    let days = ["1", "01", "001", "0", "29", "30", "31", "32", "7", "x"];
    let months = ["Nov", "nov", "FEB", "Feb", "Sept", "Xyz", "No"];
    let years = [
        "2022",
        "22",
        "49",
        "50",
        "99",
        "100",
        "999",
        "0999",
        "1900",
        "2000",
        "2024",
        "0",
        "-1",
        "262142",
        "262143",
        "-262143",
        "2147483648",
        "99999999999999999999",
    ];
    let times = [
        "10:00:00",
        "10:00",
        "23:59:60",
        "00:00:60",
        "24:00:00",
        "10:60:00",
        "10 : 05 : 07",
        "10:05: 07",
        "1:00:00",
        "10:00:0",
        "10:00:000",
    ];
    let zones = [
        "+0000",
        "-0000",
        "+0100",
        "-0530",
        "+2359",
        "-2359",
        "+2400",
        "-9959",
        "+0560",
        "+0600",
        "GMT",
        "gmt",
        "UT",
        "Z",
        "EST",
        "edt",
        "CDT",
        "pst",
        "a",
        "J",
        "q",
        "XYZ",
        "+00",
        "+00:00",
        "\u{2212}0100",
        "",
    ];
    let tails = [
        "",
        " (comment)",
        " (a (b) c)",
        "(\\))",
        " (",
        " x",
        " ()()",
        "\t",
    ];
    let spaces = [" ", "  ", "\t", "\u{3000}"];
    let mut n = 0;
    let mut ok = 0;
    let mut check = |s: String| {
        let theirs = chrono_millis(&s);
        assert_eq!(parse(&s), theirs, "{s:?}");
        n += 1;
        ok += usize::from(theirs.is_some());
    };
    for (i, w) in weekdays.iter().enumerate() {
        for (j, d) in days.iter().enumerate() {
            for (k, m) in months.iter().enumerate() {
                for (l, y) in years.iter().enumerate() {
                    let sp = spaces[(i + j + k + l) % spaces.len()];
                    let t = times[(i * 3 + j + l) % times.len()];
                    let z = zones[(j * 5 + k * 3 + l) % zones.len()];
                    let tail = tails[(i + k + l) % tails.len()];
                    check(format!("{w}{d}{sp}{m} {y} {t} {z}{tail}"));
                    check(format!("{w}{d} {m}{sp}{y}{sp}10:00:00 +0100"));
                }
            }
        }
    }
    for t in times {
        for z in zones {
            for tail in tails {
                check(format!("Tue, 1 Nov 2022 {t} {z}{tail}"));
                check(format!("31 Dec 262142 {t} {z}{tail}"));
                check(format!("1 Jan -262143 {t} {z}{tail}"));
            }
        }
    }
    for s in [
        "",
        " ",
        "Tue",
        "Tue,",
        "1",
        "1 Nov",
        "1 Nov 2022",
        "1 Nov 2022 10:00",
        "é",
    ] {
        check(s.to_string());
    }
    assert!(n > 10_000 && ok > 1_000, "{n} {ok}");
}
