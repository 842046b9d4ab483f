// Delegation by token exchange (RFC 8693) with openid-client v6 (a library nobody here wrote)
// through the real QR login in Chromium: the consent page says the agent may act for the
// person; openid-client's genericGrantRequest exchanges the person's access token for one
// narrowed in scope and audience that names the agent in `act` (verified with jose, seen in
// introspection); the person lists and withdraws the delegation with the reference app, and
// the exchanged token dies at once while a new exchange is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startServer, startCallback, launchBrowser, cli, enroll, approve } from './helpers.mjs';

const API = 'https://api.example/v1';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';

let server, rp, browser, dana, config, jwks;

before(async () => {
  server = await startServer(['--resource', API]);
  rp = await startCallback();
  browser = await launchBrowser();
  const c = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Travel agent',
    '--client-id',
    'agent-rp',
    '--redirect-uri',
    rp.url,
    '--grant',
    'token_exchange',
  ]);
  dana = await enroll(server, 'dana');
  config = await oidc.discovery(
    new URL(server.issuer),
    'agent-rp',
    undefined,
    oidc.ClientSecretBasic(c.client_secret),
    { execute: [oidc.allowInsecureRequests] },
  );
  jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

test('openid-client: an agent the person allowed exchanges their token; act verified; withdrawn in the app', async () => {
  assert.ok(config.serverMetadata().grant_types_supported.includes(TE));
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid profile groups',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    // The consent page shows the API the agent may act at.
    resource: API,
  });
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url.toString());
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  assert.equal((await approve(server, dana, payload, { page })).status, 'approved');
  await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  // The person reads that allowing lets the agent act for them.
  assert.equal(await page.locator('#resources').innerText(), API);
  const said = await page.locator('#delegation').innerText();
  assert.match(said, /Travel agent is an agent: if you allow, it may also act for you/);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  const landed = new URL(page.url());
  await ctx.close();
  const tokens = await oidc.authorizationCodeGrant(config, landed, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  const sub = tokens.claims().sub;

  const exchanged = await oidc.genericGrantRequest(config, TE, {
    subject_token: tokens.access_token,
    subject_token_type: AT,
    scope: 'groups',
    resource: API,
  });
  assert.equal(exchanged.issued_token_type, AT);
  assert.equal(exchanged.refresh_token, undefined);
  const { payload: at } = await jwtVerify(exchanged.access_token, jwks, {
    issuer: server.issuer,
    audience: API,
  });
  assert.equal(at.sub, sub);
  assert.equal(at.scope, 'groups');
  assert.deepEqual(at.act, { sub: 'agent-rp' });
  const seen = await oidc.tokenIntrospection(config, exchanged.access_token);
  assert.equal(seen.active, true);
  assert.deepEqual(seen.act, { sub: 'agent-rp' });
  // Narrowing is enforced.
  await assert.rejects(
    oidc.genericGrantRequest(config, TE, {
      subject_token: tokens.access_token,
      subject_token_type: AT,
      scope: 'groups address',
    }),
    (e) => e.error === 'invalid_scope',
  );

  // The person sees the delegation in the app and withdraws it.
  const listed = await cli([
    'app',
    'delegations',
    '--key-file',
    dana.file,
    '--server',
    server.base,
  ]);
  assert.deepEqual(
    listed.delegations.map((d) => [d.client_id, d.client_name]),
    [['agent-rp', 'Travel agent']],
  );
  const w = await cli([
    'app',
    'withdraw',
    '--key-file',
    dana.file,
    '--server',
    server.base,
    'agent-rp',
  ]);
  assert.equal(w.status, 'withdrawn');
  assert.equal((await oidc.tokenIntrospection(config, exchanged.access_token)).active, false);
  await assert.rejects(
    oidc.genericGrantRequest(config, TE, {
      subject_token: tokens.access_token,
      subject_token_type: AT,
    }),
    (e) => e.error === 'invalid_request' && /not delegated/.test(e.error_description),
  );
});
