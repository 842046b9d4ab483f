// The home screen: the identity's card and what can be done with it.
import { showActivity } from './activity.js';
import { showDelete } from './delete.js';
import { showEdit } from './edit.js';
import { showKeys } from './keys.js';
import { showRotate } from './rotate.js';
import { showSignOut } from './signout.js';
import { h, message, show } from './ui.js';

function card(p) {
  return h(
    'section',
    { class: 'card', id: 'identity', 'aria-label': 'Your identity' },
    p.profile_photo
      ? h('img', { class: 'avatar', src: p.profile_photo, alt: '' })
      : h(
          'span',
          { class: 'avatar initials', 'aria-hidden': 'true' },
          p.display_name.slice(0, 1).toUpperCase(),
        ),
    h(
      'div',
      {},
      h('p', { class: 'display-name', id: 'display-name-shown' }, p.display_name),
      h('p', { class: 'muted' }, `@${p.name} · ${p.country_code}`),
      h(
        'p',
        { class: 'muted small' },
        'Service ID ',
        h('code', { id: 'service-id' }, p.service_id),
      ),
    ),
  );
}

export function showHome(me, note) {
  show(
    'Your scanid',
    note ? message(note, 'ok') : null,
    card(me.profile),
    h(
      'p',
      {},
      'To log in somewhere, scan the QR code on its login page with your phone’s camera. The link opens here.',
    ),
    h(
      'nav',
      { class: 'actions', 'aria-label': 'Manage' },
      h('button', { type: 'button', id: 'edit', onclick: () => showEdit(me) }, 'Edit profile'),
      h(
        'button',
        { type: 'button', id: 'activity', onclick: () => showActivity(me) },
        'Recent logins',
      ),
      h('button', { type: 'button', id: 'keys', onclick: () => showKeys(me) }, 'Keys and passkeys'),
      me.passkey
        ? null
        : h(
            'button',
            { type: 'button', id: 'rotate', onclick: () => showRotate(me) },
            'Replace device key',
          ),
      h(
        'button',
        { type: 'button', id: 'sign-out', onclick: () => showSignOut(me) },
        'Sign out everywhere',
      ),
      h(
        'button',
        { type: 'button', id: 'delete', class: 'danger', onclick: () => showDelete(me) },
        'Delete identity',
      ),
    ),
  );
}
