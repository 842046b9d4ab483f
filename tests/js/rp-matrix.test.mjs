// The relying-party matrix: libraries nobody here wrote, each living a whole life against
// `scanid serve` with a real QR login in Chromium (approved with the reference app): login,
// userinfo, refresh, logout, and the refresh token dead afterwards.
//   - oauth4webapi: a confidential server-side client; RP-initiated logout in the browser.
//   - oidc-client-ts: a single-page app on another origin (public client, no nonce, CORS).
//   - keycloak-js: a single-page app on another origin with default init options (3p-cookie
//     check, login-status iframe, fragment response mode, PKCE).
//   - Authlib (Python, tests/py/authlib_rp.py): a confidential client; Keycloak's back-channel
//     POST logout and token/introspect.
//   - OIDC Back-Channel Logout 1.0: real receivers verify the logout tokens with jose.
//   - CORS: an unregistered origin gets nothing.
// openid-client lives in interop.test.mjs.
/* global mgr, summary, kc -- set on the SPA pages' window; page.evaluate callbacks read them there */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, decodeProtectedHeader } from 'jose';
import { startServer, startCallback, launchBrowser, cli, enroll } from './helpers.mjs';
import {
  startStatic,
  startLogoutReceiver,
  qrLogin,
  watchErrors,
  rawRequest,
  refreshGrant,
  nodeModule,
} from './spa.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BCL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let server, browser, rp, loggedOut;
// Origins of their own (static servers on 127.0.0.1, port 0): two SPAs, a registered origin and
// an unregistered one for the CORS test; two back-channel logout receivers.
let oidcSpa, kcSpa, corsSpa, evil, receivers;
const secrets = {};

before(async () => {
  server = await startServer([
    '--no-demo',
    '--signup-rate-per-hour',
    '1000',
    '--login-rate-per-minute',
    '1000',
    '--decision-rate-per-minute',
    '1000',
  ]);
  rp = await startCallback();
  loggedOut = rp.url.replace(/\/cb$/, '/logged-out');
  browser = await launchBrowser();
  [oidcSpa, kcSpa, corsSpa, evil] = await Promise.all([
    startStatic(),
    startStatic(),
    startStatic(),
    startStatic(),
  ]);
  receivers = [await startLogoutReceiver(), await startLogoutReceiver()];
  // Every client is registered before the first browser call: a running server may take up to
  // a minute to see a new client's web origins (README: "For a relying party").
  const confidential = async (id, ...extra) => {
    secrets[id] = (
      await createClient([
        '--name',
        `${id} RP`,
        '--client-id',
        id,
        '--redirect-uri',
        rp.url,
        '--post-logout-redirect-uri',
        loggedOut,
        ...extra,
      ])
    ).client_secret;
  };
  await confidential('o4w-rp');
  await confidential('authlib-rp');
  // Loopback receivers: local development, named by a loopback public URL.
  await confidential(
    'bcl-a',
    '--backchannel-logout-uri',
    receivers[0].url,
    '--public-url',
    'http://127.0.0.1',
  );
  await confidential(
    'bcl-b',
    '--backchannel-logout-uri',
    receivers[1].url,
    '--public-url',
    'http://127.0.0.1',
  );
  await createClient([
    '--name',
    'oidc-client-ts SPA',
    '--client-id',
    'oidc-spa',
    '--public',
    '--redirect-uri',
    `${oidcSpa.origin}/callback.html`,
    '--post-logout-redirect-uri',
    `${oidcSpa.origin}/`,
    '--web-origin',
    '+',
  ]);
  // keycloak-js: the public client's default web origin (`+`).
  await createClient([
    '--name',
    'keycloak-js SPA',
    '--client-id',
    'kc-spa',
    '--public',
    '--redirect-uri',
    `${kcSpa.origin}/kc.html`,
    '--post-logout-redirect-uri',
    `${kcSpa.origin}/kc.html`,
  ]);
  await createClient([
    '--name',
    'CORS SPA',
    '--client-id',
    'cors-spa',
    '--public',
    '--redirect-uri',
    `${corsSpa.origin}/cb`,
  ]);
});

after(async () => {
  await browser?.close();
  for (const s of [rp, oidcSpa, kcSpa, corsSpa, evil, ...(receivers ?? [])]) await s?.close();
  await server?.stop();
});

const endpoint = (p) => `${server.issuer}/protocol/openid-connect/${p}`;

function createClient(args) {
  return cli(['client', 'create', '--data-dir', server.dataDir, ...args]);
}

