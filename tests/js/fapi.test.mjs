// FAPI 2.0's first pieces with a client library certified for it: openid-client authenticates
// by private_key_jwt (an ES256 key whose public half the operator registered with
// `scanid client create --jwks`), pushes its authorization request (RFC 9126; the client is
// registered with --require-par), sends the browser with the request_uri, and a real QR login
// (Chromium, approved with the reference app) ends with a code it redeems with PKCE. jose
// verifies the id_token and the access token with the JWKS alone. Then the same with DPoP
// (RFC 9449) for a client whose access tokens are DPoP-bound, on a server that wants nonces:
// the PAR request, the code exchange, the refresh and userinfo carry proofs by one key, the
// library answers use_dpop_nonce by itself, and jose checks that the access tokens' cnf.jkt is
// that key's thumbprint. A second library nobody here wrote, requests-oauth2client (PyPI,
// tests/py/requests_oauth2client_rp.py), does the same with its own DPoP key. And FAPI 2.0
// Message Signing: a signed request object pushed, a JARM response jose verifies, and a signed
// introspection response.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as oidc from 'openid-client';
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { startServer, startCallback, launchBrowser, cli, enroll, qrLogin } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
let server, rp, browser, carol, privateKey;

before(async () => {
  server = await startServer([
    '--dpop-nonce-secret',
    'a-dpop-nonce-secret-of-32-characters-or-more',
  ]);
  rp = await startCallback();
  browser = await launchBrowser();
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'rp-1', use: 'sig', alg: 'ES256' };
  const file = path.join(server.dataDir, 'fapi-rp-jwks.json');
  writeFileSync(file, JSON.stringify({ keys: [jwk] }));
  const created = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'FAPI RP',
    '--client-id',
    'fapi-rp',
    '--redirect-uri',
    rp.url,
    '--jwks',
    file,
    '--require-par',
  ]);
  assert.equal(created.client_secret, undefined, 'a client with keys has no secret');
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'FAPI DPoP RP',
    '--client-id',
    'fapi-dpop',
    '--redirect-uri',
    rp.url,
    '--jwks',
    file,
    '--require-par',
    '--dpop-bound-access-tokens',
  ]);
  carol = await enroll(server, 'carol');
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

/** Logs carol in through the QR login; resolves to the callback URL the RP received. */
const browserLogin = (url) => qrLogin(browser, server, carol, rp.url, url);

test('openid-client: private_key_jwt, PAR and PKCE through a QR login; jose verifies the tokens', async () => {
  const config = await oidc.discovery(
    new URL(server.issuer),
    'fapi-rp',
    undefined,
    oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }),
    { execute: [oidc.allowInsecureRequests] },
  );
  const meta = config.serverMetadata();
  assert.ok(meta.token_endpoint_auth_methods_supported.includes('private_key_jwt'));
  assert.ok(meta.token_endpoint_auth_methods_supported.includes('client_secret_jwt'));
  assert.equal(
    meta.pushed_authorization_request_endpoint,
    `${server.issuer}/protocol/openid-connect/ext/par/request`,
  );

  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const params = {
    redirect_uri: rp.url,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  };
  // Not pushed: refused for this client (invalid_request at its redirect URI).
  const refused = await browserLoginRefused(oidc.buildAuthorizationUrl(config, params));
  assert.equal(refused.searchParams.get('error'), 'invalid_request');

  const url = await oidc.buildAuthorizationUrlWithPAR(config, params);
  assert.deepEqual([...url.searchParams.keys()].sort(), ['client_id', 'request_uri']);
  assert.match(url.searchParams.get('request_uri'), /^urn:ietf:params:oauth:request_uri:/);
  const callback = await browserLogin(url);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const jwks = createRemoteJWKSet(new URL(meta.jwks_uri));
  const id = await jwtVerify(tokens.id_token, jwks, { issuer: server.issuer, audience: 'fapi-rp' });
  assert.equal(id.payload.nonce, nonce);
  assert.equal(id.payload.preferred_username, 'carol');
  const at = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
  assert.equal(at.payload.azp, 'fapi-rp');
  assert.equal(at.payload.sub, id.payload.sub);

  // The client's other calls authenticate the same way.
  const active = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(active.active, true);
  assert.equal(active.client_id, 'fapi-rp');
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
  assert.equal(refreshed.claims().sub, id.payload.sub);
});

