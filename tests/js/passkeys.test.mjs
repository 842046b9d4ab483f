// Passkeys in the web app (issue 26), in Chromium with the DevTools Protocol's virtual
// authenticator (ctap2, internal transport, resident keys, user verification) on the phone's
// context, and a desktop context on the demo relying party's login page. WebAuthn refuses an
// IP address as RP ID, so the server's issuer is on `http://localhost:<port>`.
//
// Cases: sign-up with a passkey; a QR login approved with a verified assertion reaching the
// demo's tokens; refused when the authenticator does not verify the user; an assertion whose
// client data names another origin refused; a replayed approval refused; the upgrade of a
// WebCrypto identity; adding and removing passkeys, never the last. On the embedded store, and
// on DynamoDB when the test command started the emulator (SCANID_TEST_AWS_ENDPOINT).
//
// SCANID_README_SHOTS=dir writes the passkey approval screen there (phone-passkey.png).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  cli,
  launchBrowser,
  readQr,
  startCallback,
  useEmulator,
  dynamoFlags,
  startLocalhostServer,
} from './helpers.mjs';

const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};

const emulator = useEmulator();

let server, browser, rp, secret;

before(async () => {
  browser = await launchBrowser();
  rp = await startCallback();
});

after(async () => {
  await browser?.close();
  await rp?.close();
});

/** A phone; with `authenticator` a virtual platform authenticator verifying the user or not. */
async function newPhone(authenticator) {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  let id = null;
  if (authenticator) {
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId: id } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: authenticator.verified ?? true,
        automaticPresenceSimulation: true,
      },
    }));
  }
  return {
    context,
    page,
    cdp,
    async addAuthenticator() {
      await cdp.send('WebAuthn.enable');
      ({ authenticatorId: id } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      }));
    },
    setVerified: (v) =>
      cdp.send('WebAuthn.setUserVerified', { authenticatorId: id, isUserVerified: v }),
    credentials: async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId: id })).credentials,
  };
}

/** Signs up in the web app; resolves to what the device stored. */
async function signUp(page, name) {
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', `${name} display`);
  await page.fill('#country', 'SE');
  await page.tap('#signup');
  await page.locator('#identity').waitFor();
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open('scanid', 1);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const get = req.result.transaction('device').objectStore('device').get('identity');
          get.onsuccess = () =>
            resolve({
              profile: get.result.profile,
              passkey: get.result.passkey ?? null,
              hasKey: !!get.result.privateKey,
            });
          get.onerror = () => reject(get.error);
        };
      }),
  );
}

async function desktopLogin() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const q = new URLSearchParams({
    client_id: 'shop',
    redirect_uri: rp.url,
    response_type: 'code',
    scope: 'openid profile',
    state: `st-${Math.random().toString(36).slice(2)}`,
  });
  await page.goto(`${server.issuer}/protocol/openid-connect/auth?${q}`);
  await page.locator('#qr svg').waitFor();
  return { context, page };
}

/** The phone scans the desktop's QR, and taps the number the desktop shows. */
async function scanAndPick(desktop, phone, beforePick) {
  await phone.page.goto(await readQr(desktop.page));
  await phone.page.locator('#request').waitFor();
  const shown = desktop.page.locator('#number:not([hidden])');
  await shown.waitFor({ timeout: 10_000 });
  const n = /Pick (\d+)/.exec(await shown.textContent())[1];
  await phone.page.locator('#numbers button[data-number]:enabled').first().waitFor();
  if (beforePick) await beforePick();
  await phone.page.tap(`#number-${n}`);
}