/** Runs `fn(ctx, page, errors)` in a fresh browser context, closed afterwards. */
async function inContext(fn) {
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    return await fn(ctx, page, watchErrors(page));
  } finally {
    await ctx.close();
  }
}

/** Starts a navigation with `trigger` and resolves once the page loaded wherever it ended up. */
async function navigation(page, trigger) {
  const loaded = page.waitForEvent('load', { timeout: 10_000 });
  await trigger();
  await loaded;
  return new URL(page.url());
}

test('oauth4webapi (confidential): discovery, code + PKCE (no state, no nonce), userinfo, refresh, RP-initiated logout', async () => {
  const dave = await enroll(server, 'dave');
  const opts = { [oauth.allowInsecureRequests]: true };
  const issuer = new URL(server.issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oidc' }),
  );
  const client = { client_id: 'o4w-rp' };
  const clientAuth = oauth.ClientSecretBasic(secrets['o4w-rp']);

  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: rp.url,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();

  await inContext(async (ctx, page, errors) => {
    await page.goto(url.href);
    const landed = await qrLogin(page, server, dave, (u) => u.href.startsWith(rp.url));
    // Checks iss (RFC 9207) and that no state came back (none was sent).
    const params = oauth.validateAuthResponse(as, client, landed, oauth.expectNoState);
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      rp.url,
      verifier,
      opts,
    );
    // Validates the id_token (iss, aud, exp, iat, no nonce expected) and its signature against the JWKS.
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res, {
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    assert.equal(claims.iss, server.issuer);
    assert.equal(claims.aud, 'o4w-rp');
    assert.equal(claims.nonce, undefined);
    assert.equal(claims.preferred_username, 'dave');

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, opts),
    );
    assert.equal(info.sub, claims.sub);
    assert.equal(info.preferred_username, 'dave');

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, opts),
    );
    assert.notEqual(refreshed.access_token, tokens.access_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'rotation');
    assert.equal(oauth.getValidatedIdTokenClaims(refreshed).sub, claims.sub);

    // RP-initiated logout in the browser: the session's id_token as the hint ends it at once.
    const logout = new URL(as.end_session_endpoint);
    logout.search = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: loggedOut,
      state: 'bye',
    }).toString();
    const back = await navigation(page, () => page.goto(logout.href, { waitUntil: 'commit' }));
    assert.equal(`${back.origin}${back.pathname}`, loggedOut, `landed on ${back.href}`);
    assert.equal(back.searchParams.get('state'), 'bye');

    await assert.rejects(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token, opts),
      ),
      (e) => e instanceof oauth.ResponseBodyError && e.error === 'invalid_grant',
    );
    assert.deepEqual(errors, []);
  });
});

/** The oidc-client-ts SPA: index.html (signinRedirect, signout), callback.html (signinRedirectCallback). */
function oidcClientTsPages(spa, clientId) {
  const settings = {
    authority: server.issuer,
    client_id: clientId,
    redirect_uri: `${spa.origin}/callback.html`,
    post_logout_redirect_uri: `${spa.origin}/`,
    scope: 'openid profile',
    loadUserInfo: true,
  };
  const head = `<!doctype html><meta charset="utf-8"><title>oidc-client-ts SPA</title>
<script src="/oidc-client-ts.min.js"></script>
<script>
  window.mgr = new oidc.UserManager(${JSON.stringify(settings)});
  window.summary = (u) => u && ({ sub: u.profile.sub, profile: u.profile, access_token: u.access_token,
    refresh_token: u.refresh_token, id_token: u.id_token, scope: u.scope, session_state: u.session_state });
</script>`;
  spa.files['/oidc-client-ts.min.js'] = [
    'text/javascript',
    nodeModule('oidc-client-ts/dist/browser/oidc-client-ts.min.js'),
  ];
  spa.files['/index.html'] = ['text/html', `${head}<h1>SPA home</h1>`];
  spa.files['/callback.html'] = [
    'text/html',
    `${head}<h1>SPA callback</h1>
<script>
  window.signedIn = mgr.signinRedirectCallback().then(summary, (e) => ({ error: String(e) }));
</script>`,
  ];
}

