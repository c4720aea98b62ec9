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
    )
        .prop_map(|(db, script, now, seed, view, tutorial, step)| LinkState {
            db,
            script,
            now,
            seed,
            view: view.to_string(),
            tutorial,
            step,
        })
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
