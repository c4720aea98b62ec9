//! The CLI contract (`mqlplay run` / `fmt`): outputs and exit statuses, through the real binary.
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn mqlplay(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mqlplay"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mqlplay");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("mqlplay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path.to_string_lossy().into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn shell_format_prints_each_result() {
    let o = mqlplay(
        &["run", "-"],
        "db.t.insertOne({_id: 1, a: 'x'})\ndb.t.find()",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "{ acknowledged: true, insertedId: 1 }\n[ { _id: 1, a: 'x' } ]\n"
    );
}

#[test]
fn relaxed_json_follows_the_contract() {
    let db = temp_file(
        "db.js",
        "db = { trades: [ {_id: 1, d: ISODate('2023-11-02T11:43:10'), n: NumberLong(5)} ] }",
    );
    let o = mqlplay(
        &["run", "--db", &db, "--format", "relaxed", "-"],
        "db.trades.find()",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["results"][0][0]["d"]["$date"], "2023-11-02T11:43:10Z");
    assert_eq!(v["results"][0][0]["n"], 5);
    assert_eq!(v["collections"]["trades"][0]["_id"], 1);
    let o = mqlplay(
        &["run", "--db", &db, "--format", "canonical", "-"],
        "db.trades.find()",
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["results"][0][0]["n"]["$numberLong"], "5");
    assert_eq!(v["results"][0][0]["_id"]["$numberInt"], "1");
}

#[test]
fn user_errors_exit_1_with_line_and_column() {
    let o = mqlplay(
        &["run", "--format", "relaxed", "-"],
        "db.t.insertOne({_id: 1})\ndb.t.find({a: 1)",
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["error"]["line"], 2, "{v}");
    assert!(v["error"]["message"].is_string());
    assert!(v["error"]["code"].is_number());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line 2, column"), "{err}");

    for bad in [
        "db.t.find({a: 1",
        "db.t.find({a: 1}))",
        "db.t.insertOne({_id: ObjectId('5a934e00010203040500000')})",
        "db.t.insertOne({a: 1 b: 2})",
        "db.t.frobnicate()",
        "\u{0}\u{1}\u{7f}garbage(((",
    ] {
        let o = mqlplay(&["run", "-"], bad);
        assert_eq!(o.status.code(), Some(1), "{bad}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{bad}: {err}");
        assert!(err.contains("line 1, column"), "{bad}: {err}");
    }
}

#[test]
fn database_errors_point_into_the_database() {
    let db = temp_file("bad-db.js", "[\n  {a: 1},\n  {a: }\n]");
    let o = mqlplay(&["run", "--db", &db, "-"], "db.collection.find()");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("database line 3, column"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(mqlplay(&[], "").status.code(), Some(2));
    assert_eq!(mqlplay(&["run"], "").status.code(), Some(2));
    assert_eq!(
        mqlplay(&["run", "--format", "xml", "-"], "").status.code(),
        Some(2)
    );
    assert_eq!(
        mqlplay(&["run", "/no/such/file.js"], "").status.code(),
        Some(2)
    );
    assert_eq!(mqlplay(&["frob"], "").status.code(), Some(2));
}

#[test]
fn fmt_is_idempotent() {
    let o = mqlplay(&["fmt", "-"], "db.t.find({a:1,b:{$gt:2}}).sort({a:-1})");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let once = stdout(&o);
    let o = mqlplay(&["fmt", "-"], &once);
    assert_eq!(stdout(&o), once);
    let o = mqlplay(&["fmt", "-"], "db.t.find({a:1");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn unsupported_methods_and_functions_are_command_not_supported() {
    // The README's promise: anything unsupported is CommandNotSupported (115), named.
    for (script, name) in [
        (
            "db.t.insertOne({_id: 1})\ndb.t.renameCollection('u')",
            "renameCollection",
        ),
        ("print('hello')", "print"),
        ("sleep(100)", "sleep"),
        ("load('other.js')", "load"),
        ("printjson({a: 1})", "printjson"),
        ("db.t.find().forEach(d => d)", "forEach"),
        ("db.t.find().forEach(printjson)", "printjson"),
    ] {
        let o = mqlplay(&["run", "--format", "relaxed", "-"], script);
        assert_eq!(o.status.code(), Some(1), "{script}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
        assert_eq!(v["error"]["code"], 115, "{script}: {v}");
        assert_eq!(
            v["error"]["codeName"], "CommandNotSupported",
            "{script}: {v}"
        );
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(name), "{script}: {message}");
        assert!(stderr(&o).contains("CommandNotSupported"), "{}", stderr(&o));
    }
}

/// A script printing about 3 MB: 20 results of 5,000 documents.
fn big_output_script() -> String {
    "db.aggregate([{$documents: {$map: {input: {$range: [0, 5000]}, in: {i: '$$this'}}}}])\n"
        .repeat(20)
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    let script = temp_file("big.js", &big_output_script());
    // Formatted, 50 copies are larger than a pipe's buffer.
    let long = temp_file("long.js", &big_output_script().repeat(50));
    for args in [vec!["run", &script], vec!["fmt", &long]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mqlplay"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mqlplay");
        let mut first = [0u8; 100];
        let mut out = child.stdout.take().expect("stdout");
        std::io::Read::read_exact(&mut out, &mut first).expect("first 100 bytes");
        drop(out); // `| head -c 100`
        let o = child.wait_with_output().expect("wait");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

#[test]
fn other_output_errors_are_one_line_and_status_1() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        return; // no /dev/full on this system
    };
    let script = temp_file("small.js", "db.t.insertOne({_id: 1})");
    for args in [
        vec!["run", &script],
        vec!["fmt", &script],
        vec!["link", &script],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_mqlplay"))
            .args(&args)
            .stdout(full.try_clone().expect("dup /dev/full"))
            .stderr(Stdio::piped())
            .output()
            .expect("run mqlplay");
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("cannot write the output"), "{err}");
    }
}