test('oidc-client-ts (SPA on another origin, public client, no nonce): login, userinfo, refresh, signoutRedirect', async () => {
  const spa = oidcSpa;
  oidcClientTsPages(spa, 'oidc-spa');
  const carol = await enroll(server, 'carol');

  await inContext(async (ctx, page, errors) => {
    const responses = [];
    page.on('response', (r) => {
      if (r.url().startsWith(server.issuer)) responses.push(r);
    });
    await page.goto(`${spa.origin}/`);
    const authRequest = page.waitForRequest((r) => r.url().startsWith(endpoint('auth')));
    await page.evaluate(() => {
      mgr.signinRedirect();
    });
    const auth = new URL((await authRequest).url());
    assert.equal(auth.searchParams.get('nonce'), null, 'oidc-client-ts sends no nonce');
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(auth.searchParams.get('state'));

    await qrLogin(page, server, carol, (u) => u.href.startsWith(`${spa.origin}/callback.html`));
    await page.waitForFunction(() => window.signedIn);
    const user = await page.evaluate(() => window.signedIn);
    assert.equal(user.error, undefined, user.error);
    assert.equal(user.sub, carol.sub);
    assert.equal(user.profile.preferred_username, 'carol');
    // Only userinfo has the spec's spelling: loadUserInfo fetched it, cross-origin.
    assert.equal(user.profile.peferred_username, 'carol');
    assert.ok(user.refresh_token);

    const corsFor = (p) =>
      responses.filter(
        (r) => r.url().startsWith(endpoint(p)) && r.request().method() !== 'OPTIONS',
      );
    assert.equal(corsFor('token').length, 1);
    assert.equal(corsFor('userinfo').length, 1);
    for (const r of [...corsFor('token'), ...corsFor('userinfo')]) {
      assert.equal(r.status(), 200, r.url());
      assert.equal((await r.allHeaders())['access-control-allow-origin'], spa.origin);
    }

    // Refresh: with a refresh token, signinSilent is a refresh_token grant (no iframe).
    const refreshed = await page.evaluate(() =>
      mgr.signinSilent().then(summary, (e) => ({ error: String(e) })),
    );
    assert.equal(refreshed.error, undefined, refreshed.error);
    assert.equal(refreshed.sub, carol.sub);
    assert.notEqual(refreshed.access_token, user.access_token);
    assert.notEqual(refreshed.refresh_token, user.refresh_token);
    const grants = corsFor('token').map((r) =>
      new URLSearchParams(r.request().postData()).get('grant_type'),
    );
    assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
    assert.equal(
      responses.filter((r) => r.url().startsWith(endpoint('auth'))).length,
      1,
      'no silent iframe',
    );

    // signoutRedirect: id_token_hint + post_logout_redirect_uri; back on the SPA, signed out.
    const back = await navigation(page, () =>
      page.evaluate(() => {
        mgr.signoutRedirect();
      }),
    );
    assert.equal(`${back.origin}${back.pathname}`, `${spa.origin}/`, `landed on ${back.href}`);
    const out = await page.evaluate(() =>
      mgr.signoutRedirectCallback().then(
        async () => ({ user: await mgr.getUser() }),
        (e) => ({ error: String(e) }),
      ),
    );
    assert.deepEqual(out, { user: null });

    const dead = await refreshGrant(server, {
      client_id: 'oidc-spa',
      refresh_token: refreshed.refresh_token,
    });
    assert.equal(dead.status, 400);
    assert.equal(dead.json.error, 'invalid_grant');

    // The SSO session is over: a new sign-in shows the QR again.
    await page.evaluate(() => {
      mgr.signinRedirect();
    });
    await page.locator('#app-link').waitFor({ timeout: 10_000 });
    assert.deepEqual(errors, []);
  });
});

/** The keycloak-js SPA: /kc.html runs `init({})` (default options) on every load. */
function keycloakPages(spa, clientId) {
  spa.files['/keycloak.js'] = ['text/javascript', nodeModule('keycloak-js/lib/keycloak.js')];
  spa.files['/kc.html'] = [
    'text/html',
    `<!doctype html><meta charset="utf-8"><title>keycloak-js SPA</title>
<h1>keycloak-js SPA</h1>
<script type="module">
  import Keycloak from '/keycloak.js';
  const kc = new Keycloak(${JSON.stringify({ url: server.base, realm: 'scanid', clientId })});
  window.kc = kc;
  window.initDone = kc.init({}).then((authenticated) => ({ authenticated }),
    (e) => ({ error: String(e?.error ?? e?.message ?? JSON.stringify(e)) }));
</script>`,
  ];
}

