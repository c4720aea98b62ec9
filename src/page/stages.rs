//! The page's "Stages" view as JSON text: one pipeline of the script (an
//! aggregate or a pipeline update) run stage by stage (see `engine::stages_view`):
//! `{pipelines, stages: [{stage, name, off, count, shell, docs, error?, facets, lookups}], error?,
//! stmts}` (`stmts`: the script's statements, as in the run's output).
//! `pipelines` is how many pipelines the script ran (the page's selector),
//! `stage` each stage printed as mongosh prints it, `shell`/`docs` its first
//! documents (printed, and as relaxed Extended JSON), `lookups` a `$lookup`'s
//! sub-pipeline per shown input document (`{input, stages}`, `input` printed).
use super::Cache;
use crate::engine::stages_view::StageReport;
use crate::engine::Session;
use crate::text::ejson::{write_docs, write_str};
use crate::text::shell;
use crate::{budget, RunCtx};

/// Run `script` with its `target`-th pipeline reported stage by stage, the
/// stages in `off` (positions in its pipeline) skipped.
pub fn stages_json(
    cache: &mut Cache,
    db_text: &str,
    script: &str,
    run: &RunCtx,
    target: usize,
    off: Vec<usize>,
) -> String {
    let _budget = budget::start_run();
    let mut out = String::with_capacity(1024);
    let mut stmts = serde_json::Value::Array(Vec::new());
    let (probe, error) = match cache.database(db_text, run) {
        Err(e) => (None, Some(e.clone())),
        Ok(start) => {
            let mut db = start.clone();
            match crate::shell::parse_script(script) {
                Ok(parsed) => {
                    stmts = super::statements_json(script, &parsed);
                    let mut session = Session::new(&mut db, *run).probe_stages(target, off);
                    let error = session.run_script(&parsed, |_| {}).err();
                    (session.take_stage_probe(), error)
                }
                Err(e) => (None, Some(e)),
            }
        }
    };
    out.push_str("{\"pipelines\":");
    out.push_str(&probe.as_ref().map_or(0, |p| p.seen).to_string());
    out.push_str(",\"stages\":");
    match probe.and_then(|p| p.report) {
        Some(reports) => write_reports(&mut out, &reports, db_text, script),
        None => out.push_str("null"),
    }
    if let Some(e) = &error {
        out.push_str(",\"error\":");
        crate::json::write(&mut out, &crate::error_json(e, db_text, script));
    }
    out.push_str(",\"stmts\":");
    crate::json::write(&mut out, &stmts);
    out.push('}');
    out
}

