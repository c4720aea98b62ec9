// The Templates menu: small realistic databases and scripts (trades, products, orders).
// Each one's menu name is in the catalogues (../i18n/, key `template.<id>`).

const trades = `db = {
  trades: [
    { _id: 1, ticker: "MDB", side: "buy", qty: 120, price: 251.3, trader: "ana", at: ISODate("2024-03-01T14:02:00Z") },
    { _id: 2, ticker: "AAPL", side: "sell", qty: 40, price: 179.6, trader: "bo", at: ISODate("2024-03-01T14:05:00Z") },
    { _id: 3, ticker: "MDB", side: "sell", qty: 60, price: 255.1, trader: "chen", at: ISODate("2024-03-02T09:31:00Z") },
    { _id: 4, ticker: "MSFT", side: "buy", qty: 15, price: 410.2, trader: "ana", at: ISODate("2024-03-02T10:12:00Z") },
    { _id: 5, ticker: "AAPL", side: "buy", qty: 200, price: 178.9, trader: "dee", at: ISODate("2024-03-03T15:45:00Z") },
    { _id: 6, ticker: "MDB", side: "buy", qty: 35, price: 249.8, trader: "bo", at: ISODate("2024-03-04T11:20:00Z") }
  ]
}`;

const products = `db = {
  products: [
    { _id: 1, sku: "KB-101", name: "Mechanical keyboard", category: "peripherals", price: 89.0, stock: 14, tags: ["usb", "wired"] },
    { _id: 2, sku: "MS-220", name: "Wireless mouse", category: "peripherals", price: 29.5, stock: 0, tags: ["wireless"] },
    { _id: 3, sku: "MN-270", name: "27\\" monitor", category: "displays", price: 249.0, stock: 6, tags: ["hdmi", "usb-c"] },
    { _id: 4, sku: "HS-330", name: "Headset", category: "audio", price: 59.9, stock: 22, tags: ["usb", "wireless"] },
    { _id: 5, sku: "CB-010", name: "USB-C cable", category: "cables", price: 9.99, stock: 150, tags: ["usb-c"] }
  ]
}`;

export const TEMPLATES = [
  {
    id: 'find',
    db: trades,
    script: 'db.trades.find({ ticker: "MDB" })',
  },
  {
    id: 'find-options',
    db: trades,
    script: `db.trades
  .find({ qty: { $gte: 30 } }, { _id: 0, ticker: 1, qty: 1, price: 1 })
  .sort({ price: -1 })
  .skip(1)
  .limit(3)`,
  },
  {
    id: 'aggregate',
    db: trades,
    script: `db.trades.aggregate([
  { $match: { side: "buy" } },
  { $group: { _id: "$ticker", shares: { $sum: "$qty" }, avgPrice: { $avg: "$price" } } },
  { $sort: { shares: -1 } }
])`,
  },
  {
    id: 'update',
    db: products,
    script: `db.products.updateMany(
  { category: "peripherals" },
  { $inc: { stock: 10 }, $set: { restocked: true }, $push: { tags: "sale" } }
)
db.products.find({ category: "peripherals" })`,
  },
  {
    id: 'upsert',
    db: products,
    script: `db.products.updateOne(
  { sku: "WC-500" },
  { $set: { name: "Webcam", category: "video", price: 64.0 }, $setOnInsert: { stock: 0 } },
  { upsert: true }
)
db.products.find({ sku: "WC-500" })`,
  },
  {
    id: 'pipeline-update',
    db: products,
    script: `db.products.updateMany({}, [
  { $set: { value: { $multiply: ["$price", "$stock"] } } },
  { $set: { status: { $cond: [{ $eq: ["$stock", 0] }, "sold out", "in stock"] } } }
])
db.products.find({}, { _id: 0, sku: 1, value: 1, status: 1 })`,
  },
  {
    id: 'lookup',
    db: `db = {
  orders: [
    { _id: 101, customer: "c1", items: [{ sku: "KB-101", qty: 1 }, { sku: "CB-010", qty: 3 }], placed: ISODate("2024-05-02T08:15:00Z") },
    { _id: 102, customer: "c2", items: [{ sku: "MN-270", qty: 2 }], placed: ISODate("2024-05-03T17:40:00Z") }
  ],
  customers: [
    { _id: "c1", name: "Ana Lima", city: "Lisbon" },
    { _id: "c2", name: "Bo Nilsson", city: "Malmö" }
  ]
}`,
    script: `db.orders.aggregate([
  { $lookup: { from: "customers", localField: "customer", foreignField: "_id", as: "customer" } },
  { $unwind: "$customer" },
  { $project: { _id: 1, name: "$customer.name", city: "$customer.city", lines: { $size: "$items" } } }
])`,
  },
  {
    id: 'insert-query',
    db: 'db = {}',
    script: `db.readings.insertMany([
  { sensor: "t-1", celsius: 21.5, at: ISODate("2024-06-01T08:00:00Z") },
  { sensor: "t-2", celsius: 19.0, at: ISODate("2024-06-01T08:00:00Z") },
  { sensor: "t-1", celsius: 23.1, at: ISODate("2024-06-01T09:00:00Z") }
])
db.readings.countDocuments({ sensor: "t-1" })
db.readings.find()`,
  },
];

