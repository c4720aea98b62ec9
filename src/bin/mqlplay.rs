//! The terminal front end: `mqlplay run`, `mqlplay fmt`, `mqlplay link`, and
//! `mqlplay collation-data` (the page's collation data, for the page's build).
//! Exit status: 0 success (also when the reader of the output went away, as
//! after `| head`), 1 an error in the user's input, a run past its time or an
//! output that cannot be written, 2 a usage error.
use mqlplay::storage::Database;
use mqlplay::text::extjson::Mode;
use mqlplay::{text, RunCtx};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage:
  mqlplay run [--db FILE] [--format shell|relaxed|canonical] [--now ISODATE] [--seed N]
              [--tz ZONE] [--timeout SECONDS] [--max-memory MIB] SCRIPT_FILE|-
  mqlplay run --link URL|-|@FILE [--format shell|relaxed|canonical] [--timeout SECONDS]
              [--max-memory MIB]
  mqlplay fmt FILE|-
  mqlplay link [--db FILE] [--now ISODATE] [--seed N] [--tz ZONE] [--view shell|tree|ejson] [--lang en|pt-BR|ja|ko|de] [--base URL] SCRIPT_FILE|-
  mqlplay collation-data OUT_FILE";

/// Where `mqlplay link` points by default: `./build.sh serve`.
const DEFAULT_BASE: &str = "http://127.0.0.1:8080/";

/// How long a run may take unless `--timeout` says otherwise (seconds).
const DEFAULT_TIMEOUT: u64 = 60;

/// The run's thread: as big as a main thread's stack (the reader and the
/// engine bound their own depth; this only keeps debug builds comfortable).
const RUN_STACK: usize = 16 << 20;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("fmt") => fmt(&args[1..]),
        Some("link") => link(&args[1..]),
        Some("collation-data") => collation_data(&args[1..]),
        Some("-h" | "--help" | "help") => emit_all(&format!("{USAGE}\n")),
        _ => usage("expected a command: run, fmt or link"),
    }
}

/// Write the collation data the page loads on demand (see
/// `mqlplay::storage::collation::data`).
fn collation_data(args: &[String]) -> ExitCode {
    let [out] = args else {
        return usage("collation-data takes one output file");
    };
    // The exporter reads the compiled data, which only native builds carry
    // (the wasm test build compiles this binary too).
    #[cfg(not(target_arch = "wasm32"))]
    let written = mqlplay::storage::collation::data::export()
        .map_err(|e| e.to_string())
        .and_then(|blob| std::fs::write(out, blob).map_err(|e| e.to_string()));
    #[cfg(target_arch = "wasm32")]
    let written: Result<(), String> = Err(format!("{out}: not in a wasm build"));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report(&format!("mqlplay: collation data: {e}"));
            ExitCode::FAILURE
        }
    }
}

fn usage(msg: &str) -> ExitCode {
    report(&format!("mqlplay: {msg}\n{USAGE}"));
    ExitCode::from(2)
}

/// A line on stderr; nothing more can be done when stderr itself is gone.
fn report(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// Why output stopped: its reader went away (status 0, as Unix tools do
/// after `| head`), or it cannot be written (a full disk: status 1).
#[derive(Clone, Copy)]
enum Stop {
    Closed,
    Failed,
}

impl Stop {
    fn status(self) -> u8 {
        match self {
            Stop::Closed => 0,
            Stop::Failed => 1,
        }
    }
    fn code(self) -> ExitCode {
        ExitCode::from(self.status())
    }
}

/// Write to stdout now (a later failure keeps what was printed); a failure
/// other than a closed pipe is reported in one line.
fn emit(text: &str) -> Result<(), Stop> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Stop::Closed),
        Err(e) => {
            report(&format!("mqlplay: cannot write the output: {e}"));
            Err(Stop::Failed)
        }
    }
}

/// Exit status after printing `text`.
fn emit_all(text: &str) -> ExitCode {
    emit(text).map_or_else(Stop::code, |()| ExitCode::SUCCESS)
}

