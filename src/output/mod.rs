//! Rendering values for people: mongosh's shell format (`shell`) and
//! Extended JSON through the bson crate (`extjson`).
pub mod extjson;
pub mod shell;
