// Replacing the device key, optionally signing out everywhere.
import * as device from './device.js';
import { showHome } from './home.js';
import { t } from './i18n.js';
import { busy, h, show } from './ui.js';

export function showRotate(me) {
  const go = h(
    'button',
    { type: 'button', class: 'primary', id: 'rotate-confirm' },
    t('rotate-confirm'),
  );
  const everywhere = h('input', { type: 'checkbox', id: 'rotate-end-sessions', checked: true });
  const out = h('div');
  go.addEventListener('click', () =>
    busy(go, out, async () => {
      const endSessions = everywhere.checked;
      await device.rotateKey(me, endSessions);
      showHome(await device.load(), t(endSessions ? 'rotate-done-everywhere' : 'rotate-done'));
    }),
  );
  show(
    t('home-rotate'),
    h('p', {}, t('rotate-text')),
    h(
      'div',
      { class: 'check' },
      everywhere,
      h('label', { for: 'rotate-end-sessions' }, t('rotate-also')),
      h('p', { class: 'muted small' }, t('rotate-also-hint')),
    ),
    go,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('cancel')),
    out,
  );
}
