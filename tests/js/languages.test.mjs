// The login pages in the person's language (issue 39), in Chromium: ui_locales of the
// authorization request, the browser's Accept-Language, right to left for Arabic, the language
// picked on the page (remembered in a cookie, winning over Accept-Language), and the realm's
// default (here Dutch, `--default-locale nl`) for a language scanid does not speak.
//
// SCANID_README_SHOTS=dir writes the German and Arabic pages there (the book's pictures).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  startServer,
  startCallback,
  launchBrowser,
  cli,
  enroll,
  approve,
  authorizationUrl,
} from './helpers.mjs';

let server, rp, browser, alice;

before(async () => {
  server = await startServer(['--default-locale', 'nl']);
  rp = await startCallback();
  browser = await launchBrowser();
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Sprach-RP',
    '--client-id',
    'lang-rp',
    '--redirect-uri',
    rp.url,
  ]);
  alice = await enroll(server, 'alice');
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

function authUrl(state, extra = {}) {
  return authorizationUrl(server, {
    client_id: 'lang-rp',
    redirect_uri: rp.url,
    state,
    nonce: `nonce-${state}`,
    ...extra,
  });
}

/** A context whose browser asks for `acceptLanguage` (none: Chromium's own). */
function context(acceptLanguage) {
  return browser.newContext(
    acceptLanguage ? { extraHTTPHeaders: { 'Accept-Language': acceptLanguage } } : {},
  );
}

async function shot(page, name) {
  const dir = process.env.SCANID_README_SHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

async function htmlLang(page) {
  return page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
}

test('ui_locales=de: the QR page, the number and the consent are in German', async () => {
  const ctx = await context('en');
  const page = await ctx.newPage();
  await page.goto(authUrl('de', { ui_locales: 'de-AT en' }));
  assert.deepEqual(await htmlLang(page), ['de', 'ltr']);
  assert.equal(await page.textContent('h1'), 'Bei Sprach-RP anmelden');
  assert.equal(await page.title(), 'Anmelden · scanid');
  assert.match(await page.textContent('#state'), /Warten auf die App/);
  await shot(page, 'login-de');
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  // The number is read off the page once the page shows it (the app asks for it then).
  let shown = null;
  const reader = {
    locator: (s) => page.locator(s),
    context: () => ({
      request: {
        get: async (url, opts) => {
          if (shown === null) {
            await page.locator('#number').waitFor({ state: 'visible', timeout: 10_000 });
            shown = {
              number: await page.textContent('#number'),
              live: await page.locator('#number').locator('..').getAttribute('role'),
              appLink: await page.locator('#app-link').isVisible(),
            };
          }
          return page.context().request.get(url, opts);
        },
      },
    }),
  };
  assert.equal((await approve(server, alice, payload, { page: reader })).status, 'approved');
  // The number the person picks on the phone, said in German, in a live region; "Open the
  // scanid app" has nothing left to do once the phone has scanned.
  assert.match(shown.number, /^Wählen Sie \d+ in der scanid-App$/);
  assert.equal(shown.live, 'status');
  assert.equal(shown.appLink, false);
  await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  assert.deepEqual(await htmlLang(page), ['de', 'ltr']);
  assert.equal(await page.textContent('h1'), 'Sprach-RP möchte auf Ihr scanid-Konto zugreifen');
  assert.match(await page.textContent('ul.scopes'), /die Gruppen, denen Sie angehören/);
  await shot(page, 'consent-de');
  await page.getByRole('button', { name: 'Erlauben' }).click();
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  assert.ok(new URL(page.url()).searchParams.get('code'));
  await ctx.close();
});

test('Accept-Language: ja alone gives Japanese; an error page speaks it too', async () => {
  const ctx = await context('ja');
  const page = await ctx.newPage();
  await page.goto(authUrl('ja'));
  assert.deepEqual(await htmlLang(page), ['ja', 'ltr']);
  assert.equal(await page.textContent('h1'), 'Sprach-RP にログイン');
  const r = await page.goto(authUrl('ja-bad', { client_id: 'nobody' }));
  assert.equal(r.status(), 400);
  assert.equal(await page.textContent('h1'), 'このログインリクエストは無効です');
  // The technical reason, for the application's makers, stays as it is.
  assert.match(await page.textContent('main'), /unknown client_id/);
  await ctx.close();
});

test('ar: right to left, the names inside kept in their own direction', async () => {
  const ctx = await context('ar-EG,ar;q=0.9');
  const page = await ctx.newPage();
  await page.goto(authUrl('ar'));
  assert.deepEqual(await htmlLang(page), ['ar', 'rtl']);
  const h1 = await page.textContent('h1');
  assert.match(h1, /تسجيل الدخول إلى/);
  assert.ok(h1.includes('\u2068Sprach-RP\u2069'), JSON.stringify(h1));
  await shot(page, 'login-ar');
  const device = await ctx.newPage();
  await device.goto(`${server.issuer}/device`);
  assert.deepEqual(await htmlLang(device), ['ar', 'rtl']);
  assert.equal(await device.textContent('h1'), 'ربط جهاز');
  await ctx.close();
});

test('the language picked on the page wins over Accept-Language and is remembered', async () => {
  const ctx = await context('fr');
  const page = await ctx.newPage();
  await page.goto(authUrl('pick', { ui_locales: 'fr' }));
  assert.deepEqual(await htmlLang(page), ['fr', 'ltr']);
  // The selector works without JavaScript: a form that shows the same page again.
  await page.getByLabel('Langue').selectOption('sv');
  await page.getByRole('button', { name: 'Changer' }).click();
  await page.waitForLoadState();
  assert.deepEqual(await htmlLang(page), ['sv', 'ltr']);
  assert.equal(await page.textContent('h1'), 'Logga in på Sprach-RP');
  assert.equal(await page.getByLabel('Språk').inputValue(), 'sv');
  // The same login request was shown again (a new QR), its parameters kept.
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('state'), 'pick');
  assert.equal(url.searchParams.get('lang'), 'sv');
  // Remembered: a later login, the device page, with the browser still asking for French.
  await page.goto(authUrl('pick-again'));
  assert.deepEqual(await htmlLang(page), ['sv', 'ltr']);
  await page.goto(`${server.issuer}/device`);
  assert.equal(await page.textContent('h1'), 'Anslut en enhet');
  const cookies = await ctx.cookies();
  assert.equal(cookies.find((c) => c.name === 'scanid_locale')?.value, 'sv');
  // A pick of a language scanid does not speak changes nothing.
  await page.goto(`${server.issuer}/device?lang=tlh`);
  assert.equal(await page.textContent('h1'), 'Anslut en enhet');
  await ctx.close();
});

test('a language scanid does not speak falls back to the realm default', async () => {
  const ctx = await context('tlh, xx;q=0.5');
  const page = await ctx.newPage();
  await page.goto(authUrl('unknown', { ui_locales: 'tlh zh-TW' }));
  assert.deepEqual(await htmlLang(page), ['nl', 'ltr']);
  assert.equal(await page.textContent('h1'), 'Inloggen bij Sprach-RP');
  await ctx.close();
});

test('discovery lists the languages', async () => {
  const r = await fetch(`${server.issuer}/.well-known/openid-configuration`);
  const d = await r.json();
  assert.equal(d.ui_locales_supported.length, 15);
  for (const tag of ['en', 'sv', 'de', 'pt-BR', 'ja', 'zh-Hans', 'ar', 'hi', 'uk']) {
    assert.ok(d.ui_locales_supported.includes(tag), tag);
  }
});
