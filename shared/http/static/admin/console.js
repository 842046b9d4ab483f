// The admin console: logs in with scanid itself (the QR page), then shows the screens.
import { login, finishLogin, logout, whoAmI, config } from './auth.js';
import { api } from './api.js';
import { h, screen, say } from './ui.js';
import { clients } from './clients.js';
import { identities, events, overview } from './screens.js';
import { keys } from './keys.js';

const SCREENS = { overview, clients, identities, events, keys };

function loginScreen(note) {
  document.getElementById('nav').hidden = true;
  screen(
    'scanid admin console',
    note ?? null,
    h(
      'p',
      {},
      'Log in by scanning the QR code with the scanid app on your phone. Every visit asks for a fresh scan.',
    ),
    h(
      'button',
      { type: 'button', class: 'primary', id: 'login', onclick: login },
      'Log in with scanid',
    ),
  );
}

async function show(name) {
  for (const b of document.querySelectorAll('#nav [data-screen]')) {
    if (b.dataset.screen === name) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  say('');
  await SCREENS[name]();
}

async function start() {
  document.addEventListener('console-expired', () =>
    loginScreen(h('p', { class: 'note warn', id: 'expired' }, 'Your login ended. Log in again.')),
  );
  const done = await finishLogin();
  if (!done) return loginScreen();
  if (done.error) return loginScreen(h('p', { class: 'note error', role: 'alert' }, done.error));
  const realm = await api('GET', '');
  if (realm.status === 403) {
    return screen(
      'No admin role',
      h(
        'p',
        { class: 'note error', id: 'no-role', role: 'alert' },
        'This identity has no admin role.',
      ),
      h('p', {}, 'The operator gives one with scanid identity add-role.'),
      h('button', { type: 'button', id: 'logout-norole', onclick: logout }, 'Log out'),
    );
  }
  if (!realm.ok)
    return loginScreen(
      h('p', { class: 'note error' }, `The admin API answered HTTP ${realm.status}.`),
    );
  document.getElementById('who').textContent = `${whoAmI()} · realm ${config.realm}`;
  const nav = document.getElementById('nav');
  nav.hidden = false;
  for (const b of nav.querySelectorAll('[data-screen]'))
    b.addEventListener('click', () => show(b.dataset.screen));
  document.getElementById('logout').addEventListener('click', logout);
  await show('overview');
}

start().catch((e) => say(`The console failed: ${e.message}`, 'error'));
