//! Native benchmarks (Criterion): the reader, filters, sort, updates and
//! aggregation on generated data at 1,000, 10,000 and 100,000 documents.
//! The cases are bench/cases.json, shared with the Node harness (bench/node.mjs).
//! Besides Criterion's own files, writes `$MQLPLAY_BENCH_OUT/native-notes.json`
//! (result sizes, errors, data hashes) for tools/bench.sh's report.
mod data;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use mqlplay::bench_api::{view_size, LoadedDb, Prepared};
use mqlplay::RunCtx;
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::{Duration, Instant};

const CASES: &str = include_str!("../../bench/cases.json");
const DATASETS: [&str; 4] = ["trades", "buckets", "products", "sensors"];

struct Case {
    id: String,
    kind: String,
    dataset: String,
    script: String,
    /// Run once before the case is measured, and once after (same data).
    setup: Option<String>,
    teardown: Option<String>,
    /// An explain("executionStats") of the script, run once for the notes.
    explain: Option<String>,
    sizes: Vec<usize>,
}

/// A list of sizes (absent: none).
fn sizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n.as_u64())
                .map(|n| n as usize)
                .collect()
        })
        .unwrap_or_default()
}

/// The cases; `MQLPLAY_BENCH_FULL=1` adds the `native_full` sizes (100,000
/// buckets, products and sensors: minutes of loading and measuring).
fn cases() -> Vec<Case> {
    let full = std::env::var("MQLPLAY_BENCH_FULL").is_ok_and(|v| v == "1");
    let v: Value = serde_json::from_str(CASES).expect("bench/cases.json is valid JSON");
    let mut out: Vec<Case> = v["cases"]
        .as_array()
        .expect("cases array")
        .iter()
        .map(|c| Case {
            id: c["id"].as_str().expect("id").to_string(),
            kind: c["kind"].as_str().expect("kind").to_string(),
            dataset: c["dataset"].as_str().expect("dataset").to_string(),
            script: c["script"].as_str().expect("script").to_string(),
            setup: c["setup"].as_str().map(str::to_string),
            teardown: c["teardown"].as_str().map(str::to_string),
            explain: c["explain"].as_str().map(str::to_string),
            sizes: sizes(&c["native"])
                .into_iter()
                .chain(if full {
                    sizes(&c["native_full"])
                } else {
                    vec![]
                })
                .collect(),
        })
        .collect();
    // Writes change the data the reads see: run them last on each data set.
    out.sort_by_key(|c| c.kind == "update");
    out
}

