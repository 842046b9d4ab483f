// amr and acr (issue 26) as a relying-party library sees them: openid-client reads
// acr_values_supported from discovery, asks with acr_values or an essential acr in the claims
// parameter, verifies the ID token (signature, nonce, state) and the test reads amr and acr
// from the verified claims. The QR login approved with the reference app's device key is
// `amr: ["pop","swk"]`, `acr: "1"`; an essential acr it cannot reach is refused at the approval.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, startCallback, launchBrowser, cli, enroll, approve } from './helpers.mjs';

let server, rp, browser, carol, secret, config;

before(async () => {
  server = await startServer();
  rp = await startCallback();
  browser = await launchBrowser();
  const c = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'acr RP',
    '--client-id',
    'acr-rp',
    '--redirect-uri',
    rp.url,
  ]);
  secret = c.client_secret;
  carol = await enroll(server, 'carol');
  config = await oidc.discovery(
    new URL(server.issuer),
    'acr-rp',
    undefined,
    oidc.ClientSecretBasic(secret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

/** Opens `url` in a fresh browser, approves with the app; resolves to { approved, page, ctx }. */
async function openAndApprove(url) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url.toString());
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  const approved = await approve(server, carol, payload, { page });
  return { approved, page, ctx };
}

/** A login approved with the app's key, through consent, to the verified tokens. */
async function login(params) {
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    state,
    nonce,
    ...params,
  });
  const { approved, page, ctx } = await openAndApprove(url);
  assert.equal(approved.status, 'approved', JSON.stringify(approved));
  await page.waitForURL(
    (u) => u.toString().startsWith(rp.url) || /login-actions\/consent/.test(u.toString()),
    { timeout: 10_000 },
  );
  if (!page.url().startsWith(rp.url)) {
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  }
  const callback = new URL(page.url());
  await ctx.close();
  return oidc.authorizationCodeGrant(config, callback, {
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
}

test('discovery lists the acr levels and amr', () => {
  const m = config.serverMetadata();
  assert.deepEqual(m.acr_values_supported, ['1', '2', '3']);
  assert.ok(m.claims_supported.includes('amr'));
});

test("a QR login approved with the app's device key: amr pop swk, acr 1 (verified by openid-client)", async () => {
  const tokens = await login({});
  const claims = tokens.claims();
  assert.deepEqual(claims.amr, ['pop', 'swk']);
  assert.equal(claims.acr, '1');
  // Asked for voluntarily, a higher level is answered with what was reached.
  const t2 = await login({ acr_values: '2 1' });
  assert.equal(t2.claims().acr, '1');
  assert.deepEqual(t2.claims().amr, ['pop', 'swk']);
  // The access token says it too, as introspection does.
  const i = await oidc.tokenIntrospection(config, t2.access_token);
  assert.equal(i.acr, '1');
});

test("an essential acr 2 refuses the device key's approval with acr_not_met; the login waits", async () => {
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    claims: JSON.stringify({ id_token: { acr: { essential: true, values: ['2'] } } }),
  });
  const { approved, page, ctx } = await openAndApprove(url);
  assert.match(approved.error ?? '', /acr_not_met|passkey/, JSON.stringify(approved));
  assert.ok(!page.url().startsWith(rp.url));
  await ctx.close();
});

test("a client's --require-acr 2 holds every login; none lifts it", async () => {
  const shown = await cli([
    'client',
    'update',
    '--client-id',
    'acr-rp',
    '--require-acr',
    '2',
    '--data-dir',
    server.dataDir,
  ]);
  assert.equal(shown.require_acr, '2');
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
  });
  const { approved, ctx } = await openAndApprove(url);
  assert.match(approved.error ?? '', /acr_not_met|passkey/, JSON.stringify(approved));
  await ctx.close();
  await cli([
    'client',
    'update',
    '--client-id',
    'acr-rp',
    '--require-acr',
    'none',
    '--data-dir',
    server.dataDir,
  ]);
  assert.equal((await login({})).claims().acr, '1');
});
