// A static server for the page as a host would serve it: gzip (level 9) when
// the browser accepts it, application/wasm for the module (so the page can
// compile it while it downloads), no caching. It counts the bytes it sends,
// so the page's weight is what went over the wire.
import { createServer } from "node:http";
import { readFileSync, existsSync, statSync } from "node:fs";
import { join, extname, normalize, sep } from "node:path";
import { gzipSync } from "node:zlib";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".wasm": "application/wasm",
};

/** Serves `root` on 127.0.0.1: `{origin, sent, reset(), stop()}`; `sent` maps a path to the bytes sent for it. */
export async function serveGzip(root) {
  const gz = new Map();
  const sent = new Map();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(normalize(root) + sep) && file !== normalize(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const zip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
    let body = readFileSync(file);
    if (zip) {
      if (!gz.has(file)) gz.set(file, gzipSync(body, { level: 9 }));
      body = gz.get(file);
    }
    const headers = { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream", "Content-Length": body.length, "Cache-Control": "no-store" };
    if (zip) headers["Content-Encoding"] = "gzip";
    res.writeHead(200, headers);
    res.end(body);
    sent.set(path, body.length);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    sent,
    reset: () => sent.clear(),
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
