//! Runs a script's statements against the database: decodes each method
//! chain and hands it to the module that implements the method.
mod aggregate;
mod aggregate_args;
mod answer;
mod call;
mod coll_options;
mod collation;
mod command;
mod create_index_args;
mod explain;
mod indexes;
mod insert;
mod insert_args;
mod read;
mod sort_arg;
pub mod stages_view;
mod stats;
mod write;

use crate::storage::DB_NAME;
pub use crate::storage::{Collection, Database};
pub use answer::{Answer, View};
pub use call::{decode_chain, Arg, Call, Chain, Receiver};
pub use command::{Command, Family, Method};

use crate::context::RunCtx;
use crate::error::{Error, Result, Span};
use crate::index::explain::WorkDone;
use crate::shell::{lower, LowerCtx, Node, NodeKind, Script, StmtKind};
use bson::Bson;
use std::cell::RefCell;
use std::collections::HashMap;

/// One run: the database, the clock, and the script's variables.
pub struct Session<'a> {
    pub db: &'a mut Database,
    pub run: RunCtx,
    vars: HashMap<String, Bson>,
    /// Reads note what they did here when `record_work` is on (the page's
    /// "work done" lines); off by default, so benchmarks pay nothing.
    work: Option<RefCell<Option<WorkDone>>>,
    /// The database `db` names: the configuration's (`test`) until `use name`
    /// or `db = db.getSiblingDB(name)` switches.
    current: String,
    /// Databases switched away from, by name; the one in use is `*db`.
    parked: Vec<(String, Database)>,
    /// The page's stage-by-stage view of one aggregate (off by default).
    stage_probe: Option<stages_view::StageProbe>,
}

