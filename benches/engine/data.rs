//! Deterministic data shaped like the seeds', as database configuration text.
//! bench/data.mjs generates the same bytes in JavaScript (same PRNG, same
//! order of draws, same formatting); the FNV-1a hashes of both are compared
//! in the report, so "the same data" is checked, not assumed.
use chrono::{DateTime, SecondsFormat};

/// mulberry32: tiny, fast, and easy to reproduce exactly in JavaScript.
pub struct Rng(u32);

impl Rng {
    pub fn new(seed: u32) -> Rng {
        Rng(seed)
    }
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x6D2B_79F5);
        let a = self.0;
        let mut t = (a ^ (a >> 15)).wrapping_mul(a | 1);
        t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
        t ^ (t >> 14)
    }
    /// 0..n
    pub fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }
}

pub const TICKERS: [&str; 10] = [
    "MDB", "GOOG", "AAPL", "MSFT", "AMZN", "TSLA", "NVDA", "META", "ORCL", "IBM",
];
/// 2023-10-26T00:00:00Z, the day of the bucket seed's first trade.
const TRADES_START_MS: i64 = 1_698_278_400_000;
/// 2022-09-11T11:00:00Z: the first of the 24 hourly totals of each sensor.
pub const SENSOR_FIRST_HOUR_MS: i64 = 1_662_894_000_000;
const HOUR_MS: i64 = 3_600_000;

/// `2023-10-26T15:47:03.434Z`, as JavaScript's `Date.prototype.toISOString`.
pub fn iso(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|d| d.to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// How a date is written: Extended JSON (the text is valid JSON after `db = `)
/// or mongosh's `ISODate(...)` with unquoted keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Form {
    ExtJson,
    Shell,
}

struct Out {
    s: String,
    form: Form,
}

impl Out {
    fn key(&mut self, k: &str) {
        match self.form {
            Form::ExtJson => {
                self.s.push('"');
                self.s.push_str(k);
                self.s.push_str("\":");
            }
            Form::Shell => {
                self.s.push_str(k);
                self.s.push_str(": ");
            }
        }
    }
    fn sep(&mut self) {
        self.s
            .push_str(if self.form == Form::Shell { ", " } else { "," });
    }
    fn int(&mut self, k: &str, v: i64) {
        self.key(k);
        self.s.push_str(&v.to_string());
    }
    fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        self.s.push('"');
        self.s.push_str(v);
        self.s.push('"');
    }
    fn date(&mut self, k: &str, ms: i64) {
        self.key(k);
        match self.form {
            Form::ExtJson => {
                self.s.push_str("{\"$date\":\"");
                self.s.push_str(&iso(ms));
                self.s.push_str("\"}");
            }
            Form::Shell => {
                self.s.push_str("ISODate(\"");
                self.s.push_str(&iso(ms));
                self.s.push_str("\")");
            }
        }
    }
    fn open_collection(&mut self, name: &str) {
        match self.form {
            Form::ExtJson => self.s.push_str(&format!("db = {{\"{name}\":[\n")),
            Form::Shell => self.s.push_str(&format!("db = {{\n  {name}: [\n")),
        }
    }
    fn doc_sep(&mut self, first: bool) {
        if !first {
            self.s.push_str(",\n");
        }
        if self.form == Form::Shell {
            self.s.push_str("    ");
        }
    }
    fn close_collection(&mut self) {
        match self.form {
            Form::ExtJson => self.s.push_str("\n]}\n"),
            Form::Shell => self.s.push_str("\n  ]\n}\n"),
        }
    }
}

/// `{_id, customerId, type, ticker, qty, date}` one trade a minute.
pub fn trades(n: usize, form: Form) -> String {
    let mut rng = Rng::new(1);
    let mut o = Out {
        s: String::with_capacity(n * 130),
        form,
    };
    o.open_collection("trades");
    for i in 0..n {
        o.doc_sep(i == 0);
        let customer = 100 + rng.below(1000);
        let kind = if rng.below(2) == 0 { "buy" } else { "sell" };
        let ticker = TICKERS[rng.below(10) as usize];
        let qty = 1 + rng.below(1000);
        let date = TRADES_START_MS + i as i64 * 60_000 + i64::from(rng.below(60_000));
        o.s.push('{');
        o.int("_id", i as i64);
        o.sep();
        o.int("customerId", customer.into());
        o.sep();
        o.str("type", kind);
        o.sep();
        o.str("ticker", ticker);
        o.sep();
        o.int("qty", qty.into());
        o.sep();
        o.date("date", date);
        o.s.push('}');
    }
    o.close_collection();
    o.s
}

