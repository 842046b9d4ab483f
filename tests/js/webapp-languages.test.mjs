// The web app in the phone's language (issue 39), in Chromium on a phone-sized screen: a
// Brazilian phone (`locale: 'pt-BR'`) signs up and approves a real QR login in Portuguese,
// with its times, dates and plurals as pt-BR writes them; every screen in every language shows
// no missing message and `<html lang dir>` right; a language picked in the app wins over the
// phone's and is remembered; only the chosen language's messages are fetched, from a file named
// by its content.
//
// SCANID_README_SHOTS=dir writes the Portuguese approval and the Arabic home screen there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, startCallback, launchBrowser, cli, authorizationUrl } from './helpers.mjs';

const LANGS = ['en', 'sv', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'pl', 'ja', 'zh-Hans', 'ko'];
LANGS.push('ar', 'hi', 'uk');

let server, rp, browser;

before(async () => {
  server = await startServer(['--signup-rate-per-hour', '500']);
  rp = await startCallback();
  browser = await launchBrowser();
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Loja',
    '--client-id',
    'loja',
    '--redirect-uri',
    rp.url,
  ]);
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

/** A phone whose language is `locale` (navigator.languages and Accept-Language). */
async function phone(locale) {
  const ctx = await browser.newContext({
    locale,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const fetched = [];
  ctx.on('request', (r) => {
    if (/\/app\/messages-/.test(r.url())) fetched.push(new URL(r.url()).pathname);
  });
  return { ctx, page: await ctx.newPage(), fetched };
}

/** The messages of `tag`, as the app fetches them. */
async function catalogue(tag) {
  const shell = await (await fetch(`${server.issuer}/app/`)).text();
  const block = /<script type="application\/json" id="languages">(.*?)<\/script>/s.exec(shell)[1];
  const { languages } = JSON.parse(block);
  const href = languages.find((l) => l.tag === tag).href;
  return (await fetch(`${server.issuer}/app/${href}`)).json();
}

/** A compiled message as text (placeholders from `args`). */
function fmt(m, args = {}) {
  return typeof m === 'string' ? m : m.map((p) => (typeof p === 'string' ? p : args[p.$])).join('');
}

/** Text without the Unicode isolates that keep names in their direction in Arabic. */
function plain(s) {
  return s.replace(/[\u2068\u2069]/g, '');
}

/** A picture for the book, at CSS size (small files). */
async function shot(page, name) {
  const dir = process.env.SCANID_README_SHOTS;
  if (dir) {
    await page.screenshot({ path: path.join(dir, `${name}.png`), scale: 'css', fullPage: true });
  }
}

async function noneMissing(page, where) {
  const missing = await page.evaluate(() => document.documentElement.dataset.missing ?? '');
  assert.equal(missing, '', `${where}: missing messages`);
}

async function htmlLang(page) {
  return page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
}

async function signUp(page, name) {
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', `${name} display`);
  await page.fill('#country', 'BR');
  await page.tap('#signup');
  await page.locator('#identity').waitFor();
}

/** A login started on a computer; its QR link and its page. */
async function startLogin(state) {
  const desktop = await browser.newContext({ locale: 'en-US' });
  const page = await desktop.newPage();
  await page.goto(
    authorizationUrl(server, {
      client_id: 'loja',
      redirect_uri: rp.url,
      state,
      nonce: `n-${state}`,
    }),
  );
  const link = await page.locator('#app-link').getAttribute('data-qr-payload');
  return { desktop, page, link };
}

test('pt-BR: sign up and approve a QR login in Portuguese, times, dates and plurals as pt-BR writes them', async () => {
  const pt = await catalogue('pt-BR');
  const { ctx, page: app, fetched } = await phone('pt-BR');
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#signup-form').waitFor();
  assert.deepEqual(await htmlLang(app), ['pt-BR', 'ltr']);
  assert.equal(await app.textContent('h1'), 'Crie seu scanid');
  assert.equal(await app.title(), 'Crie seu scanid · scanid');
  assert.equal(await app.textContent('label[for="name"]'), 'Nome (seu identificador único)');
  await app.fill('#name', 'joana');
  await app.locator('#name-hint.ok').waitFor();
  assert.equal(await app.textContent('#name-hint'), '“joana” está disponível.');
  await app.fill('#display-name', 'Joana Silva');
  await app.fill('#country', 'BR');
  await app.getByRole('button', { name: 'Criar meu scanid' }).tap();
  await app.getByRole('heading', { name: 'Seu scanid' }).waitFor();
  assert.match(await app.textContent('.note.ok'), /^Boas-vindas! Seu scanid está pronto\.$/);
  assert.equal(await app.locator('#language').inputValue(), 'pt-BR');
  // Only Portuguese was fetched: one small file, named by its content.
  assert.equal(fetched.length, 1, fetched.join());
  assert.match(fetched[0], /\/app\/messages-pt-BR-[0-9a-f]{12}\.json$/);
  const file = await ctx.request.get(`${server.base}${fetched[0]}`);
  assert.equal(file.headers()['cache-control'], 'public, max-age=31536000, immutable');
  assert.ok((await file.body()).length < 16 * 1024, 'a few KB');
  // The manifest follows the language.
  const manifestHref = await app.evaluate(
    () => document.querySelector('link[rel="manifest"]').href,
  );
  const manifest = await (await ctx.request.get(manifestHref)).json();
  assert.equal(manifest.lang, 'pt-BR');
  assert.equal(manifest.description, pt['shell-description']);

  // A real login on a computer, approved by scanning its QR link.
  const { desktop, page, link } = await startLogin('pt');
  await app.goto(link);
  await app.locator('#request').waitFor();
  assert.equal(await app.textContent('h1'), 'Entrar em Loja?');
  assert.match(await app.textContent('#pick'), /^Escolha o número que aparece na tela de login:$/);
  assert.equal(await app.getByRole('button', { name: 'Recusar' }).count(), 1);
  assert.ok((await app.textContent('#scopes')).includes(pt['scope-profile']));
  // "até 14:05" (24-hour clock), and "pedido em" as pt-BR writes a date; never en-US's.
  const until = await app.locator('#request time').first();
  const untilText = await until.textContent();
  // (The hour has one digit before 10, as Intl writes pt-BR's `hour: 'numeric'`.)
  assert.match(untilText, /^\d{1,2}:\d{2}$/, untilText);
  const [ptUntil, enUntil] = await until.evaluate((el) => {
    const at = new Date(el.getAttribute('datetime'));
    const f = (l) => new Intl.DateTimeFormat(l, { hour: 'numeric', minute: '2-digit' }).format(at);
    return [f('pt-BR'), f('en-US')];
  });
  assert.equal(untilText, ptUntil);
  assert.notEqual(untilText, enUntil);
  assert.match(await app.textContent('#request'), new RegExp(`até ${untilText}`));
  const asked = app.locator('#requested-at time');
  const [askedText, ptAsked] = await asked.evaluate((el) => [
    el.textContent,
    new Intl.DateTimeFormat('pt-BR', { dateStyle: 'medium', timeStyle: 'short' }).format(
      new Date(el.getAttribute('datetime')),
    ),
  ]);
  assert.equal(askedText, ptAsked);
  assert.match(askedText, / de \d{4}/, askedText);
  const shown = page.locator('#number:not([hidden])');
  await app.locator('#numbers button[data-number]:enabled').first().waitFor();
  await shown.waitFor({ timeout: 10_000 });
  const n = /(\d+)/.exec(await shown.textContent())[1];
  await shot(app, 'phone-approve-pt-BR');
  await app.tap(`#number-${n}`);
  await app.getByRole('heading', { name: 'Login aprovado' }).waitFor();
  assert.equal(
    await app.textContent('#decided'),
    'Você está entrando em Loja. Continue na tela onde você começou.',
  );
  await page.waitForURL(/login-actions\/consent/, { timeout: 15_000 });
  await page.click('button[name="consent"][value="allow"]');
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 15_000 });
  await noneMissing(app, 'pt-BR approval');

  // Plurals by pt-BR's rules: the sessions ended, counted.
  await app.getByRole('button', { name: 'Concluir' }).tap();
  await app.getByRole('button', { name: 'Sair de todos os lugares' }).tap();
  await app.locator('#sign-out-confirm').tap();
  const note = await app.locator('.note.ok').textContent();
  assert.match(
    note,
    /^Você saiu de todos os lugares: (1 sessão encerrada|\d+ sessões encerradas),/,
  );
  await noneMissing(app, 'pt-BR');
  await desktop.close();
  await ctx.close();
});

