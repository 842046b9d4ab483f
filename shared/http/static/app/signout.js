// "Sign out everywhere" (issue 38): for every identity, whatever its keys.
import * as device from './device.js';
import { showHome } from './home.js';
import { busy, h, show } from './ui.js';

/** What the home screen says after signing out everywhere. */
export function signedOutNote(done) {
  const n = done.sessions_ended;
  return `You are signed out everywhere: ${n} session${n === 1 ? '' : 's'} ended, and every app and site asks you to log in again.`;
}

export function showSignOut(me) {
  const go = h(
    'button',
    { type: 'button', class: 'danger', id: 'sign-out-confirm' },
    'Sign out everywhere',
  );
  const out = h('div');
  go.addEventListener('click', () =>
    busy(go, out, async () => {
      const done = await device.signOutEverywhere(me);
      showHome(me, signedOutNote(done));
    }),
  );
  show(
    'Sign out everywhere',
    h(
      'p',
      {},
      'Ends every login made with scanid, on every device: each app and site is told, and asks you to log in again. Your keys stay as they are.',
    ),
    h(
      'p',
      { class: 'muted small', id: 'sign-out-lost' },
      'Was a phone or a passkey lost, or may it have been copied? Remove it under “Keys and passkeys” (which offers this too), then sign out everywhere.',
    ),
    go,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Cancel'),
    out,
  );
}