fn write_reports(out: &mut String, reports: &[StageReport], db_text: &str, script: &str) {
    out.push('[');
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"stage\":");
        write_str(out, &shell::print(&r.spec));
        out.push_str(",\"name\":");
        let name = r
            .spec
            .as_document()
            .and_then(|d| d.keys().next())
            .map_or("", String::as_str);
        write_str(out, name);
        out.push_str(",\"off\":");
        out.push_str(if r.off { "true" } else { "false" });
        out.push_str(",\"count\":");
        match r.count {
            Some(n) => out.push_str(&n.to_string()),
            None => out.push_str("null"),
        }
        out.push_str(",\"shell\":[");
        for (j, d) in r.first.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            write_str(out, &shell::print_doc(d));
        }
        out.push_str("],\"docs\":");
        write_docs(out, &r.first);
        if let Some(e) = &r.error {
            out.push_str(",\"error\":");
            crate::json::write(out, &crate::error_json(e, db_text, script));
        }
        out.push_str(",\"facets\":[");
        for (j, (name, stages)) in r.facets.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            write_str(out, name);
            out.push_str(",\"stages\":");
            write_reports(out, stages, db_text, script);
            out.push('}');
        }
        out.push_str("],\"lookups\":[");
        for (j, l) in r.lookups.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str("{\"input\":");
            write_str(out, &shell::print_doc(&l.input));
            out.push_str(",\"stages\":");
            write_reports(out, &l.stages, db_text, script);
            out.push('}');
        }
        out.push_str("]}");
    }
    out.push(']');
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    const DB: &str =
        "db = { t: [ {_id: 1, k: 'a', n: 1}, {_id: 2, k: 'b', n: 5}, {_id: 3, k: 'a', n: 7} ] }";

    fn stages(script: &str, target: usize, off: Vec<usize>) -> serde_json::Value {
        let run = RunCtx::new(bson::DateTime::from_millis(0), 0);
        let text = stages_json(&mut Cache::default(), DB, script, &run, target, off);
        serde_json::from_str(&text).expect("valid JSON")
    }

    fn counts(v: &serde_json::Value) -> Vec<serde_json::Value> {
        v["stages"]
            .as_array()
            .expect("stages")
            .iter()
            .map(|s| s["count"].clone())
            .collect()
    }

    const THREE: &str =
        "db.t.aggregate([{$match: {k: 'a'}}, {$set: {m: {$multiply: ['$n', 2]}}}, {$limit: 1}])";

    #[test]
    fn each_stage_reports_its_count_and_first_documents() {
        let v = stages(THREE, 0, vec![]);
        assert_eq!(v["pipelines"], 1);
        assert_eq!(counts(&v), [2, 2, 1]);
        let second = &v["stages"][1];
        assert_eq!(second["name"], "$set");
        assert_eq!(second["docs"][1]["m"], 14);
        assert_eq!(second["shell"][0], "{ _id: 1, k: 'a', n: 1, m: 2 }");
        assert!(v.get("error").is_none(), "{v}");
    }

    #[test]
    fn a_stage_switched_off_is_skipped() {
        let v = stages(THREE, 0, vec![0]);
        assert_eq!(v["stages"][0]["off"], true);
        assert_eq!(counts(&v), [serde_json::Value::Null, 3.into(), 1.into()]);
        assert_eq!(v["stages"][2]["docs"][0]["_id"], 1);
    }

    #[test]
    fn a_failing_stage_shows_its_error_and_later_stages_do_not_run() {
        let v = stages(
            "db.t.aggregate([{$match: {}}, {$grop: {_id: '$k'}}, {$limit: 1}])",
            0,
            vec![],
        );
        assert_eq!(
            counts(&v),
            [3.into(), serde_json::Value::Null, serde_json::Value::Null]
        );
        assert_eq!(v["stages"][1]["error"]["code"], 40324);
        assert_eq!(v["error"]["code"], 40324, "the run stops there too");
    }

    #[test]
    fn facets_report_their_own_stages() {
        let v = stages(
            "db.t.aggregate([{$facet: {a: [{$match: {k: 'a'}}, {$count: 'n'}], all: [{$skip: 1}]}}])",
            0,
            vec![],
        );
        let facets = &v["stages"][0]["facets"];
        assert_eq!(facets[0]["name"], "a");
        assert_eq!(counts(&facets[0]), [2, 1]);
        assert_eq!(facets[1]["name"], "all");
        assert_eq!(counts(&facets[1]), [2]);
        assert_eq!(v["stages"][0]["count"], 1);
    }

    #[test]
    fn a_text_match_is_searched_and_scored_stage_by_stage() {
        let v = stages(
            "db.t.createIndex({k: 'text'}, {default_language: 'none'})\ndb.t.aggregate([{$match: {$text: {$search: 'a'}}}, {$set: {s: {$meta: 'textScore'}}}])",
            0,
            vec![],
        );
        assert_eq!(counts(&v), [2, 2], "{v}");
        assert_eq!(v["stages"][1]["docs"][0]["s"], 1.1);
        // The score travels with the documents but is never shown as a field.
        assert_eq!(v["stages"][0]["shell"][0], "{ _id: 1, k: 'a', n: 1 }");
    }

    #[test]
    fn the_selector_counts_every_aggregate_and_picks_one() {
        let script = format!("{THREE}\ndb.t.find()\ndb.t.aggregate([{{$count: 'n'}}])");
        let v = stages(&script, 1, vec![]);
        assert_eq!(v["pipelines"], 2);
        assert_eq!(counts(&v), [1]);
        assert_eq!(v["stages"][0]["docs"][0]["n"], 3);
    }

    #[test]
    fn out_still_writes_so_later_statements_see_it() {
        let v = stages(
            "db.t.aggregate([{$match: {k: 'b'}}, {$out: 'u'}])\ndb.u.aggregate([{$count: 'n'}])",
            1,
            vec![],
        );
        assert_eq!(v["stages"][0]["docs"][0]["n"], 1, "{v}");
    }

    #[test]
    fn lookup_sub_pipelines_show_their_stages_per_input_document() {
        let script = "db.u.insertMany([{_id: 'x', k: 'a'}, {_id: 'y', k: 'b'}, {_id: 'z', k: 'c'}, {_id: 'w', k: 'd'}])
db.u.aggregate([{$lookup: {from: 't', localField: 'k', foreignField: 'k', as: 'hits',
  pipeline: [{$match: {n: {$gt: 2}}}, {$project: {_id: 1}}]}}])";
        let v = stages(script, 0, vec![]);
        let lookup = &v["stages"][0];
        assert_eq!(lookup["count"], 4);
        let per = lookup["lookups"].as_array().expect("lookups");
        assert_eq!(per.len(), crate::engine::stages_view::LOOKUP_SHOWN);
        assert_eq!(per[0]["input"], "{ _id: 'x', k: 'a' }");
        assert_eq!(
            counts(&per[0]),
            [1, 1],
            "of t's two 'a' documents, _id 3 has n > 2"
        );
        assert_eq!(
            per[0]["stages"][1]["docs"][0],
            serde_json::json!({"_id": 3})
        );
        assert_eq!(counts(&per[1]), [1, 1]);
        assert_eq!(counts(&per[2]), [0, 0]);
        assert_eq!(lookup["docs"][0]["hits"], serde_json::json!([{"_id": 3}]));
    }

    #[test]
    fn lookup_with_let_and_documents_binds_each_input() {
        let script = "db.t.aggregate([{$lookup: {let: {n: '$n'}, as: 'd', pipeline: [
  {$documents: [{v: 1}, {v: 6}]}, {$match: {$expr: {$gt: ['$v', '$$n']}}}]}}])";
        let v = stages(script, 0, vec![]);
        let per = v["stages"][0]["lookups"].as_array().expect("lookups");
        assert_eq!(counts(&per[0]), [2, 1], "n = 1: only v 6 is greater");
        assert_eq!(counts(&per[1]), [2, 1], "n = 5");
        assert_eq!(counts(&per[2]), [2, 0], "n = 7");
    }

    #[test]
    fn nested_lookups_are_shown_two_levels_deep() {
        // Each level's sub-pipeline runs per shown input: a third level only runs.
        let inner = |as_field: &str, sub: &str| {
            format!("{{$lookup: {{from: 't', as: '{as_field}', pipeline: [{sub}{{$limit: 1}}]}}}}")
        };
        let three = inner(
            "a",
            &format!("{}, ", inner("b", &format!("{}, ", inner("c", "")))),
        );
        let v = stages(&format!("db.t.aggregate([{three}])"), 0, vec![]);
        let level1 = &v["stages"][0]["lookups"][0]["stages"];
        assert_eq!(level1[0]["name"], "$lookup");
        let level2 = &level1[0]["lookups"][0]["stages"];
        assert_eq!(level2[0]["name"], "$lookup");
        assert_eq!(level2[0]["count"], 3);
        assert_eq!(level2[0]["lookups"], serde_json::json!([]), "not expanded");
        assert_eq!(
            v["stages"][0]["docs"][0]["a"][0]["b"][0]["c"][0]["_id"], 1,
            "but run: {v}"
        );
    }

    #[test]
    fn pipeline_updates_show_each_stage_over_the_matched_documents() {
        let script =
            "db.t.updateMany({k: 'a'}, [{$set: {m: {$multiply: ['$n', 10]}}}, {$unset: 'k'}])
db.t.find()";
        let v = stages(script, 0, vec![]);
        assert_eq!(v["pipelines"], 1);
        assert_eq!(counts(&v), [2, 2]);
        assert_eq!(v["stages"][0]["docs"][1]["m"], 70);
        assert_eq!(v["stages"][1]["shell"][0], "{ _id: 1, n: 1, m: 10 }");
        // Off: the update runs without it, so the field stays.
        let v = stages(
            &format!("{script}\ndb.t.aggregate([{{$match: {{k: 'a'}}}}])"),
            1,
            vec![],
        );
        assert_eq!(counts(&v), [0], "k was unset");
        let v = stages(
            &format!("{script}\ndb.t.aggregate([{{$match: {{k: 'a'}}}}])"),
            0,
            vec![1],
        );
        assert_eq!(v["stages"][1]["off"], true);
        assert_eq!(v["pipelines"], 2);
    }

    #[test]
    fn pipeline_update_stages_count_with_aggregates_and_show_errors() {
        let script = "db.t.aggregate([{$count: 'n'}])
db.t.findOneAndUpdate({k: 'b'}, [{$set: {m: 1}}, {$group: {_id: 1}}])";
        let v = stages(script, 1, vec![]);
        assert_eq!(v["pipelines"], 2);
        assert_eq!(v["stages"][0]["count"], 1);
        assert_eq!(v["stages"][1]["error"]["codeName"], "InvalidOptions");
        assert!(
            v.get("error").is_some(),
            "the update fails as a plain run does"
        );
        // updateOne takes the first match only; a plain update is no pipeline.
        let v = stages(
            "db.t.updateOne({}, {$set: {a: 1}})\ndb.t.updateOne({k: 'a'}, [{$set: {a: 1}}])",
            0,
            vec![],
        );
        assert_eq!(v["pipelines"], 1);
        assert_eq!(counts(&v), [1]);
    }

    #[test]
    fn only_the_first_documents_are_kept() {
        let docs: Vec<String> = (10..60).map(|i| format!("{{_id: {i}}}")).collect();
        let script = format!(
            "db.t.insertMany([{}])\ndb.t.aggregate([{{$match: {{}}}}])",
            docs.join(",")
        );
        let v = stages(&script, 0, vec![]);
        assert_eq!(v["stages"][0]["count"], 53);
        assert_eq!(
            v["stages"][0]["docs"].as_array().map(Vec::len),
            Some(crate::engine::stages_view::SHOWN)
        );
    }
}
