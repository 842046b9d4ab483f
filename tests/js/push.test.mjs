// Web Push in the scanid web app, on a phone-sized Chromium: the person turns notifications on,
// openid-client v6 (its CIBA functions) asks for the person, scanid pushes the request to the
// test's own push service (tests/py/push_service.py: PyJWT checks the VAPID JWT, PyPI
// http-ece decrypts the RFC 8291 message), the test hands that payload to the app's service
// worker (CDP ServiceWorker.deliverPushMessage), the notification is shown (generic words, in
// the person's language), and a tap on it (the worker's notificationclick handler) opens the
// waiting request, which the person approves.
//
// Headless Chromium has no push service: an init script replaces PushManager's subscribe,
// getSubscription and unsubscribe with a subscription whose endpoint is the test's push
// service and whose keys it made (so it can decrypt). Everything else is the app's own code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as oidc from 'openid-client';
import { jwtVerify } from 'jose';
import { startServer, launchBrowser, cibaClient, signUpInWebApp } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

// The VAPID key scanid runs with (RFC 8291 Appendix A's sender key, as tests/it/push.rs).
const VAPID_PRIVATE = 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw';
const VAPID_PUBLIC =
  'BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8';
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let server, browser, config, jwks, pusher, phone, app, cdp, registrationId;

/** The test's push service: its subscription, and the requests it received, one at a time. */
async function startPushService() {
  const child = spawn(
    process.env.SCANID_TEST_PYTHON ?? 'python3',
    [path.join(here, '..', 'py', 'push_service.py')],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = [];
  const waiters = [];
  const rl = createInterface({ input: child.stdout });
  rl.on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else lines.push(l);
  });
  const next = (ms) =>
    new Promise((resolve, reject) => {
      if (lines.length) return resolve(JSON.parse(lines.shift()));
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(done), 1);
        reject(new Error(`no push within ${ms} ms`));
      }, ms);
      const done = (l) => {
        clearTimeout(timer);
        resolve(JSON.parse(l));
      };
      waiters.push(done);
    });
  const subscription = await next(20_000);
  return { subscription, next, stop: () => child.kill('SIGTERM') };
}

/** Replaces PushManager in the page with one that hands out `sub` (and records the options). */
function stubPushManager(sub) {
  const KEY = 'test-push-subscription';
  const toB64url = (buf) =>
    btoa(String.fromCharCode(...new Uint8Array(buf)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const make = () => ({
    endpoint: sub.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true },
    toJSON: () => ({
      endpoint: sub.endpoint,
      expirationTime: null,
      keys: { p256dh: sub.p256dh, auth: sub.auth },
    }),
    unsubscribe: async () => {
      localStorage.removeItem(KEY);
      return true;
    },
  });
  PushManager.prototype.subscribe = async function (options) {
    const key = options?.applicationServerKey;
    if (!options?.userVisibleOnly || !key) throw new DOMException('bad options', 'NotAllowedError');
    localStorage.setItem(KEY, JSON.stringify({ applicationServerKey: toB64url(key) }));
    return make();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem(KEY) ? make() : null;
  };
}

before(async () => {
  pusher = await startPushService();
  server = await startServer([
    '--vapid-private-key',
    VAPID_PRIVATE,
    '--vapid-subject',
    'mailto:ops@example.com',
  ]);
  browser = await launchBrowser();
  ({ config, jwks } = await cibaClient(server, 'desk', 'Call centre'));
  phone = await browser.newContext(PHONE);
  await phone.grantPermissions(['notifications'], { origin: server.base });
  await phone.addInitScript(stubPushManager, pusher.subscription);
  app = await phone.newPage();
  // The service worker's registration, for CDP to deliver pushes to.
  cdp = await phone.newCDPSession(app);
  const registered = new Promise((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const r = registrations.find((x) => x.scopeURL === `${server.issuer}/app/` && !x.isDeleted);
      if (r) resolve(r.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  await signUpInWebApp(app, server, 'hana', 'Hana Push');
  registrationId = await registered;
  await app.evaluate(() => navigator.serviceWorker.ready);
});

after(async () => {
  await phone?.close();
  await browser?.close();
  await server?.stop();
  pusher?.stop();
});

/** The notifications the app's service worker shows now. */
function notifications(page) {
  return page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      lang: n.lang,
      data: n.data,
    }));
  });
}

