// Helpers for the relying-party matrix (rp-matrix.test.mjs): static servers for single-page apps
// on their own origins, a QR login that works from wherever a library sends the browser, a
// back-channel logout receiver, a raw HTTP client (to send any Origin) and a page error recorder.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { approve } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A file shipped by an npm package, read from node_modules. */
export function nodeModule(rel) {
  return readFileSync(path.join(here, 'node_modules', rel));
}

/**
 * A static server on 127.0.0.1, port 0: its own origin. `files` maps a path to
 * `[content-type, body]`; `/` serves `/index.html` when there is one. Every request is
 * recorded (method, URL, Origin header).
 */
export async function startStatic(files = {}) {
  const hits = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    hits.push({ method: req.method, url, origin: req.headers.origin });
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    const file = files[url.pathname] ?? (url.pathname === '/' ? files['/index.html'] : undefined);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' });
    res.end(file[1]);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    files,
    close: () => closeServer(server),
  };
}

/**
 * An OIDC Back-Channel Logout receiver: records each request to /bcl (method, content type,
 * the form's logout_token) and answers 200 with Cache-Control: no-store, as the spec asks.
 */
export async function startLogoutReceiver() {
  const received = [];
  const waiters = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const hit = {
        method: req.method,
        path: new URL(req.url, 'http://127.0.0.1').pathname,
        contentType: req.headers['content-type'] ?? '',
        logoutToken: new URLSearchParams(body).get('logout_token'),
      };
      received.push(hit);
      while (waiters.length) waiters.shift()();
      res.writeHead(200, { 'cache-control': 'no-store' });
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/bcl`,
    received,
    /** Resolves to the first request, or rejects after `ms`. */
    async next(ms) {
      const deadline = Date.now() + ms;
      while (!received.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no back-channel logout request within ${ms} ms`);
        await new Promise((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      return received[0];
    },
    close: () => closeServer(server),
  };
}

function closeServer(server) {
  server.closeAllConnections?.();
  return new Promise((r) => server.close(r));
}

/**
 * Completes a login in `page`, from wherever it is (an RP page on its way to scanid, the QR
 * page, or, with a live SSO session, straight to consent): approves the QR with the reference
 * app as `identity`, allows consent when asked, and resolves to the URL on which `done(url)`
 * first holds (the RP's callback). Fails after 20 s, naming the page it is stuck on.
 */
export async function qrLogin(page, server, identity, done) {
  const deadline = Date.now() + 20_000;
  const approved = new Set();
  const consented = new Set();
  let lastError = '';
  let failures = 0;
  for (;;) {
    const here = new URL(page.url());
    if (done(here)) return here;
    if (Date.now() > deadline)
      throw new Error(`login did not finish; the page is at ${page.url()} ${lastError}`);
    if (here.href.startsWith(server.issuer)) {
      try {
        const link = page.locator('#app-link');
        if (await link.count()) {
          const payload = await link.getAttribute('data-qr-payload', { timeout: 1000 });
          const session = new URL(payload).searchParams.get('session');
          if (payload && !approved.has(session)) {
            approved.add(session);
            const res = await approve(server, identity, payload, { page });
            if (res.status !== 'approved') {
              // The challenge may have rotated between reading and approving: try again, thrice.
              lastError = `the app could not approve: ${JSON.stringify(res)}`;
              if (++failures >= 3) throw new Error(lastError);
              approved.delete(session);
            }
          }
        }
        const allow = page.locator('button[name="consent"][value="allow"]');
        if (
          here.pathname.includes('/login-actions/consent') &&
          !consented.has(here.href) &&
          (await allow.count())
        ) {
          consented.add(here.href);
          await allow.click({ timeout: 2000 });
        }
      } catch (e) {
        // The page navigated under us (the login page moves on by itself): look again.
        if (!/context was destroyed|navigat|Target closed|detached|Timeout/i.test(String(e)))
          throw e;
      }
    }
    await page.waitForTimeout(100);
  }
}

/**
 * Records uncaught errors and console errors of a page and all of its frames (the browser's
 * own request for /favicon.ico aside: no page asked for it).
 */
export function watchErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(`uncaught (${page.url()}): ${e.message}`));
  page.on('console', (m) => {
    const where = m.location()?.url || page.url();
    if (m.type() === 'error' && !/\/favicon\.ico$/.test(where))
      errors.push(`console.error (${where}): ${m.text()}`);
  });
  return errors;
}

/** A raw HTTP request from node (any Origin header); resolves to { status, headers, body }. */
export function rawRequest(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/** A refresh_token grant from node; resolves to { status, json }. */
export async function refreshGrant(server, form, basic) {
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic)
    headers.authorization = `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}`;
  const res = await rawRequest(`${server.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers,
    body: new URLSearchParams({ grant_type: 'refresh_token', ...form }).toString(),
  });
  let json;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}