impl<'a> Session<'a> {
    pub fn new(db: &'a mut Database, run: RunCtx) -> Session<'a> {
        Database::set_current_name(DB_NAME);
        let parked = db.take_others();
        Session {
            db,
            run,
            vars: HashMap::new(),
            work: None,
            current: DB_NAME.to_string(),
            parked,
            stage_probe: None,
        }
    }

    /// Make `name` the database `db` names (created empty on first use, as
    /// MongoDB creates a database on its first write).
    fn switch_db(&mut self, name: &str) -> Result<()> {
        if name == self.current {
            return Ok(());
        }
        check_db_name(name)?;
        let incoming = match self.parked.iter().position(|(n, _)| n == name) {
            Some(i) => self.parked.swap_remove(i).1,
            None => Database::new(),
        };
        self.db.continue_ids(&incoming);
        let outgoing = std::mem::replace(&mut *self.db, incoming);
        let previous = std::mem::replace(&mut self.current, name.to_string());
        self.parked.push((previous, outgoing));
        Database::set_current_name(name);
        Ok(())
    }

    /// Run the `target`-th aggregate stage by stage, skipping the stages in `off`.
    pub fn probe_stages(mut self, target: usize, off: Vec<usize>) -> Self {
        self.stage_probe = Some(stages_view::StageProbe {
            target,
            off,
            ..Default::default()
        });
        self
    }

    /// What the stage probe found (see `probe_stages`).
    pub fn take_stage_probe(&mut self) -> Option<stages_view::StageProbe> {
        self.stage_probe.take()
    }

    /// Run every statement; `on_result` receives each expression statement's result.
    /// Stops at the first error.
    pub fn run_script(
        &mut self,
        script: &Script,
        mut on_result: impl FnMut(View<'_>),
    ) -> Result<()> {
        self.run_script_with_work(script, |r, _| on_result(r))
    }

    /// Note what each read does from now on (see `run_script_with_work`).
    pub fn record_work(mut self) -> Self {
        self.work = Some(RefCell::new(None));
        self
    }

    /// A read's work, when the session records it; `explain` builds the
    /// read's explain("executionStats") and is only called then.
    pub(crate) fn note_work(&self, explain: impl FnOnce() -> Bson) {
        if let Some(w) = &self.work {
            let explained = explain();
            if matches!(explained, Bson::Document(_)) {
                *w.borrow_mut() = Some(WorkDone::from_explain(explained));
            }
        }
    }

    /// `run_script`, also handing each result the work its statement's
    /// read did (with `record_work`; `None` for other statements).
    pub fn run_script_with_work(
        &mut self,
        script: &Script,
        mut on_result: impl FnMut(View<'_>, Option<WorkDone>),
    ) -> Result<()> {
        self.run_script_answers(script, |a, db, w| on_result(a.view(db), w))
    }

    /// `run_script_with_work` with each result as its [`Answer`] and the
    /// database it refers to (as it is when the statement has run: a stored
    /// documents' answer is valid until the next statement runs).
    pub fn run_script_answers(
        &mut self,
        script: &Script,
        on_answer: impl FnMut(Answer, &Database, Option<WorkDone>),
    ) -> Result<()> {
        let outcome = self.run_statements(script, on_answer);
        // The run's database is the configured one; it keeps the others the
        // script used for the output (see `storage::namespaces`).
        let home = self.switch_db(DB_NAME);
        let mut others = std::mem::take(&mut self.parked);
        others.sort_by(|a, b| a.0.cmp(&b.0));
        self.db.set_others(others);
        outcome.and(home)
    }

    fn run_statements(
        &mut self,
        script: &Script,
        mut on_answer: impl FnMut(Answer, &Database, Option<WorkDone>),
    ) -> Result<()> {
        for stmt in &script.stmts {
            crate::budget::start_statement();
            if let Some(w) = &self.work {
                w.borrow_mut().take();
            }
            match &stmt.kind {
                StmtKind::Expr(node) => {
                    let value = self.eval(node).map_err(|e| e.at(stmt.span))?;
                    let work = self.work.as_ref().and_then(|w| w.borrow_mut().take());
                    on_answer(value, &*self.db, work);
                }
                StmtKind::Assign { name, value, .. } => {
                    if name == "db" {
                        let target = self.sibling_name(value)?.ok_or_else(|| {
                            Error::not_supported(
                                "assigning to db anything but db.getSiblingDB(name)",
                            )
                            .at(value.span)
                        })?;
                        self.switch_db(&target).map_err(|e| e.at(value.span))?;
                        continue;
                    }
                    let value = self.eval(value).map_err(|e| e.at(stmt.span))?;
                    let value = value.into_bson(self.db);
                    // Variables nest into one another (`const b = [a]`):
                    // bound their depth as the reader bounds a literal's.
                    if crate::value::size::nesting(&value) > crate::shell::parser::MAX_DEPTH {
                        return Err(Error::overflow(format!(
                            "the value of {name} nests more than {} levels",
                            crate::shell::parser::MAX_DEPTH
                        ))
                        .at(stmt.span));
                    }
                    self.vars.insert(name.clone(), value);
                }
                StmtKind::Shell { command, arg } => {
                    let value = self
                        .shell_command(command, arg.as_deref())
                        .map_err(|e| e.at(stmt.span))?;
                    on_answer(Answer::Value(value), &*self.db, None);
                }
            }
            // What the statement kept (a variable, a result held for
            // printing, documents it stored) counts against the budget.
            crate::budget::check_for(crate::budget::KEPT).map_err(|e| e.at(stmt.span))?;
        }
        Ok(())
    }

    fn lower_ctx(&self) -> LowerCtx<'_> {
        LowerCtx {
            vars: &self.vars,
            now: self.run.now,
            extjson: false,
            new_id: &*self.db,
            tz: self.run.tz,
        }
    }

    /// The database name of `db.getSiblingDB(name)` (or `db.getSisterDB`).
    fn sibling_name(&self, node: &Node) -> Result<Option<String>> {
        let NodeKind::Call { callee, args } = &node.kind else {
            return Ok(None);
        };
        if !is_sibling_callee(callee) {
            return Ok(None);
        }
        match args.as_slice() {
            [arg] => match lower(arg, &self.lower_ctx())? {
                Bson::String(s) => Ok(Some(s)),
                _ => Err(
                    Error::type_mismatch("getSiblingDB() needs a database name (a string)")
                        .at(arg.span),
                ),
            },
            _ => Err(Error::bad_value("getSiblingDB() takes one database name").at(node.span)),
        }
    }

    /// Evaluate an expression statement: a `db` chain runs, anything else is a value.
    fn eval(&mut self, node: &Node) -> Result<Answer> {
        if let Some((rest, sibling)) = strip_sibling(node) {
            let Some(name) = self.sibling_name(sibling)? else {
                return Err(Error::bad_value("getSiblingDB() needs a database name").at(node.span));
            };
            if rest.ident() == Some("db") {
                return Ok(Answer::Value(Bson::String(name)));
            }
            let previous = self.current.clone();
            self.switch_db(&name).map_err(|e| e.at(sibling.span))?;
            // Own the answer before switching back: stored documents belong to `name`.
            let answer = self
                .eval(&rest)
                .map(|a| Answer::Value(a.into_bson(self.db)));
            self.switch_db(&previous)?;
            return answer;
        }
        if let Some(arg) = object_bsonsize_arg(node) {
            let value = self.eval(arg)?.into_bson(self.db);
            return stats::object_bsonsize(&value)
                .map(Answer::Value)
                .map_err(|e| e.at(arg.span));
        }
        let chain = {
            let ctx = self.lower_ctx();
            match call::decode_chain(node, &ctx)? {
                Some(chain) => chain,
                None => return lower(node, &ctx).map(Answer::Value),
            }
        };
        self.execute(&chain, node.span)
    }

    fn execute(&mut self, chain: &Chain, span: Span) -> Result<Answer> {
        if let (Receiver::Collection(coll), Some(first)) = (&chain.receiver, chain.calls.first()) {
            let Some(cmd) = Command::decode(coll, &chain.calls) else {
                return Err(unknown_method(&first.name, first.span));
            };
            return self.run_command(&cmd);
        }
        self.execute_value(chain, span).map(Answer::Value)
    }

    /// Run one collection method (with its cursor modifiers).
    fn run_command(&mut self, cmd: &Command) -> Result<Answer> {
        let (coll, call) = (cmd.collection, cmd.call);
        let _collation = crate::collation::scoped(collation::of_command(self, cmd)?);
        let value = match cmd.method.family() {
            Family::Read => return read::run(self, cmd),
            Family::Write => {
                cmd.no_modifiers()?;
                write::run(self, cmd)
            }
            Family::Insert => {
                cmd.no_modifiers()?;
                insert::run(self, cmd)
            }
            Family::Explain => explain::run(self, cmd),
            Family::Index => {
                cmd.no_modifiers()?;
                indexes::run(self, cmd).map_err(|e| e.at(call.span))
            }
            Family::Aggregate => aggregate::run(self, Some(coll), cmd.calls),
            Family::Stats => {
                cmd.no_modifiers()?;
                call.max_args(0)?;
                match cmd.method {
                    Method::IsCapped => stats::is_capped(self.db, coll),
                    _ => stats::collection_stats(self.db, coll),
                }
                .map_err(|e| e.at(call.span))
            }
            Family::Drop => {
                cmd.no_modifiers()?;
                Ok(Bson::Boolean(self.db.drop_collection(coll)))
            }
        };
        value.map(Answer::Value)
    }

    fn execute_value(&mut self, chain: &Chain, span: Span) -> Result<Bson> {
        let Some(first) = chain.calls.first() else {
            return Err(Error::bad_value(match &chain.receiver {
                Receiver::Db => {
                    "`db` alone does nothing here: call a method, e.g. db.getCollectionNames()"
                        .to_string()
                }
                Receiver::Collection(c) => {
                    format!("db.{c} is a collection: call a method on it, e.g. db.{c}.find()")
                }
            })
            .at(span));
        };
        match &chain.receiver {
            Receiver::Db => self.db_method(first, &chain.calls[1..]),
            Receiver::Collection(_) => self.execute(chain, span).map(|a| a.into_bson(self.db)),
        }
    }

    fn db_method(&mut self, call: &Call, rest: &[Call]) -> Result<Bson> {
        match call.name.as_str() {
            "getCollectionNames" => {
                if let Some(c) = rest.first() {
                    return Err(Error::bad_value(format!(
                        "{}() cannot be chained on getCollectionNames()",
                        c.name
                    ))
                    .at(c.span));
                }
                Ok(self.collection_names())
            }
            "stats" => Ok(stats::db_stats(self.db)),
            "getCollectionInfos" => coll_options::collection_infos(self.db, call, &self.run)
                .map_err(|e| e.at(call.span)),
            "getName" => Ok(Bson::String(self.current.clone())),
            "aggregate" => {
                let mut calls = vec![call.clone()];
                calls.extend_from_slice(rest);
                aggregate::run(self, None, &calls)
            }
            "createCollection" => {
                let name = match call.arg(0).map(|a| &a.value) {
                    Some(Bson::String(s)) if !s.is_empty() => s.clone(),
                    _ => {
                        return Err(
                            Error::bad_value("createCollection() needs a collection name")
                                .at(call.span),
                        )
                    }
                };
                call.max_args(2)?;
                let (options, collation) =
                    coll_options::parse_create(call.doc_arg(1, "createCollection() options")?)
                        .map_err(|e| e.at(call.span))?;
                if self.db.collection(&name).is_some() {
                    return Err(Error::namespace_exists(format!(
                        "Collection {} already exists.",
                        Database::namespace(&name)
                    )));
                }
                let coll = self.db.collection_mut(&name);
                coll.set_options(options);
                coll.set_collation(collation);
                Ok(bson::bson!({ "ok": 1 }))
            }
            "runCommand" => coll_options::run_command(self.db, call).map_err(|e| e.at(call.span)),
            "dropDatabase" => {
                let names: Vec<String> = self.db.names().map(str::to_string).collect();
                for n in names {
                    self.db.drop_collection(&n);
                }
                Ok(bson::bson!({ "ok": 1, "dropped": self.current.clone() }))
            }
            other => Err(Error::not_supported(format!("db.{other}()")).at(call.span)),
        }
    }

    fn collection_names(&self) -> Bson {
        // mongosh lists names sorted.
        let mut names: Vec<&str> = self.db.names().collect();
        crate::sorting::sort(&mut names);
        Bson::Array(
            names
                .into_iter()
                .map(|n| Bson::String(n.to_string()))
                .collect(),
        )
    }

    fn shell_command(&mut self, command: &str, arg: Option<&str>) -> Result<Bson> {
        match (command, arg) {
            ("show", Some("collections" | "tables")) => Ok(self.collection_names()),
            ("show", Some("dbs" | "databases")) => {
                // The configured database, and every other one that holds a collection.
                let mut names = vec![DB_NAME.to_string()];
                let current = (self.current.as_str(), self.db.names().next().is_some());
                let parked = self
                    .parked
                    .iter()
                    .map(|(n, d)| (n.as_str(), d.names().next().is_some()));
                for (name, used) in std::iter::once(current).chain(parked) {
                    if used && name != DB_NAME {
                        names.push(name.to_string());
                    }
                }
                crate::sorting::sort(&mut names);
                Ok(Bson::Array(names.into_iter().map(Bson::String).collect()))
            }
            ("use", Some(name)) => {
                // mongosh's own answers.
                if name == self.current {
                    return Ok(Bson::String(format!("already on db {name}")));
                }
                self.switch_db(name)?;
                Ok(Bson::String(format!("switched to db {name}")))
            }
            _ => Err(Error::not_supported(format!(
                "`{command} {}`",
                arg.unwrap_or_default()
            ))),
        }
    }
}

/// `db.getSiblingDB` / `db.getSisterDB` (the call's callee).
fn is_sibling_callee(callee: &Node) -> bool {
    matches!(&callee.kind, NodeKind::Member { object, property, .. }
        if object.ident() == Some("db") && (property == "getSiblingDB" || property == "getSisterDB"))
}

/// A chain rooted at `db.getSiblingDB(name)`: the chain with that call
/// replaced by `db`, and the call itself. Walks and rebuilds the chain in
/// loops, as `call::decode_chain` reads it (a chain can be long).
fn strip_sibling(node: &Node) -> Option<(Node, &Node)> {
    let mut above: Vec<&Node> = Vec::new();
    let mut cur = node;
    let sibling = loop {
        match &cur.kind {
            NodeKind::Call { callee, .. } if is_sibling_callee(callee) => break cur,
            NodeKind::Call { callee: inner, .. }
            | NodeKind::Member { object: inner, .. }
            | NodeKind::Index { object: inner, .. } => {
                above.push(cur);
                cur = inner;
            }
            _ => return None,
        }
    };
    let mut rebuilt = Node {
        kind: NodeKind::Ident("db".to_string()),
        span: sibling.span,
    };
    for outer in above.into_iter().rev() {
        let inner = Box::new(rebuilt);
        let kind = match &outer.kind {
            NodeKind::Call { args, .. } => NodeKind::Call {
                callee: inner,
                args: args.clone(),
            },
            NodeKind::Member {
                property,
                property_span,
                ..
            } => NodeKind::Member {
                object: inner,
                property: property.clone(),
                property_span: *property_span,
            },
            NodeKind::Index { index, .. } => NodeKind::Index {
                object: inner,
                index: index.clone(),
            },
            _ => return None,
        };
        rebuilt = Node {
            kind,
            span: outer.span,
        };
    }
    Some((rebuilt, sibling))
}

/// MongoDB's database-name rules: not empty, under 64 bytes, none of `/\. "$` or NUL.
fn check_db_name(name: &str) -> Result<()> {
    let bad =
        name.is_empty() || name.len() >= 64 || name.contains(['/', '\\', '.', ' ', '"', '$', '\0']);
    if bad {
        return Err(Error::invalid_namespace(format!(
            "Invalid database name: {name}"
        )));
    }
    Ok(())
}

/// The argument of `Object.bsonsize(x)`, if the node is that call.
fn object_bsonsize_arg(node: &Node) -> Option<&Node> {
    let NodeKind::Call { callee, args } = &node.kind else {
        return None;
    };
    let NodeKind::Member {
        object, property, ..
    } = &callee.kind
    else {
        return None;
    };
    match (object.ident(), property.as_str(), args.as_slice()) {
        (Some("Object"), "bsonsize", [arg]) => Some(arg),
        _ => None,
    }
}

fn unknown_method(name: &str, span: Span) -> Error {
    let all = Method::names_sorted();
    // The README promises CommandNotSupported naming anything unsupported
    // (mongosh would say "is not a function"); the list helps with typos.
    Error::command_not_supported(format!(
        "the collection method {name}() is not supported in mqlplay; supported: {}",
        all.join(", ")
    ))
    .at(span)
}
