// The scanid web app on a phone, end to end, in two browser contexts: a desktop browser on
// the demo relying party's login page, and a mobile-emulated browser (390×844, touch) as the
// phone. The phone reads the QR code the way a camera does: from the image (a screenshot of
// the code, decoded with jsQR), never from the page's attributes.
//
// SCANID_README_SHOTS=dir writes the phone's screens there (the README's pictures).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { PNG } from 'pngjs';
import { startServer, launchBrowser, enroll, readQr } from './helpers.mjs';

let server, browser;

const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};

before(async () => {
  // Every test signs up phones from one address: more than the default 10 an hour.
  server = await startServer(['--signup-rate-per-hour', '100']);
  browser = await launchBrowser();
  // A name already in use, for the sign-up form's "taken" check.
  await enroll(server, 'taken-name');
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function shot(page, name, opts = {}) {
  const dir = process.env.SCANID_README_SHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`), scale: 'css', ...opts });
}

/** A phone: a fresh mobile context (its own IndexedDB, so its own device key). */
async function newPhone() {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  return { context, page };
}

/** Signs up in the web app on `page` (already on the sign-up form). */
async function fillSignUp(page, name, displayName) {
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', displayName);
  await page.fill('#country', 'SE');
  await page.tap('#signup');
}

/** Signs up from the app's home page; resolves to the identity the device stored. */
async function signUp(page, name, displayName) {
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await fillSignUp(page, name, displayName);
  await page.locator('#identity').waitFor();
  return stored(page);
}

/** What the device keeps in IndexedDB: the profile, and facts about the private key. */
function stored(page) {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open('scanid', 1);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const get = req.result.transaction('device').objectStore('device').get('identity');
          get.onsuccess = async () => {
            const r = get.result;
            if (!r) return resolve(null);
            const exports = {};
            for (const format of ['pkcs8', 'jwk']) {
              try {
                await crypto.subtle.exportKey(format, r.privateKey);
                exports[format] = 'exported';
              } catch (e) {
                exports[format] = e.name;
              }
            }
            resolve({
              profile: r.profile,
              extractable: r.privateKey.extractable,
              type: r.privateKey.type,
              algorithm: r.privateKey.algorithm,
              exports,
            });
          };
          get.onerror = () => reject(get.error);
        };
      }),
  );
}

/** The desktop: the demo's login page with its QR code. */
async function desktopLogin() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.demo);
  await page.click('#login');
  await page.locator('#qr svg').waitFor();
  return { context, page };
}

/** What a camera reads: the QR image, decoded. */
async function scanQr(page) {
  return readQr(page);
}

/** Number matching: the number the desktop's login page shows once the phone has scanned,
 * read off the desktop's screen and tapped on the phone. */
async function pickShown(desktopPage, phonePage) {
  const shown = desktopPage.locator('#number:not([hidden])');
  await shown.waitFor({ timeout: 10_000 });
  const n = /Pick (\d+)/.exec(await shown.textContent())[1];
  await phonePage.tap(`#number-${n}`);
  return Number(n);
}

async function directory(sub) {
  return fetch(`${server.base}/v1/directory/${sub}`);
}

test('sign up on the phone: a non-extractable P-256 key, taken names said at once, the profile in the directory', async () => {
  const { context, page } = await newPhone();
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await shot(page, 'phone-signup');
  await page.fill('#name', 'taken-name');
  await page.locator('#name-hint.bad').waitFor();
  assert.match(await page.textContent('#name-hint'), /taken/);
  const me = await signUp(page, 'pia', 'Pia Phone');
  assert.equal(me.profile.name, 'pia');
  assert.equal(me.type, 'private');
  assert.equal(me.extractable, false);
  assert.deepEqual(me.algorithm, { name: 'ECDSA', namedCurve: 'P-256' });
  assert.deepEqual(
    me.exports,
    { pkcs8: 'InvalidAccessError', jwk: 'InvalidAccessError' },
    'the key cannot be exported',
  );
  assert.equal(await page.textContent('#display-name-shown'), 'Pia Phone');
  const res = await directory(me.profile.sub);
  assert.equal(res.status, 200);
  const profile = await res.json();
  assert.equal(profile.name, 'pia');
  assert.equal(profile.public_key, me.profile.public_key);
  await context.close();
});

test('scan the QR image with the phone, see who asks, approve: the desktop moves on to consent and the demo gets its tokens', async () => {
  const phone = await newPhone();
  await signUp(phone.page, 'scanner', 'Sam Scanner');
  const desktop = await desktopLogin();
  const link = await scanQr(desktop.page);
  assert.ok(link.startsWith(`${server.issuer}/app/scan?session=`), link);
  await phone.page.goto(link);
  await phone.page.locator('#request').waitFor();
  assert.equal(await phone.page.textContent('#client-name'), 'scanid demo');
  assert.equal(await phone.page.textContent('#redirect-host'), '127.0.0.1');
  const scopes = await phone.page
    .locator('#scopes li')
    .evaluateAll((l) => l.map((e) => e.dataset.scope));
  assert.ok(scopes.includes('openid'), scopes.join());
  // Started on the desktop: the phone warns and shows where.
  assert.ok(await phone.page.locator('#where.warn').isVisible());
  // The browser said plainly, the raw User-Agent behind "Details".
  assert.equal(await phone.page.textContent('#browser-agent'), 'Chrome on Linux');
  assert.equal(await phone.page.locator('#browser-ua').isVisible(), false);
  assert.equal(
    await phone.page.textContent('#browser-ua'),
    await desktop.page.evaluate(() => navigator.userAgent),
  );
  assert.equal(await phone.page.textContent('#browser-ip'), '127.0.0.1');
  await phone.page.locator('#numbers').waitFor();
  // The whole approval screen (the numbers are below the fold), armed; and the desktop's
  // number, as the person sees both.
  await phone.page.locator('#numbers button[data-number]:enabled').first().waitFor();
  await shot(phone.page, 'phone-approve', { fullPage: true });
  await desktop.page.locator('#number:not([hidden])').waitFor({ timeout: 10_000 });
  await shot(desktop.page, 'desktop-number');
  await pickShown(desktop.page, phone.page);
  await phone.page.locator('#decided[data-status="approved"]').waitFor();
  await shot(phone.page, 'phone-approved');
  // No click on the desktop: it polls and moves on by itself.
  await desktop.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await desktop.page.click('button[name="consent"][value="allow"]');
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  assert.match(await desktop.page.textContent('h1'), /Hello, Sam Scanner/);
  const claims = JSON.parse(await desktop.page.textContent('#claims'));
  assert.equal(claims.preferred_username, 'scanner');
  // The phone lists the login among its recent logins.
  await phone.page.tap('button:has-text("Done")');
  await phone.page.tap('#activity');
  const entry = phone.page.locator('#activity-list li').first();
  await entry.waitFor();
  assert.match(await entry.textContent(), /scanid demo approved/);
  assert.match(await entry.textContent(), /HeadlessChrome|Chrome/);
  await shot(phone.page, 'phone-activity');
  await desktop.context.close();
  await phone.context.close();
});

test('deny on the phone: the demo is told no', async () => {
  const phone = await newPhone();
  await signUp(phone.page, 'denier', 'Dee Nier');
  const desktop = await desktopLogin();
  await phone.page.goto(await scanQr(desktop.page));
  await phone.page.tap('#deny');
  await phone.page.locator('#decided[data-status="denied"]').waitFor();
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  assert.match(await desktop.page.textContent('main'), /access_denied|denied/i);
  await desktop.context.close();
  await phone.context.close();
});

test('a phone without an identity is offered sign-up first, then the same approval; a second identity logs in as itself', async () => {
  const desktop = await desktopLogin();
  const link = await scanQr(desktop.page);
  const phone = await newPhone();
  await phone.page.goto(link);
  await phone.page.locator('#signup-form').waitFor();
  assert.match(await phone.page.textContent('main'), /scanid demo asks you to log in/);
  await fillSignUp(phone.page, 'newcomer', 'Nia Newcomer');
  await phone.page.locator('#request').waitFor();
  await pickShown(desktop.page, phone.page);
  await phone.page.locator('#decided[data-status="approved"]').waitFor();
  await desktop.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await desktop.page.click('button[name="consent"][value="allow"]');
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  const claims = JSON.parse(await desktop.page.textContent('#claims'));
  assert.equal(claims.preferred_username, 'newcomer');
  await desktop.context.close();
  await phone.context.close();
});

test('a stale or unknown QR link says so on the phone', async () => {
  const phone = await newPhone();
  await signUp(phone.page, 'stale', 'Stan Stale');
  await phone.page.goto(
    `${server.issuer}/app/scan?session=AAAAAAAAAAAAAAAAAAAAAA&challenge=BBBBBBBBBBBBBBBBBBBBBB`,
  );
  await phone.page.getByRole('heading', { name: 'This code has expired' }).waitFor();
  await phone.context.close();
});

test('rotate the device key: the old key is replaced, and the new one approves logins', async () => {
  const phone = await newPhone();
  const before = await signUp(phone.page, 'rotor', 'Rita Rotor');
  await phone.page.tap('#rotate');
  await phone.page.tap('#rotate-confirm');
  await phone.page.locator('#identity').waitFor();
  const after = await stored(phone.page);
  assert.notEqual(after.profile.public_key, before.profile.public_key);
  assert.equal(after.extractable, false);
  assert.equal(
    (await (await directory(before.profile.sub)).json()).public_key,
    after.profile.public_key,
  );
  const desktop = await desktopLogin();
  await phone.page.goto(await scanQr(desktop.page));
  await pickShown(desktop.page, phone.page);
  await phone.page.locator('#decided[data-status="approved"]').waitFor();
  await desktop.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await desktop.context.close();
  await phone.context.close();
});

test('"This wasn\'t me" on a recent login: confirmed, reported, and the browser\'s session is over', async () => {
  const phone = await newPhone();
  await signUp(phone.page, 'reporter', 'Rae Porter');
  const desktop = await desktopLogin();
  await phone.page.goto(await scanQr(desktop.page));
  await pickShown(desktop.page, phone.page);
  await phone.page.locator('#decided[data-status="approved"]').waitFor();
  await desktop.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await desktop.page.click('button[name="consent"][value="allow"]');
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  // The same desktop again: its SSO session logs it in with no scan.
  await desktop.page.goto(server.demo);
  await desktop.page.click('#login');
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });

  await phone.page.tap('button:has-text("Done")');
  await phone.page.tap('#activity');
  const entries = phone.page.locator('#activity-list li');
  await entries.first().waitFor();
  assert.equal(await entries.count(), 2);
  assert.equal(
    await entries.nth(0).getAttribute('data-method'),
    'sso',
    'the SSO login is listed, marked',
  );
  assert.match(await entries.nth(0).textContent(), /no scan/);
  assert.equal(await entries.nth(1).getAttribute('data-method'), 'qr');
  // Asked first; Cancel changes nothing.
  await entries.nth(1).locator('button.report').tap();
  await phone.page.locator('#report-cancel').tap();
  assert.equal(await phone.page.locator('#report-confirm').count(), 0);
  await entries.nth(1).locator('button.report').tap();
  await shot(phone.page, 'phone-report');
  await phone.page.locator('#report-confirm').tap();
  await phone.page.locator('#activity-list li .reported').first().waitFor();
  assert.match(await phone.page.textContent('main'), /signed out of that login/);
  assert.equal(
    await phone.page.locator('#activity-list li').nth(1).locator('.reported').count(),
    1,
  );
  assert.equal(
    await phone.page.locator('#activity-list li').nth(1).locator('button.report').count(),
    0,
  );

  // The desktop's session ended: the demo's next login shows the QR code again.
  await desktop.page.goto(server.demo);
  await desktop.page.click('#login');
  await desktop.page.locator('#qr svg').waitFor({ timeout: 10_000 });
  await desktop.context.close();
  await phone.context.close();
});

