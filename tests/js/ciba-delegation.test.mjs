// A delegation asked through CIBA, with openid-client v6 (a library nobody here wrote): an
// agent asks with initiateBackchannelAuthentication (the resource server it means to act at as
// RFC 8707 `resource`) and polls with pollBackchannelAuthenticationGrant; the scanid web app on
// a phone-sized Chromium lists the request, says on the approval screen that the agent may act
// for the person and where, and approves it. The agent then exchanges the person's token with
// genericGrantRequest (RFC 8693): `act` names it, verified with jose and seen in
// introspection. Withdrawn in the app ("Agents acting for you"), the exchange is refused; a
// denied request records nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { jwtVerify } from 'jose';
import { startServer, launchBrowser, cibaClient, signUpInWebApp } from './helpers.mjs';

const API = 'https://api.example/v1';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let server, browser, config, jwks, phone, app;

before(async () => {
  server = await startServer(['--resource', API]);
  browser = await launchBrowser();
  ({ config, jwks } = await cibaClient(server, 'ciba-agent', 'Travel agent', [
    '--grant',
    'token_exchange',
  ]));
  phone = await browser.newContext(PHONE);
  app = await phone.newPage();
  await signUpInWebApp(app, server, 'hana', 'Hana Delegator');
});

after(async () => {
  await phone?.close();
  await browser?.close();
  await server?.stop();
});

/** The agent asks for hana's approval to act for her at the API; the poll, still pending
 * (wrapped, so awaiting the ask does not await the poll). */
async function ask(message) {
  const started = await oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid profile',
    login_hint: 'hana',
    binding_message: message,
    resource: API,
  });
  return { polling: oidc.pollBackchannelAuthenticationGrant(config, started) };
}

/** Opens the one waiting request on the approval screen; checks it says it is a delegation. */
async function openWaiting(message) {
  await app.goto(`${server.issuer}/app/`);
  const entry = app.locator('#waiting li');
  await entry.waitFor({ timeout: 10_000 });
  assert.match(await entry.textContent(), new RegExp(message));
  await entry.locator('button.open-request').tap();
  await app.locator('#binding-message').waitFor();
  assert.match(
    await app.locator('#delegation').textContent(),
    /Travel agent is an agent: if you allow, it may also act for you/,
  );
  assert.deepEqual(await app.locator('#resources li').allTextContents(), [API]);
}

function exchange(subject) {
  return oidc.genericGrantRequest(config, TE, {
    subject_token: subject,
    subject_token_type: AT,
    resource: API,
    scope: 'profile',
  });
}

test('openid-client: an agent asks through CIBA, the web app approves the delegation, the exchange names it in act', async () => {
  const { polling } = await ask('Trip 12: book flights');
  await openWaiting('Trip 12: book flights');
  await app.locator('#approve[data-armed="true"]').waitFor();
  await app.tap('#approve');
  await app.locator('#decided[data-status="approved"]').waitFor();
  const tokens = await polling;

  const exchanged = await exchange(tokens.access_token);
  assert.equal(exchanged.issued_token_type, AT);
  const { payload: at } = await jwtVerify(exchanged.access_token, jwks, {
    issuer: server.issuer,
    audience: API,
  });
  assert.equal(at.sub, tokens.claims().sub);
  assert.equal(at.scope, 'profile');
  assert.deepEqual(at.act, { sub: 'ciba-agent' });
  const seen = await oidc.tokenIntrospection(config, exchanged.access_token);
  assert.equal(seen.active, true);
  assert.deepEqual(seen.act, { sub: 'ciba-agent' });

  // The person sees it under "Agents acting for you" and withdraws it.
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#agents').tap();
  const entry = app.locator('#agents-list li[data-client-id="ciba-agent"]');
  await entry.waitFor();
  assert.match(await entry.textContent(), /Travel agent/);
  await entry.locator('button.withdraw').tap();
  await app.locator('#withdraw-confirm').tap();
  await app.getByText('Withdrawn: Travel agent can no longer act for you.').waitFor();
  assert.equal((await oidc.tokenIntrospection(config, exchanged.access_token)).active, false);
  await assert.rejects(exchange(tokens.access_token), (e) => e.error === 'invalid_request');

  // Denied: nothing is recorded; the exchange stays refused.
  const { polling: denied } = await ask('Trip 13: hotel');
  await openWaiting('Trip 13: hotel');
  await app.tap('#deny');
  await app.locator('#decided[data-status="denied"]').waitFor();
  await assert.rejects(denied, (e) => e.error === 'access_denied');
  await assert.rejects(exchange(tokens.access_token), (e) => e.error === 'invalid_request');
});
