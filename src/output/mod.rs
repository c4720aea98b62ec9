//! Rendering values for people: mongosh's shell format (`shell`), Extended JSON
//! through the bson crate (`extjson`), the same relaxed Extended JSON written
//! straight to text (`ejson_text`), and the page's run output (`page`).
pub mod ejson_text;
pub mod extjson;
pub mod page;
pub mod shell;