test('openid-client: private_key_jwt, PAR, DPoP and PKCE; refresh and userinfo with DPoP; jose checks cnf.jkt', async () => {
  const config = await oidc.discovery(
    new URL(server.issuer),
    'fapi-dpop',
    undefined,
    oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }),
    { execute: [oidc.allowInsecureRequests] },
  );
  const meta = config.serverMetadata();
  assert.ok(meta.dpop_signing_alg_values_supported.includes('ES256'));
  const dpopKeys = await oidc.randomDPoPKeyPair('ES256');
  const DPoP = oidc.getDPoPHandle(config, dpopKeys);
  const jkt = await calculateJwkThumbprint(await exportJWK(dpopKeys.publicKey));

  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = await oidc.buildAuthorizationUrlWithPAR(
    config,
    {
      redirect_uri: rp.url,
      scope: 'openid profile offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    },
    { DPoP },
  );
  const callback = await browserLogin(url);
  const checks = { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce };
  // Without a proof this client gets no token (its access tokens are DPoP-bound).
  await assert.rejects(oidc.authorizationCodeGrant(config, callback, checks), (e) => {
    assert.equal(e.error, 'invalid_dpop_proof');
    return true;
  });
  const tokens = await oidc.authorizationCodeGrant(config, callback, checks, undefined, { DPoP });
  assert.equal(tokens.token_type.toLowerCase(), 'dpop');
  const jwks = createRemoteJWKSet(new URL(meta.jwks_uri));
  const at = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
  assert.equal(at.payload.cnf.jkt, jkt, "the access token is bound to the client's DPoP key");
  const sub = tokens.claims().sub;

  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token, undefined, { DPoP });
  assert.equal(refreshed.token_type.toLowerCase(), 'dpop');
  const again = await jwtVerify(refreshed.access_token, jwks, { issuer: server.issuer });
  assert.equal(again.payload.cnf.jkt, jkt);

  const info = await oidc.fetchUserInfo(config, refreshed.access_token, sub, { DPoP });
  assert.equal(info.sub, sub);
  assert.equal(info.preferred_username, 'carol');
  // The same token as a bearer token is refused (WWW-Authenticate: DPoP, invalid_token).
  await assert.rejects(oidc.fetchUserInfo(config, refreshed.access_token, sub), (e) => {
    assert.equal(e.cause?.status ?? e.status, 401);
    return true;
  });
  // Introspection shows the binding.
  const active = await oidc.tokenIntrospection(config, refreshed.access_token);
  assert.equal(active.active, true);
  assert.equal(active.token_type, 'DPoP');
  assert.equal(active.cnf.jkt, jkt);
});

test('openid-client: FAPI 2.0 Message Signing: a signed request object at PAR, JARM, DPoP, signed introspection; jose verifies the JARM response', async () => {
  const file = path.join(server.dataDir, 'fapi-rp-jwks.json');
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'FAPI MS RP',
    '--client-id',
    'fapi-ms',
    '--redirect-uri',
    rp.url,
    '--jwks',
    file,
    '--profile',
    'fapi2',
    '--require-signed-request-object',
  ]);
  const config = await oidc.discovery(
    new URL(server.issuer),
    'fapi-ms',
    { authorization_signed_response_alg: 'ES256', introspection_signed_response_alg: 'ES256' },
    oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }),
    { execute: [oidc.allowInsecureRequests] },
  );
  const meta = config.serverMetadata();
  assert.ok(meta.response_modes_supported.includes('jwt'));
  assert.ok(meta.authorization_signing_alg_values_supported.includes('ES256'));
  assert.ok(meta.request_object_signing_alg_values_supported.includes('ES256'));
  oidc.useJwtResponseMode(config);
  const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const params = {
    redirect_uri: rp.url,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  };
  // Pushed without a request object: refused for this client.
  await assert.rejects(oidc.buildAuthorizationUrlWithPAR(config, params, { DPoP }), (e) => {
    assert.equal(e.error, 'invalid_request');
    return true;
  });
  const jar = await oidc.buildAuthorizationUrlWithJAR(config, params, {
    key: privateKey,
    kid: 'rp-1',
  });
  const request = jar.searchParams.get('request');
  assert.equal(decodeProtectedHeader(request).alg, 'ES256');
  const url = await oidc.buildAuthorizationUrlWithPAR(
    config,
    { client_id: 'fapi-ms', request },
    { DPoP },
  );
  assert.deepEqual([...url.searchParams.keys()].sort(), ['client_id', 'request_uri']);
  const callback = await browserLogin(url);
  // The response is one signed JWT: jose verifies it with the JWKS alone.
  assert.deepEqual([...callback.searchParams.keys()], ['response']);
  const jwks = createRemoteJWKSet(new URL(meta.jwks_uri));
  const jarm = await jwtVerify(callback.searchParams.get('response'), jwks, {
    issuer: server.issuer,
    audience: 'fapi-ms',
    algorithms: ['ES256'],
  });
  assert.equal(jarm.payload.state, state);
  assert.equal(typeof jarm.payload.code, 'string');
  assert.ok(jarm.payload.exp - jarm.payload.iat <= 600);
  // openid-client checks it too (signature, iss, aud, exp, state) and redeems the code.
  const tokens = await oidc.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce },
    undefined,
    { DPoP },
  );
  assert.equal(tokens.token_type.toLowerCase(), 'dpop');
  const id = await jwtVerify(tokens.id_token, jwks, { issuer: server.issuer, audience: 'fapi-ms' });
  assert.equal(id.protectedHeader.alg, 'ES256', 'a FAPI client never gets RS256');
  assert.equal(id.payload.nonce, nonce);
  await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
  // Introspection answers a signed JWT (RFC 9701), which openid-client verifies.
  const seen = [];
  config[oidc.customFetch] = async (url, options) => {
    const r = await fetch(url, options);
    seen.push(r.headers.get('content-type'));
    return r;
  };
  const active = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.deepEqual(seen, ['application/token-introspection+jwt']);
  assert.equal(active.active, true);
  assert.equal(active.client_id, 'fapi-ms');
});