/** Hands `payload` to the service worker as the browser would a push, and waits for the
 * notification it shows. */
async function deliver(payload) {
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: server.base,
    registrationId,
    data: JSON.stringify(payload),
  });
  for (let i = 0; i < 50; i++) {
    const shown = await notifications(app);
    const n = shown.find((x) => x.tag === `ciba-${payload.request}`);
    if (n) return n;
    await app.waitForTimeout(100);
  }
  throw new Error('no notification shown');
}

/** The push scanid sent for the next request: VAPID checked, body decrypted. */
async function received() {
  const got = await pusher.next(15_000);
  assert.equal(got.error, undefined, got.error);
  assert.equal(got.k, VAPID_PUBLIC);
  assert.equal(got.vapid.sub, 'mailto:ops@example.com');
  assert.equal(got.headers['content-encoding'], 'aes128gcm');
  return got.payload;
}

async function home() {
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#notifications').waitFor();
}

test('the person turns notifications on; a CIBA request from openid-client is pushed, shown and approved from its notification; jose verifies the tokens', async () => {
  await home();
  assert.match(await app.locator('#push-state').textContent(), /off/);
  assert.equal(await app.locator('#push-toggle').textContent(), 'Turn on notifications');
  await app.tap('#push-toggle');
  await app.locator('#push-toggle[data-on="true"]').waitFor();
  assert.match(await app.locator('#push-out').textContent(), /Notifications are on/);
  // The app subscribed with the key the shell publishes, the service's VAPID key.
  const asked = await app.evaluate(() => localStorage.getItem('test-push-subscription'));
  assert.equal(JSON.parse(asked).applicationServerKey, VAPID_PUBLIC);
  // Still on when the app opens again.
  await home();
  await app.locator('#push-toggle[data-on="true"]').waitFor();

  const started = await oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid profile',
    login_hint: 'hana',
    binding_message: 'Call 4411',
  });
  const polling = oidc.pollBackchannelAuthenticationGrant(config, started);
  const payload = await received();
  assert.deepEqual(Object.keys(payload).sort(), ['kind', 'request']);
  assert.equal(payload.kind, 'ciba');
  // Nothing personal in the push: no client, no binding message, no name.
  assert.doesNotMatch(JSON.stringify(payload), /Call|hana|Hana|desk/);

  const n = await deliver(payload);
  assert.equal(n.title, 'A request is waiting for you');
  assert.equal(n.body, 'Open scanid to see who is asking, then approve or deny.');
  assert.equal(n.lang, 'en');
  assert.equal(n.data.kind, 'ciba');
  assert.equal(n.data.request, payload.request);
  assert.doesNotMatch(JSON.stringify(n), /Call 4411|Call centre|hana/);
  const url = new URL(n.data.url, server.base);
  assert.equal(url.href, `${server.issuer}/app/?request=${encodeURIComponent(payload.request)}`);

  // A tap on the notification: the service worker's notificationclick handler, given the
  // notification it showed (CDP cannot tap one), takes the app's window to the request.
  await home();
  const worker = phone.serviceWorkers().find((w) => w.url().endsWith('/app/sw.js'));
  await Promise.all([
    app.waitForURL(url.href),
    worker.evaluate(async (tag) => {
      const [shown] = await self.registration.getNotifications({ tag });
      self.dispatchEvent(new self.NotificationEvent('notificationclick', { notification: shown }));
    }, n.tag),
  ]);
  await app.locator('#binding-message').waitFor();
  assert.equal(await app.locator('#binding-message').textContent(), 'Call 4411');
  assert.equal(await app.locator('#client-name').textContent(), 'Call centre');
  // The tapped notification is gone.
  assert.equal((await notifications(app)).filter((x) => x.tag === n.tag).length, 0);
  await app.locator('#approve[data-armed="true"]').waitFor();
  await app.tap('#approve');
  await app.locator('#decided[data-status="approved"]').waitFor();
  const tokens = await polling;
  const { payload: id } = await jwtVerify(tokens.id_token, jwks, {
    issuer: server.issuer,
    audience: 'desk',
  });
  assert.equal(id.preferred_username, 'hana');
  const { payload: at } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
  assert.equal(at.sub, id.sub);
  assert.equal(tokens.claims().sub, id.sub);
});