async function keycloakInit(page) {
  await page.waitForFunction(() => window.initDone !== undefined, null, { timeout: 10_000 });
  const r = await page.evaluate(() => window.initDone);
  assert.equal(r.error, undefined, `keycloak.init: ${r.error}`);
  return r.authenticated;
}

test('keycloak-js (SPA on another origin, default init): 3p-cookie check, login, login-status iframe, userinfo, updateToken, logout', async () => {
  const spa = kcSpa;
  keycloakPages(spa, 'kc-spa');
  const page0 = `${spa.origin}/kc.html`;
  const erin = await enroll(server, 'erin');

  await inContext(async (ctx, page, errors) => {
    const responses = [];
    page.on('response', (r) => {
      if (r.url().startsWith(server.issuer)) responses.push(r);
    });
    const seen = (p) => responses.filter((r) => r.url().startsWith(endpoint(p)));

    await page.goto(page0);
    assert.equal(await keycloakInit(page), false);
    assert.equal(seen('3p-cookies/step1.html')[0]?.status(), 200, '3p-cookies/step1.html');
    assert.equal(seen('3p-cookies/step2.html')[0]?.status(), 200, '3p-cookies/step2.html');

    const authRequest = page.waitForRequest((r) => r.url().startsWith(endpoint('auth')));
    await page.evaluate(() => {
      kc.login();
    });
    const auth = new URL((await authRequest).url());
    assert.equal(auth.searchParams.get('response_mode'), 'fragment');
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(auth.searchParams.get('nonce'));
    await page.waitForURL((u) => u.href.startsWith(server.issuer));

    await qrLogin(page, server, erin, (u) => u.href.startsWith(page0));
    assert.equal(await keycloakInit(page), true);
    const state = await page.evaluate(() => ({
      authenticated: kc.authenticated,
      sub: kc.tokenParsed.sub,
      subject: kc.subject,
      idSub: kc.idTokenParsed.sub,
      token: kc.token,
      refreshToken: kc.refreshToken,
      sessionId: kc.sessionId,
      hash: location.hash,
    }));
    assert.equal(state.authenticated, true);
    assert.equal(state.sub, erin.sub);
    assert.equal(state.idSub, erin.sub);
    assert.equal(state.hash, '', 'keycloak-js consumed the fragment');

    const info = await page.evaluate(() => kc.loadUserInfo());
    assert.equal(info.sub, erin.sub);
    assert.equal(info.preferred_username, undefined, 'scope openid only: no profile claims');

    const updated = await page.evaluate(() => kc.updateToken(-1));
    assert.equal(updated, true);
    const after = await page.evaluate(() => ({
      authenticated: kc.authenticated,
      token: kc.token,
      refreshToken: kc.refreshToken,
      sub: kc.tokenParsed.sub,
    }));
    assert.equal(after.authenticated, true, 'still signed in after the login-status check');
    assert.notEqual(after.token, state.token);
    assert.notEqual(after.refreshToken, state.refreshToken);
    assert.equal(after.sub, erin.sub);
    // The login-status iframe (checkLoginIframe: true by default): loaded after the login, and
    // asked by updateToken (before refreshing) whether the session is unchanged: it was.
    const iframe = seen('login-status-iframe.html');
    assert.ok(
      iframe.some(
        (r) =>
          r.status() === 200 && new URL(r.url()).pathname.endsWith('/login-status-iframe.html'),
      ),
      'login-status-iframe.html loaded',
    );
    const init = iframe.filter((r) =>
      new URL(r.url()).pathname.endsWith('/login-status-iframe.html/init'),
    );
    assert.ok(init.length >= 1, 'login-status-iframe.html/init called');
    assert.equal(new URL(init[0].url()).searchParams.get('client_id'), 'kc-spa');
    assert.equal(new URL(init[0].url()).searchParams.get('origin'), spa.origin);
    assert.ok(init[0].status() < 300, `init answered ${init[0].status()}`);

    for (const r of [...seen('token'), ...seen('userinfo')].filter(
      (r) => r.request().method() !== 'OPTIONS',
    )) {
      assert.equal(r.status(), 200, r.url());
      const h = await r.allHeaders();
      assert.equal(h['access-control-allow-origin'], spa.origin);
      assert.equal(h['access-control-allow-credentials'], 'true');
    }

    const back = await navigation(page, () =>
      page.evaluate(() => {
        kc.logout({ redirectUri: location.href });
      }),
    );
    assert.equal(back.href, page0, `landed on ${back.href}`);
    assert.equal(await keycloakInit(page), false);

    const dead = await refreshGrant(server, {
      client_id: 'kc-spa',
      refresh_token: after.refreshToken,
    });
    assert.equal(dead.status, 400);
    assert.equal(dead.json.error, 'invalid_grant');
    assert.deepEqual(errors, []);
  });
});

