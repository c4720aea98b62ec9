//! cargo-fuzz target: see fuzz/harness.rs (`filter`) for what it checks.
#![no_main]
#[path = "../grammar.rs"]
mod grammar;
#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::filter(data));
