// Deleting the identity, confirmed by typing its name.
import * as device from './device.js';
import { showHome } from './home.js';
import { turnOff } from './push.js';
import { showSignUp } from './signup.js';
import { t } from './i18n.js';
import { busy, field, h, message, show } from './ui.js';

export function showDelete(me) {
  const confirmName = h('input', {
    id: 'delete-name',
    autocapitalize: 'none',
    spellcheck: 'false',
  });
  const go = h(
    'button',
    { type: 'button', class: 'danger', id: 'delete-confirm' },
    t('delete-confirm'),
  );
  const out = h('div');
  go.addEventListener('click', () => {
    if (confirmName.value !== me.profile.name) {
      out.replaceChildren(message(t('delete-mismatch', { name: me.profile.name })));
      confirmName.focus();
      return;
    }
    busy(go, out, async () => {
      await device.deleteIdentity(me);
      // The identity's subscriptions went with it; this browser unsubscribes too.
      await turnOff(me, { local: true });
      showSignUp(showHome, t('delete-done'));
    });
  });
  show(
    t('home-delete'),
    h('p', {}, t('delete-text')),
    field(t('delete-label', { name: me.profile.name }), confirmName),
    go,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('cancel')),
    out,
  );
}
