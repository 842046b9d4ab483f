// The home screen: the identity's card and what can be done with it.
import { showActivity } from './activity.js';
import { showAgents } from './agents.js';
import { showDelete } from './delete.js';
import { showEdit } from './edit.js';
import { showKeys } from './keys.js';
import { showRotate } from './rotate.js';
import { showSignOut } from './signout.js';
import { pushSection } from './push.js';
import { waitingSection } from './waiting.js';
import { t } from './i18n.js';
import { h, languagePicker, message, show } from './ui.js';

function card(p) {
  return h(
    'section',
    { class: 'card', id: 'identity', 'aria-label': t('home-identity') },
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
      h('p', { class: 'muted' }, h('bdi', { dir: 'ltr' }, `@${p.name}`), ` · ${p.country_code}`),
      h(
        'p',
        { class: 'muted small' },
        `${t('home-service-id')} `,
        h('code', { id: 'service-id' }, p.service_id),
      ),
    ),
  );
}

/** The home screen; `open`: a waiting request to open at once (a notification's). */
export function showHome(me, note, open) {
  show(
    t('home-title'),
    note ? message(note, 'ok') : null,
    card(me.profile),
    waitingSection(me, open),
    pushSection(me),
    h('p', {}, t('home-how')),
    h(
      'nav',
      { class: 'actions', 'aria-label': t('home-manage') },
      h('button', { type: 'button', id: 'edit', onclick: () => showEdit(me) }, t('edit-title')),
      h(
        'button',
        { type: 'button', id: 'activity', onclick: () => showActivity(me) },
        t('home-activity'),
      ),
      h('button', { type: 'button', id: 'keys', onclick: () => showKeys(me) }, t('home-keys')),
      h(
        'button',
        { type: 'button', id: 'agents', onclick: () => showAgents(me) },
        t('home-agents'),
      ),
      me.passkey
        ? null
        : h(
            'button',
            { type: 'button', id: 'rotate', onclick: () => showRotate(me) },
            t('home-rotate'),
          ),
      h(
        'button',
        { type: 'button', id: 'sign-out', onclick: () => showSignOut(me) },
        t('home-sign-out'),
      ),
      h(
        'button',
        { type: 'button', id: 'delete', class: 'danger', onclick: () => showDelete(me) },
        t('home-delete'),
      ),
    ),
    languagePicker(),
  );
}