/** Runs tests/py/authlib_rp.py: next() reads its next JSON line, send() writes a line to its stdin. */
function authlibRp(args) {
  const child = spawn(
    process.env.PYTHON ?? 'python3',
    [path.join(here, '..', 'py', 'authlib_rp.py'), ...args],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((r) => child.once('exit', r));
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`authlib_rp.py exited with ${await exited}: ${stderr}`);
    return JSON.parse(value);
  };
  return {
    next,
    send: (line) => child.stdin.write(`${line}\n`),
    exited: async () => ({ code: await exited, stderr }),
    kill: () => child.exitCode === null && child.kill(),
  };
}

test('Authlib (Python, confidential): code + PKCE + nonce, id_token, userinfo, refresh, token/introspect, back-channel POST logout', async () => {
  const frank = await enroll(server, 'frank');
  const py = authlibRp([server.issuer, 'authlib-rp', secrets['authlib-rp'], rp.url]);
  try {
    const { authorization_url: url } = await py.next();
    assert.ok(url.startsWith(endpoint('auth')), url);
    const callback = await inContext(async (ctx, page) => {
      await page.goto(url);
      return qrLogin(page, server, frank, (u) => u.href.startsWith(rp.url));
    });
    py.send(callback.href);
    const { result } = await py.next();
    const { code, stderr } = await py.exited();
    assert.equal(code, 0, stderr);
    assert.equal(result.sub, frank.sub);
    assert.equal(result.preferred_username, 'frank');
    assert.equal(result.userinfo.sub, frank.sub);
    assert.equal(result.logout_status, 204);
    assert.equal(result.refresh_after_logout, 'invalid_grant');
    assert.deepEqual(result.introspect_after_logout, { active: false });
  } finally {
    py.kill();
  }
});

