// "Sign in with a passkey" on the login page, and amr/acr for the passkey paths (issue 26), in
// Chromium with the DevTools Protocol's virtual authenticator (ctap2, internal, resident keys,
// user verification), on an issuer at http://localhost:<port> (WebAuthn refuses an IP address
// as RP ID). The passkey is made by the web app's sign-up in the same browser profile (the
// login page and the web app share the origin); openid-client runs the relying party and
// verifies the ID token, whose amr and acr the test reads:
// - the login page's passkey: amr ["hwk","user","pop"], acr "3";
// - a QR login approved on a phone with its passkey: amr ["pop","hwk","user"], acr "2";
// - the authenticator not verifying the user: refused, the login still waits;
// - the page leaves for the consent step once, though both its scripts learn of the approval
//   (the passkey's answer and the status poll): the consent page is held back 1.5 s, so a second
//   navigation would come while the first is pending and abort it.
// On the embedded store, and on DynamoDB when SCANID_TEST_AWS_ENDPOINT is set.
// SCANID_README_SHOTS=dir writes the login page with its passkey button (login-passkey.png).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as oidc from 'openid-client';
import {
  cli,
  launchBrowser,
  readQr,
  startCallback,
  useEmulator,
  dynamoFlags,
  startLocalhostServer,
} from './helpers.mjs';

const emulator = useEmulator();

let browser, rp;
before(async () => {
  browser = await launchBrowser();
  rp = await startCallback();
});
after(async () => {
  await browser?.close();
  await rp?.close();
});

/** A browser context with a virtual platform authenticator. */
async function withAuthenticator(options = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    context,
    page,
    setVerified: (v) =>
      cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: v }),
  };
}

async function signUp(server, page, name) {
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', `${name} display`);
  await page.fill('#country', 'SE');
  await page.click('#signup');
  await page.locator('#identity').waitFor();
}

/** After an approval: the consent step (allow), then the relying party's verified tokens. */
async function finish(config, page, expected) {
  await page.waitForURL(
    (u) => u.toString().startsWith(rp.url) || /login-actions\/consent/.test(u.toString()),
    { timeout: 20_000 },
  );
  if (!page.url().startsWith(rp.url)) {
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 20_000 });
  }
  return oidc.authorizationCodeGrant(config, new URL(page.url()), {
    ...expected,
    idTokenExpected: true,
  });
}

function authUrl(config) {
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  return {
    url: oidc.buildAuthorizationUrl(config, {
      redirect_uri: rp.url,
      scope: 'openid profile',
      state,
      nonce,
    }),
    expected: { expectedState: state, expectedNonce: nonce },
  };
}

for (const store of ['embedded', ...(emulator ? ['DynamoDB'] : [])]) {
  describe(`passkey sign-in on the ${store} store`, () => {
    let server, config;
    before(async () => {
      server = await startLocalhostServer(store === 'DynamoDB' ? await dynamoFlags() : []);
      const { client_secret: secret } = await cli([
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
      ]);
      config = await oidc.discovery(
        new URL(server.issuer),
        'shop',
        undefined,
        oidc.ClientSecretBasic(secret),
        {
          execute: [oidc.allowInsecureRequests],
        },
      );
    });
    after(async () => server?.stop());

    test("the login page's passkey button reaches the relying party's tokens: amr hwk user pop, acr 3", async () => {
      const me = await withAuthenticator({ viewport: { width: 1280, height: 900 } });
      await signUp(server, me.page, `pl${store.length}`);
      const { url, expected } = authUrl(config);
      await me.page.goto(url.toString());
      const button = me.page.locator('#passkey');
      await button.waitFor({ state: 'visible' });
      assert.equal(await button.textContent(), 'Sign in with a passkey');
      assert.ok(await me.page.locator('#qr svg').isVisible(), 'the QR code stays beside it');
      if (process.env.SCANID_README_SHOTS) {
        await me.page.screenshot({
          path: path.join(process.env.SCANID_README_SHOTS, 'login-passkey.png'),
          scale: 'css',
        });
      }
      let consentLoads = 0;
      await me.page.route(/\/login-actions\/consent/, async (route) => {
        if (route.request().isNavigationRequest() && route.request().method() === 'GET') {
          consentLoads += 1;
          await new Promise((r) => setTimeout(r, 1500));
        }
        await route.continue();
      });
      await button.click();
      const tokens = await finish(config, me.page, expected);
      assert.equal(consentLoads, 1, 'the page asked for the consent step once');
      const claims = tokens.claims();
      assert.deepEqual(claims.amr, ['hwk', 'user', 'pop']);
      assert.equal(claims.acr, '3');
      assert.equal(claims.preferred_username, `pl${store.length}`);
      await me.context.close();
    });

    test('a user the authenticator does not verify is refused; the login still waits', async () => {
      const me = await withAuthenticator();
      await signUp(server, me.page, `nv${store.length}`);
      const { url } = authUrl(config);
      await me.page.goto(url.toString());
      await me.page.locator('#passkey').waitFor({ state: 'visible' });
      await me.setVerified(false);
      // The page asks with userVerification required, so the browser makes no assertion;
      // a page asking without it gets one whose UV flag is off, which the service refuses.
      await me.page.evaluate(() => {
        const get = navigator.credentials.get.bind(navigator.credentials);
        navigator.credentials.get = (o) =>
          get({ ...o, publicKey: { ...o.publicKey, userVerification: 'discouraged' } });
      });
      await me.page.click('#passkey');
      await me.page.locator('#passkey-state.error').waitFor({ timeout: 20_000 });
      assert.match(await me.page.textContent('#passkey-state'), /did not verify the user/);
      assert.ok(!me.page.url().startsWith(rp.url));
      assert.ok(await me.page.locator('#qr svg').isVisible(), 'the QR login still waits');
      await me.context.close();
    });

    test('a QR login approved on the phone with its passkey: amr pop hwk user, acr 2', async () => {
      const phone = await withAuthenticator({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      });
      await signUp(server, phone.page, `qr${store.length}`);
      const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await desktop.newPage();
      const { url, expected } = authUrl(config);
      await page.goto(url.toString());
      await page.locator('#qr svg').waitFor();
      await phone.page.goto(await readQr(page));
      await phone.page.locator('#request').waitFor();
      const shown = page.locator('#number:not([hidden])');
      await shown.waitFor({ timeout: 20_000 });
      const n = /Pick (\d+)/.exec(await shown.textContent())[1];
      await phone.page.locator('#numbers button[data-number]:enabled').first().waitFor();
      await phone.page.tap(`#number-${n}`);
      await phone.page.locator('#decided[data-status="approved"]').waitFor({ timeout: 20_000 });
      const claims = (await finish(config, page, expected)).claims();
      assert.deepEqual(claims.amr, ['pop', 'hwk', 'user']);
      assert.equal(claims.acr, '2');
      await desktop.close();
      await phone.context.close();
    });
  });
}