/// The text of a file or of stdin (`-`). A file that cannot be read is a
/// usage error (2); invalid UTF-8 is the user's input problem (1), reported
/// with its place: the page's editors only ever hold valid text, so a
/// replaced byte would run something the user never wrote.
fn read_input(path: &str) -> Result<String, ExitCode> {
    let bytes = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map(|_| bytes)
            .map_err(|e| usage(&format!("cannot read stdin: {e}")))?
    } else {
        std::fs::read(path).map_err(|e| usage(&format!("cannot read {path}: {e}")))?
    };
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let before = String::from_utf8_lossy(&bytes[..at]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let name = if path == "-" { "stdin" } else { path };
        report(&format!(
            "mqlplay: {name} line {line}, column {column}: invalid UTF-8 (byte 0x{:02x})",
            bytes[at]
        ));
        ExitCode::from(1)
    })
}

/// What `mqlplay run` runs.
struct Job {
    db: String,
    script: String,
    now: bson::DateTime,
    seed: u64,
    /// The run's time zone for local-time dates (`None`: UTC).
    tz: Option<mqlplay::tzdb::Tz>,
    mode: Option<Mode>,
    /// The run's memory budget (bytes).
    max_memory: usize,
}

fn run(args: &[String]) -> ExitCode {
    let mut db_file = None;
    let mut format = "shell".to_string();
    let mut script_file = None;
    let mut now = None;
    let mut seed = None;
    let mut tz = None;
    let mut link = None;
    let mut timeout = DEFAULT_TIMEOUT;
    let mut max_memory = mqlplay::budget::LIMIT;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--db" | "--format" | "--now" | "--seed" | "--tz" | "--link" | "--timeout"
            | "--max-memory" => {
                let Some(v) = it.next() else {
                    return usage(&format!("{a} needs a value"));
                };
                match a.as_str() {
                    "--db" => db_file = Some(v.clone()),
                    "--format" => format = v.clone(),
                    "--link" => link = Some(v.clone()),
                    "--tz" => match zone(v) {
                        Ok(z) => tz = Some(z),
                        Err(code) => return code,
                    },
                    "--now" => match bson::DateTime::parse_rfc3339_str(v) {
                        Ok(d) => now = Some(d),
                        Err(_) => {
                            return usage(&format!(
                                "--now needs an ISO date like 2024-01-01T00:00:00Z, got {v}"
                            ))
                        }
                    },
                    "--max-memory" => match v.parse::<usize>() {
                        Ok(n) if n > 0 && n <= mqlplay::budget::LIMIT >> 20 => max_memory = n << 20,
                        _ => {
                            return usage(&format!(
                                "--max-memory needs a number of MiB from 1 to {}, got {v}",
                                mqlplay::budget::LIMIT >> 20
                            ))
                        }
                    },
                    "--timeout" => match v.parse::<u64>() {
                        Ok(n) => timeout = n,
                        Err(_) => {
                            return usage(&format!(
                                "--timeout needs a whole number of seconds (0: no limit), got {v}"
                            ))
                        }
                    },
                    _ => match v.parse::<u64>() {
                        Ok(n) => seed = Some(n),
                        Err(_) => return usage(&format!("--seed needs a number, got {v}")),
                    },
                }
            }
            s if s.starts_with("--") => return usage(&format!("unknown option {s}")),
            s => {
                if script_file.replace(s.to_string()).is_some() {
                    return usage("only one script file");
                }
            }
        }
    }
    let mode = match format.as_str() {
        "shell" => None,
        "relaxed" => Some(Mode::Relaxed),
        "canonical" => Some(Mode::Canonical),
        other => return usage(&format!("unknown format {other}")),
    };
    let job = if let Some(link) = link {
        if script_file.is_some()
            || db_file.is_some()
            || now.is_some()
            || seed.is_some()
            || tz.is_some()
        {
            return usage(
                "--link carries the database, script, instant, seed and time zone; give none of them",
            );
        }
        // `--link -` reads the link from stdin, `--link @FILE` from a file
        // (a long link does not fit on a command line).
        let link = match link.as_str() {
            "-" => read_input("-"),
            l => match l.strip_prefix('@') {
                Some(file) => read_input(file),
                None => Ok(link),
            },
        };
        let link = match link {
            Ok(l) => l,
            Err(code) => return code,
        };
        match mqlplay::link::decode(&link) {
            Ok(state) => Job {
                tz: state.tz.as_deref().and_then(mqlplay::tzdb::Tz::parse),
                db: state.db,
                script: state.script,
                now: bson::DateTime::from_millis(state.now),
                seed: state.seed,
                mode,
                max_memory,
            },
            Err(e) => {
                report(&format!("mqlplay: {}", e.message));
                return ExitCode::from(1);
            }
        }
    } else {
        let Some(script_file) = script_file else {
            return usage("missing SCRIPT_FILE (or - for stdin)");
        };
        let script = match read_input(&script_file) {
            Ok(s) => s,
            Err(code) => return code,
        };
        let db = match db_file.as_deref().map(read_input).transpose() {
            Ok(s) => s.unwrap_or_default(),
            Err(code) => return code,
        };
        Job {
            db,
            script,
            now: now.unwrap_or_else(system_now),
            seed: seed.unwrap_or(0),
            tz,
            mode,
            max_memory,
        }
    };
    with_timeout(timeout, move || {
        mqlplay::budget::set_run_limit(job.max_memory);
        execute(&job)
    })
}

