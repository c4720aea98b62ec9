//! Values written as text: mongosh's shell format (`shell`, also the helpers every
//! layer's messages use: `type_name`, `inline`, `js_number`, `quote`), Extended JSON
//! through the bson crate (`extjson`), and the same relaxed Extended JSON written
//! straight to text (`ejson`).
pub mod ejson;
pub mod extjson;
pub mod server;
pub mod shell;
