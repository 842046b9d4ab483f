// MCP clients without an operator: the TypeScript MCP SDK's client auth (a library nobody here
// wrote) finds scanid from a resource's RFC 9728 metadata, names itself by a Client ID Metadata
// Document this test serves over https with its own CA (SSL_CERT_FILE), and completes the code
// flow with PKCE and `resource` through a real QR login; the resource verifies the token with
// jose. Then the documents scanid refuses, each with a clear reason: oversized, slow,
// redirecting, lying about its client_id, a redirect URI it does not list, a host the
// operator refuses, and (outside local development) one on a loopback or private address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import https from 'node:https';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { createRemoteJWKSet, jwtVerify, generateKeyPair, exportJWK, SignJWT } from 'jose';
import {
  startServer,
  startCallback,
  launchBrowser,
  enroll,
  approve,
  authorizationUrl,
} from './helpers.mjs';

const WEB_CLIENT = 'https://mcp-web.example';

let clientKey, otherKey;
let server, rp, browser, dana, docs, docBase, resource, resourceUrl;

/** A CA and a certificate for 127.0.0.1 and localhost signed by it, made with openssl. */
function certificates() {
  const dir = mkdtempSync(path.join(tmpdir(), 'scanid-ca-'));
  const f = (n) => path.join(dir, n);
  const ssl = (args) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl(
    ['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem')].concat([
      '-days',
      '1',
      '-subj',
      '/CN=scanid test CA',
    ]),
  );
  writeFileSync(f('ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl(['req', ...ec, '-keyout', f('srv.key'), '-out', f('srv.csr'), '-subj', '/CN=localhost']);
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

/** The documents this test serves, by path: `(base) => [status, headers, body]`. */
function documents(redirectUri, jwk) {
  const doc = (base, name, extra = {}) =>
    JSON.stringify({
      client_id: `${base}/${name}`,
      client_name: 'Test MCP client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
  const json = { 'content-type': 'application/json', 'cache-control': 'max-age=60' };
  return {
    'client.json': (b) => [200, json, doc(b, 'client.json')],
    'other-uri.json': (b) => [
      200,
      json,
      doc(b, 'other-uri.json', { redirect_uris: ['http://127.0.0.1:9/elsewhere'] }),
    ],
    'big.json': (b) => [200, json, doc(b, 'big.json', { padding: 'x'.repeat(6000) })],
    'liar.json': (b) => [200, json, doc(b, 'client.json')],
    'secret.json': (b) => [200, json, doc(b, 'secret.json', { client_secret: 's3cret' })],
    'keyed.json': (b) => [
      200,
      json,
      doc(b, 'keyed.json', {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      }),
    ],
    'redirect.json': (b) => [302, { location: `${b}/client.json` }, ''],
    'slow.json': (b) => ['slow', json, doc(b, 'slow.json')],
  };
}

/** The https server of the documents, with the test's certificate. */
async function startDocuments({ key, cert }, served) {
  const hits = [];
  const s = https.createServer({ key, cert }, (req, res) => {
    const name = req.url.slice(1);
    hits.push(name);
    const answer = served[name];
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    const [status, headers, body] = answer(`https://${req.headers.host}`);
    if (status === 'slow') {
      setTimeout(() => res.writeHead(200, headers).end(body), 6000).unref();
      return;
    }
    res.writeHead(status, headers).end(body);
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { port: s.address().port, hits, close: () => new Promise((r) => s.close(r)) };
}

/** A tiny protected resource (an MCP server's HTTP side): RFC 9728 metadata naming scanid,
 * a 401 challenge pointing at it, and 200 for a token jose verifies with its audience. */
async function startResource(issuerOf) {
  let jwks;
  const s = http.createServer(async (req, res) => {
    const base = `http://${req.headers.host}`;
    const issuer = issuerOf();
    const meta = `${base}/.well-known/oauth-protected-resource/mcp`;
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resource: `${base}/mcp`,
          authorization_servers: [issuer],
          scopes_supported: ['openid', 'profile'],
          bearer_methods_supported: ['header'],
        }),
      );
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    try {
      if (!token) throw new Error('no token');
      jwks ??= createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
      const { payload } = await jwtVerify(token, jwks, { issuer, audience: `${base}/mcp` });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ hello: payload.sub, client: payload.azp }));
    } catch {
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${meta}"` }).end();
    }
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${s.address().port}/mcp`;
  return { url, close: () => new Promise((r) => s.close(r)) };
}

before(async () => {
  const tls = certificates();
  // scanid trusts the test's CA besides the system's (as a developer's would).
  process.env.SSL_CERT_FILE = tls.ca;
  rp = await startCallback();
  clientKey = await generateKeyPair('ES256');
  otherKey = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(clientKey.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  docs = await startDocuments(tls, documents(rp.url, jwk));
  docBase = `https://127.0.0.1:${docs.port}`;
  // The resource first: scanid registers it (RFC 8707).
  resource = await startResource(() => server.issuer);
  resourceUrl = resource.url;
  server = await startServer([
    '--resource',
    resourceUrl,
    '--client-document-refused-host',
    'localhost',
    '--registration-cors-origin',
    WEB_CLIENT,
    '--open-client-registration',
    'true',
  ]);
  browser = await launchBrowser();
  dana = await enroll(server, 'dana');
});

after(async () => {
  delete process.env.SSL_CERT_FILE;
  await browser?.close();
  await rp?.close();
  await docs?.close();
  await resource?.close();
  await server?.stop();
});

/** An OAuthClientProvider (the SDK's interface) that keeps everything in memory and, instead
 * of opening a browser, remembers where it would send the person. */
function provider(clientMetadataUrl) {
  const kept = {};
  return {
    kept,
    clientMetadataUrl,
    get redirectUrl() {
      return rp.url;
    },
    get clientMetadata() {
      return {
        client_name: 'Test MCP client',
        redirect_uris: [rp.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    state: () => 'mcp-state',
    clientInformation: () => kept.client,
    saveClientInformation: (c) => {
      kept.client = c;
    },
    tokens: () => kept.tokens,
    saveTokens: (t) => {
      kept.tokens = t;
    },
    redirectToAuthorization: (url) => {
      kept.authorizationUrl = url;
    },
    saveCodeVerifier: (v) => {
      kept.verifier = v;
    },
    codeVerifier: () => kept.verifier,
  };
}

/** The QR login in Chromium at `url`, approved by Dana's phone; the consent page's text and
 * the callback URL the client got. */
async function qrLogin(url) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url.toString());
  const heading = await page.locator('h1').innerText();
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  const phone = await approve(server, dana, payload, { page });
  assert.equal(phone.status, 'approved', JSON.stringify(phone));
  await page.waitForURL(
    (u) => u.toString().startsWith(rp.url) || /login-actions\/consent/.test(u.toString()),
    { timeout: 10_000 },
  );
  let consent = '';
  if (!page.url().startsWith(rp.url)) {
    consent = await page.locator('main').innerText();
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  }
  const landed = new URL(page.url());
  await ctx.close();
  return { heading, consent, phone, landed };
}

test('the MCP SDK finds scanid by RFC 9728, logs in with a CIMD client_id by QR, calls the resource', async () => {
  const meta = await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json();
  assert.equal(meta.client_id_metadata_document_supported, true);
  // The resource answers 401 with its metadata; the SDK follows it to scanid.
  const first = await fetch(resourceUrl);
  assert.equal(first.status, 401);
  const p = provider(`${docBase}/client.json`);
  assert.equal(await auth(p, { serverUrl: resourceUrl }), 'REDIRECT');
  const url = new URL(p.kept.authorizationUrl);
  assert.equal(url.origin + url.pathname, `${server.issuer}/protocol/openid-connect/auth`);
  assert.equal(url.searchParams.get('client_id'), `${docBase}/client.json`);
  assert.equal(url.searchParams.get('resource'), resourceUrl);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  const { heading, consent, phone, landed } = await qrLogin(url);
  // The phone's approval screen too (the scan answer's client).
  assert.equal(phone.client.name, `Test MCP client (127.0.0.1:${docs.port})`);
  assert.equal(phone.client.self_registered, true, 'nobody checked the name it claims');
  // The pages show the host that serves the document beside the name it claims.
  assert.match(heading, new RegExp(`Test MCP client \\(127\\.0\\.0\\.1:${docs.port}\\)`));
  assert.match(consent, new RegExp(`127\\.0\\.0\\.1:${docs.port}`));
  assert.equal(landed.searchParams.get('state'), 'mcp-state');
  const code = landed.searchParams.get('code');
  assert.ok(code, landed.toString());
  assert.equal(await auth(p, { serverUrl: resourceUrl, authorizationCode: code }), 'AUTHORIZED');
  const called = await fetch(resourceUrl, {
    headers: { authorization: `Bearer ${p.kept.tokens.access_token}` },
  });
  assert.equal(called.status, 200);
  const body = await called.json();
  assert.equal(body.hello, dana.sub);
  assert.equal(body.client, `${docBase}/client.json`);
  // Fetched once: later requests use what scanid kept (max-age=60).
  assert.equal(docs.hits.filter((h) => h === 'client.json').length, 1);
});

test("scanid's own APIs: RFC 9728 metadata, named in userinfo's challenge", async () => {
  const r = await fetch(`${server.issuer}/protocol/openid-connect/userinfo`);
  assert.equal(r.status, 401);
  const challenge = r.headers.get('www-authenticate');
  const m = /resource_metadata="([^"]+)"/.exec(challenge);
  assert.ok(m, challenge);
  const meta = await (await fetch(m[1])).json();
  assert.equal(meta.resource, server.issuer);
  assert.deepEqual(meta.authorization_servers, [server.issuer]);
  assert.ok(meta.scopes_supported.includes('openid'));
  assert.deepEqual(meta.bearer_methods_supported, ['header', 'body']);
});

