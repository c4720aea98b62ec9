//! Index specifications: the key pattern and options of `createIndex`,
//! validated as the server does, the generated name (`a_1_b_-1`), and the
//! document `getIndexes()` lists.
//! See https://www.mongodb.com/docs/manual/reference/method/db.collection.createIndex/.
use crate::collation::Collation;
use crate::error::{Error, Result};
use crate::expr::CompileCtx;
use crate::fts::TextIndexSpec;
use crate::geo::{FlatRange, GeoKind};
use crate::query::Filter;
use crate::text::shell::{inline, type_name};
use crate::value::numeric::{is_number, to_f64};
use crate::value::path::{FieldPath, Part};
use bson::{Bson, Document};
use std::rc::Rc;

/// MongoDB's limit on compound index fields.
const MAX_FIELDS: usize = 32;

#[derive(Clone, Debug)]
pub struct IndexSpec {
    pub name: String,
    /// The key pattern as given (`{a: 1, b: -1}`).
    pub key: Document,
    pub paths: Vec<FieldPath>,
    /// Bit `i` set: field `i` is descending.
    pub desc: u32,
    pub unique: bool,
    pub sparse: bool,
    pub hidden: bool,
    pub partial: Option<Filter>,
    /// The index's collation: its keys hold strings' sort keys (`None`: simple).
    pub collation: Option<Rc<Collation>>,
    /// The options shown by `getIndexes()` after `v`, `key` and `name`, in the order given.
    pub options: Document,
    /// A text index's weights and languages (its key is `{_fts: "text", _ftsx: 1}`).
    pub text: Option<Box<TextIndexSpec>>,
    /// The geospatial fields (`2dsphere`, `2d`) by position, and a 2d index's range.
    pub geo: Vec<(usize, GeoKind)>,
    pub flat_range: FlatRange,
}

fn cannot_create(message: impl Into<String>) -> Error {
    Error::cannot_create_index(message)
}

fn invalid_option(message: impl Into<String>) -> Error {
    Error::invalid_index_specification_option(message)
}

/// `Bson` truthiness for boolean options (`unique: 1` works as in the shell).
fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        v if is_number(v) => to_f64(v).is_some_and(|x| x != 0.0),
        _ => true,
    }
}

impl IndexSpec {
    /// The `_id` index every collection has.
    pub fn id_index() -> IndexSpec {
        let mut key = Document::new();
        key.insert("_id", 1);
        IndexSpec {
            name: "_id_".to_string(),
            key,
            paths: vec![FieldPath::new("_id")],
            desc: 0,
            unique: true,
            sparse: false,
            hidden: false,
            partial: None,
            collation: None,
            options: Document::new(),
            text: None,
            geo: Vec::new(),
            flat_range: FlatRange::default(),
        }
    }

    pub fn is_id(&self) -> bool {
        self.name == "_id_"
    }