#[test]
fn earlier_output_survives_a_later_failure() {
    // The third statement runs past the timeout: the first two results were printed.
    let o = mqlplay(
        &["run", "--timeout", "1", "-"],
        "db.t.insertOne({_id: 1})\ndb.t.find()\n\
         db.aggregate([{$documents: [{}]}, {$project: {a: {$reduce: {input: {$range: [0, 1000000]}, \
         initialValue: 0, in: {$add: ['$$value', {$size: {$range: [0, 1000]}}]}}}}}])",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "{ acknowledged: true, insertedId: 1 }\n[ { _id: 1 } ]\n"
    );
    assert_eq!(
        stderr(&o),
        "mqlplay: the run was stopped after 1 s (--timeout 1; 0 for no limit)\n"
    );
    assert_eq!(
        mqlplay(&["run", "--timeout", "soon", "-"], "")
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn links_are_read_from_stdin_or_a_file() {
    let script = temp_file("for-link.js", &big_output_script());
    let link = mqlplay(&["link", "--now", "2024-01-01T00:00:00Z", &script], "");
    assert_eq!(link.status.code(), Some(0), "{}", stderr(&link));
    let link = stdout(&link);
    assert!(link.len() > 100, "{link}");
    let direct = mqlplay(&["run", "--link", link.trim()], "");
    assert_eq!(direct.status.code(), Some(0), "{}", stderr(&direct));
    let from_stdin = mqlplay(&["run", "--link", "-"], &link);
    assert_eq!(stdout(&from_stdin), stdout(&direct));
    let file = temp_file("link.txt", &link);
    let from_file = mqlplay(&["run", "--link", &format!("@{file}")], "");
    assert_eq!(stdout(&from_file), stdout(&direct));
    let missing = mqlplay(&["run", "--link", "@/no/such/link.txt"], "");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn invalid_utf8_and_redeclared_consts_are_reported() {
    let dir = std::env::temp_dir().join(format!("mqlplay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bad-utf8.js");
    std::fs::write(&path, b"db.t.insertOne({_id: 1})\ndb.t.find({a: '\xff'})").expect("write");
    let o = mqlplay(&["run", &path.to_string_lossy()], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).ends_with("bad-utf8.js line 2, column 16: invalid UTF-8 (byte 0xff)\n"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "", "nothing runs");
    let o = mqlplay(&["run", "-"], "const a = 1\nconst a = 2");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("line 2, column 7: (FailedToParse) Identifier 'a' has already been declared"),
        "{}",
        stderr(&o)
    );
    let o = mqlplay(&["run", "-"], "var a = 1\nvar a = 2\na");
    assert_eq!(stdout(&o), "2\n");
}

#[test]
fn link_carries_a_language_and_refuses_others() {
    let o = mqlplay(&["link", "--lang", "ja", "-"], "db.c.find()");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let state = mqlplay::link::decode(stdout(&o).trim()).expect("a link");
    assert_eq!(state.lang.as_deref(), Some("ja"));
    let back = mqlplay(
        &["run", "--link", stdout(&o).trim(), "--format", "relaxed"],
        "",
    );
    assert_eq!(back.status.code(), Some(0), "{}", stderr(&back));
    let o = mqlplay(&["link", "--lang", "fr", "-"], "db.c.find()");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--lang"), "{}", stderr(&o));
}

#[test]
fn local_time_dates_are_read_in_the_runs_time_zone() {
    let script = "[new Date(2003, 0, 7), new Date(\"Jan 7, 2003\"), new Date(\"2003-01-07T10:00\"), new Date(\"2003-01-07\"), new Date(\"2003-07-07T10:00\")]";
    // UTC by default.
    let o = mqlplay(&["run", "-"], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("ISODate('2003-01-07T00:00:00.000Z')")
            && stdout(&o).contains("ISODate('2003-01-07T10:00:00.000Z')"),
        "{}",
        stdout(&o)
    );
    // Paris is UTC+1 in winter, UTC+2 in summer; a date-only ISO form stays UTC (as in V8).
    let o = mqlplay(&["run", "--tz", "Europe/Paris", "-"], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out.matches("ISODate('2003-01-06T23:00:00.000Z')").count(),
        2,
        "{out}"
    );
    assert!(out.contains("ISODate('2003-01-07T09:00:00.000Z')"), "{out}");
    assert!(out.contains("ISODate('2003-01-07T00:00:00.000Z')"), "{out}");
    assert!(out.contains("ISODate('2003-07-07T08:00:00.000Z')"), "{out}");
    let o = mqlplay(&["run", "--tz", "Mars/Olympus", "-"], script);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--tz"), "{}", stderr(&o));
}

#[test]
fn links_carry_the_time_zone() {
    let o = mqlplay(
        &["link", "--tz", "America/New_York", "-"],
        "new Date(2003, 0, 7)",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let link = stdout(&o).trim().to_string();
    let state = mqlplay::link::decode(&link).expect("a link");
    assert_eq!(state.tz.as_deref(), Some("America/New_York"));
    let back = mqlplay(&["run", "--link", &link], "");
    assert_eq!(back.status.code(), Some(0), "{}", stderr(&back));
    assert!(
        stdout(&back).contains("ISODate('2003-01-07T05:00:00.000Z')"),
        "{}",
        stdout(&back)
    );
}