test('OIDC Back-Channel Logout 1.0: two clients in one SSO session, RP-initiated logout from one, both receivers get a verified logout token', async () => {
  const ids = ['bcl-a', 'bcl-b'];
  const configs = [];
  for (const id of ids) {
    configs.push(
      await oidc.discovery(
        new URL(server.issuer),
        id,
        undefined,
        oidc.ClientSecretBasic(secrets[id]),
        { execute: [oidc.allowInsecureRequests] },
      ),
    );
  }
  const grace = await enroll(server, 'grace');

  await inContext(async (ctx, page, errors) => {
    const tokens = [];
    for (const config of configs) {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      await page.goto(
        oidc.buildAuthorizationUrl(config, {
          redirect_uri: rp.url,
          scope: 'openid',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        }).href,
      );
      // The second client rides the SSO session: no QR, only its consent.
      const landed = await qrLogin(page, server, grace, (u) => u.href.startsWith(rp.url));
      tokens.push(
        await oidc.authorizationCodeGrant(config, landed, {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        }),
      );
    }
    const [sidA, sidB] = tokens.map((t) => t.claims().sid);
    assert.ok(sidA);
    assert.equal(sidB, sidA, 'one SSO session');
    assert.deepEqual(
      receivers.map((r) => r.received.length),
      [0, 0],
    );

    const logout = oidc.buildEndSessionUrl(configs[0], {
      id_token_hint: tokens[0].id_token,
      post_logout_redirect_uri: loggedOut,
    });
    const back = await navigation(page, () => page.goto(logout.href, { waitUntil: 'commit' }));
    assert.equal(`${back.origin}${back.pathname}`, loggedOut, `landed on ${back.href}`);

    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/protocol/openid-connect/certs`));
    for (const [i, receiver] of receivers.entries()) {
      const hit = await receiver.next(5000);
      assert.equal(hit.method, 'POST');
      assert.equal(hit.path, '/bcl');
      assert.match(hit.contentType, /^application\/x-www-form-urlencoded/);
      assert.ok(hit.logoutToken, 'logout_token in the form');
      assert.equal(decodeProtectedHeader(hit.logoutToken).typ, 'logout+jwt');
      const { payload } = await jwtVerify(hit.logoutToken, jwks, {
        issuer: server.issuer,
        audience: ids[i],
        typ: 'logout+jwt',
        requiredClaims: ['iat', 'jti', 'sub', 'sid', 'events'],
      });
      assert.deepEqual(Object.keys(payload.events), [BCL_EVENT]);
      assert.deepEqual(payload.events[BCL_EVENT], {});
      assert.equal(payload.sid, sidA);
      assert.equal(payload.sub, grace.sub);
      assert.equal(payload.nonce, undefined);
    }
    assert.notEqual(
      (await jwtVerify(receivers[0].received[0].logoutToken, jwks)).payload.jti,
      (await jwtVerify(receivers[1].received[0].logoutToken, jwks)).payload.jti,
    );
    // The other client's grant ended with the session.
    await assert.rejects(oidc.refreshTokenGrant(configs[1], tokens[1].refresh_token));
    assert.deepEqual(errors, []);
  });
});

test('CORS: an unregistered origin gets no CORS headers (browser fetch fails); discovery and JWKS are open', async () => {
  const spa = corsSpa;
  spa.files['/index.html'] = ['text/html', '<!doctype html><title>registered</title>'];
  evil.files['/index.html'] = ['text/html', '<!doctype html><title>not registered</title>'];
  const tokenUrl = endpoint('token');
  const userinfoUrl = endpoint('userinfo');
  const form = 'grant_type=refresh_token&refresh_token=nope&client_id=cors-spa';
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

  // From node, any Origin: the server's answer, header by header.
  for (const origin of ['http://evil.example', evil.origin]) {
    const post = await rawRequest(tokenUrl, {
      method: 'POST',
      headers: { ...formHeaders, origin },
      body: form,
    });
    assert.equal(post.status, 400);
    assert.equal(
      post.headers['access-control-allow-origin'],
      undefined,
      `token POST from ${origin}`,
    );
    assert.equal(post.headers['access-control-allow-credentials'], undefined);
    for (const url of [tokenUrl, userinfoUrl, endpoint('revoke'), endpoint('logout')]) {
      const pre = await rawRequest(url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      assert.equal(
        pre.headers['access-control-allow-origin'],
        undefined,
        `preflight ${url} from ${origin}`,
      );
      assert.equal(pre.headers['access-control-allow-methods'], undefined);
    }
    const info = await rawRequest(userinfoUrl, {
      headers: { origin, authorization: 'Bearer nope' },
    });
    assert.equal(info.headers['access-control-allow-origin'], undefined);
  }
  // The registered origin (`+`, the public client's default), for contrast.
  const ok = await rawRequest(tokenUrl, {
    method: 'POST',
    headers: { ...formHeaders, origin: spa.origin },
    body: form,
  });
  assert.equal(ok.headers['access-control-allow-origin'], spa.origin);
  assert.equal(ok.headers['access-control-allow-credentials'], 'true');
  assert.match(ok.headers.vary ?? '', /origin/i);
  const pre = await rawRequest(tokenUrl, {
    method: 'OPTIONS',
    headers: {
      origin: spa.origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers['access-control-allow-origin'], spa.origin);
  assert.match(pre.headers['access-control-allow-headers'] ?? '', /authorization/i);
  for (const url of [`${server.issuer}/.well-known/openid-configuration`, endpoint('certs')]) {
    const open = await rawRequest(url, { headers: { origin: 'http://evil.example' } });
    assert.equal(open.status, 200);
    assert.equal(open.headers['access-control-allow-origin'], '*', url);
  }

  // In Chromium: the unregistered origin's fetches fail (the simple POST reaches the server, its
  // answer is withheld from the page; the userinfo preflight fails); the registered origin's works.
  await inContext(async (ctx, page) => {
    const attempt = (args) =>
      page.evaluate(async ([url, init]) => {
        try {
          const r = await fetch(url, init);
          return { status: r.status };
        } catch (e) {
          return { error: `${e.name}: ${e.message}` };
        }
      }, args);
    const tokenInit = { method: 'POST', headers: formHeaders, body: form };
    const userinfoInit = { headers: { authorization: 'Bearer nope' } };
    await page.goto(`${evil.origin}/`);
    assert.deepEqual(await attempt([tokenUrl, tokenInit]), { error: 'TypeError: Failed to fetch' });
    assert.deepEqual(await attempt([userinfoUrl, userinfoInit]), {
      error: 'TypeError: Failed to fetch',
    });
    assert.deepEqual(await attempt([`${server.issuer}/.well-known/openid-configuration`, {}]), {
      status: 200,
    });
    await page.goto(`${spa.origin}/`);
    assert.deepEqual(await attempt([tokenUrl, tokenInit]), { status: 400 });
  });
});
