// Replacing the device key, optionally signing out everywhere.
import * as device from './device.js';
import { showHome } from './home.js';
import { busy, h, show } from './ui.js';

export function showRotate(me) {
  const go = h(
    'button',
    { type: 'button', class: 'primary', id: 'rotate-confirm' },
    'Replace the key',
  );
  const everywhere = h('input', { type: 'checkbox', id: 'rotate-end-sessions', checked: true });
  const out = h('div');
  go.addEventListener('click', () =>
    busy(go, out, async () => {
      const endSessions = everywhere.checked;
      await device.rotateKey(me, endSessions);
      showHome(
        await device.load(),
        endSessions
          ? 'A new device key is in place; the old one no longer works, and you are signed out everywhere.'
          : 'A new device key is in place; the old one no longer works.',
      );
    }),
  );
  show(
    'Replace device key',
    h(
      'p',
      {},
      'A new key is made on this phone. The old key signs it over, and stops working at once.',
    ),
    h(
      'div',
      { class: 'check' },
      everywhere,
      h('label', { for: 'rotate-end-sessions' }, 'Also sign out everywhere'),
      h(
        'p',
        { class: 'muted small' },
        'Ends every login made with scanid: each app and site asks you to log in again. Choose this if someone else may have had your phone.',
      ),
    ),
    go,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Cancel'),
    out,
  );
}
