// Interoperability with relying-party libraries nobody here wrote: openid-client does discovery,
// the code flow with PKCE (the login page driven in Chromium, approved with the reference app),
// validates the id_token against the JWKS, calls userinfo, refreshes, introspects and revokes;
// jose validates the access token as a resource server would, with the JWKS only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import {
  startServer,
  startCallback,
  launchBrowser,
  cli,
  enroll,
  approve,
  qrLogin,
} from './helpers.mjs';

let server, rp, browser, bob, secret;

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
    'openid-client RP',
    '--client-id',
    'node-rp',
    '--redirect-uri',
    rp.url,
  ]);
  secret = c.client_secret;
  bob = await enroll(server, 'bob');
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

/** Logs bob in through the QR login; resolves to the callback URL the RP received. */
const browserLogin = (url) => qrLogin(browser, server, bob, rp.url, url);

for (const method of ['client_secret_post', 'client_secret_basic']) {
  test(`openid-client (${method}): discovery, code + PKCE, id_token, userinfo, refresh, introspect, revoke`, async () => {
    const auth =
      method === 'client_secret_basic'
        ? oidc.ClientSecretBasic(secret)
        : oidc.ClientSecretPost(secret);
    const config = await oidc.discovery(new URL(server.issuer), 'node-rp', undefined, auth, {
      execute: [oidc.allowInsecureRequests],
    });
    assert.equal(config.serverMetadata().issuer, server.issuer);

    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = await oidc.calculatePKCECodeChallenge(verifier);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: rp.url,
      scope: 'openid profile offline_access',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const callback = await browserLogin(url);
    // Validates iss (RFC 9207), state, the code exchange, the id_token signature (JWKS), nonce, at_hash.
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    assert.equal(claims.iss, server.issuer);
    assert.equal(claims.aud, 'node-rp');
    assert.equal(claims.preferred_username, 'bob');
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.refresh_expires_in, 0, 'offline_access');
    assert.equal(typeof tokens.session_state, 'string');

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    assert.equal(info.sub, claims.sub);
    assert.equal(info.peferred_username, 'bob');

    // Resource server: jose with the JWKS only.
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
    assert.equal(payload.sub, claims.sub);
    assert.equal(payload.azp, 'node-rp');
    assert.ok(payload.service_id);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'rotation');
    assert.equal(refreshed.claims().sub, claims.sub);

    const active = await oidc.tokenIntrospection(config, refreshed.access_token);
    assert.equal(active.active, true);
    assert.equal(active.client_id, 'node-rp');
    assert.equal(active.username, 'bob');

    await oidc.tokenRevocation(config, refreshed.refresh_token);
    const after = await oidc.tokenIntrospection(config, refreshed.access_token);
    assert.deepEqual(after, { active: false });
    await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token));
  });
}

// Auth.js asks for `openid profile email` by default, mozilla-django-oidc for `openid email`; a
// Keycloak client sends `email` too. scanid knows no e-mail address: the scope is ignored (OIDC
// Core 3.1.2.1), the token response says what was granted (RFC 6749 §3.3). No PKCE and no nonce
// (the Basic OP plan's client): state is what protects the flow.
test('openid-client: scope "openid profile email" logs in, granted "openid profile"; no nonce, no PKCE', async () => {
  const config = await oidc.discovery(
    new URL(server.issuer),
    'node-rp',
    undefined,
    oidc.ClientSecretBasic(secret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid profile email',
    state,
  });
  const tokens = await oidc.authorizationCodeGrant(config, await browserLogin(url), {
    expectedState: state,
    idTokenExpected: true,
  });
  assert.equal(tokens.scope, 'openid profile');
  const claims = tokens.claims();
  assert.equal(claims.nonce, undefined);
  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  assert.equal(info.preferred_username, 'bob');
  assert.equal(typeof info.updated_at, 'number');
  assert.deepEqual(info.groups, []);
  assert.equal(info.email, undefined);
});

test('openid-client: a public client with PKCE and no secret', async () => {
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'SPA',
    '--client-id',
    'node-spa',
    '--public',
    '--redirect-uri',
    rp.url,
  ]);
  const config = await oidc.discovery(new URL(server.issuer), 'node-spa', undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const tokens = await oidc.authorizationCodeGrant(config, await browserLogin(url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  assert.ok(tokens.claims().sub);
});

// The claims request parameter (OIDC Core 5.5), as openid-client sends it: `name` as essential
// at userinfo and `address` in the id_token, with `openid` alone; the consent page lists both.
test('openid-client: the claims parameter releases the claims asked for, where asked for, after consent', async () => {
  const config = await oidc.discovery(
    new URL(server.issuer),
    'node-rp',
    undefined,
    oidc.ClientSecretBasic(secret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  assert.equal(config.serverMetadata().claims_parameter_supported, true);
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    state,
    claims: JSON.stringify({
      userinfo: { name: { essential: true } },
      id_token: { address: null },
    }),
  });
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url.toString());
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  assert.equal((await approve(server, bob, payload, { page })).status, 'approved');
  await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  const listed = await page.locator('ul.scopes li').allTextContents();
  assert.ok(
    listed.includes('Your display name') && listed.includes('Your country'),
    listed.join(' | '),
  );
  await page.click('button[name="consent"][value="allow"]');
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  const callback = new URL(page.url());
  await ctx.close();
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    expectedState: state,
    idTokenExpected: true,
  });
  assert.equal(tokens.scope, 'openid');
  const claims = tokens.claims();
  assert.deepEqual(claims.address, { country: 'SE' });
  assert.equal(claims.name, undefined);
  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  assert.equal(info.name, 'bob display');
  assert.equal(info.address, undefined);
  assert.equal(info.preferred_username, undefined);
});

// Issue 24: "this wasn't me" in the app (the reference app's `report`), seen by openid-client:
// the offline refresh token is refused, introspection says inactive, userinfo refuses.
test('openid-client: after "this wasn\'t me" the refresh token, introspection and userinfo all say no', async () => {
  const config = await oidc.discovery(
    new URL(server.issuer),
    'node-rp',
    undefined,
    oidc.ClientSecretBasic(secret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid offline_access',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await browserLogin(url);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  const sub = tokens.claims().sub;
  assert.equal((await oidc.tokenIntrospection(config, tokens.access_token)).active, true);

  const { logins } = await cli([
    'app',
    'activity',
    '--key-file',
    bob.file,
    '--server',
    server.base,
  ]);
  const mine = logins[0];
  assert.equal(mine.client_id, 'node-rp');
  const reported = await cli([
    'app',
    'report',
    '--key-file',
    bob.file,
    '--server',
    server.base,
    mine.id,
  ]);
  assert.equal(reported.status, 'reported');
  assert.equal(reported.session_ended, true);

  await assert.rejects(
    oidc.refreshTokenGrant(config, tokens.refresh_token),
    (e) => e.error === 'invalid_grant',
  );
  assert.deepEqual(await oidc.tokenIntrospection(config, tokens.access_token), { active: false });
  await assert.rejects(oidc.fetchUserInfo(config, tokens.access_token, sub));
});
