// Client ID Metadata Documents cached by their HTTP caching headers (RFC 9111): this test
// serves documents over https with its own CA (SSL_CERT_FILE) and counts what scanid fetches
// and how: max-age and Expires keep a document without fetching, no-store fetches it every
// time, no-cache and a stale one are revalidated with If-None-Match / If-Modified-Since and a
// 304 keeps the document; the operator's minimum holds against no-store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { startServer, startCallback, authorizationUrl } from './helpers.mjs';

let server, bounded, rp, docs, docBase;

/** A CA and a certificate for 127.0.0.1 signed by it, made with openssl. */
function certificates() {
  const dir = mkdtempSync(path.join(tmpdir(), 'scanid-ca-'));
  const f = (n) => path.join(dir, n);
  const ssl = (args) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl(
    ['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '1'].concat([
      '-subj',
      '/CN=scanid test CA',
    ]),
  );
  writeFileSync(f('ext'), 'subjectAltName=IP:127.0.0.1\n');
  ssl(['req', ...ec, '-keyout', f('srv.key'), '-out', f('srv.csr'), '-subj', '/CN=127.0.0.1']);
  ssl(
    ['x509', '-req', '-in', f('srv.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key')].concat([
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      f('ext'),
      '-out',
      f('srv.pem'),
    ]),
  );
  return { ca: f('ca.pem'), key: readFileSync(f('srv.key')), cert: readFileSync(f('srv.pem')) };
}

/** What each document answers: its caching headers, and its validators. */
const SERVED = {
  'max-age.json': { 'cache-control': 'max-age=60' },
  'no-store.json': { 'cache-control': 'no-store', etag: '"ns1"' },
  'no-cache.json': { 'cache-control': 'no-cache', etag: '"v1"' },
  'stale.json': {
    'cache-control': 'max-age=1',
    'last-modified': 'Sun, 06 Nov 1994 08:49:37 GMT',
  },
  'expires.json': () => ({
    date: new Date().toUTCString(),
    expires: new Date(Date.now() + 60_000).toUTCString(),
  }),
  'expired.json': { expires: '0' },
  'bounded.json': { 'cache-control': 'no-store' },
};

/** The document server: records each request's path and conditional headers; answers 304
 * when the request's validator matches the document's. */
async function startDocuments({ key, cert }) {
  const hits = [];
  const s = https.createServer({ key, cert }, (req, res) => {
    const name = req.url.slice(1);
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    hits.push({ name, inm, ims });
    const spec = SERVED[name];
    if (!spec) {
      res.writeHead(404).end();
      return;
    }
    const headers = typeof spec === 'function' ? spec() : spec;
    if ((inm && inm === headers.etag) || (ims && ims === headers['last-modified'])) {
      res.writeHead(304, headers).end();
      return;
    }
    const base = `https://${req.headers.host}`;
    const body = JSON.stringify({
      client_id: `${base}/${name}`,
      client_name: 'Cached client',
      redirect_uris: [rp.url],
      token_endpoint_auth_method: 'none',
    });
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { port: s.address().port, hits, close: () => new Promise((r) => s.close(r)) };
}

before(async () => {
  const tls = certificates();
  process.env.SSL_CERT_FILE = tls.ca;
  rp = await startCallback();
  docs = await startDocuments(tls);
  docBase = `https://127.0.0.1:${docs.port}`;
  server = await startServer();
  bounded = await startServer(['--client-document-min-cache-secs', '30']);
});

after(async () => {
  delete process.env.SSL_CERT_FILE;
  await rp?.close();
  await docs?.close();
  await server?.stop();
  await bounded?.stop();
});

/** An authorization request naming document `name`; it must be accepted (the QR page). */
async function authorize(name, at = server) {
  const r = await fetch(
    authorizationUrl(at, {
      client_id: `${docBase}/${name}`,
      redirect_uri: rp.url,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's',
    }),
    { redirect: 'manual' },
  );
  assert.equal(r.status, 200, `${name}: ${await r.text()}`);
}

const hitsOf = (name) => docs.hits.filter((h) => h.name === name);

test('max-age and Expires keep a document; an Expires in the past does not', async () => {
  for (const name of ['max-age.json', 'expires.json', 'expired.json']) {
    await authorize(name);
    await authorize(name);
  }
  assert.equal(hitsOf('max-age.json').length, 1);
  assert.equal(hitsOf('expires.json').length, 1);
  assert.equal(hitsOf('expired.json').length, 2);
});

test('no-store fetches every time, unconditionally', async () => {
  await authorize('no-store.json');
  await authorize('no-store.json');
  const h = hitsOf('no-store.json');
  assert.equal(h.length, 2);
  assert.equal(h[1].inm, undefined, 'nothing of a no-store answer is kept to revalidate');
});

test('no-cache is revalidated with If-None-Match, and the 304 keeps the document', async () => {
  await authorize('no-cache.json');
  await authorize('no-cache.json');
  await authorize('no-cache.json');
  const h = hitsOf('no-cache.json');
  assert.deepEqual(
    h.map((x) => x.inm),
    [undefined, '"v1"', '"v1"'],
  );
});

test('a stale document is revalidated with If-Modified-Since', async () => {
  await authorize('stale.json');
  await authorize('stale.json');
  assert.equal(hitsOf('stale.json').length, 1, 'fresh for a second');
  await new Promise((r) => setTimeout(r, 1500));
  await authorize('stale.json');
  const h = hitsOf('stale.json');
  assert.equal(h.length, 2);
  assert.equal(h[1].ims, 'Sun, 06 Nov 1994 08:49:37 GMT');
});

test("the operator's minimum holds against no-store", async () => {
  await authorize('bounded.json', bounded);
  await authorize('bounded.json', bounded);
  assert.equal(hitsOf('bounded.json').length, 1);
});
