// RFC 8707 resource indicators and RFC 9101 request objects with openid-client v6 (a library
// nobody here wrote) through the real QR login: `resource` at the authorization and token
// endpoints (code, refresh, client credentials), the access token's `aud` verified with jose
// as the resource server would; an unsigned request object (jose's UnsecuredJWT) as the whole
// authorization request; openid-client's signed JAR refused with invalid_request_object.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, UnsecuredJWT, generateKeyPair } from 'jose';
import { startServer, startCallback, launchBrowser, cli, enroll, qrLogin } from './helpers.mjs';

const API = 'https://api.example/v1';
const MCP = 'https://mcp.example/mcp';

let server, rp, browser, carol, secret, config, jwks;

before(async () => {
  server = await startServer(['--resource', `${API},${MCP}`]);
  rp = await startCallback();
  browser = await launchBrowser();
  const c = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Resource RP',
    '--client-id',
    'resource-rp',
    '--redirect-uri',
    rp.url,
    '--client-credentials',
  ]);
  secret = c.client_secret;
  carol = await enroll(server, 'carol');
  config = await oidc.discovery(
    new URL(server.issuer),
    'resource-rp',
    undefined,
    oidc.ClientSecretBasic(secret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

/** Logs carol in through the QR login; resolves to the callback URL the RP received. */
const browserLogin = (url) => qrLogin(browser, server, carol, rp.url, url);

/** Where the authorization endpoint sends the browser at once (an error redirect). */
async function redirectedTo(url) {
  const r = await fetch(url, { redirect: 'manual' });
  assert.equal(r.status, 302, await r.text());
  return new URL(r.headers.get('location'));
}

test('openid-client: resource at authorization (two) and token (one); aud verified with jose; refresh keeps the grant', async () => {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const params = new URLSearchParams({
    redirect_uri: rp.url,
    scope: 'openid profile offline_access',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  params.append('resource', API);
  params.append('resource', MCP);
  const url = oidc.buildAuthorizationUrl(config, params);
  assert.deepEqual(url.searchParams.getAll('resource'), [API, MCP]);
  const tokens = await oidc.authorizationCodeGrant(
    config,
    await browserLogin(url),
    {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    },
    { resource: MCP },
  );
  assert.equal(tokens.claims().aud, 'resource-rp', "the id token stays the client's");
  // The resource server checks its audience; another resource's check fails.
  const { payload } = await jwtVerify(tokens.access_token, jwks, {
    issuer: server.issuer,
    audience: MCP,
  });
  assert.equal(payload.azp, 'resource-rp');
  await assert.rejects(
    jwtVerify(tokens.access_token, jwks, { issuer: server.issuer, audience: API }),
  );
  // Introspection says the audience; userinfo refuses a resource server's token.
  const active = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(active.aud, MCP);
  await assert.rejects(
    oidc.fetchUserInfo(config, tokens.access_token, tokens.claims().sub),
    (e) =>
      e instanceof oidc.WWWAuthenticateChallengeError &&
      e.cause.some((c) => c.scheme === 'bearer' && c.parameters.error === 'invalid_token'),
  );
  // Refresh for the other granted resource.
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token, { resource: API });
  const r = await jwtVerify(refreshed.access_token, jwks, { issuer: server.issuer, audience: API });
  assert.equal(r.payload.sub, payload.sub);
  // Not granted: invalid_target.
  await assert.rejects(
    oidc.refreshTokenGrant(config, refreshed.refresh_token, { resource: 'https://other.example/' }),
    (e) => e.error === 'invalid_target',
  );
});

test('openid-client: client credentials for a registered resource; unknown ones are invalid_target', async () => {
  const t = await oidc.clientCredentialsGrant(config, { resource: API });
  const { payload } = await jwtVerify(t.access_token, jwks, {
    issuer: server.issuer,
    audience: API,
  });
  assert.equal(payload.gty, 'client_credentials');
  await assert.rejects(
    oidc.clientCredentialsGrant(config, { resource: 'https://unknown.example/' }),
    (e) => e.error === 'invalid_target',
  );
});

test('an unregistered resource at authorization comes back as invalid_target with state and iss', async () => {
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    state: 'st-target',
    resource: 'https://unknown.example/',
  });
  const back = await redirectedTo(url);
  assert.equal(back.searchParams.get('error'), 'invalid_target');
  assert.equal(back.searchParams.get('state'), 'st-target');
  assert.equal(back.searchParams.get('iss'), server.issuer);
});

test('an unsigned request object (jose UnsecuredJWT) carries the request, resource included', async () => {
  assert.equal(config.serverMetadata().request_parameter_supported, true);
  assert.ok(config.serverMetadata().request_object_signing_alg_values_supported.includes('none'));
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const request = new UnsecuredJWT({
    client_id: 'resource-rp',
    response_type: 'code',
    redirect_uri: rp.url,
    scope: 'openid profile',
    state,
    nonce,
    resource: [API],
  })
    .setIssuer('resource-rp')
    .setAudience(server.issuer)
    .setIssuedAt()
    .setExpirationTime('5m')
    .encode();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    request,
  });
  const tokens = await oidc.authorizationCodeGrant(config, await browserLogin(url), {
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  assert.equal(tokens.scope, 'openid profile', "the request object's scope");
  await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer, audience: API });
});

test("openid-client's signed JAR from a client that registered no keys: invalid_request_object", async () => {
  const { privateKey } = await generateKeyPair('ES256');
  const url = await oidc.buildAuthorizationUrlWithJAR(
    config,
    {
      redirect_uri: rp.url,
      scope: 'openid',
      state: 'st-jar',
    },
    privateKey,
  );
  assert.ok(url.searchParams.get('request'));
  const back = await redirectedTo(url);
  assert.equal(back.searchParams.get('error'), 'invalid_request_object');
  assert.match(back.searchParams.get('error_description'), /registered no keys/);
  assert.equal(back.searchParams.get('iss'), server.issuer);
});

test('the web app on a phone shows the resources a login asks for (the fifth attack run, item 6)', async () => {
  const desktop = await browser.newContext();
  const page = await desktop.newPage();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid',
    state: 'st-shown',
  });
  url.searchParams.append('resource', API);
  url.searchParams.append('resource', MCP);
  await page.goto(url.toString());
  const link = await page.locator('#app-link').getAttribute('href');
  const phoneContext = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const phone = await phoneContext.newPage();
  await phone.goto(`${server.issuer}/app/`);
  await phone.locator('#signup-form').waitFor();
  await phone.fill('#name', 'resource-phone');
  await phone.locator('#name-hint.ok').waitFor();
  await phone.fill('#display-name', 'Rae Source');
  await phone.fill('#country', 'SE');
  await phone.tap('#signup');
  await phone.locator('#identity').waitFor();
  await phone.goto(link);
  await phone.locator('#request').waitFor();
  const shown = await phone.locator('#resources li code').allTextContents();
  assert.deepEqual(shown, [API, MCP]);
  await phoneContext.close();
  await desktop.close();
});