    /// Parse `createIndex(keys, options)`.
    pub fn parse(keys: &Document, options: &Document) -> Result<IndexSpec> {
        let text = if crate::fts::is_text_pattern(keys) {
            Some(crate::fts::fix_spec(keys, options)?)
        } else {
            None
        };
        let (paths, desc) = match &text {
            // A text index's keys are its own (crate::fts); the planner leaves it alone.
            Some(_) => (Vec::new(), 0),
            None => parse_key_pattern(keys)?,
        };
        let mut spec = IndexSpec {
            name: options_name(options)?.unwrap_or_else(|| default_name(keys)),
            key: keys.clone(),
            paths,
            desc,
            unique: false,
            sparse: false,
            hidden: false,
            partial: None,
            collation: None,
            options: Document::new(),
            text: None,
            geo: geo_fields(keys)?,
            flat_range: FlatRange::default(),
        };
        let is_id_pattern = keys.len() == 1 && keys.keys().next().is_some_and(|k| k == "_id");
        for (k, v) in options {
            match k.as_str() {
                "name" => continue,
                "unique" => spec.unique = truthy(v),
                "sparse" => spec.sparse = truthy(v),
                "hidden" => {
                    let Bson::Boolean(b) = v else {
                        return Err(Error::type_mismatch(format!(
                            "The field 'hidden' must be a boolean, but got {}",
                            type_name(v)
                        )));
                    };
                    spec.hidden = *b;
                }
                "partialFilterExpression" => {
                    let Bson::Document(filter) = v else {
                        return Err(Error::type_mismatch(
                            "The field 'partialFilterExpression' must be an object",
                        ));
                    };
                    check_partial(filter, true)?;
                    spec.partial = Some(Filter::compile(filter, &CompileCtx::default())?);
                }
                "expireAfterSeconds" => check_ttl(v, keys)?,
                // Accepted and not shown: every index is v2 and built at once here.
                "background" | "v" => continue,
                "storageEngine" => {}
                // Shown resolved; `{locale: "simple"}` is not shown.
                "collation" => {
                    spec.collation = crate::storage::collation::parse(v)?;
                    if let Some(c) = &spec.collation {
                        spec.options.insert("collation", c.spec().clone());
                    }
                    continue;
                }
                "2dsphereIndexVersion" | "bits" | "min" | "max" if !spec.geo.is_empty() => {
                    geo_option(&mut spec, k, v)?
                }
                "weights" | "default_language" | "language_override" | "textIndexVersion"
                    if text.is_some() =>
                {
                    continue
                }
                "weights" | "default_language" | "language_override" | "textIndexVersion"
                | "2dsphereIndexVersion" | "bits" | "min" | "max" | "wildcardProjection" => {
                    return Err(Error::not_supported(format!(
                        "the index option '{k}' (text, geospatial and wildcard indexes)"
                    )))
                }
                other => {
                    return Err(invalid_option(format!(
                        "The field '{other}' is not valid for an index specification. Specification: {}",
                        inline(&Bson::Document(spec_preview(keys, options)))
                    )))
                }
            }
            spec.options.insert(k.clone(), v.clone());
        }
        if let Some(fixed) = text {
            if spec.unique {
                return Err(cannot_create(
                    "Index type 'text' does not support the 'unique' option",
                ));
            }
            spec.key = fixed.key;
            spec.options = fixed.options;
            spec.text = Some(Box::new(fixed.spec));
        }
        if spec.sparse && spec.partial.is_some() {
            return Err(cannot_create(
                "cannot mix \"partialFilterExpression\" and \"sparse\" options",
            ));
        }
        if is_id_pattern && spec.desc == 0 {
            for bad in [
                "unique",
                "sparse",
                "partialFilterExpression",
                "expireAfterSeconds",
            ] {
                if options.contains_key(bad) {
                    return Err(invalid_option(format!(
                        "The field '{bad}' is not valid for an _id index specification. Specification: {}",
                        inline(&Bson::Document(spec_preview(keys, options)))
                    )));
                }
            }
            spec.unique = true;
        }
        Ok(spec)
    }

    /// The key path parts of each field.
    pub fn parts(&self) -> Vec<Vec<Part>> {
        self.paths.iter().map(|p| p.parts().to_vec()).collect()
    }

    pub fn field_names(&self) -> Vec<String> {
        self.key.keys().cloned().collect()
    }

    /// The `getIndexes()` entry: `{v: 2, key, name, ...options}`.
    pub fn describe(&self) -> Document {
        let mut d = Document::new();
        d.insert("v", 2);
        d.insert("key", self.key.clone());
        d.insert("name", self.name.clone());
        for (k, v) in &self.options {
            d.insert(k.clone(), v.clone());
        }
        if self.geo.iter().any(|(_, g)| *g == GeoKind::Sphere2d)
            && !d.contains_key("2dsphereIndexVersion")
        {
            d.insert("2dsphereIndexVersion", 3);
        }
        d
    }

    /// Give the index the collection's default collation (an index created
    /// without a `collation` option inherits it).
    pub fn inherit_collation(&mut self, default: Option<Rc<Collation>>) {
        if let Some(c) = default {
            self.options.insert("collation", c.spec().clone());
            self.collation = Some(c);
        }
    }

    /// Same definition (keys and options that matter), ignoring the name.
    pub fn same_options(&self, other: &IndexSpec) -> bool {
        crate::collation::same(self.collation.as_deref(), other.collation.as_deref())
            && self.unique == other.unique
            && self.sparse == other.sparse
            && self.options.get("partialFilterExpression")
                == other.options.get("partialFilterExpression")
            && self.options.get("expireAfterSeconds") == other.options.get("expireAfterSeconds")
            && self.text == other.text
    }

    pub fn same_keys(&self, other: &IndexSpec) -> bool {
        crate::value::order::compare_documents(&self.key, &other.key) == std::cmp::Ordering::Equal
            && self.desc == other.desc
    }
}

/// `{v: 2, key: ..., name: ...}` for error messages.
fn spec_preview(keys: &Document, options: &Document) -> Document {
    let mut d = Document::new();
    d.insert("key", keys.clone());
    d.insert(
        "name",
        options_name(options)
            .ok()
            .flatten()
            .unwrap_or_else(|| default_name(keys)),
    );
    for (k, v) in options {
        if k != "name" {
            d.insert(k.clone(), v.clone());
        }
    }
    d
}

