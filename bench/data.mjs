// Deterministic data shaped like the seeds': the same bytes as
// benches/engine/data.rs (same PRNG, same order of draws, same formatting),
// plus the same documents as plain JavaScript objects for mingo.

/** mulberry32, as in data.rs. */
export class Rng {
  constructor(seed) {
    this.s = seed >>> 0;
  }
  nextU32() {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    const a = this.s;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  below(n) {
    return this.nextU32() % n;
  }
}

export const TICKERS = ["MDB", "GOOG", "AAPL", "MSFT", "AMZN", "TSLA", "NVDA", "META", "ORCL", "IBM"];
const TRADES_START_MS = 1698278400000; // 2023-10-26T00:00:00Z
const SENSOR_FIRST_HOUR_MS = 1662894000000; // 2022-09-11T11:00:00Z
const HOUR_MS = 3600000;

function trades(n) {
  const rng = new Rng(1);
  const docs = new Array(n);
  for (let i = 0; i < n; i++) {
    const customerId = 100 + rng.below(1000);
    const type = rng.below(2) === 0 ? "buy" : "sell";
    const ticker = TICKERS[rng.below(10)];
    const qty = 1 + rng.below(1000);
    const date = new Date(TRADES_START_MS + i * 60000 + rng.below(60000));
    docs[i] = { _id: i, customerId, type, ticker, qty, date };
  }
  return docs;
}

function buckets(n) {
  const rng = new Rng(2);
  const docs = new Array(n);
  for (let i = 0; i < n; i++) {
    const customerId = 100 + rng.below(1000);
    const secs = TRADES_START_MS / 1000 + i * 600 + rng.below(600);
    const history = [];
    for (let j = 0; j < 10; j++) {
      const type = rng.below(2) === 0 ? "buy" : "sell";
      const ticker = TICKERS[rng.below(10)];
      const qty = 1 + rng.below(1000);
      const date = new Date(secs * 1000 + j * 1000 + rng.below(1000));
      history.push({ type, ticker, qty, date });
    }
    docs[i] = { _id: `${customerId}_${secs}`, customerId, count: 10, history };
  }
  return docs;
}

function products(n) {
  const rng = new Rng(3);
  const docs = new Array(n);
  for (let i = 0; i < n; i++) {
    const price = 1 + rng.below(500);
    const reviews = [];
    for (let j = 0; j < 10; j++) {
      const user = rng.below(5000);
      const rating = 1 + rng.below(5);
      const date = new Date(TRADES_START_MS - rng.below(86400000) * 100);
      reviews.push({ review_id: i * 10 + j, user: `user${user}`, rating, date });
    }
    docs[i] = { _id: i, name: `Product ${i}`, price, reviews };
  }
  return docs;
}

function sensors(n) {
  const rng = new Rng(4);
  const docs = new Array(n);
  for (let i = 0; i < n; i++) {
    const totals = [];
    for (let h = 0; h < 24; h++) {
      totals.push({ timestamp: new Date(SENSOR_FIRST_HOUR_MS + h * HOUR_MS), count: rng.below(100) });
    }
    docs[i] = { _id: i, title: `Sensor ${i}`, totals };
  }
  return docs;
}

const GENERATORS = { trades, buckets, products, sensors };

/** The documents of a data set as plain objects (dates as Date). */
export function documents(dataset, n) {
  const gen = GENERATORS[dataset];
  if (!gen) throw new Error(`unknown data set ${dataset}`);
  return gen(n);
}

/** Extended JSON without spaces: dates as {"$date": "<ISO>"}. */
function ejson(value) {
  return JSON.stringify(value, function (key, v) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.toISOString() } : v;
  });
}

/** The configuration text mqlplay reads, byte for byte what data.rs writes. */
export function configText(dataset, docs) {
  const parts = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) parts[i] = ejson(docs[i]);
  return `db = {"${dataset}":[\n${parts.join(",\n")}\n]}\n`;
}

/** The JSON part of the configuration (what JSON.parse reads). */
export function jsonPart(text) {
  return text.slice(text.indexOf("{"));
}

/** FNV-1a (32 bits) of the UTF-8 bytes (the texts are ASCII). */
export function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
