// "Sign out everywhere" (issue 38): for every identity, whatever its keys.
import * as device from './device.js';
import { showHome } from './home.js';
import { turnOff } from './push.js';
import { t } from './i18n.js';
import { busy, h, show } from './ui.js';

/** What the home screen says after signing out everywhere. */
export function signedOutNote(done) {
  return t('signed-out', { count: Number(done.sessions_ended) || 0 });
}

export function showSignOut(me) {
  const go = h(
    'button',
    { type: 'button', class: 'danger', id: 'sign-out-confirm' },
    t('home-sign-out'),
  );
  const out = h('div');
  go.addEventListener('click', () =>
    busy(go, out, async () => {
      const done = await device.signOutEverywhere(me);
      // Signed out: nothing is pushed to this phone until the person turns it on again.
      await turnOff(me).catch(() => {});
      showHome(me, signedOutNote(done));
    }),
  );
  show(
    t('home-sign-out'),
    h('p', {}, t('sign-out-text')),
    h('p', { class: 'muted small', id: 'sign-out-lost' }, t('sign-out-lost')),
    go,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('cancel')),
    out,
  );
}
