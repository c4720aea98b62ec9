//! Runs the data-driven case files under tests/cases/ (format: tests/cases/README.md).
//! `CASES=query/eq` runs one file or folder. `PAGE_DUMP=FILE` also writes the page's
//! output for every case (what the worker receives), to compare two builds byte for byte.
use bson::{Bson, Document};
use mqlplay::shell::{lower, parse_script, LowerCtx, StmtKind};
use mqlplay::{text::shell::print, RunCtx};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Default, Debug)]
struct Case {
    line: usize,
    name: String,
    db: String,
    query: String,
    expect: Option<(String, bool)>,
    collections: Vec<(String, String)>,
    error: Option<(i32, String)>,
    message: Option<String>,
    /// The run's time zone (`tz: Europe/Berlin`); UTC without one.
    tz: Option<String>,
}

impl Case {
    fn run_ctx(&self) -> RunCtx {
        RunCtx {
            tz: self
                .tz
                .as_deref()
                .map(|z| mqlplay::tzdb::Tz::parse(z).unwrap_or_else(|| panic!("unknown zone {z}"))),
            ..RunCtx::default()
        }
    }
}

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            case_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "txt") {
            out.push(p);
        }
    }
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut case = Case {
        line: 1,
        ..Case::default()
    };
    let mut section: Option<String> = None;
    let mut buf = String::new();
    let flush = |case: &mut Case, section: &Option<String>, buf: &mut String| {
        let body = std::mem::take(buf).trim().to_string();
        match section.as_deref() {
            Some("db") => case.db = body,
            Some("query") => case.query = body,
            Some("expect") => case.expect = Some((body, false)),
            Some("expect-unordered") => case.expect = Some((body, true)),
            Some(s) if s.starts_with("collection ") => case
                .collections
                .push((s["collection ".len()..].to_string(), body)),
            _ => {}
        }
    };
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_end();
        if t == "---" {
            flush(&mut case, &section, &mut buf);
            section = None;
            if !case.query.is_empty() || case.expect.is_some() {
                cases.push(case);
            }
            case = Case {
                line: i + 2,
                ..Case::default()
            };
            continue;
        }
        if let Some(h) = header_of(t) {
            flush(&mut case, &section, &mut buf);
            section = None;
            match h {
                Header::Section(s) => section = Some(s),
                Header::Error(code, name) => case.error = Some((code, name)),
                Header::Message(m) => case.message = Some(m),
                Header::Tz(z) => case.tz = Some(z),
            }
            continue;
        }
        if section.is_none() {
            if let Some(name) = t.strip_prefix('#') {
                if case.name.is_empty() {
                    case.name = name.trim().to_string();
                    case.line = i + 1;
                }
            }
            continue;
        }
        buf.push_str(line);
        buf.push('\n');
    }
    flush(&mut case, &section, &mut buf);
    if !case.query.is_empty() || case.expect.is_some() {
        cases.push(case);
    }
    cases
}

enum Header {
    Section(String),
    Error(i32, String),
    Message(String),
    Tz(String),
}

fn header_of(t: &str) -> Option<Header> {
    match t {
        "db:" | "query:" | "expect:" | "expect-unordered:" => {
            return Some(Header::Section(t.trim_end_matches(':').to_string()))
        }
        _ => {}
    }
    if let Some(rest) = t.strip_prefix("collection ") {
        if let Some(name) = rest.strip_suffix(':') {
            if !name.contains(' ') {
                return Some(Header::Section(format!("collection {name}")));
            }
        }
    }
    if let Some(rest) = t.strip_prefix("error: ") {
        let mut parts = rest.split_whitespace();
        let code = parts.next()?.parse().ok()?;
        let name = parts.next().unwrap_or_default().to_string();
        return Some(Header::Error(code, name));
    }
    if let Some(zone) = t.strip_prefix("tz: ") {
        return Some(Header::Tz(zone.to_string()));
    }
    t.strip_prefix("message: ")
        .map(|m| Header::Message(m.to_string()))
}

/// Parse an expectation written in mongosh syntax.
fn value_of(text: &str) -> Result<Bson, String> {
    let script = parse_script(text).map_err(|e| format!("bad expectation: {e}"))?;
    let vars = HashMap::new();
    let ctx = LowerCtx {
        vars: &vars,
        now: RunCtx::default().now,
        extjson: false,
        new_id: &|| bson::oid::ObjectId::from_bytes([0; 12]),
        tz: None,
    };
    match script.stmts.as_slice() {
        [stmt] => match &stmt.kind {
            StmtKind::Expr(node) => lower(node, &ctx).map_err(|e| format!("bad expectation: {e}")),
            _ => Err("bad expectation: not a value".into()),
        },
        _ => Err("bad expectation: expected one value".into()),
    }
}

