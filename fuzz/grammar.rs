//! A byte-driven generator of mongosh scripts: every byte string gives a
//! script. Bytes choose the productions; once they run out every choice is the
//! simplest one, so generation always ends. The property tests
//! (tests/robustness_props.rs, random bytes that proptest shrinks) and the
//! fuzz targets (libFuzzer's mutated bytes) share this one grammar.
//!
//! It aims at the engine rather than the reader: the texts are well formed
//! most of the time, with operators, paths and values picked so that
//! compilers and evaluators meet odd types, extreme numbers and odd paths.
#![allow(dead_code)]

/// The database every generated script runs against: every BSON type,
/// nested arrays and documents, numbers of each type, odd `_id`s.
pub const DB: &str = r#"db = {
  c: [
    { _id: 1, a: 1, b: { c: 2, d: [1, 2, { e: 3 }] }, arr: [1, 2, 3], s: "abc", t: ISODate("2024-01-01T00:00:00Z") },
    { _id: 2, a: [1, [2, 3]], b: null, arr: [{ x: 1, y: "a" }, { x: 2, y: "b" }], s: "Héllo wörld 😀", n: NumberDecimal("1.5") },
    { _id: 3, a: "x", b: { c: [{ d: 1 }, { d: 2 }] }, arr: [], n: NumberLong(9), o: ObjectId("5a934e000102030405000000") },
    { _id: "str", a: 2.5, b: [], arr: [[1, 2], [3]], s: /ab+c/i, ts: Timestamp(1, 2), bin: BinData(0, "AQID"), k: MinKey(), m: MaxKey() },
    { _id: { x: 1 }, a: null, arr: [null, true, false], n: NaN, u: UUID("0123456789abcdef0123456789abcdef") },
    { _id: 6 },
    { _id: 7, a: -0.0, n: Infinity, t: new Date(-1), arr: [{ x: [1, 2] }, { x: [] }], b: { c: 1 } }
  ],
  d: [
    { _id: 1, a: 1, f: "one", p: 7 },
    { _id: 2, a: 2, f: "two", p: 1 },
    { _id: 3, a: [1, 2], f: "many", p: 3 }
  ]
}"#;

pub struct Gen<'a> {
    data: &'a [u8],
    pos: usize,
    depth: usize,
}

/// Deepest nesting of generated values, filters and pipelines.
const MAX_DEPTH: usize = 5;

impl<'a> Gen<'a> {
    pub fn new(data: &'a [u8]) -> Gen<'a> {
        Gen {
            data,
            pos: 0,
            depth: 0,
        }
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// A number below `n` (0 when the bytes have run out).
    pub fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n <= 256 {
            self.byte() as usize
        } else {
            (self.byte() as usize) << 8 | self.byte() as usize
        };
        v % n
    }

    fn one<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items[self.pick(items.len())]
    }

    /// How many items a list gets: 0..=max, fewer once the bytes run out or deep down.
    fn count(&mut self, max: usize) -> usize {
        if self.exhausted() || self.depth >= MAX_DEPTH {
            return self.pick(2).min(max);
        }
        self.pick(max + 1)
    }

