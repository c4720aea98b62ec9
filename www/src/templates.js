// The Templates menu: small realistic databases and scripts (trades, products, orders).

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
    name: 'find',
    db: trades,
    script: 'db.trades.find({ ticker: "MDB" })',
  },
  {
    id: 'find-options',
    name: 'find with projection, sort, skip, limit',
    db: trades,
    script: `db.trades
  .find({ qty: { $gte: 30 } }, { _id: 0, ticker: 1, qty: 1, price: 1 })
  .sort({ price: -1 })
  .skip(1)
  .limit(3)`,
  },
  {
    id: 'aggregate',
    name: 'aggregate',
    db: trades,
    script: `db.trades.aggregate([
  { $match: { side: "buy" } },
  { $group: { _id: "$ticker", shares: { $sum: "$qty" }, avgPrice: { $avg: "$price" } } },
  { $sort: { shares: -1 } }
])`,
  },
  {
    id: 'update',
    name: 'update with operators',
    db: products,
    script: `db.products.updateMany(
  { category: "peripherals" },
  { $inc: { stock: 10 }, $set: { restocked: true }, $push: { tags: "sale" } }
)
db.products.find({ category: "peripherals" })`,
  },
  {
    id: 'upsert',
    name: 'upsert',
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
    name: 'update with an aggregation pipeline',
    db: products,
    script: `db.products.updateMany({}, [
  { $set: { value: { $multiply: ["$price", "$stock"] } } },
  { $set: { status: { $cond: [{ $eq: ["$stock", 0] }, "sold out", "in stock"] } } }
])
db.products.find({}, { _id: 0, sku: 1, value: 1, status: 1 })`,
  },
  {
    id: 'lookup',
    name: 'several collections with $lookup',
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
    name: 'insert then query',
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

export const DEFAULT_TEMPLATE = TEMPLATES[0];
