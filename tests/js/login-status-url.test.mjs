// The QR login in a real browser (Chromium via playwright-core) with `--login-status-url`: the
// page at the public URL (http://localhost:PORT) polls its status from another origin
// (http://127.0.0.1:PORT, the same process), with its read-only token and no cookie; the page's
// CSP lets it, every answer lets the public origin read it, and the login still ends at the RP.
// And a second browser context, with no cookie, reads the status with the token from a page of
// the public origin, but cannot take the login over (its consent page is refused).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startLocalhostServer,
  startCallback,
  launchBrowser,
  cli,
  enroll,
  approve,
  authorizationUrl,
} from './helpers.mjs';

let server, rp, browser, alice, bob;

/** `scanid serve` on 127.0.0.1:PORT, its pages at http://localhost:PORT and its QR page's polls
 * at http://127.0.0.1:PORT: the same process under two origins. */
async function startTwoOriginServer() {
  const server = await startLocalhostServer((port) => [
    '--login-status-url',
    `http://127.0.0.1:${port}`,
  ]);
  const pageOrigin = `http://localhost:${server.port}`;
  return { ...server, base: pageOrigin, pageOrigin, pollOrigin: `http://127.0.0.1:${server.port}` };
}

before(async () => {
  server = await startTwoOriginServer();
  rp = await startCallback();
  browser = await launchBrowser();
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Status URL RP',
    '--client-id',
    'status-rp',
    '--redirect-uri',
    rp.url,
  ]);
  alice = await enroll(server, 'alice');
  bob = await enroll(server, 'bob');
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

function authUrl(state, extra = {}) {
  return authorizationUrl(server, {
    client_id: 'status-rp',
    redirect_uri: rp.url,
    state,
    nonce: `nonce-${state}`,
    ...extra,
  });
}

async function qrPayload(page) {
  const link = page.locator('#app-link');
  await link.waitFor({ timeout: 15_000 });
  return link.getAttribute('data-qr-payload');
}

/** The page's console errors and uncaught exceptions, as they come. */
function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => {
    // (Chromium asks for /favicon.ico on its own; scanid has none: not the page's doing.)
    const where = m.location().url;
    if (m.type() === 'error' && !where.endsWith('/favicon.ico')) {
      errors.push(`console: ${m.text()} (${where})`);
    }
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

const CSP_OR_CORS = /Content Security Policy|CORS|Access-Control|blocked/i;

test(
  'the QR page polls the other origin with its token and no cookie, and the login ends at the RP',
  {
    timeout: 90_000,
  },
  async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    const polls = [];
    const answers = [];
    page.on('request', (r) => {
      if (r.url().includes('/login-actions/status'))
        polls.push({ request: r, headers: r.allHeaders() });
    });
    page.on('response', (r) => {
      // Read at once: once the page has moved on, its answers' bodies are gone.
      if (r.url().includes('/login-actions/status')) {
        answers.push({ response: r, headers: r.allHeaders(), json: r.json().catch(() => null) });
      }
    });
    const url = authUrl('two-origins');
    assert.ok(url.startsWith(`${server.pageOrigin}/`), url);
    const resp = await page.goto(url);
    assert.equal(resp.status(), 200);
    assert.equal(new URL(page.url()).origin, server.pageOrigin);
    const csp = (await resp.allHeaders())['content-security-policy'];
    assert.match(
      csp,
      new RegExp(`connect-src 'self' ${server.pollOrigin.replace(/\./g, '\\.')}(;|$)`),
      csp,
    );
    const statusUrl = await page.locator('#state').getAttribute('data-status-url');
    const su = new URL(statusUrl);
    assert.equal(su.origin, server.pollOrigin, statusUrl);
    assert.equal(su.pathname, '/realms/scanid/login-actions/status', statusUrl);
    assert.ok(su.searchParams.get('session'), statusUrl);
    assert.ok(su.searchParams.get('poll'), statusUrl);
    const payload = await qrPayload(page);
    assert.equal(new URL(payload).searchParams.get('session'), su.searchParams.get('session'));
    // The phone scans and approves with the number the page shows; no click on the page.
    const res = await approve(server, alice, payload, { page });
    assert.equal(res.status, 'approved', JSON.stringify(res));
    await page.waitForURL(/login-actions\/consent/, { timeout: 20_000 });
    assert.equal(new URL(page.url()).origin, server.pageOrigin);
    assert.match(await page.textContent('h1'), /Status URL RP wants to access/);
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 20_000 });
    const landed = new URL(page.url());
    assert.ok(landed.searchParams.get('code')?.length >= 43, landed.toString());
    assert.equal(landed.searchParams.get('state'), 'two-origins');
    assert.equal(landed.searchParams.get('iss'), server.issuer);
    assert.ok(
      rp.hits.some(
        (h) => h.searchParams.get('state') === 'two-origins' && h.searchParams.get('code'),
      ),
    );

    // Every poll went to the other origin, with the token, and no cookie.
    assert.ok(polls.length >= 1, 'the page polled');
    for (const { request, headers } of polls) {
      const u = new URL(request.url());
      assert.equal(u.origin, server.pollOrigin, `a poll to ${u}`);
      assert.notEqual(u.origin, server.pageOrigin);
      assert.equal(u.pathname, '/realms/scanid/login-actions/status');
      assert.equal(u.searchParams.get('poll'), su.searchParams.get('poll'), u.toString());
      const h = await headers;
      assert.equal(h.cookie, undefined, `a poll sent a cookie: ${h.cookie}`);
      assert.equal(h.origin, server.pageOrigin, 'a CORS request from the public origin');
    }
    // Every answer (the one still held when the page moved on has none) was readable from the
    // public origin.
    assert.ok(answers.length >= 1, 'a poll was answered');
    for (const a of answers) {
      const r = a.response;
      assert.equal(r.status(), 200, `${r.url()}: ${r.status()}`);
      assert.equal((await a.headers)['access-control-allow-origin'], server.pageOrigin);
    }
    // What the page read there: the scan (the number it showed); the answer that sent it on
    // (approved) is seen in the page moving on, its body gone with the page.
    const bodies = (await Promise.all(answers.map((a) => a.json))).filter(Boolean);
    assert.ok(
      bodies.some((b) => b.status === 'pending' && typeof b.number === 'number'),
      JSON.stringify(bodies),
    );
    assert.ok(
      bodies.every((b) => b.status === 'pending' || b.status === 'approved'),
      JSON.stringify(bodies),
    );
    assert.deepEqual(
      errors.filter((e) => CSP_OR_CORS.test(e)),
      [],
      errors.join('\n'),
    );
    assert.deepEqual(errors, [], errors.join('\n'));
    await ctx.close();
  },
);

