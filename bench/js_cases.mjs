// The JavaScript side of the Node cases, shared by node.mjs and per_doc.mjs:
// each case with mingo, and for some a hand-written loop over the same objects.
import { Query, Aggregator, updateMany } from "mingo";

/** JSON.parse reviver: Extended JSON dates as Date objects (what mingo needs). */
export const reviveDates = (key, v) =>
  v !== null && typeof v === "object" && typeof v.$date === "string" ? new Date(v.$date) : v;

// ---- mingo's side of each case ------------------------------------------------
const hour = new Date("2022-09-12T10:00:00Z");
const windowStart = new Date("2022-09-11T11:00:00Z");
const newEvents = 1;
const initTotals = { $set: { totals: { $ifNull: ["$totals", []] } } };
const dropOld = { $set: { totals: { $filter: { input: "$totals", cond: { $gte: ["$$this.timestamp", windowStart] } } } } };
const addToHour = {
  $set: {
    totals: {
      $cond: {
        if: { $in: [hour, "$totals.timestamp"] },
        then: {
          $map: {
            input: "$totals",
            in: {
              $cond: {
                if: { $eq: ["$$this.timestamp", hour] },
                then: { $mergeObjects: ["$$this", { count: { $add: [{ $ifNull: ["$$this.count", 0] }, newEvents] } }] },
                else: "$$this",
              },
            },
          },
        },
        else: { $concatArrays: ["$totals", [{ timestamp: hour, count: newEvents }]] },
      },
    },
  },
};

export const MINGO = {
  find_customer_sort_limit: (d) => new Query({ customerId: 123, qty: { $gt: 100 } }).find(d).sort({ qty: -1 }).limit(10).all(),
  find_history_ticker: (d) => new Query({ "history.ticker": "MDB" }).find(d).all(),
  // mingo's cursor has no count(): test each document (its fastest way).
  count_buy: (d) => {
    const q = new Query({ type: "buy" });
    let n = 0;
    for (const doc of d) if (q.test(doc)) n++;
    return n;
  },
  find_qty_range: (d) => new Query({ qty: { $gte: 500, $lt: 510 } }).find(d).all(),
  find_id_prefix: (d) => new Query({ _id: /^123_/ }).find(d).all(),
  find_review_elemmatch: (d) =>
    new Query({ reviews: { $elemMatch: { rating: 5, user: { $in: ["user1", "user2", "user3"] } } } }).find(d).all(),
  sort_ticker_qty: (d) => new Query({}).find(d).sort({ ticker: 1, qty: -1, _id: 1 }).limit(100).all(),
  inc_all: (d) => updateMany(d, {}, { $inc: { qty: 1 } }),
  sensor_pipeline_update: (d) => updateMany(d, {}, [initTotals, dropOld, addToHour]),
  match_group_sort: (d) =>
    new Aggregator([
      { $match: { type: "buy" } },
      { $group: { _id: "$ticker", total: { $sum: "$qty" }, n: { $sum: 1 } } },
      { $sort: { total: -1 } },
    ]).run(d),
  unwind_group: (d) =>
    new Aggregator([
      { $unwind: "$history" },
      { $group: { _id: "$history.ticker", total: { $sum: "$history.qty" }, n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]).run(d),
  avg_rating_top: (d) =>
    new Aggregator([
      { $project: { name: 1, avgRating: { $avg: "$reviews.rating" } } },
      { $match: { avgRating: { $gte: 4 } } },
      { $sort: { avgRating: -1, _id: 1 } },
      { $limit: 10 },
    ]).run(d),
  sensor_dashboard_read: (d) =>
    new Aggregator([
      { $set: { totals: { $ifNull: ["$totals", []] } } },
      { $set: { totals: { $filter: { input: "$totals", cond: { $gte: ["$$this.timestamp", windowStart] } } } } },
      { $set: { count: { $sum: "$totals.count" } } },
      { $unset: "totals" },
    ]).run(d),
};

// The floor: plain JavaScript over the same objects mingo gets, the filter
// written by hand. Its answers must equal mqlplay's (checked before timing).
export const HAND = {
  find_customer_sort_limit: (d) => {
    const hits = [];
    for (let i = 0; i < d.length; i++) {
      const doc = d[i];
      if (doc.customerId === 123 && doc.qty > 100) hits.push(doc);
    }
    hits.sort((a, b) => b.qty - a.qty);
    return hits.slice(0, 10);
  },
  count_buy: (d) => {
    let n = 0;
    for (let i = 0; i < d.length; i++) if (d[i].type === "buy") n++;
    return n;
  },
};