/** The authorization endpoint's answer to a request from the document at `name`. */
async function authorizeWith(clientId, redirectUri = rp.url) {
  const r = await fetch(
    authorizationUrl(server, {
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's',
    }),
    { redirect: 'manual' },
  );
  return { status: r.status, text: await r.text() };
}

test('documents scanid refuses, each with a clear reason and no redirect', async () => {
  const cases = [
    ['big.json', /larger than 5120 bytes/],
    ['slow.json', /no answer within 3 s/],
    ['redirect.json', /answered 302, a redirect \(not followed\)/],
    ['liar.json', /client_id is not its URL/],
    ['secret.json', /may not have client_secret/],
    ['missing.json', /answered 404/],
  ];
  for (const [name, why] of cases) {
    const r = await authorizeWith(`${docBase}/${name}`);
    assert.equal(r.status, 400, `${name}: ${r.status}`);
    assert.match(r.text, why, name);
  }
  // A document that does not list the redirect URI: refused on the error page.
  const other = await authorizeWith(`${docBase}/other-uri.json`);
  assert.equal(other.status, 400);
  assert.match(other.text, /redirect_uri/);
  // The operator's refused host, never fetched.
  const before = docs.hits.length;
  const refused = await authorizeWith(`https://localhost:${docs.port}/client.json`);
  assert.equal(refused.status, 400);
  assert.match(refused.text, /refuses client documents from localhost/);
  assert.equal(docs.hits.length, before, 'nothing fetched');
  // Not a document URL at all.
  const plain = await authorizeWith(`http://127.0.0.1:${docs.port}/client.json`);
  assert.equal(plain.status, 400);
});

