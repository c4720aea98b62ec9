//! Share links: encode → decode is exact, and decoding anything never panics.
#![cfg(not(target_arch = "wasm32"))]
use mqlplay::link::{decode, encode, LinkState};
use proptest::prelude::*;

fn state() -> impl Strategy<Value = LinkState> {
    (
        any::<String>(),
        prop_oneof![any::<String>(), "[a-z{}:, \n]{0,20000}"],
        -(1i64 << 53) + 1..(1i64 << 53),
        0u64..(1u64 << 53),
        prop_oneof![Just("shell"), Just("tree"), Just("ejson")],
        proptest::option::of(any::<String>()),
        proptest::option::of(any::<u32>()),
        proptest::option::of(prop_oneof![
            Just("en"),
            Just("pt-BR"),
            Just("ja"),
            Just("ko"),
            Just("de")
        ]),
    )
        .prop_map(
            |(db, script, now, seed, view, tutorial, step, lang)| LinkState {
                db,
                script,
                now,
                seed,
                view: view.to_string(),
                tutorial,
                step,
                lang: lang.map(str::to_string),
                tz: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn encode_then_decode_is_exact(s in state()) {
        let link = encode(&s);
        prop_assert!(link.starts_with("v1"));
        prop_assert!(link[2..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        prop_assert_eq!(decode(&link), Ok(s.clone()));
        prop_assert_eq!(decode(&format!("http://127.0.0.1:8080/#{link}")), Ok(s));
    }

    #[test]
    fn random_strings_never_panic(s in any::<String>()) {
        let _ = decode(&s);
        let _ = decode(&format!("#v1{s}"));
    }

    #[test]
    fn mutated_links_never_panic(
        s in state(),
        cut in any::<prop::sample::Index>(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
    ) {
        let link = encode(&s);
        let _ = decode(&link[..cut.index(link.len())]);
        let mut bytes = link.into_bytes();
        for (at, b) in flips {
            let i = at.index(bytes.len());
            // Stay in the base64url alphabet half the time so the inflater sees damage.
            const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            bytes[i] = if b % 2 == 0 { ALPHABET[(b as usize / 2) % 64] } else { b };
        }
        let mutated = String::from_utf8_lossy(&bytes);
        let _ = decode(&mutated);
    }
}

/// A database text with every BSON type the reader knows, in mongosh's and
/// Extended JSON's spellings, with Unicode in keys and strings.
const EVERY_TYPE_DB: &str = r#"db = {
  "c😀": [
    { _id: ObjectId("65a934e00102030405000099"), d: 1.5, s: "é\u2028😀\"'\\", o: { "k.é": [1, [2]] },
      a: [null, true, false], bin: BinData(0, "AQID"), uuid: UUID("0123456789abcdef0123456789abcdef"),
      u: undefined, date: ISODate("2024-01-01T00:00:00.123Z"), re: /a(b)?\/c/gim, rex: BSONRegExp("a(b)?/c", "imsx"), code: Code("x"),
      i: NumberInt(-2147483648), ts: Timestamp(4294967295, 1), l: NumberLong("-9223372036854775808"),
      dec: NumberDecimal("-1.5E-6175"), min: MinKey(), max: MaxKey(), sym: { "$symbol": "s" },
      nan: NaN, inf: -Infinity, neg0: -0.0, ref: DBRef("c", 1) },
    { x: { "$numberLong": "5" }, y: { "$binary": { "base64": "", "subType": "80" } } }
  ]
}"#;

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, failure_persistence: None, ..ProptestConfig::default() })]

    /// About 1 MB of script and a database with every BSON type survive a link exactly,
    /// and the decoded state runs exactly as the original texts do.
    #[test]
    fn megabyte_states_with_every_type_round_trip(
        unit in "[a-zA-Z0-9 é😀\u{2028}'\"\\\\{}$.:,\n]{20,60}",
        seed in 0u64..(1u64 << 53),
    ) {
        let mut script = String::from("db.getCollection('c😀').find()\n// ");
        while script.len() < 1_000_000 {
            script.push_str(&unit);
        }
        let s = LinkState {
            db: EVERY_TYPE_DB.to_string(),
            script,
            now: 1_700_000_000_000,
            seed,
            view: "ejson".to_string(),
            tutorial: None,
            step: None,
            lang: None,
            tz: None,
        };
        let decoded = decode(&encode(&s));
        prop_assert_eq!(decoded.as_ref(), Ok(&s));
        let ctx = mqlplay::RunCtx::new(bson::DateTime::from_millis(s.now), s.seed);
        let direct = mqlplay::run(&s.db, "db.getCollection('c😀').find()", &ctx);
        prop_assert!(direct.error.is_none(), "{:?}", direct.error);
        let json = |o: &mqlplay::RunOutput| o.to_json(mqlplay::text::extjson::Mode::Canonical, "", "").to_string();
        if let Ok(d) = decoded {
            let via_link = mqlplay::run(&d.db, "db.getCollection('c😀').find()", &ctx);
            prop_assert_eq!(json(&direct), json(&via_link));
        }
    }
}