/// Buckets of 10 trades: `{_id: "<customer>_<seconds>", customerId, count: 10, history: [...]}`.
pub fn buckets(n: usize) -> String {
    let mut rng = Rng::new(2);
    let mut o = Out {
        s: String::with_capacity(n * 1000),
        form: Form::ExtJson,
    };
    o.open_collection("buckets");
    for i in 0..n {
        o.doc_sep(i == 0);
        let customer = 100 + rng.below(1000);
        let secs = TRADES_START_MS / 1000 + i as i64 * 600 + i64::from(rng.below(600));
        o.s.push('{');
        o.str("_id", &format!("{customer}_{secs}"));
        o.sep();
        o.int("customerId", customer.into());
        o.sep();
        o.int("count", 10);
        o.sep();
        o.key("history");
        o.s.push('[');
        for j in 0..10 {
            if j > 0 {
                o.sep();
            }
            let kind = if rng.below(2) == 0 { "buy" } else { "sell" };
            let ticker = TICKERS[rng.below(10) as usize];
            let qty = 1 + rng.below(1000);
            let date = secs * 1000 + j * 1000 + i64::from(rng.below(1000));
            o.s.push('{');
            o.str("type", kind);
            o.sep();
            o.str("ticker", ticker);
            o.sep();
            o.int("qty", qty.into());
            o.sep();
            o.date("date", date);
            o.s.push('}');
        }
        o.s.push_str("]}");
    }
    o.close_collection();
    o.s
}

/// Products keeping their 10 most recent reviews (the subset seed).
pub fn products(n: usize) -> String {
    let mut rng = Rng::new(3);
    let mut o = Out {
        s: String::with_capacity(n * 1000),
        form: Form::ExtJson,
    };
    o.open_collection("products");
    for i in 0..n {
        o.doc_sep(i == 0);
        o.s.push('{');
        o.int("_id", i as i64);
        o.sep();
        o.str("name", &format!("Product {i}"));
        o.sep();
        o.int("price", (1 + rng.below(500)).into());
        o.sep();
        o.key("reviews");
        o.s.push('[');
        for j in 0..10 {
            if j > 0 {
                o.sep();
            }
            let user = rng.below(5000);
            let rating = 1 + rng.below(5);
            let date = TRADES_START_MS - i64::from(rng.below(86_400_000)) * 100;
            o.s.push('{');
            o.int("review_id", (i * 10 + j) as i64);
            o.sep();
            o.str("user", &format!("user{user}"));
            o.sep();
            o.int("rating", rating.into());
            o.sep();
            o.date("date", date);
            o.s.push('}');
        }
        o.s.push_str("]}");
    }
    o.close_collection();
    o.s
}

/// Sensors with 24 hourly totals `{timestamp, count}` (the pipeline-update seed).
pub fn sensors(n: usize) -> String {
    let mut rng = Rng::new(4);
    let mut o = Out {
        s: String::with_capacity(n * 1200),
        form: Form::ExtJson,
    };
    o.open_collection("sensors");
    for i in 0..n {
        o.doc_sep(i == 0);
        o.s.push('{');
        o.int("_id", i as i64);
        o.sep();
        o.str("title", &format!("Sensor {i}"));
        o.sep();
        o.key("totals");
        o.s.push('[');
        for h in 0..24 {
            if h > 0 {
                o.sep();
            }
            o.s.push('{');
            o.date("timestamp", SENSOR_FIRST_HOUR_MS + h * HOUR_MS);
            o.sep();
            o.int("count", rng.below(100).into());
            o.s.push('}');
        }
        o.s.push_str("]}");
    }
    o.close_collection();
    o.s
}

/// The configuration text of a data set by name.
pub fn generate(dataset: &str, n: usize) -> Option<String> {
    Some(match dataset {
        "trades" => trades(n, Form::ExtJson),
        "buckets" => buckets(n),
        "products" => products(n),
        "sensors" => sensors(n),
        _ => return None,
    })
}

/// FNV-1a (32 bits) of the text, to check that Rust and JavaScript generated the same bytes.
pub fn fnv1a(text: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}