test('outside local development a document on a loopback or private address is refused', async () => {
  const prod = await startServer(['--public-url', 'https://id.example']);
  try {
    for (const host of [`127.0.0.1:${docs.port}`, '10.1.2.3', '169.254.169.254']) {
      const r = await fetch(
        authorizationUrl(
          { issuer: `http://${prod.addr}/realms/scanid` },
          { client_id: `https://${host}/client.json`, redirect_uri: rp.url, state: 's' },
        ),
        { redirect: 'manual' },
      );
      const text = await r.text();
      assert.equal(r.status, 400, host);
      assert.match(text, /not public/, host);
    }
  } finally {
    await prod.stop();
  }
});

test('PAR and the token endpoint take a CIMD client_id too; a refused one is invalid_client with its reason', async () => {
  const form = (o) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(o).toString(),
  });
  const pushed = await fetch(
    `${server.issuer}/protocol/openid-connect/ext/par/request`,
    form({
      client_id: `${docBase}/client.json`,
      redirect_uri: rp.url,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }),
  );
  assert.equal(pushed.status, 201, await pushed.clone().text());
  assert.match((await pushed.json()).request_uri, /^urn:ietf:params:oauth:request_uri:/);
  const token = await fetch(
    `${server.issuer}/protocol/openid-connect/token`,
    form({ grant_type: 'authorization_code', code: 'x', client_id: `${docBase}/big.json` }),
  );
  assert.equal(token.status, 401);
  const body = await token.json();
  assert.equal(body.error, 'invalid_client');
  assert.match(body.error_description, /larger than 5120 bytes/);
});

