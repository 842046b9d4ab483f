// The requests waiting for the person (OpenID CIBA): a client (a call centre, a till, an
// agent) asked for them by the back channel. Listed on the home screen when the app opens;
// each opens on the same approval screen as a scanned login, with its binding message.
import * as device from './device.js';
import { showRequest } from './approve.js';
import { h, message } from './ui.js';
import { t, time } from './i18n.js';

/** The "Requests waiting for you" section: filled when the list comes, hidden when empty. A
 * passkey identity signs each read with its passkey, so it lists on a tap, not on its own.
 * `open`: the id of a request to open as soon as it is listed (the notification tapped). */
export function waitingSection(me, open) {
  const section = h('section', { class: 'card waiting', id: 'waiting', hidden: true });
  const load = async () => {
    try {
      const list = await device.backchannelRequests(me);
      if (list.length === 0) {
        section.hidden = !me.passkey;
        if (me.passkey) section.replaceChildren(h('p', { class: 'muted' }, t('waiting-none')));
        return;
      }
      section.replaceChildren(
        h('h2', {}, t('waiting-title')),
        h(
          'ul',
          { class: 'waiting-list' },
          list.map((r) => entry(me, r)),
        ),
      );
      section.hidden = false;
      const named = open && section.querySelector(`li[data-request="${CSS.escape(open)}"]`);
      named?.querySelector('button.open-request')?.click();
    } catch (e) {
      section.replaceChildren(message(e.message));
      section.hidden = false;
    }
  };
  if (me.passkey) {
    section.hidden = false;
    section.append(
      h(
        'button',
        { type: 'button', id: 'waiting-load', onclick: () => load() },
        t('waiting-title'),
      ),
    );
  } else {
    load();
  }
  return section;
}

/** One waiting request: who asks, from which host, its binding message, and "Open". */
function entry(me, r) {
  const out = h('div');
  const open = async () => {
    try {
      const info = await device.openBackchannel(me, r.id);
      showRequest(me, info.session, info.challenge, info);
    } catch (e) {
      out.replaceChildren(message(e.status === 404 ? t('waiting-gone') : e.message));
    }
  };
  return h(
    'li',
    { 'data-request': r.id },
    h('strong', {}, r.client.name),
    r.client.host ? h('span', { class: 'muted' }, ' · ', h('code', {}, r.client.host)) : null,
    r.binding_message ? h('p', { class: 'binding' }, h('bdi', {}, r.binding_message)) : null,
    h('p', { class: 'muted small' }, t('waiting-asked', { time: time(r.requested_at) })),
    h('button', { type: 'button', class: 'open-request', onclick: open }, t('waiting-open')),
    out,
  );
}