const employees = `db = {
  employees: [
    { _id: 1, name: "Ana", title: "CEO", reportsTo: null },
    { _id: 2, name: "Bo", title: "CTO", reportsTo: "Ana" },
    { _id: 3, name: "Chen", title: "Engineering lead", reportsTo: "Bo" },
    { _id: 4, name: "Dee", title: "Engineer", reportsTo: "Chen" },
    { _id: 5, name: "Eli", title: "Engineer", reportsTo: "Chen" },
    { _id: 6, name: "Fay", title: "CFO", reportsTo: "Ana" }
  ]
}`;

// Templates that teach one idea each; the comments say why it works.
TEMPLATES.unshift({
  id: 'blank',
  db: `// One collection per field of db; documents without _id get one.
db = {
  items: [
    { name: "first" }
  ]
}`,
  script: `// Write mongosh statements here; Ctrl+Enter runs them all.
db.items.find()`,
});

TEMPLATES.push(
  {
    id: 'explain-index',
    db: trades,
    script: `// Without an index, find() reads every document (COLLSCAN).
db.trades.find({ ticker: "MDB" }).explain("executionStats")
// An index on ticker lets the same query read only the matching keys.
db.trades.createIndex({ ticker: 1 })
// Now the winning plan is an IXSCAN: compare totalDocsExamined with the first explain.
db.trades.find({ ticker: "MDB" }).explain("executionStats")`,
  },
  {
    id: 'facet',
    db: products,
    script: `// $facet runs several sub-pipelines over the same input documents
// and returns one document with an array per facet.
db.products.aggregate([
  { $facet: {
    // how many products per category
    byCategory: [{ $sortByCount: "$category" }],
    // the three most expensive
    priciest: [{ $sort: { price: -1 } }, { $limit: 3 }, { $project: { _id: 0, name: 1, price: 1 } }],
    // what is out of stock
    soldOut: [{ $match: { stock: 0 } }, { $count: "products" }]
  } }
])`,
  },
  {
    id: 'window',
    db: trades,
    script: `// $setWindowFields adds fields computed over a window of neighbouring documents,
// without grouping them away (unlike $group).
db.trades.aggregate([
  { $setWindowFields: {
    partitionBy: "$ticker",          // one window per ticker
    sortBy: { at: 1 },               // in time order
    output: {
      // from the partition's first document up to this one
      runningQty: { $sum: "$qty", window: { documents: ["unbounded", "current"] } },
      // this trade and the one before it
      avgPrice2: { $avg: "$price", window: { documents: [-1, 0] } }
    }
  } },
  { $project: { _id: 0, ticker: 1, at: 1, qty: 1, runningQty: 1, avgPrice2: 1 } }
])`,
  },
  {
    id: 'bucket',
    db: products,
    script: `// $bucket puts each document in the range its groupBy value falls into:
// boundaries [0, 50, 100, 500) make three buckets, named by their lower bound.
db.products.aggregate([
  { $bucket: {
    groupBy: "$price",
    boundaries: [0, 50, 100, 500],
    default: "other",                // prices outside every range
    output: { count: { $sum: 1 }, names: { $push: "$name" } }
  } }
])`,
  },
  {
    id: 'graph-lookup',
    db: employees,
    script: `// $graphLookup follows a link again and again: from each employee's reportsTo
// to that manager's own reportsTo, up to the top.
db.employees.aggregate([
  { $match: { name: "Dee" } },
  { $graphLookup: {
    from: "employees",
    startWith: "$reportsTo",         // the first name to look up
    connectFromField: "reportsTo",   // then follow each found document's reportsTo
    connectToField: "name",          // matched against name
    as: "chain",
    depthField: "level"              // 0 = direct manager, 1 = the manager's manager...
  } },
  { $project: { _id: 0, name: 1, chain: { $sortArray: { input: "$chain.name", sortBy: 1 } } } }
])`,
  },
  {
    id: 'geo',
    db: `db = {
  places: [
    { name: "Central Park", category: "park", location: { type: "Point", coordinates: [-73.97, 40.77] } },
    { name: "Sara D. Roosevelt Park", category: "park", location: { type: "Point", coordinates: [-73.9928, 40.7193] } },
    { name: "Polo Grounds", category: "stadium", location: { type: "Point", coordinates: [-73.9375, 40.8303] } }
  ]
}`,
    script: `// GeoJSON points are [longitude, latitude]. A 2dsphere index is needed for
// $near and $geoNear, which sort by distance (meters on the earth's sphere).
db.places.createIndex({ location: "2dsphere" })
db.places.find({ location: { $near: {
  $geometry: { type: "Point", coordinates: [-73.9667, 40.78] },
  $maxDistance: 5000                 // meters
} } }, { _id: 0, name: 1 })
// $geoNear adds the distance to each document; query filters first.
db.places.aggregate([
  { $geoNear: {
    near: { type: "Point", coordinates: [-73.9667, 40.78] },
    distanceField: "meters",
    query: { category: "park" }
  } },
  { $project: { _id: 0, name: 1, km: { $round: [{ $divide: ["$meters", 1000] }, 2] } } }
])
// $geoWithin needs no index: here, the places inside a polygon (edges are great circles).
db.places.find({ location: { $geoWithin: { $geometry: { type: "Polygon", coordinates: [
  [[-74.0, 40.70], [-73.95, 40.70], [-73.95, 40.78], [-74.0, 40.78], [-74.0, 40.70]]
] } } } }, { _id: 0, name: 1 })`,
  },
);

