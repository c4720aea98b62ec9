// What every browser run shares (the tests here, measure.mjs, bench/browser.mjs):
// Debian's Chromium with the flags we allow, a static server for www/ on a free port,
// and a headless browser on a fresh profile. No browser is ever downloaded.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForServer(url) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} did not start`);
}

/** Serves `root` with tools/serve.py on a free port: `{origin, stop()}` once it answers. */
export async function serve(root) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = spawn('python3', [join(repo, 'tools', 'serve.py'), String(port), root], { stdio: 'ignore' });
  try {
    await waitForServer(`${origin}/index.html`);
  } catch (e) {
    server.kill();
    throw e;
  }
  return { origin, stop: () => server.kill() };
}

/**
 * Headless Chromium on a fresh profile (nothing cached): `{context, close()}`;
 * close() also removes the profile. `chromium` is playwright-core's, passed in so
 * each caller resolves playwright-core from its own package.
 */
export async function launch(chromium, prefix, options = {}) {
  // Chromium now and then dies while starting (seen once in a CI run: "Target page,
  // context or browser has been closed" before any page opened), so a failed start
  // is retried on a new profile; a page that crashes later still fails its test.
  for (let attempt = 1; ; attempt++) {
    const profile = mkdtempSync(join(tmpdir(), prefix));
    let context;
    try {
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ARGS,
        ...options,
      });
    } catch (e) {
      rmSync(profile, { recursive: true, force: true });
      if (attempt >= 3) throw e;
      console.error(`chromium did not start (attempt ${attempt}): ${String(e.message ?? e).split("\n")[0]}`);
      continue;
    }
    return opened(context, profile);
  }
}

function opened(context, profile) {
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
