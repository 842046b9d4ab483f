// The recent logins, each with "This wasn't me".
import * as device from './device.js';
import { showHome } from './home.js';
import { busy, h, message, show } from './ui.js';
import { FLAGS, placeText } from './where.js';

export async function showActivity(me, note) {
  const list = h('ol', { class: 'activity', id: 'activity-list' });
  const out = h('div');
  show(
    'Recent logins',
    note ? message(note, 'ok') : null,
    list,
    out,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Back'),
  );
  try {
    const logins = await device.recentLogins(me);
    if (logins.length === 0) list.replaceWith(h('p', { class: 'muted' }, 'No logins yet.'));
    for (const l of logins) list.append(activityEntry(me, l));
  } catch (e) {
    out.replaceChildren(message(e.message));
  }
}

/** One recent login, with "This wasn't me" (confirmed first) unless it was reported. */
function activityEntry(me, l) {
  const how = l.method === 'sso' ? ' (already signed in: no scan)' : '';
  const li = h(
    'li',
    { 'data-login-id': l.id, 'data-method': l.method },
    h('strong', {}, l.client_name),
    ` ${OUTCOMES[l.outcome] ?? 'denied'}${how} `,
    h('time', { datetime: l.at }, new Date(l.at).toLocaleString()),
    h(
      'p',
      { class: 'muted small' },
      `from ${placeText({ ip: l.browser_ip, location: l.location, network: l.network })} · ${l.user_agent || 'unknown browser'}`,
    ),
    l.flags?.length
      ? h(
          'p',
          { class: 'muted small', 'data-flags': l.flags.join(' ') },
          l.flags.map((f) => FLAGS[f] ?? f).join(' · '),
        )
      : null,
  );
  if (l.reported) {
    li.append(h('p', { class: 'note ok small reported' }, 'Reported as not you.'));
    return li;
  }
  if (!l.id || l.outcome !== 'approved') return li;
  const area = h('div');
  const ask = h('button', { type: 'button', class: 'danger report' }, 'This wasn’t me');
  ask.addEventListener('click', () => {
    const yes = h(
      'button',
      { type: 'button', class: 'danger', id: 'report-confirm' },
      'Yes, sign it out',
    );
    const no = h('button', { type: 'button', id: 'report-cancel' }, 'Cancel');
    const out = h('div');
    no.addEventListener('click', () => area.replaceChildren(ask));
    yes.addEventListener('click', () =>
      busy(yes, out, async () => {
        const done = await device.reportLogin(me, l.id);
        await showActivity(me, reportedNote(l.client_name, done));
      }),
    );
    area.replaceChildren(
      h(
        'p',
        { class: 'note error small', role: 'alert' },
        `Sign out this login to ${l.client_name}? Its access is revoked at once and ${l.client_name} is told.`,
      ),
      h('div', { class: 'buttons' }, yes, no),
      out,
    );
    yes.focus();
  });
  area.append(ask);
  li.append(area);
  return li;
}

/**
 * What "this wasn't me" did, as the server answered it: only what happened (issue 38).
 * @param {string} name the client's name
 * @param {{session_ended?: boolean, tokens_revoked?: boolean}} done the answer
 */
function reportedNote(name, done) {
  if (done.session_ended) {
    return `Done: ${name} was signed out of that login and its access was revoked.`;
  }
  if (done.tokens_revoked) {
    return `Done: that login’s access to ${name} was revoked (its session had already ended).`;
  }
  return `Reported. No session or access of that login was found to end.`;
}

/** What each outcome of the recent logins says. */
const OUTCOMES = {
  approved: 'approved',
  denied: 'denied',
  refused: 'refused (the application does not allow it)',
  wrong_number: 'cancelled (a wrong number was picked)',
  second_device: 'cancelled (a second phone scanned it)',
};
