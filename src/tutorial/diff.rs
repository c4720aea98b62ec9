//! Human-readable differences between an expected and a found value, each
//! naming where it is (`result[0].count: expected 3, found 2`).
use crate::text::shell::{inline, type_name};
use crate::value::equal;
use bson::Bson;

/// At most this many sentences: past the first few, more only bury the cause.
const MAX: usize = 12;

#[derive(Default)]
pub struct Diffs {
    items: Vec<String>,
    dropped: usize,
}

impl Diffs {
    pub fn push(&mut self, s: String) {
        if self.items.len() < MAX {
            self.items.push(s);
        } else {
            self.dropped += 1;
        }
    }

    fn len(&self) -> usize {
        self.items.len() + self.dropped
    }

    pub fn into_vec(mut self) -> Vec<String> {
        if self.dropped > 0 {
            self.items
                .push(format!("… and {} more differences", self.dropped));
        }
        self.items
    }
}

/// A value as the shell prints it on one line, shortened when long.
pub fn describe(v: &Bson) -> String {
    const LONG: usize = 80;
    let s = inline(v);
    if s.chars().count() <= LONG {
        return s;
    }
    let cut: String = s.chars().take(LONG).collect();
    format!("{cut}…")
}

fn field(label: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    if plain {
        format!("{label}.{key}")
    } else {
        format!("{label}[{key:?}]")
    }
}

/// Record where `found` differs from `want` (MongoDB equality), descending into
/// documents and arrays so the message points at the innermost difference.
pub fn diff(label: &str, want: &Bson, found: &Bson, d: &mut Diffs) {
    if equal(want, found) {
        return;
    }
    match (want, found) {
        (Bson::Document(w), Bson::Document(f)) => {
            let before = d.len();
            for (k, wv) in w {
                match f.get(k) {
                    Some(fv) => diff(&field(label, k), wv, fv, d),
                    None => d.push(format!(
                        "{}: missing (expected {})",
                        field(label, k),
                        describe(wv)
                    )),
                }
            }
            for (k, fv) in f {
                if !w.contains_key(k) {
                    d.push(format!(
                        "{}: unexpected field (found {})",
                        field(label, k),
                        describe(fv)
                    ));
                }
            }
            if d.len() == before {
                // Same fields and values: only their order differs, which MongoDB's
                // document equality does not ignore.
                let keys =
                    |doc: &bson::Document| doc.keys().cloned().collect::<Vec<_>>().join(", ");
                d.push(format!(
                    "{label}: fields in a different order: expected {{{}}}, found {{{}}}",
                    keys(w),
                    keys(f)
                ));
            }
        }
        (Bson::Array(w), Bson::Array(f)) => {
            if w.len() != f.len() {
                d.push(format!(
                    "{label}: expected {} {}, found {}",
                    w.len(),
                    if w.len() == 1 { "element" } else { "elements" },
                    f.len()
                ));
            }
            for (i, (wv, fv)) in w.iter().zip(f).enumerate() {
                diff(&format!("{label}[{i}]"), wv, fv, d);
            }
            for (i, wv) in w.iter().enumerate().skip(f.len()) {
                d.push(format!("{label}[{i}]: missing (expected {})", describe(wv)));
            }
            for (i, fv) in f.iter().enumerate().skip(w.len()) {
                d.push(format!("{label}[{i}]: unexpected (found {})", describe(fv)));
            }
        }
        _ => {
            let (ws, fs) = (describe(want), describe(found));
            if ws == fs {
                d.push(format!(
                    "{label}: expected {ws} ({}), found {fs} ({})",
                    type_name(want),
                    type_name(found)
                ));
            } else {
                d.push(format!("{label}: expected {ws}, found {fs}"));
            }
        }
    }
}
