// axe-core (WCAG 2.x A and AA rules) on every login page, in English and in Arabic (right to
// left): the QR page (before and after the scan), the consent page, the device-code page (empty
// and refusing a code), an error page, "Log out of scanid?" and the logged-out page; and every
// web app screen, a till's waiting request (CIBA) and the agents screen included. The page's
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

let server, rp, browser, tillSecret;

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
  // A till that asks people to approve on their phone (CIBA): the waiting list and its
  // approval screen are web app screens too.
  const till = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Access till',
    '--client-id',
    'a11y-till',
    '--grant',
    'ciba',
  ]);
  tillSecret = till.client_secret;
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

for (const lang of ['en', 'ar']) {
  test(`${lang}: no WCAG A/AA violation on the web app screens a person goes through`, async () => {
    const phone = await browser.newContext({
      bypassCSP: true,
      locale: lang,
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const app = await phone.newPage();
    await app.goto(`${server.issuer}/app/`);
    await app.locator('#signup-form').waitFor();
    assert.deepEqual(
      await app.evaluate(() => [document.documentElement.lang, document.documentElement.dir]),
      [lang, lang === 'ar' ? 'rtl' : 'ltr'],
    );
    await clean(app, `${lang} sign-up`);
    await app.fill('#name', `axe-reader-${lang}`);
    await app.locator('#name-hint.ok').waitFor();
    await app.fill('#display-name', 'Axe Reader');
    await app.fill('#country', 'SE');
    await app.tap('#signup');
    await app.locator('#identity').waitFor();
    await clean(app, `${lang} home after sign-up`);
    for (const [button, what] of [
      ['#activity', 'recent logins'],
      ['#keys', 'keys and passkeys'],
      ['#rotate', 'replace the key'],
      ['#sign-out', 'sign out everywhere'],
      ['#delete', 'delete'],
      ['#edit', 'edit profile'],
      ['#agents', 'agents acting for you'],
    ]) {
      await app.goto(`${server.issuer}/app/`);
      await app.locator(button).waitFor();
      await app.tap(button);
      await app.waitForFunction(() => !document.querySelector('#identity'));
      await app.waitForLoadState('networkidle');
      await clean(app, `${lang} ${what}`);
    }

    // A login started on a computer, approved on the phone by the number it shows.
    const desktop = await browser.newContext();
    const page = await desktop.newPage();
    await page.goto(authUrl(`a11y-app-${lang}`, 'en'));
    const link = await page.locator('#app-link').getAttribute('data-qr-payload');
    await app.goto(link);
    await app.locator('#request').waitFor();
    await app.locator('#numbers button[data-number]:enabled').first().waitFor();
    await clean(app, `${lang} approval with the numbers`);
    const shown = page.locator('#number:not([hidden])');
    await shown.waitFor({ timeout: 10_000 });
    const n = /(\d+)/.exec(await shown.textContent())[1];
    await app.tap(`#number-${n}`);
    await app.locator('#decided[data-status="approved"]').waitFor();
    await clean(app, `${lang} approved`);
    await app.goto(`${server.issuer}/app/`);
    await app.locator('#activity').tap();
    await app.locator('#activity-list li').first().waitFor();
    await clean(app, `${lang} recent logins with a login`);

    // A request from a till (CIBA): the list on the home screen, then its approval screen.
    const asked = await fetch(`${server.issuer}/protocol/openid-connect/ext/ciba/auth`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`a11y-till:${tillSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        scope: 'openid',
        login_hint: `axe-reader-${lang}`,
        binding_message: 'Till 7',
      }),
    });
    assert.equal(asked.status, 200, await asked.text());
    await app.goto(`${server.issuer}/app/`);
    await app.locator('#waiting li').first().waitFor({ timeout: 10_000 });
    await clean(app, `${lang} requests waiting`);
    await app.locator('#waiting li button.open-request').first().tap();
    await app.locator('#binding-message').waitFor();
    await clean(app, `${lang} a request's approval`);
    await app.tap('#deny');
    await app.locator('#decided[data-status="denied"]').waitFor();
    await clean(app, `${lang} denied`);
    await desktop.close();
    await phone.close();
  });
}

/** The accessibility tree as Chromium gives it to a screen reader (CDP). */
async function axTree(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  return nodes.filter((n) => !n.ignored);
}

/** Every button (and link) the tree holds has a name a screen reader can say. */
async function everyControlNamed(page, what) {
  const unnamed = (await axTree(page))
    .filter((n) => ['button', 'link', 'combobox', 'textbox', 'checkbox'].includes(n.role?.value))
    .filter((n) => !(n.name?.value ?? '').trim())
    .map((n) => `${n.role.value} ${n.backendDOMNodeId}`);
  assert.deepEqual(unnamed, [], `${what}: controls without a name`);
}

test('a screen reader through a whole login: the QR named by its link, the number in a live region, every control named', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(authUrl('reader', 'en'));
  // The QR: an image whose name is the link it holds; the same link as a named link. The
  // code is redrawn every second, the link and the image's name together: the link is read
  // before and after the snapshot, until both reads agree (one code's second).
  const payload = () => page.locator('#app-link').getAttribute('data-qr-payload');
  let link;
  let qr;
  for (let tries = 0; tries < 5; tries++) {
    link = await payload();
    qr = await page.locator('body').ariaSnapshot();
    if ((await payload()) === link) break;
  }
  assert.ok(qr.includes(`img "QR code. It holds this link: ${link}`), qr);
  assert.ok(qr.includes('link "Open the scanid app"'), qr);
  await everyControlNamed(page, 'QR page');
  // The phone scans: the number to pick appears inside a live region (role=status), so a
  // screen reader says it without the person moving there.
  const phone = await browser.newContext({
    locale: 'en',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const app = await phone.newPage();
  await app.goto(`${server.issuer}/app/`);
  await app.fill('#name', 'screen-reader');
  await app.locator('#name-hint.ok').waitFor();
  await app.fill('#display-name', 'Screen Reader');
  await app.fill('#country', 'SE');
  await app.tap('#signup');
  await app.locator('#identity').waitFor();
  await everyControlNamed(app, 'app home');
  await app.goto(link);
  await app.locator('#request').waitFor();
  const shown = page.locator('#number:not([hidden])');
  await shown.waitFor({ timeout: 10_000 });
  const n = /(\d+)/.exec(await shown.textContent())[1];
  const live = await page.evaluate(() => {
    const el = document.querySelector('#number');
    const region = el.closest('[role="status"], [role="alert"], [aria-live]');
    return region
      ? {
          role: region.getAttribute('role'),
          live: region.getAttribute('aria-live') ?? 'polite',
          text: region.textContent,
        }
      : null;
  });
  assert.ok(live, 'the number is in a live region');
  assert.notEqual(live.live, 'off');
  assert.ok(live.text.includes(n), live.text);
  const afterScan = await page.locator('body').ariaSnapshot();
  assert.match(afterScan, new RegExp(`status[^\\n]*\\n?[^\\n]*${n}`), afterScan);
  // The approval screen: a heading that says who asks, the numbers and Deny as named
  // buttons, the arming delay said in words.
  await app.locator('#numbers button[data-number]:enabled').first().waitFor();
  const approval = await app.locator('body').ariaSnapshot();
  assert.ok(approval.includes('heading "Log in to Access RP?" [level=1]'), approval);
  assert.ok(approval.includes(`button "${n}"`), approval);
  assert.ok(approval.includes('button "Deny"'), approval);
  assert.ok(approval.includes('The buttons work a moment after this screen appears'), approval);
  await everyControlNamed(app, 'approval');
  await app.getByRole('button', { name: n, exact: true }).tap();
  await app.getByRole('heading', { name: 'Login approved' }).waitFor();
  await everyControlNamed(app, 'approved');
  await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  const consent = await page.locator('body').ariaSnapshot();
  assert.ok(consent.includes('button "Allow"') || consent.includes('button "Continue"'), consent);
  await everyControlNamed(page, 'consent');
  await ctx.close();
  await phone.close();
});
