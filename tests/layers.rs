//! The house's floors. `src/lib.rs` lists the crate's top-level modules in
//! layers, lowest first, one line per layer; this test reads that list and
//! every file under `src/`, and fails on an import that climbs: a file may
//! use its own module and the modules listed before it, never one listed
//! after. The list is a total order, so no import circle can span folders;
//! circles inside one folder (an operator registry and its operators) are
//! that folder's own business.
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The order written at the top of `src/lib.rs`: `//! - layer: a, b, c`
/// lines after the line that starts `//! Layers`.
fn layer_order(lib: &str) -> Vec<(String, String)> {
    let mut order = Vec::new();
    let mut inside = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.starts_with("Layers") {
            inside = true;
        } else if inside {
            let Some(item) = doc.strip_prefix("- ") else {
                if order.is_empty() {
                    continue; // the rest of the paragraph that introduces the list
                }
                break;
            };
            let (layer, modules) = item.split_once(':').expect("`- layer: modules`");
            for m in modules.split(',') {
                order.push((m.trim().to_string(), layer.trim().to_string()));
            }
        }
    }
    order
}

/// Source text with comments, strings and character literals blanked out.
fn code_only(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || b.get(i + 2) == Some(&'\'')) {
            // A character literal (a lifetime has no closing quote).
            i += if next == Some('\\') { 2 } else { 1 };
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The first path segment of every `crate::…` path, group imports
/// (`use crate::{a::b, c}`) included, with the byte offset where it stands.
fn crate_imports(code: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|p| p.is_ascii_alphanumeric() || p == b'_' || p == b':') {
            continue;
        }
        if bytes.get(from) == Some(&b'{') {
            // Each item of the group at depth 0.
            let mut depth = 0;
            let mut item_start = from + 1;
            for (k, ch) in code[from..].char_indices() {
                let pos = from + k;
                match ch {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        let item = code[item_start..pos].trim();
                        let seg: String = item
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if !seg.is_empty() {
                            found.push((seg, item_start));
                        }
                        item_start = pos + 1;
                        if ch == '}' {
                            break;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
        } else {
            let seg: String = code[from..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.push((seg, from));
        }
    }
    found
}

/// Names `src/lib.rs` re-exports (`pub use error::{Error, …};`): the module they come from.
fn reexports(lib_code: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for stmt in lib_code.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        let names = names.trim().trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            map.insert(name.trim().to_string(), module.trim().to_string());
        }
    }
    map
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read src/")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`lib` for `src/lib.rs`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src/");
    let first = rel.components().next().expect("a path");
    let first = first.as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every import that climbs: `file:line: uses crate::x (layer) from layer`.
fn climbing_imports(src: &Path) -> Vec<String> {
    let lib = fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let order = layer_order(&lib);
    assert!(
        order.len() > 10,
        "src/lib.rs must list the layers (`//! Layers …` then `//! - layer: modules`)"
    );
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, (m, _))| (m.as_str(), i))
        .collect();
    let layer_of = |m: &str| order[rank[m]].1.clone();
    let roots = reexports(&code_only(&lib));
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let module = module_of(src, file);
        let rel = file
            .strip_prefix(src.parent().expect("repo"))
            .expect("repo path");
        if module == "bin" {
            continue; // the CLI uses the crate from outside, through its public API
        }
        let Some(&own) = rank.get(module.as_str()) else {
            found.push(format!(
                "{}: module `{module}` is in no layer of src/lib.rs",
                rel.display()
            ));
            continue;
        };
        let text = fs::read_to_string(file).expect("read a source file");
        let code = code_only(&text);
        for (seg, at) in crate_imports(&code) {
            // A name re-exported at the root belongs to the module it comes from;
            // anything else at the root is the facade's own.
            let target = if rank.contains_key(seg.as_str()) {
                seg.clone()
            } else {
                roots
                    .get(&seg)
                    .cloned()
                    .unwrap_or_else(|| "lib".to_string())
            };
            let Some(&theirs) = rank.get(target.as_str()) else {
                continue;
            };
            if theirs > own {
                let line = code[..at].matches('\n').count() + 1;
                found.push(format!(
                    "{}:{line}: `{module}` ({}) uses crate::{seg}, which is `{target}` ({}), listed after it",
                    rel.display(),
                    layer_of(&module),
                    layer_of(&target),
                ));
            }
        }
    }
    found
}

#[test]
fn imports_point_down_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = climbing_imports(&src);
    assert!(
        found.is_empty(),
        "imports that climb:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_module_declared_in_lib_is_in_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let order = layer_order(&lib);
    for line in code_only(&lib).lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("pub mod ").or(line.strip_prefix("mod ")) {
            let name = name.trim_end_matches(';');
            assert!(
                order.iter().any(|(m, _)| m == name),
                "src/lib.rs declares `{name}` but lists it in no layer"
            );
        }
    }
}

/// The checker itself: a climbing import is caught (a `use` line, a group
/// import and a path in code), one that points down is not, and comments and
/// strings are not code.
#[test]
fn the_checker_catches_a_climbing_import() {
    let dir = std::env::temp_dir().join(format!("mqlplay-layers-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("value")).expect("temp dir");
    fs::write(
        src.join("lib.rs"),
        "//! Layers, lowest first:\n//! - values: error, value, a, b, c, d, e, f, g, h\n//! - execution: engine\n\
         //! - facade: lib\npub use error::Error;\npub mod value;\npub mod engine;\n",
    )
    .expect("write");
    fs::write(
        src.join("value/mod.rs"),
        "// crate::engine in a comment\nuse crate::error::Error;\nuse crate::{error, engine::Session};\n\
         fn f() -> crate::Error { let _ = \"crate::engine\"; crate::run() }\n",
    )
    .expect("write");
    fs::write(
        src.join("engine.rs"),
        "use crate::value::X;\nuse crate::Error;\n",
    )
    .expect("write");
    let found = climbing_imports(&src);
    fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].contains("value/mod.rs:3") && found[0].contains("crate::engine"),
        "{found:#?}"
    );
    assert!(
        found[1].contains("value/mod.rs:4") && found[1].contains("crate::run"),
        "{found:#?}"
    );
}
