// axe-core (WCAG 2.x A and AA rules) on every login page, in English and in Arabic (right to
// left): the QR page (before and after the scan), the consent page, the device-code page (empty
// and refusing a code), an error page, "Log out of scanid?" and the logged-out page. The page's
// CSP forbids foreign scripts, so axe is injected in a context that bypasses it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  startServer,
  startCallback,
  launchBrowser,
  cli,
  enroll,
  approve,
  authorizationUrl,
} from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

let server, rp, browser;

before(async () => {
  server = await startServer();
  rp = await startCallback();
  browser = await launchBrowser();
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Access RP',
    '--client-id',
    'a11y-rp',
    '--redirect-uri',
    rp.url,
  ]);
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

/** The WCAG A/AA violations axe finds on `page`, as readable lines. */
async function violations(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }),
    TAGS,
  );
  return result.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

async function clean(page, what) {
  const found = await violations(page);
  assert.deepEqual(found, [], `${what}: ${found.join('\n')}`);
}

function authUrl(state, lang) {
  return authorizationUrl(server, {
    client_id: 'a11y-rp',
    redirect_uri: rp.url,
    scope: 'openid profile offline_access',
    state,
    nonce: `n-${state}`,
    ui_locales: lang,
  });
}

for (const lang of ['en', 'ar']) {
  test(`${lang}: no WCAG A/AA violation on the login, consent, device, error and logout pages`, async () => {
    const person = await enroll(server, `reader-${lang}`);
    const ctx = await browser.newContext({
      bypassCSP: true,
      extraHTTPHeaders: { 'Accept-Language': lang },
    });
    const page = await ctx.newPage();
    await page.goto(authUrl(`a11y-${lang}`, lang));
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
    await clean(page, `${lang} QR page`);
    // What a screen reader is given: the code as an image named by its link, the main
    // landmark, the language selector by its label.
    const tree = await page.locator('body').ariaSnapshot();
    const [qrName, languageName] = {
      en: ['QR code. It holds this link: ', 'Language'],
      ar: ['رمز QR. يحتوي على هذا الرابط: ', 'اللغة'],
    }[lang];
    assert.ok(tree.includes(`img "${qrName}`), tree);
    assert.ok(tree.includes('- main:'), tree);
    assert.ok(tree.includes(`combobox "${languageName}"`), tree);
    const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
    // After the scan: the number to pick (read off the page before the app is answered).
    let afterScan = null;
    const reader = {
      locator: (s) => page.locator(s),
      context: () => ({
        request: {
          get: async (url, opts) => {
            if (afterScan === null) {
              await page.locator('#number').waitFor({ state: 'visible', timeout: 10_000 });
              afterScan = await violations(page);
            }
            return page.context().request.get(url, opts);
          },
        },
      }),
    };
    assert.equal((await approve(server, person, payload, { page: reader })).status, 'approved');
    assert.deepEqual(afterScan, [], `${lang} QR page with the number: ${afterScan?.join('\n')}`);
    await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
    await clean(page, `${lang} consent page`);
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });

    await page.goto(`${server.issuer}/device`);
    await clean(page, `${lang} device page`);
    await page.fill('#user_code', 'BCDF-GHJK');
    await page.click('button[type="submit"].allow');
    await page.waitForSelector('.error');
    await clean(page, `${lang} device page refusing a code`);

    const bad = await page.goto(authUrl('bad', lang).replace('a11y-rp', 'nobody'));
    assert.equal(bad.status(), 400);
    await clean(page, `${lang} error page`);

    await page.goto(`${server.issuer}/protocol/openid-connect/logout`);
    await clean(page, `${lang} logout confirmation`);
    await page.click('form[method="post"] button[type="submit"]');
    const loggedOut = { en: 'You are logged out', ar: 'لقد سجّلت الخروج' }[lang];
    await page.getByRole('heading', { name: loggedOut }).waitFor();
    assert.equal(
      await page.evaluate(() => document.documentElement.dir),
      lang === 'ar' ? 'rtl' : 'ltr',
    );
    await clean(page, `${lang} logged-out page`);
    await ctx.close();
  });
}

test('en: no WCAG A/AA violation on the web app screens a person goes through', async () => {
  const phone = await browser.newContext({
    bypassCSP: true,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const app = await phone.newPage();
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#signup-form').waitFor();
  await clean(app, 'sign-up');
  await app.fill('#name', 'axe-reader');
  await app.locator('#name-hint.ok').waitFor();
  await app.fill('#display-name', 'Axe Reader');
  await app.fill('#country', 'SE');
  await app.tap('#signup');
  await app.locator('#identity').waitFor();
  await clean(app, 'home after sign-up');
  for (const [button, what] of [
    ['#activity', 'recent logins'],
    ['#keys', 'keys and passkeys'],
    ['#rotate', 'replace the key'],
    ['#delete', 'delete'],
    ['#edit', 'edit profile'],
  ]) {
    await app.goto(`${server.issuer}/app/`);
    await app.locator(button).waitFor();
    await app.tap(button);
    await app.waitForFunction(() => !document.querySelector('#identity'));
    await app.waitForLoadState('networkidle');
    await clean(app, what);
  }

  // A login started on a computer, approved on the phone by the number it shows.
  const desktop = await browser.newContext();
  const page = await desktop.newPage();
  await page.goto(authUrl('a11y-app', 'en'));
  const link = await page.locator('#app-link').getAttribute('data-qr-payload');
  await app.goto(link);
  await app.locator('#request').waitFor();
  await app.locator('#numbers button[data-number]:enabled').first().waitFor();
  await clean(app, 'approval with the numbers');
  const shown = page.locator('#number:not([hidden])');
  await shown.waitFor({ timeout: 10_000 });
  const n = /(\d+)/.exec(await shown.textContent())[1];
  await app.tap(`#number-${n}`);
  await app.getByRole('heading', { name: 'Login approved' }).waitFor();
  await clean(app, 'approved');
  await desktop.close();
  await phone.close();
});