test('the notification speaks the language the person picked in the app (Arabic)', async () => {
  await home();
  await app.selectOption('#language', 'ar');
  await app.locator('html[lang="ar"] #notifications').waitFor();
  // The page hands the service worker its words when it opens; the worker keeps them.
  await app.waitForFunction(async () => {
    const kept = await caches.match(new URL('notification-words', location.href).href);
    return kept && (await kept.json()).lang === 'ar';
  });
  const started = await oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid',
    login_hint: 'hana',
  });
  const payload = await received();
  const n = await deliver(payload);
  assert.equal(n.title, 'طلب بانتظارك');
  assert.equal(n.lang, 'ar');
  assert.ok(started.auth_req_id);
  await app.selectOption('#language', 'en');
  await app.locator('html[lang="en"] #notifications').waitFor();
});

test('axe-core finds no WCAG A/AA violation on the notifications card, off and on, in English and in Arabic', async () => {
  // The app's CSP forbids foreign scripts: axe runs in a context that bypasses it.
  const ctx = await browser.newContext({ ...PHONE, bypassCSP: true });
  await ctx.grantPermissions(['notifications'], { origin: server.base });
  await ctx.addInitScript(stubPushManager, pusher.subscription);
  const page = await ctx.newPage();
  const clean = async (what) => {
    await page.addScriptTag({ content: AXE });
    const result = await page.evaluate(
      (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }),
      TAGS,
    );
    const found = result.violations.map(
      (v) => `${v.id}: ${v.help} at ${v.nodes.map((x) => x.target.join(' ')).join(', ')}`,
    );
    assert.deepEqual(found, [], `${what}: ${found.join('\n')}`);
  };
  try {
    await page.goto(`${server.issuer}/app/`);
    await page.locator('#signup-form').waitFor();
    await page.fill('#name', 'axel');
    await page.locator('#name-hint.ok').waitFor();
    await page.fill('#display-name', 'Axel Card');
    await page.fill('#country', 'SE');
    await page.tap('#signup');
    await page.locator('#push-toggle').waitFor();
    for (const lang of ['en', 'ar']) {
      await page.evaluate((l) => localStorage.setItem('scanid-language', l), lang);
      await page.goto(`${server.issuer}/app/`);
      await page.locator(`html[lang="${lang}"] #push-toggle[data-on="false"]`).waitFor();
      await clean(`${lang}, off`);
      await page.tap('#push-toggle');
      await page.locator('#push-toggle[data-on="true"]').waitFor();
      await clean(`${lang}, on`);
      await page.tap('#push-toggle');
      await page.locator('#push-toggle[data-on="false"]').waitFor();
    }
  } finally {
    await ctx.close();
  }
});

test('turning notifications off withdraws the subscription: a later request brings no push, and still waits in the app', async () => {
  await home();
  await app.locator('#push-toggle[data-on="true"]').waitFor();
  await app.tap('#push-toggle');
  await app.locator('#push-toggle[data-on="false"]').waitFor();
  assert.match(await app.locator('#push-out').textContent(), /Notifications are off/);
  assert.equal(await app.evaluate(() => localStorage.getItem('test-push-subscription')), null);
  await oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid',
    login_hint: 'hana',
    binding_message: 'After off',
  });
  await assert.rejects(pusher.next(3_000), /no push/);
  // Without push the request still waits when the app opens.
  await home();
  await app.locator('#waiting li', { hasText: 'After off' }).waitFor();
});

test('signing out everywhere withdraws the subscription too', async () => {
  await home();
  await app.tap('#push-toggle');
  await app.locator('#push-toggle[data-on="true"]').waitFor();
  await app.tap('#sign-out');
  await app.tap('#sign-out-confirm');
  await app.locator('#push-toggle[data-on="false"]').waitFor();
  assert.equal(await app.evaluate(() => localStorage.getItem('test-push-subscription')), null);
  await oidc.initiateBackchannelAuthentication(config, { scope: 'openid', login_hint: 'hana' });
  await assert.rejects(pusher.next(3_000), /no push/);
});

