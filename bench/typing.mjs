// Keystroke-to-paint while typing in the Query pane with a large Database text
// loaded (issue 25: assistance must never make typing lag). Headless Chromium
// (Debian's, through playwright-core). For each key: from the key event's
// timestamp to the first task after the next animation frame (the frame that
// shows the character). Prints the worst and the median per run.
//
//   node bench/typing.mjs [--www www] [--mb 10] [--runs 3]
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch } from "../www/tests/harness.mjs";
import { createRequire } from "node:module";

// playwright-core is www's dependency.
const { chromium: chromiumModule } = createRequire(join(dirname(fileURLToPath(import.meta.url)), "..", "www", "package.json"))("playwright-core");

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const WWW = resolve(opt("--www", join(here, "..", "www")));
const MB = Number(opt("--mb", "10"));
const RUNS = Number(opt("--runs", "3"));
const TYPED = 'db.trades.find({ qty: { $gt: 5 }, ticker: "MDB" }).sort({ price: -1 })\ndb.trades.aggregate([{ $group: { _id: "$ticker", n: { $sum: 1 } } }])';

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const site = await serve(WWW);
try {
  for (let run = 1; run <= RUNS; run++) {
    const { context, close } = await launch(chromium(), "mqlplay-typing-", { viewport: { width: 1366, height: 768 } });
    try {
      const page = await context.newPage();
      await page.goto(`${site.origin}/`);
      await page.waitForSelector('body[data-ready="true"]');
      // Paste the text into the Database pane (built in the page: no 10 MB crosses the protocol).
      const loaded = await page.evaluate((mb) => {
        // About `mb` megabytes of trades with a nested buyer.
        const tickers = ["MDB", "AAPL", "MSFT", "ORCL", "GOOG"];
        const parts = [];
        let size = 0;
        for (let i = 0; size < mb * 1e6; i++) {
          const doc = `{ _id: ${i}, ticker: "${tickers[i % 5]}", qty: ${i % 500}, price: ${(100 + (i % 97) * 1.5).toFixed(2)}, buyer: { name: "trader${i % 50}", desk: "d${i % 7}" }, at: ISODate("2024-03-01T14:02:00Z") }`;
          parts.push(doc);
          size += doc.length + 2;
        }
        const text = `db = {\n  trades: [\n${parts.join(",\n")}\n  ]\n}`;
        const dt = new DataTransfer();
        dt.setData("text/plain", text);
        const target = document.querySelector("#db-editor .cm-content");
        target.focus();
        target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
        return text.length;
      }, MB);
      if (loaded < MB * 1e6) throw new Error(`only ${loaded} characters pasted`);
      const tall = await page.evaluate(() => document.querySelector("#db-editor .cm-scroller").scrollHeight);
      if (tall < 100_000) throw new Error("the paste did not reach the Database pane");
      await page.click("#query-editor .cm-content");
      await page.keyboard.press("ControlOrMeta+a");
      await page.keyboard.press("Delete");
      // Let the Database check (delayed for large texts) start and finish.
      await page.waitForTimeout(4000);
      await page.evaluate(() => {
        window.__delays = [];
        document.addEventListener("keydown", (e) => {
          const t0 = e.timeStamp;
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => window.__delays.push(performance.now() - t0);
            ch.port2.postMessage(0);
          });
        }, true);
      });
      for (const ch of TYPED) {
        if (ch === "\n") await page.keyboard.press("Escape");
        await page.keyboard.type(ch === "\n" ? "\n" : ch);
        await page.waitForTimeout(60);
      }
      await page.waitForTimeout(1500);
      const delays = sorted(await page.evaluate(() => window.__delays));
      const worst = delays[delays.length - 1];
      const median = delays[delays.length >> 1];
      console.log(`run ${run}: ${delays.length} keys, Database ${(loaded / 1e6).toFixed(1)} MB: worst ${worst.toFixed(1)} ms, median ${median.toFixed(1)} ms, 95th ${delays[Math.floor(delays.length * 0.95)].toFixed(1)} ms`);
    } finally {
      await close();
    }
  }
} finally {
  site.stop();
}

function chromium() {
  return chromiumModule;
}