test('replace the key with "Also sign out everywhere" (checked by default): the desktop\'s session is over', async () => {
  const phone = await newPhone();
  await signUp(phone.page, 'everywhere', 'Eve Rywhere');
  const desktop = await desktopLogin();
  await phone.page.goto(await scanQr(desktop.page));
  await pickShown(desktop.page, phone.page);
  await phone.page.locator('#decided[data-status="approved"]').waitFor();
  await desktop.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await desktop.page.click('button[name="consent"][value="allow"]');
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  await phone.page.tap('button:has-text("Done")');
  await phone.page.tap('#rotate');
  assert.equal(await phone.page.isChecked('#rotate-end-sessions'), true, 'checked by default');
  await shot(phone.page, 'phone-rotate');
  await phone.page.tap('#rotate-confirm');
  await phone.page.locator('#identity').waitFor();
  assert.match(await phone.page.textContent('main'), /signed out everywhere/);
  await desktop.page.goto(server.demo);
  await desktop.page.click('#login');
  await desktop.page.locator('#qr svg').waitFor({ timeout: 10_000 });
  await desktop.context.close();
  await phone.context.close();
});

test('edit the display name with the signed PATCH', async () => {
  const phone = await newPhone();
  const me = await signUp(phone.page, 'editor', 'Ed Itor');
  await phone.page.tap('#edit');
  await phone.page.fill('#edit-display-name', 'Edith Editor');
  await phone.page.tap('#save');
  await phone.page.getByText('Profile saved.').waitFor();
  assert.equal(await phone.page.textContent('#display-name-shown'), 'Edith Editor');
  assert.equal((await (await directory(me.profile.sub)).json()).display_name, 'Edith Editor');
  await phone.context.close();
});

