// The recent logins, each with "This wasn't me".
import * as device from './device.js';
import { showHome } from './home.js';
import { askFirst, h, message, show } from './ui.js';
import { dateTime, t } from './i18n.js';
import { flagText, placeText } from './where.js';

export async function showActivity(me, note) {
  const list = h('ol', { class: 'activity', id: 'activity-list' });
  const out = h('div');
  show(
    t('home-activity'),
    note ? message(note, 'ok') : null,
    list,
    out,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('back')),
  );
  try {
    const logins = await device.recentLogins(me);
    if (logins.length === 0) list.replaceWith(h('p', { class: 'muted' }, t('activity-none')));
    for (const l of logins) list.append(activityEntry(me, l));
  } catch (e) {
    out.replaceChildren(message(e.message));
  }
}

/** One recent login, with "This wasn't me" (confirmed first) unless it was reported. */
function activityEntry(me, l) {
  const how = l.method === 'sso' ? ` (${t('activity-sso')})` : '';
  const li = h(
    'li',
    { 'data-login-id': l.id, 'data-method': l.method },
    h('strong', {}, l.client_name),
    ` ${t(OUTCOMES[l.outcome] ?? 'activity-denied')}${how} `,
    h('time', { datetime: l.at }, dateTime(l.at)),
    h(
      'p',
      { class: 'muted small' },
      t('activity-from', {
        place: placeText({ ip: l.browser_ip, location: l.location, network: l.network }),
        browser: l.user_agent || t('activity-unknown-browser'),
      }),
    ),
    l.flags?.length
      ? h(
          'p',
          { class: 'muted small', 'data-flags': l.flags.join(' ') },
          l.flags.map(flagText).join(' · '),
        )
      : null,
  );
  if (l.reported) {
    li.append(h('p', { class: 'note ok small reported' }, t('activity-reported')));
    return li;
  }
  if (!l.id || l.outcome !== 'approved') return li;
  li.append(
    askFirst({
      label: t('activity-not-me'),
      className: 'report',
      question: t('activity-ask', { client: l.client_name }),
      yes: t('activity-yes'),
      yesId: 'report-confirm',
      noId: 'report-cancel',
      act: async () => {
        const done = await device.reportLogin(me, l.id);
        await showActivity(me, reportedNote(l.client_name, done));
      },
    }),
  );
  return li;
}

/**
 * What "this wasn't me" did, as the server answered it: only what happened (issue 38).
 * @param {string} name the client's name
 * @param {{session_ended?: boolean, tokens_revoked?: boolean}} done the answer
 */
function reportedNote(name, done) {
  if (done.session_ended) return t('activity-done-session', { client: name });
  if (done.tokens_revoked) return t('activity-done-tokens', { client: name });
  return t('activity-done-nothing');
}

/** What each outcome of the recent logins says. */
const OUTCOMES = {
  approved: 'activity-approved',
  denied: 'activity-denied',
  refused: 'activity-refused',
  wrong_number: 'activity-wrong-number',
  second_device: 'activity-second-device',
};