fn options_name(options: &Document) -> Result<Option<String>> {
    match options.get("name") {
        None => Ok(None),
        Some(Bson::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(Bson::String(_)) => Err(cannot_create("The index name cannot be empty")),
        Some(v) => Err(Error::type_mismatch(format!(
            "The field 'name' must be a string, but got {}",
            type_name(v)
        ))),
    }
}

/// `a_1_b_-1`: each field and its value, joined by `_`.
pub fn default_name(keys: &Document) -> String {
    keys.iter()
        .map(|(k, v)| {
            let v = match v {
                Bson::String(s) => s.clone(),
                Bson::Int32(n) => n.to_string(),
                Bson::Int64(n) => n.to_string(),
                v => match to_f64(v) {
                    Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
                    Some(x) => x.to_string(),
                    None => inline(v),
                },
            };
            format!("{k}_{v}")
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// Validate a key pattern: field paths with numeric directions.
fn parse_key_pattern(keys: &Document) -> Result<(Vec<FieldPath>, u32)> {
    if keys.is_empty() {
        return Err(cannot_create("Index keys cannot be an empty field."));
    }
    if keys.len() > MAX_FIELDS {
        return Err(cannot_create(format!(
            "Index key pattern has {} fields; the limit is {MAX_FIELDS}",
            keys.len()
        )));
    }
    let mut paths = Vec::with_capacity(keys.len());
    let mut desc = 0u32;
    for (i, (field, v)) in keys.iter().enumerate() {
        if field.is_empty() || field.split('.').any(str::is_empty) {
            return Err(cannot_create(format!(
                "Index keys cannot contain an empty field name: {}",
                inline(&Bson::Document(keys.clone()))
            )));
        }
        if field.split('.').any(|p| p.starts_with('$')) {
            return Err(cannot_create(format!(
                "Index key contains an illegal field name: field name starts with '$'. {}",
                inline(&Bson::Document(keys.clone()))
            )));
        }
        match v {
            Bson::String(s) if GeoKind::from_name(s).is_some() => {}
            Bson::String(s) => {
                return Err(match s.as_str() {
                    "text" | "2d" | "2dsphere" | "geoHaystack" | "hashed" => {
                        Error::not_supported(format!("{s} indexes"))
                    }
                    other => cannot_create(format!("Unknown index plugin '{other}'")),
                })
            }
            v if is_number(v) => {
                let x = to_f64(v).unwrap_or(0.0);
                if x == 0.0 || x.is_nan() {
                    return Err(cannot_create(format!(
                        "Values in the index key pattern can't be 0. Found {} in the key pattern {}",
                        inline(v),
                        inline(&Bson::Document(keys.clone()))
                    )));
                }
                if x < 0.0 {
                    desc |= 1 << i;
                }
            }
            other => {
                return Err(cannot_create(format!(
                    "Values in v:2 index key pattern cannot be of type {}. Only numbers > 0, numbers < 0, and strings are allowed.",
                    type_name(other)
                )))
            }
        }
        if field.contains("$**") {
            return Err(Error::not_supported("wildcard indexes"));
        }
        paths.push(FieldPath::new(field));
    }
    Ok((paths, desc))
}

/// The `2dsphere` and `2d` fields of a key pattern; a 2d field comes first
/// and alone of its kind.
fn geo_fields(keys: &Document) -> Result<Vec<(usize, GeoKind)>> {
    let geo: Vec<(usize, GeoKind)> = keys
        .values()
        .enumerate()
        .filter_map(|(i, v)| match v {
            Bson::String(s) => GeoKind::from_name(s).map(|g| (i, g)),
            _ => None,
        })
        .collect();
    let flat: Vec<usize> = geo
        .iter()
        .filter(|(_, g)| *g == GeoKind::Flat2d)
        .map(|(i, _)| *i)
        .collect();
    if flat.len() > 1 || flat.first().is_some_and(|&i| i != 0) {
        return Err(Error::location(13023, "2d has to be first in index"));
    }
    if !flat.is_empty() && geo.len() > 1 {
        return Err(cannot_create("can't have 2 geo fields"));
    }
    Ok(geo)
}

/// `2dsphereIndexVersion` (3; 2 behaves the same here), and a 2d index's
/// `min`, `max` and `bits`.
fn geo_option(spec: &mut IndexSpec, k: &str, v: &Bson) -> Result<()> {
    let sphere = spec.geo.iter().any(|(_, g)| *g == GeoKind::Sphere2d);
    let number = to_f64(v).filter(|_| is_number(v));
    match (k, sphere, number) {
        ("2dsphereIndexVersion", true, Some(x)) if x == 2.0 || x == 3.0 => Ok(()),
        ("2dsphereIndexVersion", true, Some(1.0)) => Err(Error::not_supported(
            "2dsphereIndexVersion 1",
        )),
        ("2dsphereIndexVersion", true, _) => Err(cannot_create(format!(
            "unsupported geo index version {{ 2dsphereIndexVersion : {} }}, only support versions: [1,2,3]",
            inline(v)
        ))),
        ("min", false, Some(x)) => {
            spec.flat_range.min = x;
            Ok(())
        }
        ("max", false, Some(x)) => {
            spec.flat_range.max = x;
            Ok(())
        }
        ("bits", false, Some(x)) if (1.0..=32.0).contains(&x) => Ok(()),
        ("bits", false, Some(_)) => Err(Error::location(
            13028,
            "bits in geo index must be between 1 and 32",
        )),
        _ => Err(invalid_option(format!(
            "The field '{k}' is not valid for this index type"
        ))),
    }
}

/// TTL: a non-negative number of seconds on a single-field index.
/// See https://www.mongodb.com/docs/manual/core/index-ttl/.
fn check_ttl(v: &Bson, keys: &Document) -> Result<()> {
    let Some(secs) = to_f64(v).filter(|_| is_number(v)) else {
        return Err(cannot_create(format!(
            "TTL index 'expireAfterSeconds' option must be numeric, but received a type of '{}'",
            type_name(v)
        )));
    };
    if !(0.0..=2_147_483_647.0).contains(&secs) {
        return Err(cannot_create(format!(
            "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number. Specified value: {}",
            inline(v)
        )));
    }
    if keys.len() > 1 {
        return Err(cannot_create(
            "TTL indexes are single-field indexes, compound indexes do not support TTL",
        ));
    }
    Ok(())
}

/// Partial filter expressions allow equality, `$exists: true`, comparisons,
/// `$type`, `$in` and top-level `$and`/`$or`.
/// See https://www.mongodb.com/docs/manual/core/index-partial/.
fn check_partial(filter: &Document, top: bool) -> Result<()> {
    let unsupported =
        |what: String| cannot_create(format!("unsupported expression in partial index: {what}"));
    for (k, v) in filter {
        match k.as_str() {
            "$and" | "$or" if top => {
                let Bson::Array(items) = v else {
                    return Err(unsupported(format!("{k} {}", inline(v))));
                };
                for item in items {
                    let Bson::Document(d) = item else {
                        return Err(unsupported(format!("{k} {}", inline(item))));
                    };
                    check_partial(d, false)?;
                }
            }
            k if k.starts_with('$') => return Err(unsupported(format!("{k} {}", inline(v)))),
            field => {
                if let Bson::Document(ops) = v {
                    if ops.keys().next().is_some_and(|o| o.starts_with('$')) {
                        for (op, arg) in ops {
                            let ok = match op.as_str() {
                                "$eq" | "$gt" | "$gte" | "$lt" | "$lte" | "$type" | "$in" => true,
                                "$exists" => truthy(arg),
                                _ => false,
                            };
                            if !ok {
                                return Err(unsupported(format!("{field} {op} {}", inline(arg))));
                            }
                        }
                    }
                } else if let Bson::RegularExpression(_) = v {
                    return Err(unsupported(format!("{field} regex {}", inline(v))));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn names_and_errors() {
        assert_eq!(default_name(&doc! {"a": 1, "b.c": -1}), "a_1_b.c_-1");
        let s = IndexSpec::parse(&doc! {"a": 1}, &doc! {"unique": true}).ok();
        assert_eq!(
            s.map(|s| s.describe()),
            Some(doc! {"v": 2, "key": {"a": 1}, "name": "a_1", "unique": true})
        );
        let code = |k: Document, o: Document| IndexSpec::parse(&k, &o).err().map(|e| e.code);
        assert_eq!(code(doc! {}, doc! {}), Some(67));
        assert_eq!(code(doc! {"a": 0}, doc! {}), Some(67));
        assert_eq!(code(doc! {"a": true}, doc! {}), Some(67));
        assert_eq!(code(doc! {"a": 1}, doc! {"foo": 1}), Some(197));
        assert_eq!(
            code(
                doc! {"a": 1},
                doc! {"sparse": true, "partialFilterExpression": {"a": 1}}
            ),
            Some(67)
        );
        assert_eq!(
            code(
                doc! {"a": 1},
                doc! {"partialFilterExpression": {"a": {"$ne": 1}}}
            ),
            Some(67)
        );
        assert_eq!(
            code(doc! {"a": 1, "b": 1}, doc! {"expireAfterSeconds": 5}),
            Some(67)
        );
    }
}
