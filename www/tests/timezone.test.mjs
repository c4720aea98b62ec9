// Browser test of the run's time zone (Run settings): local-time dates
// (`new Date(2003, 0, 7)`) are read in it and dates print in it, an unknown name is refused, and a
// share link carries it. Screenshots at 1366×768 and 390×844 go to
// tests/artifacts/tz-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSession, newPage, openFresh, screenshot, waitRuns, replaceText, runAndWait } from './page.mjs';

const laptop = { width: 1366, height: 768 };
const session = pageSession('mqlplay-tz-', { viewport: laptop });

async function runScript(page, script) {
  await replaceText(page, 'query-editor', script);
  await runAndWait(page);
  return page.textContent('#result');
}

test('the time zone setting reads local dates in it, refuses unknown names, and travels in links', async () => {
  const page = await newPage(session);
  await openFresh(page, session.origin);
  const script = 'new Date(2003, 0, 7)';
  assert.match(await runScript(page, script), /2003-01-07T00:00:00\.000Z/, 'UTC by default');

  await page.click('.settings summary');
  await page.fill('#tz', 'Mars/Olympus');
  await page.dispatchEvent('#tz', 'change');
  await page.waitForSelector('#tz[aria-invalid="true"]');
  assert.match(await page.textContent('#status'), /Unknown time zone/);

  await page.fill('#tz', 'Europe/Paris');
  await page.dispatchEvent('#tz', 'change');
  await page.waitForFunction(() => !document.querySelector('#tz').hasAttribute('aria-invalid'));
  assert.match(await page.textContent('#settings-summary'), /time zone Europe\/Paris/);
  const result = await runScript(page, script);
  assert.match(result, /2003-01-06T23:00:00\.000Z/, 'midnight in Paris is 23:00 UTC');
  // A date's toString() prints in the zone, with the name V8 gives it.
  assert.match(await runScript(page, 'new Date("2024-07-01T12:00:00Z").toString()'),
    /Mon Jul 01 2024 14:00:00 GMT\+0200 \(Central European Summer Time\)/);
  await runScript(page, script);
  await screenshot(page, 'tz-laptop');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'tz-phone');
  await page.setViewportSize(laptop);

  await page.click('#share');
  await page.waitForSelector('#share-dialog[open]');
  const url = await page.inputValue('#share-url');
  await page.close();

  const other = await newPage(session);
  await other.goto(url);
  await other.waitForSelector('body[data-ready="true"]');
  await waitRuns(other, 1);
  assert.equal(await other.inputValue('#tz'), 'Europe/Paris');
  assert.match(await other.textContent('#result'), /2003-01-06T23:00:00\.000Z/);
  await other.close();
  assert.deepEqual(session.problems, []);
});
