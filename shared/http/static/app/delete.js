// Deleting the identity, confirmed by typing its name.
import * as device from './device.js';
import { showHome } from './home.js';
import { showSignUp } from './signup.js';
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
    'Delete my identity',
  );
  const out = h('div');
  go.addEventListener('click', () => {
    if (confirmName.value !== me.profile.name) {
      out.replaceChildren(message(`Type your name, ${me.profile.name}, to confirm.`));
      confirmName.focus();
      return;
    }
    busy(go, out, async () => {
      await device.deleteIdentity(me);
      showSignUp(showHome, 'Your identity was deleted. You can create a new one.');
    });
  });
  show(
    'Delete identity',
    h(
      'p',
      {},
      'This deletes your scanid identity at the service: your profile and photo, your logins everywhere, and the key on this phone. Your name becomes free for others. This cannot be undone.',
    ),
    field(`Type your name (${me.profile.name}) to confirm`, confirmName),
    go,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Cancel'),
    out,
  );
}
