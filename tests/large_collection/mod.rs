//! What the property tests over a collection large enough for scan columns
//! share (`tests/project_props.rs`, `tests/group_props.rs`).
use bson::Bson;
use mqlplay::RunCtx;

/// Larger than `storage::columns::MIN_DOCUMENTS`.
pub const DOCUMENTS: usize = 2100;

/// A script's results as canonical Extended JSON (exact types, and a NaN
/// equal to itself), or its error's code and message.
pub fn run(db: &str, script: &str) -> Result<String, String> {
    let out = mqlplay::run(db, script, &RunCtx::default());
    match out.error {
        Some(e) => Err(format!("{} {}", e.code, e.message)),
        None => Ok(Bson::Array(out.results)
            .into_canonical_extjson()
            .to_string()),
    }
}