    fn deeper<T>(&mut self, f: impl FnOnce(&mut Gen<'a>) -> T) -> T {
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    fn list(&mut self, max: usize, mut item: impl FnMut(&mut Gen<'a>) -> String) -> String {
        let n = self.count(max);
        let items: Vec<String> = (0..n).map(|_| self.deeper(&mut item)).collect();
        format!("[{}]", items.join(", "))
    }

    fn object(&mut self, max: usize, mut entry: impl FnMut(&mut Gen<'a>) -> String) -> String {
        let n = self.count(max);
        let items: Vec<String> = (0..n).map(|_| self.deeper(&mut entry)).collect();
        format!("{{{}}}", items.join(", "))
    }

    /// An object with at least one entry.
    fn object_nonempty(
        &mut self,
        max: usize,
        mut entry: impl FnMut(&mut Gen<'a>) -> String,
    ) -> String {
        let n = 1 + self.count(max.saturating_sub(1));
        let items: Vec<String> = (0..n).map(|_| self.deeper(&mut entry)).collect();
        format!("{{{}}}", items.join(", "))
    }

    // ---- values ---------------------------------------------------------

    pub fn scalar(&mut self) -> String {
        self.one(SCALARS).to_string()
    }

    pub fn key(&mut self) -> String {
        quote(self.one(KEYS))
    }

    fn path(&mut self) -> String {
        quote(self.one(PATHS))
    }

    /// A field path or variable as an expression: "$a.b", "$$ROOT".
    fn field_ref(&mut self) -> String {
        quote(self.one(FIELD_REFS))
    }

    /// Any value: scalars, references, arrays, documents, expressions.
    pub fn value(&mut self) -> String {
        if self.depth >= MAX_DEPTH {
            return self.scalar();
        }
        match self.pick(10) {
            0..=3 => self.scalar(),
            4 => self.field_ref(),
            5 => self.list(4, Gen::value),
            6 => self.object(3, |g| format!("{}: {}", g.key(), g.value())),
            _ => self.expr(),
        }
    }

    /// An aggregation expression.
    pub fn expr(&mut self) -> String {
        if self.depth >= MAX_DEPTH {
            return match self.pick(2) {
                0 => self.scalar(),
                _ => self.field_ref(),
            };
        }
        match self.pick(12) {
            0 => self.scalar(),
            1 | 2 => self.field_ref(),
            3 => self.list(3, Gen::expr),
            _ => {
                let op = self.one(EXPR_OPS);
                let arg = self.deeper(|g| match g.pick(4) {
                    0 => g.expr(),
                    1 | 2 => g.list(4, Gen::expr),
                    _ => g.object(4, |g| format!("{}: {}", g.one(ARG_NAMES), g.expr())),
                });
                format!("{{{op}: {arg}}}")
            }
        }
    }

    /// A document of fields (for inserts, replacements, `$documents`).
    pub fn document(&mut self) -> String {
        self.object(4, |g| format!("{}: {}", g.key(), g.value()))
    }

    // ---- queries ----------------------------------------------------------

    pub fn filter(&mut self) -> String {
        self.object(3, Gen::filter_entry)
    }

    fn filter_entry(&mut self) -> String {
        match self.pick(10) {
            0 | 1 => format!("{}: {}", self.path(), self.value()),
            2 => format!(
                "{}: {}",
                self.one(&["$and", "$or", "$nor"]),
                self.list(3, Gen::filter)
            ),
            3 => format!("$expr: {}", self.expr()),
            4 => format!("{}: {}", self.path(), self.one(REGEXES)),
            5 if self.pick(4) == 0 => format!("$jsonSchema: {}", self.schema()),
            _ => {
                let path = self.path();
                let ops = self.object(3, Gen::query_op);
                format!("{path}: {ops}")
            }
        }
    }

    fn query_op(&mut self) -> String {
        let op = self.one(QUERY_OPS);
        let arg = match op {
            "$elemMatch" => match self.pick(2) {
                0 => self.filter(),
                _ => self.object(2, Gen::query_op),
            },
            "$not" => match self.pick(2) {
                0 => self.object(2, Gen::query_op),
                _ => self.one(REGEXES).to_string(),
            },
            "$in" | "$nin" | "$all" => self.list(4, Gen::value),
            "$regex" => self.one(REGEX_STRINGS).to_string(),
            "$options" => quote(self.one(&["i", "m", "s", "x", "ims", "u", "q", ""])),
            "$mod" | "$size" | "$type" | "$bitsAllSet" | "$bitsAnyClear" => match self.pick(3) {
                0 => self.list(3, |g| g.scalar()),
                _ => self.scalar(),
            },
            _ => self.value(),
        };
        format!("{op}: {arg}")
    }

    fn schema(&mut self) -> String {
        self.object(3, |g| {
            let k = g.one(SCHEMA_KEYS);
            let v = match k {
                "properties" | "patternProperties" => {
                    g.object(2, |g| format!("{}: {}", g.key(), g.schema()))
                }
                "items" | "not" | "additionalProperties" => match g.pick(2) {
                    0 => g.schema(),
                    _ => g.one(&["true", "false"]).to_string(),
                },
                "allOf" | "anyOf" | "oneOf" => g.list(2, Gen::schema),
                _ => g.value(),
            };
            format!("{k}: {v}")
        })
    }

    pub fn projection(&mut self) -> String {
        self.object(3, |g| {
            let v = match g.pick(6) {
                0 => "1".to_string(),
                1 => "0".to_string(),
                2 => format!("{{$slice: {}}}", g.value()),
                3 => format!("{{$elemMatch: {}}}", g.filter()),
                _ => g.expr(),
            };
            format!("{}: {v}", g.path())
        })
    }

    pub fn sort_spec(&mut self) -> String {
        self.object(2, |g| {
            let dir = g.one(&["1", "-1", "0", "2", "'x'", "{$meta: 'textScore'}", "-1.0"]);
            format!("{}: {dir}", g.path())
        })
    }

    // ---- updates ------------------------------------------------------------

    pub fn update(&mut self) -> String {
        match self.pick(6) {
            4 => self.document(),
            5 => self.pipeline(),
            _ => self.object_nonempty(3, |g| {
                let op = g.one(UPDATE_OPS);
                let fields = g.object(3, |g| {
                    let v = match (op, g.pick(3)) {
                        ("$push" | "$addToSet", 0) => g.object(4, |g| {
                            let m = g.one(&["$each", "$slice", "$sort", "$position", "$bogus"]);
                            let v = match m {
                                "$each" => g.list(4, Gen::value),
                                "$sort" => match g.pick(2) {
                                    0 => g.sort_spec(),
                                    _ => g.scalar(),
                                },
                                _ => g.scalar(),
                            };
                            format!("{m}: {v}")
                        }),
                        ("$pull", 0) => g.filter(),
                        ("$bit", _) => g.object(2, |g| {
                            format!("{}: {}", g.one(&["and", "or", "xor", "nand"]), g.scalar())
                        }),
                        ("$currentDate", _) => g
                            .one(&["true", "{$type: 'date'}", "{$type: 'timestamp'}", "1"])
                            .to_string(),
                        ("$rename", _) => g.path(),
                        _ => g.value(),
                    };
                    format!("{}: {v}", quote(g.one(UPDATE_PATHS)))
                });
                format!("{op}: {fields}")
            }),
        }
    }

    fn write_options(&mut self) -> String {
        self.object(3, |g| match g.pick(7) {
            0 => format!("upsert: {}", g.one(&["true", "false", "1"])),
            1 => format!("arrayFilters: {}", g.list(2, Gen::filter)),
            2 => format!("sort: {}", g.sort_spec()),
            3 => format!("projection: {}", g.projection()),
            4 => format!("returnNewDocument: {}", g.one(&["true", "false"])),
            5 => format!("returnDocument: {}", g.one(&["'after'", "'before'", "'x'"])),
            _ => format!("{}: {}", g.key(), g.scalar()),
        })
    }

    // ---- aggregation ------------------------------------------------------------

    pub fn pipeline(&mut self) -> String {
        self.list(4, Gen::stage)
    }

    fn accumulator(&mut self) -> String {
        let acc = self.one(ACCUMULATORS);
        let arg = match acc {
            "$topN" | "$bottomN" | "$top" | "$bottom" | "$firstN" | "$lastN" | "$maxN"
            | "$minN" | "$percentile" | "$median" => self.object(3, |g| {
                let k = g.one(&["n", "sortBy", "output", "input", "p", "method"]);
                let v = match k {
                    "sortBy" => g.sort_spec(),
                    "method" => "'approximate'".to_string(),
                    _ => g.expr(),
                };
                format!("{k}: {v}")
            }),
            _ => self.expr(),
        };
        format!("{{{acc}: {arg}}}")
    }

    pub fn stage(&mut self) -> String {
        let name = self.one(STAGES);
        let arg = match name {
            "$match" => self.filter(),
            "$project" => self.projection(),
            "$addFields" | "$set" => self.object(3, |g| format!("{}: {}", g.path(), g.expr())),
            "$unset" => match self.pick(2) {
                0 => self.path(),
                _ => self.list(2, Gen::path),
            },
            "$group" => {
                let id = self.expr();
                let accs = self.object(3, |g| format!("{}: {}", g.key(), g.accumulator()));
                let inner = accs
                    .strip_prefix('{')
                    .and_then(|a| a.strip_suffix('}'))
                    .unwrap_or("");
                if inner.is_empty() {
                    format!("{{_id: {id}}}")
                } else {
                    format!("{{_id: {id}, {inner}}}")
                }
            }
            "$sort" => self.sort_spec(),
            "$limit" | "$skip" | "$sample" => match name {
                "$sample" => format!("{{size: {}}}", self.scalar()),
                _ => self.scalar(),
            },
            "$count" => self.key(),
            "$unwind" => match self.pick(2) {
                0 => self.field_ref(),
                _ => format!(
                    "{{path: {}, includeArrayIndex: {}, preserveNullAndEmptyArrays: {}}}",
                    self.field_ref(),
                    self.key(),
                    self.one(&["true", "false", "1"])
                ),
            },
            "$lookup" => match self.pick(2) {
                0 => format!(
                    "{{from: {}, localField: {}, foreignField: {}, as: {}}}",
                    self.one(COLLECTIONS),
                    self.path(),
                    self.path(),
                    self.key()
                ),
                _ => format!(
                    "{{from: {}, let: {{v: {}}}, pipeline: {}, as: {}}}",
                    self.one(COLLECTIONS),
                    self.expr(),
                    self.pipeline(),
                    self.key()
                ),
            },
            "$graphLookup" => format!(
                "{{from: {}, startWith: {}, connectFromField: {}, connectToField: {}, as: {}, maxDepth: {}, depthField: {}}}",
                self.one(COLLECTIONS),
                self.expr(),
                self.path(),
                self.path(),
                self.key(),
                self.scalar(),
                self.key()
            ),
            "$unionWith" => format!(
                "{{coll: {}, pipeline: {}}}",
                self.one(COLLECTIONS),
                self.pipeline()
            ),
            "$facet" => self.object(2, |g| format!("{}: {}", g.key(), g.pipeline())),
            "$replaceRoot" => format!("{{newRoot: {}}}", self.expr()),
            "$replaceWith" | "$sortByCount" | "$redact" => self.expr(),
            "$bucket" => format!(
                "{{groupBy: {}, boundaries: {}, default: {}, output: {{n: {}}}}}",
                self.expr(),
                self.list(4, |g| g.scalar()),
                self.scalar(),
                self.accumulator()
            ),
            "$bucketAuto" => format!(
                "{{groupBy: {}, buckets: {}, granularity: {}}}",
                self.expr(),
                self.scalar(),
                quote(self.one(&["R5", "E12", "POWERSOF2", "1-2-5", "x"]))
            ),
            "$setWindowFields" => format!(
                "{{partitionBy: {}, sortBy: {}, output: {{w: {{{}: {}, window: {{{}: {}}}}}}}}}",
                self.expr(),
                self.sort_spec(),
                self.one(WINDOW_OPS),
                self.expr(),
                self.one(&["documents", "range"]),
                self.list(2, |g| g.one(&["'unbounded'", "'current'", "-1", "0", "1", "2.5", "'x'"]).to_string()),
            ),
            "$densify" => format!(
                "{{field: {}, range: {{step: {}, bounds: {}, unit: {}}}}}",
                self.path(),
                self.scalar(),
                match self.pick(2) {
                    0 => quote(self.one(&["full", "partition"])),
                    _ => self.list(2, |g| g.scalar()),
                },
                quote(self.one(&["day", "hour", "millisecond", "year", "bogus"]))
            ),
            "$fill" => format!(
                "{{sortBy: {}, output: {{{}: {{{}: {}}}}}}}",
                self.sort_spec(),
                self.path(),
                self.one(&["value", "method"]),
                self.one(&["'locf'", "'linear'", "0", "'$a'"])
            ),
            "$documents" => self.list(3, Gen::document),
            "$out" | "$merge" => quote(self.one(&["out", "c", "d", ""])),
            _ => self.value(),
        };
        format!("{{{name}: {arg}}}")
    }

    // ---- scripts ---------------------------------------------------------------

    pub fn statement(&mut self) -> String {
        let c = self.one(COLLECTIONS_BARE);
        match self.pick(18) {
            0 | 1 => {
                let mut s = format!("db.{c}.find({}", self.filter());
                if self.pick(2) == 1 {
                    s.push_str(&format!(", {}", self.projection()));
                }
                s.push(')');
                for _ in 0..self.count(3) {
                    s.push_str(&match self.pick(6) {
                        0 => format!(".sort({})", self.sort_spec()),
                        1 => format!(".skip({})", self.scalar()),
                        2 => format!(".limit({})", self.scalar()),
                        3 => ".count()".to_string(),
                        4 => ".toArray()".to_string(),
                        _ => format!(".projection({})", self.projection()),
                    });
                }
                s
            }
            2 => format!("db.{c}.findOne({})", self.filter()),
            3 => format!("db.{c}.countDocuments({})", self.filter()),
            4 => format!("db.{c}.distinct({}, {})", self.path(), self.filter()),
            5 | 6 => format!(
                "db.{c}.{}({}, {}, {})",
                self.one(&["updateOne", "updateMany"]),
                self.filter(),
                self.update(),
                self.write_options()
            ),
            7 => format!(
                "db.{c}.replaceOne({}, {}, {})",
                self.filter(),
                self.document(),
                self.write_options()
            ),
            8 => format!(
                "db.{c}.{}({})",
                self.one(&["deleteOne", "deleteMany"]),
                self.filter()
            ),
            9 => format!(
                "db.{c}.findOneAndUpdate({}, {}, {})",
                self.filter(),
                self.update(),
                self.write_options()
            ),
            10 => format!(
                "db.{c}.{}({}, {})",
                self.one(&["findOneAndReplace", "findOneAndDelete"]),
                self.filter(),
                self.document()
            ),
            11 => format!("db.{c}.insertOne({})", self.document()),
            12 => format!("db.{c}.insertMany({})", self.list(3, Gen::document)),
            13 | 14 => format!("db.{c}.aggregate({})", self.pipeline()),
            15 => {
                let docs = self.list(3, Gen::document);
                let rest = self.pipeline();
                let rest = rest
                    .strip_prefix('[')
                    .and_then(|r| r.strip_suffix(']'))
                    .unwrap_or("");
                let sep = if rest.is_empty() { "" } else { ", " };
                format!("db.aggregate([{{$documents: {docs}}}{sep}{rest}])")
            }
            16 => format!(
                "db.{c}.bulkWrite({})",
                self.list(3, |g| match g.pick(4) {
                    0 => format!("{{insertOne: {{document: {}}}}}", g.document()),
                    1 => format!(
                        "{{updateMany: {{filter: {}, update: {}, upsert: {}}}}}",
                        g.filter(),
                        g.update(),
                        g.one(&["true", "false"])
                    ),
                    2 => format!("{{deleteOne: {{filter: {}}}}}", g.filter()),
                    _ => format!(
                        "{{replaceOne: {{filter: {}, replacement: {}}}}}",
                        g.filter(),
                        g.document()
                    ),
                })
            ),
            _ => format!("var x = {}; db.{c}.find({{a: x}})", self.value()),
        }
    }

    /// One to three statements, one per line.
    pub fn script(&mut self) -> String {
        let n = 1 + self.pick(3);
        (0..n)
            .map(|_| self.statement())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A JavaScript string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\0' => out.push_str("\\u0000"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const COLLECTIONS: &[&str] = &["'c'", "'d'", "'none'", "''", "1"];
const COLLECTIONS_BARE: &[&str] = &["c", "c", "d", "e"];

const SCALARS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "10",
    "0.5",
    "-0.0",
    "1.5e300",
    "1e308",
    "-1e308",
    "NaN",
    "Infinity",
    "-Infinity",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "1e9",
    "100000",
    "NumberLong('9223372036854775807')",
    "NumberLong('-9223372036854775808')",
    "NumberLong(3)",
    "NumberInt(5)",
    "NumberDecimal('1.5')",
    "NumberDecimal('1E+6144')",
    "NumberDecimal('-NaN')",
    "NumberDecimal('Infinity')",
    "NumberDecimal('0E-6176')",
    "NumberDecimal('9999999999999999999999999999999999')",
    "true",
    "false",
    "null",
    "undefined",
    "''",
    "'a'",
    "'abc'",
    "'é😀'",
    "'$a'",
    "'$b.c'",
    "'$$ROOT'",
    "'$$NOW'",
    "'$$REMOVE'",
    "'$'",
    "'$$'",
    "'a.b'",
    "'.'",
    "'\\u0000'",
    "'2024-01-01'",
    "'2024-02-30T25:00:00Z'",
    "'%Y-%m-%d'",
    "'America/New_York'",
    "'+99:99'",
    "ObjectId('5a934e000102030405000000')",
    "ISODate('2024-01-01T00:00:00Z')",
    "new Date(8.64e15)",
    "new Date(-8.64e15)",
    "new Date()",
    "/a(b)?/i",
    "/^$/",
    "Timestamp(1, 2)",
    "Timestamp(0, 0)",
    "BinData(0, 'AQID')",
    "UUID('0123456789abcdef0123456789abcdef')",
    "MinKey()",
    "MaxKey()",
    "[]",
    "{}",
];

const KEYS: &[&str] = &[
    "a", "b", "c", "_id", "arr", "n", "s", "t", "x", "y", "e", "v", "a.b", "$a", "", "$$x",
    "k\u{0}", "é", "0", "1",
];

const PATHS: &[&str] = &[
    "a", "b", "b.c", "b.d", "b.d.2.e", "arr", "arr.0", "arr.x", "arr.1.x", "arr.x.0", "s", "n",
    "t", "_id", "_id.x", "o", "ts", "bin", "missing", "a.0.1", "f", "p", "", ".", "a..b", "$a",
    "a.$", "arr.$[]", "b.c.d", "u", "k", "m",
];

const UPDATE_PATHS: &[&str] = &[
    "a",
    "b.c",
    "arr.$",
    "arr.$[]",
    "arr.$[e]",
    "arr.$[].x",
    "arr.$[e].x",
    "arr.0",
    "arr.5",
    "arr.100000",
    "n",
    "new.field",
    "_id",
    "b.d.1",
    "s.x",
    "a.b.c.d.e.f",
    "$x",
    "",
    "a..b",
    "arr.-1",
    "t",
    "x.$[unknown]",
];

const FIELD_REFS: &[&str] = &[
    "$a",
    "$b",
    "$b.c",
    "$b.d",
    "$arr",
    "$arr.x",
    "$s",
    "$n",
    "$t",
    "$_id",
    "$missing",
    "$$ROOT",
    "$$CURRENT",
    "$$NOW",
    "$$this",
    "$$value",
    "$$REMOVE",
    "$$v",
    "$$x",
    "$$DESCEND",
    "$$PRUNE",
    "$$KEEP",
    "$",
    "$$",
    "$a.",
    "$.a",
    "$ts",
    "$bin",
    "$o",
    "$u",
];

const REGEXES: &[&str] = &[
    "/a/",
    "/^a/i",
    "/b+c/",
    "/(a)\\1/",
    "/a(?=b)/",
    "/a++/",
    "/(?>a)/",
    "/\\Gx/",
    "/[/",
    "/é/u",
    "/^.*$/ms",
    "/a{2,}/",
    "/a{,3}/",
    "/(?<n>a)\\k<n>/",
    "/\\p{L}+/",
    "/a|/",
];

const REGEX_STRINGS: &[&str] = &[
    "'a'",
    "'^a.*'",
    "'('",
    "'(a)\\\\1'",
    "'a(?<=b)'",
    "'[[:alpha:]]'",
    "'\\\\Q.\\\\E'",
    "'a{99999}'",
    "'(a*)*b'",
    "'x*+'",
];

const QUERY_OPS: &[&str] = &[
    "$eq",
    "$ne",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
    "$in",
    "$nin",
    "$exists",
    "$type",
    "$size",
    "$all",
    "$elemMatch",
    "$not",
    "$regex",
    "$options",
    "$mod",
    "$bitsAllSet",
    "$bitsAnySet",
    "$bitsAllClear",
    "$bitsAnyClear",
    "$where",
    "$near",
    "$text",
    "$comment",
    "$bogus",
];

const UPDATE_OPS: &[&str] = &[
    "$set",
    "$unset",
    "$inc",
    "$mul",
    "$min",
    "$max",
    "$rename",
    "$push",
    "$addToSet",
    "$pull",
    "$pullAll",
    "$pop",
    "$bit",
    "$currentDate",
    "$setOnInsert",
    "$bogus",
    "$",
];

const STAGES: &[&str] = &[
    "$match",
    "$project",
    "$addFields",
    "$set",
    "$unset",
    "$group",
    "$sort",
    "$limit",
    "$skip",
    "$count",
    "$unwind",
    "$lookup",
    "$graphLookup",
    "$unionWith",
    "$facet",
    "$replaceRoot",
    "$replaceWith",
    "$sortByCount",
    "$bucket",
    "$bucketAuto",
    "$setWindowFields",
    "$densify",
    "$fill",
    "$sample",
    "$redact",
    "$documents",
    "$out",
    "$merge",
    "$bogus",
    "$geoNear",
];

const ACCUMULATORS: &[&str] = &[
    "$sum",
    "$avg",
    "$min",
    "$max",
    "$first",
    "$last",
    "$push",
    "$addToSet",
    "$count",
    "$stdDevPop",
    "$stdDevSamp",
    "$mergeObjects",
    "$top",
    "$bottom",
    "$topN",
    "$bottomN",
    "$firstN",
    "$lastN",
    "$maxN",
    "$minN",
    "$median",
    "$percentile",
    "$accumulator",
    "$bogus",
];

const WINDOW_OPS: &[&str] = &[
    "$sum",
    "$avg",
    "$min",
    "$max",
    "$push",
    "$rank",
    "$denseRank",
    "$documentNumber",
    "$shift",
    "$derivative",
    "$integral",
    "$expMovingAvg",
    "$covariancePop",
    "$covarianceSamp",
    "$first",
    "$last",
    "$locf",
    "$linearFill",
    "$minMaxScaler",
    "$stdDevPop",
];

const SCHEMA_KEYS: &[&str] = &[
    "bsonType",
    "type",
    "properties",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "enum",
    "additionalProperties",
    "patternProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "multipleOf",
    "minProperties",
    "dependencies",
    "title",
];

const ARG_NAMES: &[&str] = &[
    "input",
    "as",
    "in",
    "cond",
    "then",
    "else",
    "if",
    "initialValue",
    "vars",
    "regex",
    "options",
    "find",
    "replacement",
    "n",
    "sortBy",
    "field",
    "value",
    "date",
    "unit",
    "amount",
    "startDate",
    "endDate",
    "timezone",
    "format",
    "onError",
    "onNull",
    "to",
    "branches",
    "default",
    "case",
    "chars",
    "start",
    "end",
    "step",
    "size",
    "limit",
    "inputs",
    "useLongestLength",
    "defaults",
    "dateString",
    "year",
    "month",
    "day",
    "hour",
    "isoWeekYear",
    "binSize",
    "startOfWeek",
    "iso8601",
    "place",
    "by",
    "subtype",
    "format",
    "p",
    "method",
];

/// Every expression operator name the engine knows, plus a few it does not.
const EXPR_OPS: &[&str] = &[
    "$abs",
    "$acos",
    "$acosh",
    "$add",
    "$allElementsTrue",
    "$and",
    "$anyElementTrue",
    "$arrayElemAt",
    "$arrayToObject",
    "$asin",
    "$asinh",
    "$atan",
    "$atan2",
    "$atanh",
    "$avg",
    "$binarySize",
    "$bitAnd",
    "$bitNot",
    "$bitOr",
    "$bitXor",
    "$bsonSize",
    "$ceil",
    "$cmp",
    "$concat",
    "$concatArrays",
    "$cond",
    "$const",
    "$convert",
    "$cos",
    "$cosh",
    "$dateAdd",
    "$dateDiff",
    "$dateFromParts",
    "$dateFromString",
    "$dateSubtract",
    "$dateToParts",
    "$dateToString",
    "$dateTrunc",
    "$dayOfMonth",
    "$dayOfWeek",
    "$dayOfYear",
    "$degreesToRadians",
    "$divide",
    "$eq",
    "$exp",
    "$filter",
    "$first",
    "$firstN",
    "$floor",
    "$function",
    "$getField",
    "$gt",
    "$gte",
    "$hour",
    "$ifNull",
    "$in",
    "$indexOfArray",
    "$indexOfBytes",
    "$indexOfCP",
    "$isArray",
    "$isNumber",
    "$isoDayOfWeek",
    "$isoWeek",
    "$isoWeekYear",
    "$last",
    "$lastN",
    "$let",
    "$literal",
    "$ln",
    "$log",
    "$log10",
    "$lt",
    "$lte",
    "$ltrim",
    "$map",
    "$max",
    "$maxN",
    "$median",
    "$mergeObjects",
    "$meta",
    "$millisecond",
    "$min",
    "$minN",
    "$minute",
    "$mod",
    "$month",
    "$multiply",
    "$ne",
    "$not",
    "$objectToArray",
    "$or",
    "$percentile",
    "$pow",
    "$radiansToDegrees",
    "$rand",
    "$range",
    "$reduce",
    "$regexFind",
    "$regexFindAll",
    "$regexMatch",
    "$replaceAll",
    "$replaceOne",
    "$reverseArray",
    "$round",
    "$rtrim",
    "$sampleRate",
    "$second",
    "$setDifference",
    "$setEquals",
    "$setField",
    "$setIntersection",
    "$setIsSubset",
    "$setUnion",
    "$sin",
    "$sinh",
    "$size",
    "$slice",
    "$sortArray",
    "$split",
    "$sqrt",
    "$stdDevPop",
    "$stdDevSamp",
    "$strcasecmp",
    "$strLenBytes",
    "$strLenCP",
    "$substr",
    "$substrBytes",
    "$substrCP",
    "$subtract",
    "$sum",
    "$switch",
    "$tan",
    "$tanh",
    "$toBool",
    "$toDate",
    "$toDecimal",
    "$toDouble",
    "$toHashedIndexKey",
    "$toInt",
    "$toLong",
    "$toLower",
    "$toObjectId",
    "$toString",
    "$toUpper",
    "$toUUID",
    "$trim",
    "$trunc",
    "$tsIncrement",
    "$tsSecond",
    "$type",
    "$unsetField",
    "$week",
    "$year",
    "$zip",
    "$bogus",
    "$",
    "$$a",
];