export const DEFAULT_TEMPLATE = TEMPLATES.find((t) => t.id === 'find');

const articles = `db = {
  articles: [
    { _id: 1, subject: "coffee", author: "xyz", views: 50 },
    { _id: 2, subject: "Coffee Shopping", author: "efg", views: 5 },
    { _id: 3, subject: "Baking a cake", author: "abc", views: 90 },
    { _id: 4, subject: "baking", author: "xyz", views: 100 },
    { _id: 5, subject: "Café Con Leche", author: "abc", views: 200 },
    { _id: 6, subject: "Сырники", author: "jkl", views: 80 },
    { _id: 7, subject: "coffee and cream", author: "efg", views: 10 },
    { _id: 8, subject: "Cafe con Leche", author: "xyz", views: 10 }
  ]
}`;

TEMPLATES.push({
  id: 'text-search',
  db: articles,
  script: `// $text needs a text index: at most one per collection, over one or more fields.
db.articles.createIndex({ subject: "text" })
// Words are OR'ed and stemmed ("bake" finds "baking"); stop words such as "a" are ignored.
db.articles.find({ $text: { $search: "bake coffee cake" } })
// "Quoted phrases" must all appear; -word excludes documents that contain it.
db.articles.find({ $text: { $search: "coffee -shop" } })
// Case and diacritics are ignored unless asked for.
db.articles.find({ $text: { $search: "CAFÉ", $diacriticSensitive: true } })
// Sort by relevance: {$meta: "textScore"} in the projection and in the sort.
db.articles.find(
  { $text: { $search: "coffee" } },
  { subject: 1, score: { $meta: "textScore" } }
).sort({ score: { $meta: "textScore" } })`,
});

/**
 * A template's text with its `//` comments passed through `translate(n, words)` (null:
 * keep them). A run of whole-line comments is one comment, its lines joined by "\n"; a
 * comment after code on its line is one of its own. `n` counts from 1 in each text; the
 * catalogues hold them as `template.<id>.<db|script>.<n>`.
 */
export function withComments(text, translate) {
  const lines = text.split('\n');
  const out = [];
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    const at = lines[i].indexOf('// ');
    if (at < 0) {
      out.push(lines[i]);
      continue;
    }
    const head = lines[i].slice(0, at);
    const whole = head.trim() === '';
    const words = [lines[i].slice(at + 3)];
    while (whole && i + 1 < lines.length && lines[i + 1].startsWith(`${head}// `)) {
      i += 1;
      words.push(lines[i].slice(at + 3));
    }
    n += 1;
    const [first, ...rest] = (translate(n, words.join('\n')) ?? words.join('\n')).split('\n');
    out.push(`${head}// ${first}`);
    const pad = whole ? head : ' '.repeat(head.length);
    for (const line of rest) out.push(`${pad}// ${line}`);
  }
  return out.join('\n');
}

/** The comments of a text, in order (see withComments). */
export function commentsOf(text) {
  const list = [];
  withComments(text, (n, words) => {
    list.push(words);
    return null;
  });
  return list;
}