/// `MQLPLAY_BENCH_ONLY` (a regex over `case/size`) selects cases; data sets
/// no selected case needs are not even generated. (Criterion's own filter
/// argument only skips the measurements.)
fn wanted(name: &str) -> bool {
    match std::env::var("MQLPLAY_BENCH_ONLY") {
        Ok(only) => regex_lite::Regex::new(&only).map_or(true, |re| re.is_match(name)),
        Err(_) => true,
    }
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .without_plots()
        .configure_from_args();
    let run = RunCtx::default();
    let cases = cases();
    let mut notes = Vec::new();
    let mut hashes = serde_json::Map::new();

    // The reader: the same trades as Extended JSON (valid JSON after `db = `)
    // and in mongosh's syntax.
    // (The mongosh form at 100,000 would add ~20 s and tell nothing new.)
    for (group, form, sizes) in [
        (
            "reader_extjson",
            data::Form::ExtJson,
            &[1_000usize, 10_000, 100_000][..],
        ),
        ("reader_shell", data::Form::Shell, &[1_000, 10_000][..]),
    ] {
        for &n in sizes {
            let name = format!("{group}/{n}");
            if !wanted(&name) {
                continue;
            }
            let text = data::trades(n, form);
            hashes.insert(
                format!(
                    "trades{}/{n}",
                    if form == data::Form::Shell {
                        "_shell"
                    } else {
                        ""
                    }
                ),
                json!({"fnv1a": data::fnv1a(&text), "bytes": text.len()}),
            );
            let docs = LoadedDb::load(&text, run).map(|db| db.len("trades"));
            notes.push(json!({"id": group, "size": n, "bytes": text.len(),
                "result": docs.as_ref().ok(), "error": docs.as_ref().err().map(|e| e.to_string())}));
            if docs.is_err() {
                continue;
            }
            let mut g = c.benchmark_group(group);
            g.sampling_mode(SamplingMode::Flat);
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
                b.iter(|| LoadedDb::load(black_box(text), run))
            });
            g.finish();
        }
    }

    for dataset in DATASETS {
        let mut sizes: Vec<usize> = cases
            .iter()
            .filter(|c| c.dataset == dataset)
            .flat_map(|c| c.sizes.iter().copied())
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        for n in sizes {
            let selected: Vec<&Case> = cases
                .iter()
                .filter(|c| c.dataset == dataset && c.sizes.contains(&n))
                .filter(|c| wanted(&format!("{}/{n}", c.id)))
                .collect();
            if selected.is_empty() {
                continue;
            }
            let text = data::generate(dataset, n).expect("known data set");
            hashes.insert(
                format!("{dataset}/{n}"),
                json!({"fnv1a": data::fnv1a(&text), "bytes": text.len()}),
            );
            let started = Instant::now();
            let mut db = match LoadedDb::load(&text, run) {
                Ok(db) => db,
                Err(e) => {
                    eprintln!("bench: cannot load {dataset}/{n}: {e}");
                    for case in selected {
                        notes.push(json!({"id": case.id, "size": n, "error": format!("loading the data: {e}")}));
                    }
                    continue;
                }
            };
            eprintln!(
                "bench: loaded {dataset}/{n} ({} bytes) in {:.2?}",
                text.len(),
                started.elapsed()
            );
            drop(text);
            for case in selected {
                let prepared = match Prepared::parse(&case.script) {
                    Ok(p) => p,
                    Err(e) => {
                        notes.push(json!({"id": case.id, "size": n, "error": e.to_string()}));
                        continue;
                    }
                };
                if let Some(setup) = &case.setup {
                    if let Err(e) = Prepared::parse(setup).and_then(|p| db.run(&p)) {
                        eprintln!("bench: {}/{n} setup: {e}", case.id);
                        notes.push(
                            json!({"id": case.id, "size": n, "error": format!("setup: {e}")}),
                        );
                        continue;
                    }
                }
                measure(&mut c, &mut db, case, n, &prepared, &mut notes);
                if let Some(teardown) = &case.teardown {
                    if let Err(e) = Prepared::parse(teardown).and_then(|p| db.run(&p)) {
                        eprintln!("bench: {}/{n} teardown: {e}", case.id);
                    }
                }
            }
        }
    }

    let out_dir = std::env::var("MQLPLAY_BENCH_OUT").unwrap_or_else(|_| "target/bench".into());
    let out = json!({
        "criterion_dir": criterion_dir(),
        "cases": notes,
        "data": hashes,
    });
    if let Err(e) = std::fs::create_dir_all(&out_dir).and_then(|_| {
        std::fs::write(
            format!("{out_dir}/native-notes.json"),
            serde_json::to_string_pretty(&out).unwrap_or_default(),
        )
    }) {
        eprintln!("bench: cannot write {out_dir}/native-notes.json: {e}");
    }
    c.final_summary();
}

/// Where Criterion writes its estimates: `$CARGO_TARGET_DIR/criterion`, or
/// `target/criterion` beside the crate.
fn criterion_dir() -> String {
    std::env::var("CRITERION_HOME").unwrap_or_else(|_| {
        let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
        format!("{target}/criterion")
    })
}

/// Run a case once (its answer goes to the notes, with its explain's
/// figures when it has one), then measure it. A case the engine cannot run
/// yet is reported, not measured.
fn measure(
    c: &mut Criterion,
    db: &mut LoadedDb,
    case: &Case,
    n: usize,
    prepared: &Prepared,
    notes: &mut Vec<Value>,
) {
    let size = match db.run_answer(prepared) {
        Ok(r) => view_size(&db.view(&r)),
        Err(e) => {
            eprintln!("bench: {}/{n}: {e}", case.id);
            notes.push(json!({"id": case.id, "size": n, "error": e.to_string()}));
            return;
        }
    };
    let mut note = json!({"id": case.id, "size": n, "result": size});
    if let Some(explain) = &case.explain {
        note["explain"] = match Prepared::parse(explain).and_then(|p| db.run(&p)) {
            Ok(bson::Bson::Document(d)) => {
                let stats = d.get_document("executionStats").ok();
                let get = |k: &str| stats.and_then(|s| s.get(k)).map(|v| v.to_string());
                eprintln!(
                    "bench: {}/{n}: nReturned {}, totalKeysExamined {}, totalDocsExamined {}",
                    case.id,
                    get("nReturned").unwrap_or_default(),
                    get("totalKeysExamined").unwrap_or_default(),
                    get("totalDocsExamined").unwrap_or_default()
                );
                json!({
                    "nReturned": get("nReturned"),
                    "totalKeysExamined": get("totalKeysExamined"),
                    "totalDocsExamined": get("totalDocsExamined"),
                })
            }
            Ok(other) => json!({"error": format!("not a document: {other}")}),
            Err(e) => json!({"error": e.to_string()}),
        };
    }
    notes.push(note);
    let mut g = c.benchmark_group(case.id.as_str());
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::from_parameter(n), |b| {
        // Stored documents are answered in place, as the page writes them out.
        b.iter(|| db.run_answer(black_box(prepared)))
    });
    g.finish();
}
