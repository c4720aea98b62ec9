//! Each shape that once grew past the memory budget or ran for minutes,
//! run by the CLI in a child process under an address-space limit: it must
//! end by itself, in seconds, with status 0 or 1 (an allocation failure
//! aborts with 134, the OOM killer gives 137) and the budget's error naming
//! what grew. A small `--max-memory` keeps the debug build quick; one shape
//! runs at the default 512 MiB.
#![cfg(all(unix, not(target_arch = "wasm32")))]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The child's address space (KiB for `ulimit -v`): 1 GiB at the small
/// budget, 2 GiB at the default one.
const SMALL_AS: u64 = 1 << 20;
const DEFAULT_AS: u64 = 2 << 20;

struct Ended {
    status: Option<i32>,
    stderr: String,
    took: Duration,
}

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("mqlplay-resources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path.to_string_lossy().into_owned()
}

/// `mqlplay run ARGS` under `ulimit -v kib`.
fn run_limited(kib: u64, args: &[&str]) -> Ended {
    let started = Instant::now();
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec '{}' run --timeout 120 {}",
            env!("CARGO_BIN_EXE_mqlplay"),
            quoted.join(" ")
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run sh");
    Ended {
        status: o.status.code(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        took: started.elapsed(),
    }
}

fn assert_bounded(what: &str, e: &Ended, cause: &str, seconds: u64) {
    assert_eq!(e.status, Some(1), "{what}: {}", e.stderr);
    assert!(
        e.stderr.contains("(ExceededMemoryLimit)") && e.stderr.contains(cause),
        "{what}: {}",
        e.stderr
    );
    assert!(
        e.took < Duration::from_secs(seconds),
        "{what} took {:?}",
        e.took
    );
}

#[test]
fn runaway_shapes_stop_at_the_budget_in_a_child_process() {
    const MIB: &str = "64";
    let kept = "the script's variables, the results kept for printing";
    // Variables that double: 2^31 elements in 31 lines.
    let doubling: String = std::iter::once("const a0 = [1, 2, 3, 4, 5, 6, 7, 8]\n".to_string())
        .chain((1..32).map(|i| format!("const a{i} = [a{}, a{}]\n", i - 1, i - 1)))
        .collect();
    // A 1 MB collection read 3,000 times, every result kept for the JSON output.
    let one_mb: String = (0..1000)
        .map(|i| format!("{{_id: {i}, s: '{}'}}", "x".repeat(1000)))
        .collect::<Vec<_>>()
        .join(",");
    let db = temp_file("one-mb.js", &format!("[{one_mb}]"));
    let shapes: Vec<(&str, Vec<String>, &str)> = vec![
        ("doubling variables", vec![temp_file("double.js", &doubling)], kept),
        (
            "reads kept for printing",
            vec![
                "--format".into(),
                "relaxed".into(),
                "--db".into(),
                db,
                temp_file("finds.js", &"db.collection.find()\n".repeat(3000)),
            ],
            kept,
        ),
        (
            "a $push window over the whole partition",
            vec![temp_file(
                "window.js",
                "db.aggregate([{$documents: {$map: {input: {$range: [0, 30000]}, in: {i: '$$this'}}}}, \
                 {$setWindowFields: {output: {w: {$push: '$i'}}}}])",
            )],
            "this statement builds",
        ),
        (
            "multikey indexes",
            vec![temp_file(
                "index.js",
                &format!(
                    "db.aggregate([{{$documents: {{$map: {{input: {{$range: [0, 3000]}}, \
                     in: {{i: '$$this', a: {{$range: [0, 100]}}}}}}}}}}, {{$out: 'c'}}])\n{}",
                    (0..60)
                        .map(|i| format!("db.c.createIndex({{a: 1, k{i}: 1}})\n"))
                        .collect::<String>()
                ),
            )],
            "the indexes' keys",
        ),
        (
            "a huge literal",
            vec![temp_file(
                "insert.js",
                &format!(
                    "db.c.insertMany([{}])",
                    (0..300_000)
                        .map(|i| format!("{{a: {i}, b: 'xxxxxxxx'}}"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            )],
            "the script's literals",
        ),
        (
            "a huge Database pane",
            vec![
                "--db".into(),
                temp_file(
                    "big-db.js",
                    &format!(
                        "[{}]",
                        (0..300_000)
                            .map(|i| format!("{{a: {i}, b: 'xxxxxxxx', c: [1, 2, 3]}}"))
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                ),
                temp_file("count.js", "db.collection.countDocuments()"),
            ],
            "the Database pane holds more than the playground can load",
        ),
    ];
    for (what, args, cause) in &shapes {
        let mut all = vec!["--max-memory", MIB];
        all.extend(args.iter().map(String::as_str));
        let ended = run_limited(SMALL_AS, &all);
        assert_bounded(what, &ended, cause, 30);
        assert!(ended.stderr.contains("64 MiB"), "{what}: {}", ended.stderr);
    }
    // The default budget, under a 2 GiB address space.
    let ended = run_limited(DEFAULT_AS, &[&temp_file("double-512.js", &doubling)]);
    assert_bounded("doubling variables at 512 MiB", &ended, kept, 60);
}

#[test]
fn slow_shapes_end_in_seconds() {
    let mb = "x".repeat(1 << 20);
    for (what, script) in [
        (
            "$regexFindAll on 1 MB",
            format!(
                "const s = '{mb}'\ndb.aggregate([{{$documents: [{{s}}]}}, \
                 {{$project: {{n: {{$size: {{$regexFindAll: {{input: '$s', regex: 'x'}}}}}}}}}}])"
            ),
        ),
        (
            "10,000 stages",
            format!("db.aggregate([{}])", vec!["{$match: {}}"; 10_000].join(",")),
        ),
        (
            "a 3,000-level literal",
            format!("{}1{}", "[".repeat(3000), "]".repeat(3000)),
        ),
    ] {
        let file = temp_file("slow.js", &script);
        let ended = run_limited(SMALL_AS, &["--max-memory", "256", &file]);
        assert!(
            matches!(ended.status, Some(0 | 1)),
            "{what}: {}",
            ended.stderr
        );
        assert!(
            ended.took < Duration::from_secs(20),
            "{what} took {:?}",
            ended.took
        );
    }
}