async function tokenRequestRaw(form) {
  return fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`shop:${secret}`).toString('base64')}`,
    },
    body: new URLSearchParams(form),
  });
}

async function tokenRequest(form) {
  return (await tokenRequestRaw(form)).json();
}

function show(sub) {
  return cli(['identity', 'show', '--data-dir', server.dataDir, ...server.storeFlags, sub]);
}

for (const store of ['embedded', ...(emulator ? ['DynamoDB'] : [])]) {
  describe(`passkeys on the ${store} store`, () => {
    before(async () => {
      server = await startLocalhostServer(store === 'DynamoDB' ? await dynamoFlags() : []);
      secret = (
        await cli([
          'client',
          'create',
          '--data-dir',
          server.dataDir,
          '--name',
          'Shop',
          '--client-id',
          'shop',
          '--redirect-uri',
          rp.url,
          ...server.storeFlags,
        ])
      ).client_secret;
    });
    after(async () => {
      await server?.stop();
    });

    test('sign up with a passkey, approve a QR login with a verified assertion: the demo gets its tokens; a replay is refused', async () => {
      const phone = await newPhone({ verified: true });
      const me = await signUp(phone.page, `pk${store.length}`);
      assert.ok(me.passkey, 'the device keeps a passkey');
      assert.equal(me.hasKey, false, 'and no WebCrypto key');
      assert.equal((await phone.credentials()).length, 1);
      const shown = await show(me.profile.sub);
      assert.equal(shown.keys.device_key, null);
      assert.equal(shown.keys.passkeys[0].credential_id, me.passkey);

      const desktop = await desktopLogin();
      // Capture the approval the phone sends, to replay it.
      let sent = null;
      await phone.page.route('**/app/login-sessions/*', async (route) => {
        sent = { url: route.request().url(), body: route.request().postData() };
        await route.continue();
      });
      await scanAndPick(desktop, phone, async () => {
        assert.match(
          await phone.page.textContent('#passkey-ask'),
          /fingerprint, face or screen lock/,
        );
        if (process.env.SCANID_README_SHOTS) {
          await phone.page.screenshot({
            path: path.join(process.env.SCANID_README_SHOTS, 'phone-passkey.png'),
            scale: 'css',
            fullPage: true,
          });
        }
      });
      await phone.page.locator('#decided[data-status="approved"]').waitFor();
      await desktop.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
      await desktop.page.click('button[name="consent"][value="allow"]');
      await desktop.page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
      const code = new URL(desktop.page.url()).searchParams.get('code');
      const tokens = await (
        await fetch(`${server.issuer}/protocol/openid-connect/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`shop:${secret}`).toString('base64')}`,
          },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: rp.url,
          }),
        })
      ).json();
      const idToken = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url'));
      assert.equal(idToken.sub, me.profile.sub);

      // The same approval again: refused (its server challenge is spent, its counter old).
      assert.ok(sent, 'the approval was sent');
      const again = await fetch(sent.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: sent.body,
      });
      assert.equal(again.status, 400);
      await desktop.context.close();
      await phone.context.close();
    });

    test('refused when the authenticator does not verify the user, and for an assertion whose client data names another origin', async () => {
      const phone = await newPhone({ verified: true });
      await signUp(phone.page, `uv${store.length}`);
      const desktop = await desktopLogin();
      let sent = null;
      await phone.page.route('**/app/login-sessions/*', async (route) => {
        sent = { url: route.request().url(), body: route.request().postData() };
        await route.continue();
      });
      // The phone's unlock fails. The app asks for user verification (required), so the
      // browser makes no assertion at all; a page that asks without it gets an assertion
      // whose UV flag is off, and the service refuses that.
      await phone.setVerified(false);
      await scanAndPick(desktop, phone, () =>
        phone.page.evaluate(() => {
          const get = navigator.credentials.get.bind(navigator.credentials);
          window.realGet = get;
          navigator.credentials.get = (o) =>
            get({ ...o, publicKey: { ...o.publicKey, userVerification: 'discouraged' } });
        }),
      );
      await phone.page.locator('.error').first().waitFor({ timeout: 15_000 });
      assert.ok(sent, 'an assertion without UV was sent');
      assert.match(await phone.page.textContent('.error'), /did not verify the user/);
      assert.equal(await phone.page.locator('#decided').count(), 0);
      // The login still waits on the desktop.
      assert.ok(await desktop.page.locator('#number:not([hidden])').isVisible());
      await phone.page.evaluate(() => {
        navigator.credentials.get = window.realGet;
      });
      // A genuine assertion with its client data's origin changed: refused, origin named.
      await phone.setVerified(true);
      sent = null;
      await phone.page.unroute('**/app/login-sessions/*');
      await phone.page.route('**/app/login-sessions/*', async (route) => {
        sent = { url: route.request().url(), body: route.request().postData() };
        await route.abort();
      });
      await phone.page
        .locator('#numbers button[data-number]:enabled')
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(() => {});
      const n = /Pick (\d+)/.exec(
        await desktop.page.locator('#number:not([hidden])').textContent(),
      )[1];
      await phone.page.tap(`#number-${n}`);
      for (let i = 0; i < 50 && !sent; i += 1) await new Promise((r) => setTimeout(r, 100));
      assert.ok(sent, 'the approval was made');
      const { approval } = JSON.parse(sent.body);
      const [h, p, s] = approval.split('.');
      const proof = JSON.parse(Buffer.from(s, 'base64url'));
      const cd = JSON.parse(Buffer.from(proof.clientDataJSON, 'base64url'));
      cd.origin = 'https://scanid-login.example';
      proof.clientDataJSON = Buffer.from(JSON.stringify(cd)).toString('base64url');
      const forged = `${h}.${p}.${Buffer.from(JSON.stringify(proof)).toString('base64url')}`;
      const r = await fetch(sent.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approval: forged }),
      });
      assert.equal(r.status, 400);
      assert.match((await r.json()).error_description, /origin/);
      await desktop.context.close();
      await phone.context.close();
    });

    test('a WebCrypto identity upgrades to a passkey signed over by its old key; passkeys are added and removed, never the last', async () => {
      // No authenticator at sign-up: the WebCrypto key, as before.
      const phone = await newPhone(null);
      const me = await signUp(phone.page, `up${store.length}`);
      assert.equal(me.passkey, null);
      assert.ok(me.hasKey);
      await phone.addAuthenticator();
      await phone.page.tap('#keys');
      await phone.page.locator('#upgrade').waitFor();
      await phone.page.locator('#keys-list li.device-key').waitFor();
      await phone.page.tap('#upgrade');
      await phone.page.locator('#keys-list li.passkey').waitFor();
      assert.equal(
        await phone.page.locator('#keys-list li.device-key').count(),
        0,
        'the device key is retired',
      );
      // The device key enrolled it: its logins stay at the device key's level (issue 38).
      await phone.page.locator('#keys-list li.passkey .passkey-level').waitFor();
      let shown = await show(me.profile.sub);
      assert.equal(shown.keys.device_key, null);
      assert.equal(shown.keys.passkeys.length, 1);
      // The last key stays.
      await phone.page.locator('#keys-list li.passkey .remove-key').tap();
      await phone.page.uncheck('#remove-sign-out');
      await phone.page.tap('#remove-confirm');
      await phone.page.locator('.error').waitFor();
      assert.match(await phone.page.textContent('.error'), /last key/);
      // A second passkey (signed by the first), then the first removed.
      await phone.page.tap('#add-passkey');
      await phone.page.locator('#keys-list li.passkey >> nth=1').waitFor();
      shown = await show(me.profile.sub);
      assert.equal(shown.keys.passkeys.length, 2);
      const first = shown.keys.passkeys[0].credential_id;
      await phone.page.locator(`#keys-list li[data-credential="${first}"] .remove-key`).tap();
      // Removing offers to sign out everywhere (checked by default); not this time.
      assert.equal(await phone.page.isChecked('#remove-sign-out'), true);
      await phone.page.uncheck('#remove-sign-out');
      await phone.page.tap('#remove-confirm');
      await phone.page
        .locator(`#keys-list li[data-credential="${first}"]`)
        .waitFor({ state: 'detached' });
      // The view is redrawn at once and filled when the keys come back: that read is signed by
      // the remaining passkey, which then shows where it was last used.
      await phone.page.locator('#keys-list li.passkey', { hasText: 'Last used' }).waitFor();
      shown = await show(me.profile.sub);
      assert.deepEqual(shown.keys.passkeys.map((k) => k.credential_id).includes(first), false);
      assert.ok(shown.keys.passkeys[0].last_used_at, 'where each was last used');
      await phone.context.close();
    });

    test('a passkey identity signs out everywhere from the app, and removing a lost passkey offers it: sessions and tokens end', async () => {
      const phone = await newPhone({ verified: true });
      const me = await signUp(phone.page, `so${store.length}`);
      assert.ok(me.passkey);
      // Every identity gets "Sign out everywhere"; a passkey identity has no key to replace.
      await phone.page.locator('#sign-out').waitFor();
      assert.equal(await phone.page.locator('#rotate').count(), 0);

      const tokensOfALogin = async () => {
        const desktop = await desktopLogin();
        await scanAndPick(desktop, phone);
        await phone.page.locator('#decided[data-status="approved"]').waitFor();
        // The consent step, unless remembered from the first login.
        const atRp = (u) => u.toString().startsWith(rp.url);
        await desktop.page.waitForURL((u) => atRp(u) || /login-actions\/consent/.test(u), {
          timeout: 10_000,
        });
        if (!atRp(desktop.page.url())) {
          await desktop.page.click('button[name="consent"][value="allow"]');
          await desktop.page.waitForURL(atRp, { timeout: 10_000 });
        }
        const code = new URL(desktop.page.url()).searchParams.get('code');
        const tokens = await tokenRequest({
          grant_type: 'authorization_code',
          code,
          redirect_uri: rp.url,
        });
        assert.ok(tokens.refresh_token, JSON.stringify(tokens));
        return { desktop, tokens };
      };
      const refreshed = async (tokens) =>
        (
          await tokenRequestRaw({
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token,
          })
        ).status;
      /** The desktop opens a new login: the QR (no session), or straight back (a session). */
      const desktopHasASession = async (desktop) => {
        const q = new URLSearchParams({
          client_id: 'shop',
          redirect_uri: rp.url,
          response_type: 'code',
          scope: 'openid',
          state: 'again',
        });
        await desktop.page.goto(`${server.issuer}/protocol/openid-connect/auth?${q}`);
        await desktop.page.waitForURL(
          (u) => u.toString().startsWith(rp.url) || /login-actions|auth\?/.test(u.toString()),
        );
        return desktop.page.url().startsWith(rp.url);
      };

      const first = await tokensOfALogin();
      assert.equal(await refreshed(first.tokens), 200);
      assert.equal(await desktopHasASession(first.desktop), true, 'the SSO session works');
      await phone.page.goto(`${server.issuer}/app/`);
      await phone.page.tap('#sign-out');
      await phone.page.tap('#sign-out-confirm');
      const note = phone.page.locator('.ok', { hasText: 'signed out everywhere' });
      await note.waitFor();
      assert.match(await note.textContent(), /1 session ended/);
      assert.equal(await refreshed(first.tokens), 400, 'its refresh token is dead');
      assert.equal(await desktopHasASession(first.desktop), false, 'its session is over');
      await first.desktop.context.close();

      // A second passkey, then the first reported lost: removed, and everything ends again.
      const second = await tokensOfALogin();
      await phone.page.goto(`${server.issuer}/app/`);
      await phone.page.tap('#keys');
      await phone.page.tap('#add-passkey');
      await phone.page.locator('#keys-list li.passkey >> nth=1').waitFor();
      await phone.page.locator(`#keys-list li[data-credential="${me.passkey}"] .remove-key`).tap();
      assert.equal(await phone.page.isChecked('#remove-sign-out'), true, 'offered, checked');
      await phone.page.tap('#remove-confirm');
      await phone.page.locator('.ok', { hasText: 'The key was removed' }).waitFor();
      assert.equal(await refreshed(second.tokens), 400);
      assert.equal(await desktopHasASession(second.desktop), false);
      const shown = await show(me.profile.sub);
      assert.equal(shown.keys.passkeys.length, 1);
      assert.notEqual(shown.keys.passkeys[0].credential_id, me.passkey);
      await second.desktop.context.close();
      await phone.context.close();
    });
  });
}