test(
  'another browser reads the status with the token from the public origin, but its consent page is refused (403)',
  {
    timeout: 90_000,
  },
  async () => {
    const victim = await browser.newContext();
    const other = await browser.newContext();
    const page = await victim.newPage();
    const errors = watchErrors(page);
    await page.goto(authUrl('victim'));
    const payload = await qrPayload(page);
    const session = new URL(payload).searchParams.get('session');
    const statusUrl = await page.locator('#state').getAttribute('data-status-url');
    // A page of the public origin in the other context (no cookie of the victim's): its own
    // login page, whose CSP lets it fetch from the status origin.
    const otherPage = await other.newPage();
    const otherErrors = watchErrors(otherPage);
    await otherPage.goto(authUrl('other'));
    assert.equal(new URL(otherPage.url()).origin, server.pageOrigin);
    assert.equal((await other.cookies(server.pollOrigin)).length, 0);
    // (Access-Control-Allow-Origin is no header a script may read: it is read off the network.)
    const read = async () => {
      const [response, answer] = await Promise.all([
        otherPage.waitForResponse((r) => r.url() === statusUrl, { timeout: 15_000 }),
        otherPage.evaluate(async (u) => {
          const r = await fetch(u, {
            credentials: 'same-origin',
            headers: { Accept: 'application/json' },
            cache: 'no-store',
          });
          return { status: r.status, body: await r.json() };
        }, statusUrl),
      ]);
      return {
        ...answer,
        acao: (await response.allHeaders())['access-control-allow-origin'],
        cookie: (await response.request().allHeaders()).cookie,
      };
    };
    const pending = await read();
    assert.equal(pending.status, 200, JSON.stringify(pending));
    assert.equal(pending.acao, server.pageOrigin);
    assert.equal(pending.cookie, undefined);
    assert.equal(pending.body.status, 'pending', JSON.stringify(pending.body));
    // The phone approves the victim's login (bob: a first consent, so the consent page shows).
    const res = await approve(server, bob, payload, { page });
    assert.equal(res.status, 'approved', JSON.stringify(res));
    const approved = await read();
    assert.equal(approved.status, 200, JSON.stringify(approved));
    assert.equal(approved.acao, server.pageOrigin);
    assert.equal(approved.body.status, 'approved', JSON.stringify(approved.body));
    // Knowing where the page goes next is not being that browser: the consent page is refused.
    const consent =
      approved.body.next ?? `${server.issuer}/login-actions/consent?session=${session}`;
    const refused = await otherPage.goto(consent);
    assert.equal(refused.status(), 403, `${consent}: ${refused.status()}`);
    assert.ok(!otherPage.url().startsWith(rp.url));
    assert.equal(rp.hits.filter((h) => h.searchParams.get('state') === 'other').length, 0);
    // The rightful browser still finishes: consent, and a code at the RP.
    await page.waitForURL(/login-actions\/consent/, { timeout: 20_000 });
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 20_000 });
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('state'), 'victim');
    assert.ok(landed.searchParams.get('code')?.length >= 43, landed.toString());
    assert.deepEqual(errors, [], errors.join('\n'));
    assert.deepEqual(
      otherErrors.filter((e) => CSP_OR_CORS.test(e)),
      [],
      otherErrors.join('\n'),
    );
    await victim.close();
    await other.close();
  },
);