/// Exact equality: same types, same values, same field order (NaN equals NaN).
fn strict_eq(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => {
            x == y && x.is_sign_negative() == y.is_sign_negative() || (x.is_nan() && y.is_nan())
        }
        (Bson::Document(x), Bson::Document(y)) => docs_eq(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| strict_eq(a, b))
        }
        _ => a == b,
    }
}

fn docs_eq(x: &Document, y: &Document) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y.iter())
            .all(|((ka, va), (kb, vb))| ka == kb && strict_eq(va, vb))
}

fn unordered_eq(a: &Bson, b: &Bson) -> bool {
    let (Bson::Array(x), Bson::Array(y)) = (a, b) else {
        return strict_eq(a, b);
    };
    let mut used = vec![false; y.len()];
    x.len() == y.len()
        && x.iter().all(
            |v| match (0..y.len()).find(|&j| !used[j] && strict_eq(v, &y[j])) {
                Some(j) => {
                    used[j] = true;
                    true
                }
                None => false,
            },
        )
}

fn check(case: &Case) -> Result<(), String> {
    let out = mqlplay::run(&case.db, &case.query, &case.run_ctx());
    if let Some((code, name)) = &case.error {
        let Some(e) = &out.error else {
            return Err(format!(
                "expected error {code} {name}, got results {}",
                last(&out.results)
            ));
        };
        if e.code != *code || e.code_name != *name {
            return Err(format!(
                "expected error {code} {name}, got {} {}: {}",
                e.code, e.code_name, e.message
            ));
        }
        if let Some(m) = &case.message {
            if !e.message.contains(m.as_str()) {
                return Err(format!(
                    "error message {:?} does not contain {m:?}",
                    e.message
                ));
            }
        }
    } else if let Some(e) = &out.error {
        return Err(format!(
            "unexpected error: {}",
            e.one_line(&case.db, &case.query)
        ));
    }
    if let Some((text, unordered)) = &case.expect {
        let want = value_of(text)?;
        let got = out.results.last().cloned().unwrap_or(Bson::Undefined);
        let ok = if *unordered {
            unordered_eq(&got, &want)
        } else {
            strict_eq(&got, &want)
        };
        if !ok {
            return Err(format!("expected\n{}\ngot\n{}", print(&want), print(&got)));
        }
    }
    for (name, text) in &case.collections {
        let want = value_of(text)?;
        let got = out
            .collections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, docs)| Bson::Array(docs.iter().cloned().map(Bson::Document).collect()))
            .unwrap_or(Bson::Array(Vec::new()));
        if !strict_eq(&got, &want) {
            return Err(format!(
                "collection {name}: expected\n{}\ngot\n{}",
                print(&want),
                print(&got)
            ));
        }
    }
    Ok(())
}

fn last(results: &[Bson]) -> String {
    results.last().map_or("(none)".to_string(), print)
}

#[test]
fn case_files_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files = Vec::new();
    case_files(&root, &mut files);
    let filter = std::env::var("CASES").unwrap_or_default();
    let mut failures = Vec::new();
    let mut count = 0;
    let mut dump = std::env::var_os("PAGE_DUMP").map(|_| String::new());
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        if !filter.is_empty() && !rel.starts_with(&filter) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for case in parse_cases(&text) {
            count += 1;
            if let Some(dump) = &mut dump {
                let out = mqlplay::page::run_once(&case.db, &case.query, &case.run_ctx());
                dump.push_str(&format!("{rel}:{}\n{out}\n", case.line));
            }
            if case.expect.is_none() && case.error.is_none() && case.collections.is_empty() {
                failures.push(format!(
                    "{}:{}: {}: the case checks nothing",
                    rel, case.line, case.name
                ));
                continue;
            }
            if let Err(msg) = check(&case) {
                failures.push(format!(
                    "tests/cases/{}:{}: {}\n{msg}",
                    rel, case.line, case.name
                ));
            }
        }
    }
    assert!(
        count > 0,
        "no cases found under tests/cases (filter {filter:?})"
    );
    if let (Some(path), Some(dump)) = (std::env::var_os("PAGE_DUMP"), dump) {
        std::fs::write(path, dump).expect("write PAGE_DUMP");
    }
    eprintln!("{count} cases, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
