//! The state's integer fields (`now`, `seed`): read as serde reads an integer
//! from JSON text, and also from a JavaScript number past 2^53 that holds an
//! integer. The page hands its state over as a JS object, and
//! serde-wasm-bindgen gives such a number as a float; taken as an integer,
//! [`super::LinkState::check`] refuses it with its reason (`seedTooLarge`,
//! `instantOutOfRange`) instead of a type error.
use serde::de::{self, Deserializer, Unexpected, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// 2^63 and 2^64 as floats: the ends of `i64` and `u64`.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

/// For `#[serde(deserialize_with)]` on an integer field.
pub fn deserialize<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64> + TryFrom<i64>,
{
    d.deserialize_any(Whole(PhantomData))
}

struct Whole<T>(PhantomData<T>);

impl<'de, T: TryFrom<u64> + TryFrom<i64>> Visitor<'de> for Whole<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // `u64` or `i64`: serde's own words for these fields.
        f.write_str(std::any::type_name::<T>())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        // Below 2^53 a float is no integer JSON or the page writes (`1.0`,
        // `1.5`): refused, as serde refuses it. NaN and infinities have no
        // zero fraction.
        if v.fract() == 0.0 && v.abs() > super::MAX_SAFE_INTEGER as f64 {
            if (0.0..TWO_64).contains(&v) {
                return self.visit_u64(v as u64);
            }
            if (-TWO_63..0.0).contains(&v) {
                return self.visit_i64(v as i64);
            }
        }
        Err(E::invalid_type(Unexpected::Float(v), &self))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::{default_view, LinkState, MAX_SAFE_INTEGER};
    use serde::Deserialize;

    /// `LinkState` with serde's plain integer fields, as it was read before.
    #[derive(Deserialize)]
    struct Plain {
        db: String,
        script: String,
        now: i64,
        seed: u64,
        #[serde(default = "default_view")]
        view: String,
        #[serde(default)]
        tutorial: Option<String>,
        #[serde(default)]
        step: Option<u32>,
        #[serde(default)]
        lang: Option<String>,
        #[serde(default)]
        tz: Option<String>,
    }

    fn plain(text: &str) -> Option<LinkState> {
        let p: Plain = serde_json::from_str(text).ok()?;
        Some(LinkState {
            db: p.db,
            script: p.script,
            now: p.now,
            seed: p.seed,
            view: p.view,
            tutorial: p.tutorial,
            step: p.step,
            lang: p.lang,
            tz: p.tz,
        })
    }

    /// JSON text reads as with plain integer fields, but for integral floats
    /// past 2^53, which now read as integers that `check` refuses.
    #[test]
    fn json_reads_as_before() {
        let values = [
            r#""x""#,
            "1",
            "-1",
            "0",
            "-0",
            "1.0",
            "1.5",
            "1e3",
            "null",
            "true",
            "[]",
            "{}",
            "4294967295",
            "4294967296",
            "9007199254740991",
            "9007199254740992",
            "9007199254740992.0",
            "-9007199254740992.0",
            "1e16",
            "-1e16",
            "1e19",
            "1e20",
            "-1e19",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "9223372036854775808",
            r#""shell""#,
        ];
        let base = [
            ("db", r#""a""#),
            ("script", r#""b""#),
            ("now", "5"),
            ("seed", "7"),
            ("view", r#""tree""#),
            ("tutorial", r#""t""#),
            ("step", "2"),
            ("lang", r#""de""#),
            ("tz", r#""UTC""#),
        ];
        let mut widened = 0;
        let mut n = 0;
        let mut check = |text: String| {
            n += 1;
            let ours = serde_json::from_str::<LinkState>(&text).ok();
            match (ours, plain(&text)) {
                (ours, theirs) if ours == theirs => {}
                (Some(s), None) => {
                    assert!(s.check().is_err(), "{text}");
                    assert!(
                        s.seed > MAX_SAFE_INTEGER || s.now.unsigned_abs() > MAX_SAFE_INTEGER,
                        "{text}"
                    );
                    widened += 1;
                }
                (ours, theirs) => panic!("{text}: {ours:?} against {theirs:?}"),
            }
        };
        for drop in 0..=base.len() {
            for (i, _) in base.iter().enumerate() {
                for v in values {
                    let fields: Vec<String> = base
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != drop)
                        .map(|(j, (k, val))| format!("\"{k}\":{}", if j == i { v } else { val }))
                        .collect();
                    check(format!("{{{}}}", fields.join(",")));
                    check(format!("{{\"extra\":[1,{{}}],{}}}", fields.join(",")));
                    let items: Vec<&str> = base
                        .iter()
                        .enumerate()
                        .take(drop)
                        .map(|(j, (_, val))| if j == i { v } else { *val })
                        .collect();
                    check(format!("[{}]", items.join(",")));
                }
            }
        }
        for text in [
            "",
            "null",
            "1",
            "\"s\"",
            "[",
            "{",
            r#"{"db":"a","script":"b","now":1,"seed":2} x"#,
            r#"{"db":"a","script":"b","now":1,"seed":2,"seed":3}"#,
            r#"["a","b",1,2,"shell",null,null,1]"#,
            r#"["a","b",1,2,"shell",null,null,"ko",1]"#,
            r#"["a","b",1,2,"shell",null,null,"ko","UTC",1]"#,
            r#"["a","b",1,2,"shell",null,null]"#,
        ] {
            check(text.to_string());
        }
        assert!(n > 1000, "{n}");
        assert!(widened > 0);
    }

    #[test]
    fn large_integers_keep_their_reason() {
        use super::super::Reason;
        let read = |now: &str, seed: &str| {
            let text = format!(r#"{{"db":"","script":"","now":{now},"seed":{seed}}}"#);
            serde_json::from_str::<LinkState>(&text).map(|s| s.check())
        };
        assert!(matches!(read("0", "9007199254740991"), Ok(Ok(()))));
        assert_eq!(
            read("0", "9007199254740992").ok(),
            Some(Err(Reason::SeedTooLarge(1 << 53)))
        );
        assert_eq!(
            read("0", "1e16").ok(),
            Some(Err(Reason::SeedTooLarge(10_000_000_000_000_000)))
        );
        assert_eq!(
            read("-1.8e18", "0").ok(),
            Some(Err(Reason::InstantOutOfRange(-1_800_000_000_000_000_000)))
        );
        for (now, seed) in [
            ("0", "-1"),
            ("0", "1.5"),
            ("1.0", "0"),
            ("0", "1e20"),
            ("-1e19", "0"),
        ] {
            assert!(read(now, seed).is_err(), "{now} {seed}");
        }
    }
}