test('a browser MCP client registers itself cross-origin from an allowed origin only', async () => {
  const endpoint = `${server.issuer}/clients-registrations/openid-connect`;
  const preflight = (origin) =>
    fetch(endpoint, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
  const ok = await preflight(WEB_CLIENT);
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get('access-control-allow-origin'), WEB_CLIENT);
  assert.match(ok.headers.get('access-control-allow-methods'), /POST/);
  const other = await preflight('https://elsewhere.example');
  assert.equal(other.status, 403);
  assert.equal(other.headers.get('access-control-allow-origin'), null);
  const register = (origin, body) =>
    fetch(endpoint, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const metadata = {
    client_name: 'Web MCP',
    redirect_uris: [`${WEB_CLIENT}/cb`],
    token_endpoint_auth_method: 'none',
  };
  const made = await register(WEB_CLIENT, metadata);
  assert.equal(made.status, 201);
  assert.equal(made.headers.get('access-control-allow-origin'), WEB_CLIENT);
  assert.ok((await made.json()).client_id);
  // An error is readable by the allowed origin too; another origin gets no CORS headers.
  const bad = await register(WEB_CLIENT, { redirect_uris: [] });
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get('access-control-allow-origin'), WEB_CLIENT);
  const foreign = await register('https://elsewhere.example', metadata);
  assert.equal(foreign.status, 201);
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
});

test("a CIMD client with private_key_jwt authenticates at PAR by an assertion signed with its document's key", async () => {
  const id = `${docBase}/keyed.json`;
  const endpoint = `${server.issuer}/protocol/openid-connect/ext/par/request`;
  const assertion = (key) =>
    new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(id)
      .setSubject(id)
      .setAudience(server.issuer)
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);
  const push = async (extra) =>
    fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: id,
        redirect_uri: rp.url,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        ...extra,
      }).toString(),
    });
  const type = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
  const signed = await push({
    client_assertion_type: type,
    client_assertion: await assertion(clientKey.privateKey),
  });
  assert.equal(signed.status, 201, await signed.clone().text());
  const forged = await push({
    client_assertion_type: type,
    client_assertion: await assertion(otherKey.privateKey),
  });
  assert.equal(forged.status, 401);
  assert.equal((await forged.json()).error, 'invalid_client');
  const none = await push({});
  assert.equal(none.status, 401, 'a keyed client cannot act as a public one');
});

test('a browser MCP client identified by CIMD gets CORS at the token and revocation endpoints for its own origin only', async () => {
  // The code verifier 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' (RFC 7636 Appendix B).
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const url = authorizationUrl(server, {
    client_id: `${docBase}/client.json`,
    redirect_uri: rp.url,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'cors',
  });
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  try {
    await page.goto(url);
    const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
    const phone = await approve(server, dana, payload, { page });
    assert.equal(phone.status, 'approved', JSON.stringify(phone));
    await page.waitForURL(
      (u) => u.toString().startsWith(rp.url) || /login-actions\/consent/.test(u.toString()),
      { timeout: 10_000 },
    );
    if (!page.url().startsWith(rp.url)) {
      await page.click('button[name="consent"][value="allow"]');
      await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
    }
    const code = new URL(page.url()).searchParams.get('code');
    assert.ok(code);
    const tokenUrl = `${server.issuer}/protocol/openid-connect/token`;
    const revokeUrl = `${server.issuer}/protocol/openid-connect/revoke`;
    // The page, at the document's redirect origin, exchanges its code with fetch and reads the
    // answer: the browser enforces CORS.
    const got = await page.evaluate(
      async ([tokenUrl, revokeUrl, form]) => {
        const r = await fetch(tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
        const tokens = await r.json();
        const v = await fetch(revokeUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            token: tokens.refresh_token,
            client_id: form.client_id,
          }).toString(),
        });
        return { status: r.status, tokens, revoked: v.status };
      },
      [
        tokenUrl,
        revokeUrl,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: rp.url,
          client_id: `${docBase}/client.json`,
          code_verifier: verifier,
        },
      ],
    );
    assert.equal(got.status, 200, JSON.stringify(got));
    assert.ok(got.tokens.access_token);
    assert.equal(got.revoked, 200);
    // Raw: the preflight from the redirect origin passes; from another origin it does not, and
    // an answer to another origin carries no CORS header.
    const rpOrigin = new URL(rp.url).origin;
    const preflight = (origin) =>
      fetch(tokenUrl, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, dpop',
        },
      });
    const ok = await preflight(rpOrigin);
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), rpOrigin);
    const other = await preflight('https://other.example');
    assert.equal(other.status, 403);
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const post = (origin) =>
      fetch(tokenUrl, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'spent-or-unknown',
          redirect_uri: rp.url,
          client_id: `${docBase}/client.json`,
          code_verifier: verifier,
        }).toString(),
      });
    const mine = await post(rpOrigin);
    assert.equal(mine.status, 400);
    assert.equal(mine.headers.get('access-control-allow-origin'), rpOrigin, 'its errors too');
    const theirs = await post('https://other.example');
    assert.equal(theirs.status, 400);
    assert.equal(theirs.headers.get('access-control-allow-origin'), null);
  } finally {
    await ctx.close();
  }
});