test('openid-client: a signed request object by value (RFC 9101) at the authorization endpoint, through a QR login', async () => {
  const file = path.join(server.dataDir, 'fapi-rp-jwks.json');
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'JAR RP',
    '--client-id',
    'jar-rp',
    '--redirect-uri',
    rp.url,
    '--jwks',
    file,
  ]);
  const config = await oidc.discovery(
    new URL(server.issuer),
    'jar-rp',
    undefined,
    oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }),
    { execute: [oidc.allowInsecureRequests] },
  );
  assert.equal(config.serverMetadata().request_parameter_supported, true);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = await oidc.buildAuthorizationUrlWithJAR(
    config,
    {
      redirect_uri: rp.url,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    },
    { key: privateKey, kid: 'rp-1' },
  );
  const request = url.searchParams.get('request');
  assert.equal(decodeProtectedHeader(request).alg, 'ES256');
  assert.ok(!url.searchParams.has('request_uri'), 'by value, not pushed');
  const callback = await browserLogin(url);
  assert.equal(callback.searchParams.get('state'), state);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
  const id = await jwtVerify(tokens.id_token, jwks, { issuer: server.issuer, audience: 'jar-rp' });
  assert.equal(id.payload.nonce, nonce);

  // Signed by a key the client never registered: invalid_request_object at its redirect URI.
  const stranger = await generateKeyPair('ES256', { extractable: true });
  const forged = await oidc.buildAuthorizationUrlWithJAR(
    config,
    { redirect_uri: rp.url, scope: 'openid', state: 'st-forged' },
    { key: stranger.privateKey, kid: 'rp-1' },
  );
  const refused = await browserLoginRefused(forged);
  assert.equal(refused.searchParams.get('error'), 'invalid_request_object');
  assert.equal(refused.searchParams.get('state'), 'st-forged');
});

/** Opens `url` (no login expected): where the browser was sent. */
async function browserLoginRefused(url) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url.toString());
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  const landed = new URL(page.url());
  await ctx.close();
  return landed;
}

test('requests-oauth2client (Python): private_key_jwt, PAR, dpop_jkt, DPoP code exchange, userinfo and refresh', async () => {
  const jwk = { ...(await exportJWK(privateKey)), kid: 'rp-1', alg: 'ES256' };
  const py = spawn(
    process.env.PYTHON ?? 'python3',
    [
      path.join(here, '..', 'py', 'requests_oauth2client_rp.py'),
      server.issuer,
      'fapi-dpop',
      JSON.stringify(jwk),
      rp.url,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  py.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    assert.ok(!done, `requests_oauth2client_rp.py ended early: ${stderr}`);
    const line = JSON.parse(value);
    assert.equal(line.error, undefined, `${line.error}\n${stderr}`);
    return line;
  };
  try {
    const { authorization_url: url } = await next();
    const parsed = new URL(url);
    assert.deepEqual([...parsed.searchParams.keys()].sort(), ['client_id', 'request_uri']);
    const callback = await browserLogin(parsed);
    py.stdin.write(`${callback}\n`);
    const { result } = await next();
    assert.equal(result.username, 'carol');
    assert.match(result.jkt, /^[A-Za-z0-9_-]{43}$/);
  } finally {
    if (py.exitCode === null) py.kill();
  }
});