/// Run `f` on its own thread; past `seconds` (0: never) stop the program
/// with a clear error, keeping what was printed so far.
fn with_timeout(seconds: u64, f: impl FnOnce() -> ExitCode + Send + 'static) -> ExitCode {
    let (done, finished) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .stack_size(RUN_STACK)
        .spawn(move || {
            let _ = done.send(f());
        });
    if let Err(e) = spawned {
        report(&format!("mqlplay: cannot start the run: {e}"));
        return ExitCode::from(1);
    }
    let outcome = if seconds == 0 {
        finished.recv().ok()
    } else {
        finished.recv_timeout(Duration::from_secs(seconds)).ok()
    };
    match outcome {
        Some(code) => code,
        None if seconds == 0 => ExitCode::from(1),
        None => {
            report(&format!(
                "mqlplay: the run was stopped after {seconds} s (--timeout {seconds}; 0 for no limit)"
            ));
            // The run's thread cannot be interrupted: end the process.
            std::process::exit(1)
        }
    }
}

fn execute(job: &Job) -> ExitCode {
    let mut run = RunCtx::new(job.now, job.seed);
    run.tz = job.tz;
    let (db_text, script) = (job.db.as_str(), job.script.as_str());
    if let Some(mode) = job.mode {
        // One JSON object, printed when the run ends.
        let mut out = mqlplay::run(db_text, script, &run);
        let results = std::mem::take(&mut out.results);
        if let Err(stop) = emit_json(&out, &results, mode, job) {
            return stop.code();
        }
        return match &out.error {
            Some(e) => {
                report(&e.one_line(db_text, script));
                ExitCode::from(1)
            }
            None => ExitCode::SUCCESS,
        };
    }
    // The shell format: each result is printed when its statement has run,
    // so a later error keeps the earlier output.
    let _budget = mqlplay::budget::start_run();
    let error = match mqlplay::load_database(db_text, &run) {
        Err(e) => Some(e),
        Ok(mut db) => run_printing(&mut db, script, run),
    };
    match error {
        Some(e) => {
            report(&e.one_line(db_text, script));
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

/// The run contract's JSON (`{results, collections, error?}`), written one
/// result at a time: the results may be most of what the run holds.
fn emit_json(
    rest: &mqlplay::RunOutput,
    results: &[bson::Bson],
    mode: Mode,
    job: &Job,
) -> Result<(), Stop> {
    let serde_json::Value::Object(rest) = rest.to_json(mode, &job.db, &job.script) else {
        return Ok(());
    };
    emit("{\"results\":[")?;
    for (i, r) in results.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        emit(&format!("{sep}{}", text::extjson::to_json(r, mode)))?;
    }
    emit("]")?;
    for (k, v) in rest.iter().filter(|(k, _)| *k != "results") {
        emit(&format!(",{}:{v}", serde_json::Value::String(k.clone())))?;
    }
    emit("}\n")
}

/// Run `script`, printing each result as it comes; `None` when it ran to the end.
fn run_printing(db: &mut Database, script: &str, run: RunCtx) -> Option<mqlplay::Error> {
    mqlplay::run_each(db, script, &run, false, |view, _| {
        if let Err(stop) = emit(&format!("{}\n", view.print_shell())) {
            // Nobody reads the rest (or it cannot be written): stop here.
            std::process::exit(i32::from(stop.status()))
        }
    })
}

/// `mqlplay link`: print the share link the page would make for this state.
fn link(args: &[String]) -> ExitCode {
    let mut state = mqlplay::link::LinkState::default();
    let mut db_file = None;
    let mut script_file = None;
    let mut now = None;
    let mut base = DEFAULT_BASE.to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--db" | "--now" | "--seed" | "--tz" | "--view" | "--lang" | "--base" => {
                let Some(v) = it.next() else {
                    return usage(&format!("{a} needs a value"));
                };
                match a.as_str() {
                    "--db" => db_file = Some(v.clone()),
                    "--view" => state.view = v.clone(),
                    "--lang" if ["en", "pt-BR", "ja", "ko", "de"].contains(&v.as_str()) => {
                        state.lang = Some(v.clone())
                    }
                    "--lang" => {
                        return usage(&format!("--lang is one of en, pt-BR, ja, ko, de; got {v}"))
                    }
                    "--base" => base = v.clone(),
                    "--tz" => match zone(v) {
                        Ok(z) => state.tz = Some(z.name().to_string()),
                        Err(code) => return code,
                    },
                    "--now" => match bson::DateTime::parse_rfc3339_str(v) {
                        Ok(d) => now = Some(d),
                        Err(_) => {
                            return usage(&format!(
                                "--now needs an ISO date like 2024-01-01T00:00:00Z, got {v}"
                            ))
                        }
                    },
                    _ => match v.parse() {
                        Ok(n) => state.seed = n,
                        Err(_) => return usage(&format!("--seed needs a number, got {v}")),
                    },
                }
            }
            s if s.starts_with("--") => return usage(&format!("unknown option {s}")),
            s => {
                if script_file.replace(s.to_string()).is_some() {
                    return usage("only one script file");
                }
            }
        }
    }
    let Some(script_file) = script_file else {
        return usage("missing SCRIPT_FILE (or - for stdin)");
    };
    state.script = match read_input(&script_file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    state.db = match db_file.as_deref().map(read_input).transpose() {
        Ok(s) => s.unwrap_or_default(),
        Err(code) => return code,
    };
    state.now = now.unwrap_or_else(system_now).timestamp_millis();
    if let Err(e) = state.validate() {
        return usage(&e.message);
    }
    let base = base.split('#').next().unwrap_or_default();
    emit_all(&format!("{base}#{}\n", mqlplay::link::encode(&state)))
}

fn fmt(args: &[String]) -> ExitCode {
    let [file] = args else {
        return usage("fmt takes one FILE (or -)");
    };
    let text = match read_input(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    match mqlplay::format(&text) {
        Ok(s) => emit_all(&s),
        Err(e) => {
            report(&e.one_line("", &text));
            ExitCode::from(1)
        }
    }
}

/// `--tz`: an Olson time zone name (`Europe/Paris`); UTC is the default.
fn zone(name: &str) -> Result<mqlplay::tzdb::Tz, ExitCode> {
    mqlplay::tzdb::Tz::parse(name).ok_or_else(|| {
        usage(&format!(
            "--tz needs a time zone name like Europe/Paris or America/New_York, got {name}"
        ))
    })
}

fn system_now() -> bson::DateTime {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    bson::DateTime::from_millis(millis)
}
