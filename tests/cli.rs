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