/** A small PNG: a blue square with a white bar. */
function pngPhoto(size = 64) {
  const png = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const i = (y * size + x) * 4;
      const bar = y > size / 3 && y < (2 * size) / 3;
      png.data[i] = bar ? 255 : 29;
      png.data[i + 1] = bar ? 255 : 78;
      png.data[i + 2] = bar ? 255 : 216;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

test('upload a photo: hosted by scanid under its content hash, typed by its magic bytes, and the avatar redirects to it', async () => {
  const phone = await newPhone();
  const me = await signUp(phone.page, 'photographer', 'Phil Photo');
  await phone.page.tap('#edit');
  // Not an image, whatever its name says: refused, and said so.
  await phone.page.setInputFiles('#edit-photo', {
    name: 'me.png',
    mimeType: 'image/png',
    buffer: Buffer.from('<svg onload=alert(1)>'),
  });
  await phone.page.tap('#save');
  await phone.page.getByRole('alert').waitFor();
  assert.match(await phone.page.getByRole('alert').textContent(), /JPEG, PNG or WebP/);
  const image = pngPhoto();
  await phone.page.setInputFiles('#edit-photo', {
    name: 'me.png',
    mimeType: 'image/png',
    buffer: image,
  });
  await phone.page.tap('#save');
  await phone.page.getByText('Profile saved.').waitFor();
  const photo = (await stored(phone.page)).profile.profile_photo;
  assert.match(photo, new RegExp(`^${server.base}/v1/photos/${me.profile.sub}/[0-9a-f]{64}$`));
  // The phone shows it (the app's CSP lets this origin's images in).
  const width = await phone.page
    .locator('#identity img.avatar')
    .evaluate((img) => img.decode().then(() => img.naturalWidth));
  assert.equal(width, 64);
  await shot(phone.page, 'phone-photo');
  const res = await fetch(photo);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.match(res.headers.get('content-security-policy'), /sandbox/);
  // Cached briefly (no `immutable`): a replaced or deleted photo leaves caches within minutes.
  assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
  assert.deepEqual(Buffer.from(await res.arrayBuffer()), image);
  const avatar = await fetch(`${server.base}/v1/directory/${me.profile.sub}/avatar`, {
    redirect: 'manual',
  });
  assert.equal(avatar.status, 302);
  assert.equal(avatar.headers.get('location'), photo);
  // Deleting the identity removes its photo too.
  await phone.page.tap('#delete');
  await phone.page.fill('#delete-name', 'photographer');
  await phone.page.tap('#delete-confirm');
  await phone.page.locator('#signup-form').waitFor();
  assert.equal((await fetch(photo)).status, 404);
  await phone.context.close();
});

test('sign up with a photo from the camera or a file', async () => {
  const phone = await newPhone();
  await phone.page.goto(`${server.issuer}/app/`);
  await phone.page.locator('#signup-form').waitFor();
  await phone.page.setInputFiles('#photo', {
    name: 'selfie.png',
    mimeType: 'image/png',
    buffer: pngPhoto(48),
  });
  await fillSignUp(phone.page, 'selfie', 'Sel Fie');
  await phone.page.locator('#identity img.avatar').waitFor();
  const me = await stored(phone.page);
  assert.match(me.profile.profile_photo, /\/v1\/photos\//);
  await phone.context.close();
});

test('delete the identity: the directory forgets it, the name is held, the phone offers sign-up again', async () => {
  const phone = await newPhone();
  const me = await signUp(phone.page, 'leaver', 'Lee Leaver');
  await phone.page.tap('#delete');
  await phone.page.fill('#delete-name', 'leaver');
  await phone.page.tap('#delete-confirm');
  await phone.page.locator('#signup-form').waitFor();
  assert.equal(await stored(phone.page), null, 'the device forgot the key');
  assert.equal((await directory(me.profile.sub)).status, 404);
  // The name is held for its quarantine (30 days): nobody takes it at once.
  const name = await (await fetch(`${server.issuer}/app/names/leaver`)).json();
  assert.equal(name.available, false);
  // The phone signs up again, under another name.
  const again = await signUp(phone.page, 'leaver2', 'Lee Again');
  assert.notEqual(again.profile.sub, me.profile.sub);
  await phone.context.close();
});

test('the app installs and opens offline: manifest, service worker, the shell from the cache', async () => {
  const phone = await newPhone();
  await phone.page.goto(`${server.issuer}/app/`);
  await phone.page.locator('#signup-form').waitFor();
  const manifest = await phone.page.evaluate(async () => {
    const href = document.querySelector('link[rel=manifest]').href;
    return (await fetch(href)).json();
  });
  assert.equal(manifest.display, 'standalone');
  await phone.page.evaluate(() => navigator.serviceWorker.ready);
  await phone.context.setOffline(true);
  await phone.page.reload();
  await phone.page.locator('#signup-form').waitFor();
  await phone.context.setOffline(false);
  await phone.context.close();
});

test('the app is not framable, allows no inline script, and fits a 360 px screen', async () => {
  const res = await fetch(`${server.issuer}/app/`);
  const csp = res.headers.get('content-security-policy');
  assert.match(csp, /script-src 'self';/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  const context = await browser.newContext({ ...PHONE, viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.equal(overflow, 0, 'no horizontal scrolling');
  // The keyboard alone reaches every field and the button.
  await page.keyboard.press('Tab');
  const seen = [];
  for (let i = 0; i < 8; i += 1) {
    seen.push(await page.evaluate(() => document.activeElement.id));
    await page.keyboard.press('Tab');
  }
  for (const id of ['name', 'display-name', 'country', 'photo', 'signup'])
    assert.ok(seen.includes(id), `${id} in ${seen}`);
  await context.close();
});