test('deleting the identity unsubscribes this browser (its subscriptions went with it)', async () => {
  const other = await browser.newContext(PHONE);
  await other.grantPermissions(['notifications'], { origin: server.base });
  await other.addInitScript(stubPushManager, pusher.subscription);
  const page = await other.newPage();
  try {
    await page.goto(`${server.issuer}/app/`);
    await page.locator('#signup-form').waitFor();
    await page.fill('#name', 'kai');
    await page.locator('#name-hint.ok').waitFor();
    await page.fill('#display-name', 'Kai Gone');
    await page.fill('#country', 'SE');
    await page.tap('#signup');
    await page.locator('#push-toggle').waitFor();
    await page.tap('#push-toggle');
    await page.locator('#push-toggle[data-on="true"]').waitFor();
    assert.notEqual(
      await page.evaluate(() => localStorage.getItem('test-push-subscription')),
      null,
    );
    await page.tap('#delete');
    await page.fill('#delete-name', 'kai');
    await page.tap('#delete-confirm');
    await page.locator('#signup-form').waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('test-push-subscription')), null);
  } finally {
    await other.close();
  }
});

test('the shell publishes the VAPID public key; without one, no key and no Notifications card (the home screen still opens)', async () => {
  const shellKey = async (issuer) => {
    const html = await (await fetch(`${issuer}/app/`)).text();
    const block = html.match(/<script type="application\/json" id="push">([^<]*)<\/script>/);
    assert.ok(block, 'the shell has a #push block');
    return JSON.parse(block[1]).application_server_key;
  };
  assert.equal(await shellKey(server.issuer), VAPID_PUBLIC);
  const plain = await startServer();
  const ctx = await browser.newContext(PHONE);
  try {
    assert.equal(await shellKey(plain.issuer), null);
    const page = await ctx.newPage();
    await page.goto(`${plain.issuer}/app/`);
    await page.locator('#signup-form').waitFor();
    await page.fill('#name', 'lena');
    await page.locator('#name-hint.ok').waitFor();
    await page.fill('#display-name', 'Lena Nopush');
    await page.fill('#country', 'SE');
    await page.tap('#signup');
    await page.locator('#identity').waitFor();
    await page.locator('#waiting').waitFor({ state: 'attached' });
    assert.equal(await page.locator('#notifications').count(), 0);
  } finally {
    await ctx.close();
    await plain.stop();
  }
});

test('a denied permission says so clearly, and nothing is subscribed', async () => {
  const other = await browser.newContext(PHONE);
  await other.addInitScript(stubPushManager, pusher.subscription);
  const page = await other.newPage();
  try {
    await page.goto(`${server.issuer}/app/`);
    await page.locator('#signup-form').waitFor();
    await page.fill('#name', 'ivo');
    await page.locator('#name-hint.ok').waitFor();
    await page.fill('#display-name', 'Ivo Nopush');
    await page.fill('#country', 'SE');
    await page.tap('#signup');
    await page.locator('#notifications').waitFor();
    // The person blocks notifications for the app.
    const session = await other.newCDPSession(page);
    const { targetInfo } = await session.send('Target.getTargetInfo');
    await session.send('Browser.setPermission', {
      permission: { name: 'notifications' },
      setting: 'denied',
      origin: server.base,
      browserContextId: targetInfo.browserContextId,
    });
    assert.equal(await page.evaluate(() => Notification.permission), 'denied');
    await page.tap('#push-toggle');
    const alert = page.locator('#push-out [role="alert"]');
    await alert.waitFor();
    assert.match(await alert.textContent(), /blocked for this app.*site settings/);
    assert.equal(await page.locator('#push-toggle').getAttribute('data-on'), 'false');
    assert.equal(await page.evaluate(() => localStorage.getItem('test-push-subscription')), null);
  } finally {
    await other.close();
  }
});