test('every web app screen in every language: no missing message, lang and dir right, no English left', async () => {
  const en = await catalogue('en');
  for (const tag of LANGS) {
    const words = await catalogue(tag);
    const { ctx, page: app, fetched } = await phone(tag === 'zh-Hans' ? 'zh-CN' : tag);
    await app.goto(`${server.issuer}/app/`);
    await app.locator('#signup-form').waitFor();
    assert.deepEqual(await htmlLang(app), [tag, tag === 'ar' ? 'rtl' : 'ltr']);
    assert.equal(await app.textContent('h1'), words['signup-title'], tag);
    await signUp(app, `reader-${tag.toLowerCase()}`);
    assert.equal(await app.textContent('h1'), words['home-title'], tag);
    if (tag === 'ar') await shot(app, 'phone-home-ar');
    for (const [button, title] of [
      ['#activity', 'home-activity'],
      ['#keys', 'home-keys'],
      ['#rotate', 'home-rotate'],
      ['#sign-out', 'home-sign-out'],
      ['#delete', 'home-delete'],
      ['#edit', 'edit-title'],
    ]) {
      await app.locator(button).tap();
      await app.waitForFunction(() => !document.querySelector('#identity'));
      await app.waitForLoadState('networkidle');
      assert.equal(await app.textContent('h1'), words[title], `${tag} ${button}`);
      if (tag !== 'en') {
        const text = await app.textContent('#view');
        for (const id of ['rotate-text', 'delete-text', 'sign-out-text', 'keys-device-key-note']) {
          assert.ok(!text.includes(en[id]), `${tag} ${button}: "${en[id]}" in ${text}`);
        }
        const buttons = await app.locator('#view button').allTextContents();
        for (const id of ['back', 'cancel', 'edit-save']) {
          if (words[id] !== en[id]) assert.ok(!buttons.includes(en[id]), `${tag}: ${buttons}`);
        }
      }
      await app.goto(`${server.issuer}/app/`);
      await app.locator('#identity').waitFor();
    }
    // The approval screen for a login, in the phone's language (not the computer's, en-US).
    const { desktop, page: computer, link } = await startLogin(`every-${tag}`);
    await app.goto(link);
    await app.locator('#request').waitFor();
    assert.equal(plain(await app.textContent('h1')), fmt(words['login-title'], { client: 'Loja' }));
    assert.ok((await app.textContent('#view')).includes(words.pick), tag);
    await app.locator('#deny').tap();
    await app.locator('#decided[data-status="denied"]').waitFor();
    assert.equal(await app.textContent('h1'), words['denied-title'], tag);
    await noneMissing(app, tag);
    // The computer follows the denial back to the relying party. Wait for it: closing a
    // context while its page navigates can hang Playwright's close() for good (the held poll
    // answers the denial at once, so the navigation comes right after the tap).
    await computer.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 15_000 });
    assert.equal(new URL(computer.url()).searchParams.get('error'), 'access_denied', tag);
    assert.deepEqual(
      [...new Set(fetched.map((p) => p.replace(/-[0-9a-f]{12}\.json$/, '')))],
      [`${new URL(server.issuer).pathname}/app/messages-${tag}`],
      `${tag}: only its own messages`,
    );
    await desktop.close();
    await ctx.close();
  }
});

test("a language picked in the app wins over the phone's and is remembered; Arabic is right to left", async () => {
  const ar = await catalogue('ar');
  const { ctx, page: app } = await phone('de-DE');
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#signup-form').waitFor();
  assert.deepEqual(await htmlLang(app), ['de', 'ltr']);
  await Promise.all([app.waitForEvent('load'), app.selectOption('#language', 'ar')]);
  await app.locator('#signup-form').waitFor();
  assert.deepEqual(await htmlLang(app), ['ar', 'rtl']);
  assert.equal(await app.textContent('h1'), ar['signup-title']);
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#signup-form').waitFor();
  assert.deepEqual(await htmlLang(app), ['ar', 'rtl'], 'remembered');
  assert.equal(await app.textContent('label[for="language"]'), ar.language);
  await ctx.close();
  // A phone in a language scanid does not speak: the realm's default (English here).
  const other = await phone('fi-FI');
  await other.page.goto(`${server.issuer}/app/`);
  await other.page.locator('#signup-form').waitFor();
  assert.deepEqual(await htmlLang(other.page), ['en', 'ltr']);
  await other.ctx.close();
});
