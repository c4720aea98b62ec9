//! The terminal front end: `mqlplay run`, `mqlplay fmt`, `mqlplay link`.
//! Exit status: 0 success, 1 an error in the user's input, 2 a usage error.
use mqlplay::text::extjson::Mode;
use mqlplay::{text, RunCtx};
use std::io::Read;
use std::process::ExitCode;

const USAGE: &str = "usage:
  mqlplay run [--db FILE] [--format shell|relaxed|canonical] [--now ISODATE] [--seed N] SCRIPT_FILE|-
  mqlplay run --link URL [--format shell|relaxed|canonical]
  mqlplay fmt FILE|-
  mqlplay link [--db FILE] [--now ISODATE] [--seed N] [--view shell|tree|ejson] [--base URL] SCRIPT_FILE|-";

/// Where `mqlplay link` points by default: `./build.sh serve`.
const DEFAULT_BASE: &str = "http://127.0.0.1:8080/";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("fmt") => fmt(&args[1..]),
        Some("link") => link(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage("expected a command: run, fmt or link"),
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("mqlplay: {msg}\n{USAGE}");
    ExitCode::from(2)
}

fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(s)
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        // Invalid UTF-8 is the user's input problem, not a usage error: replace and let the reader report it.
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

fn run(args: &[String]) -> ExitCode {
    let mut db_file = None;
    let mut format = "shell".to_string();
    let mut script_file = None;
    let mut now = None;
    let mut seed = None;
    let mut link = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--db" | "--format" | "--now" | "--seed" | "--link" => {
                let Some(v) = it.next() else {
                    return usage(&format!("{a} needs a value"));
                };
                match a.as_str() {
                    "--db" => db_file = Some(v.clone()),
                    "--format" => format = v.clone(),
                    "--link" => link = Some(v.clone()),
                    "--now" => match bson::DateTime::parse_rfc3339_str(v) {
                        Ok(d) => now = Some(d),
                        Err(_) => {
                            return usage(&format!(
                                "--now needs an ISO date like 2024-01-01T00:00:00Z, got {v}"
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
    if let Some(link) = link {
        if script_file.is_some() || db_file.is_some() || now.is_some() || seed.is_some() {
            return usage(
                "--link carries the database, script, instant and seed; give none of them",
            );
        }
        return match mqlplay::link::decode(&link) {
            Ok(state) => execute(
                &state.db,
                &state.script,
                bson::DateTime::from_millis(state.now),
                state.seed,
                mode,
            ),
            Err(e) => {
                eprintln!("mqlplay: {}", e.message);
                ExitCode::from(1)
            }
        };
    }
    let Some(script_file) = script_file else {
        return usage("missing SCRIPT_FILE (or - for stdin)");
    };
    let script = match read_input(&script_file) {
        Ok(s) => s,
        Err(e) => return usage(&e),
    };
    let db_text = match db_file.as_deref().map(read_input).transpose() {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => return usage(&e),
    };
    execute(
        &db_text,
        &script,
        now.unwrap_or_else(system_now),
        seed.unwrap_or(0),
        mode,
    )
}

fn execute(
    db_text: &str,
    script: &str,
    now: bson::DateTime,
    seed: u64,
    mode: Option<Mode>,
) -> ExitCode {
    let out = mqlplay::run(db_text, script, &RunCtx::new(now, seed));
    match mode {
        Some(mode) => println!("{}", out.to_json(mode, db_text, script)),
        None => {
            for r in &out.results {
                println!("{}", text::shell::print(r));
            }
        }
    }
    match &out.error {
        Some(e) => {
            eprintln!("{}", e.one_line(db_text, script));
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
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
            "--db" | "--now" | "--seed" | "--view" | "--base" => {
                let Some(v) = it.next() else {
                    return usage(&format!("{a} needs a value"));
                };
                match a.as_str() {
                    "--db" => db_file = Some(v.clone()),
                    "--view" => state.view = v.clone(),
                    "--base" => base = v.clone(),
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
        Err(e) => return usage(&e),
    };
    state.db = match db_file.as_deref().map(read_input).transpose() {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => return usage(&e),
    };
    state.now = now.unwrap_or_else(system_now).timestamp_millis();
    if let Err(e) = state.validate() {
        return usage(&e.message);
    }
    let base = base.split('#').next().unwrap_or_default();
    println!("{base}#{}", mqlplay::link::encode(&state));
    ExitCode::SUCCESS
}

fn fmt(args: &[String]) -> ExitCode {
    let [file] = args else {
        return usage("fmt takes one FILE (or -)");
    };
    let text = match read_input(file) {
        Ok(s) => s,
        Err(e) => return usage(&e),
    };
    match mqlplay::format(&text) {
        Ok(s) => {
            print!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}", e.one_line("", &text));
            ExitCode::from(1)
        }
    }
}

fn system_now() -> bson::DateTime {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    bson::DateTime::from_millis(millis)
}
