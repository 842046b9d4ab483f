// The agents acting for the person (token exchange, RFC 8693): each one the person allowed on
// its consent page, with what it may use and where, and "Withdraw" (confirmed first): its
// tokens stop working at once.
import * as device from './device.js';
import { showHome } from './home.js';
import { askFirst, h, message, show } from './ui.js';
import { dateTime, t } from './i18n.js';

export async function showAgents(me, note) {
  const list = h('ul', { class: 'agents', id: 'agents-list' });
  const out = h('div');
  show(
    t('home-agents'),
    note ? message(note, 'ok') : null,
    h('p', { class: 'muted' }, t('agents-text')),
    list,
    out,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('back')),
  );
  try {
    const agents = await device.delegations(me);
    if (agents.length === 0) list.replaceWith(h('p', { class: 'muted' }, t('agents-none')));
    for (const a of agents) list.append(agentEntry(me, a));
  } catch (e) {
    out.replaceChildren(message(e.message));
  }
}

/** One agent, with "Withdraw" (asked again before it is done). */
function agentEntry(me, a) {
  const li = h(
    'li',
    { 'data-client-id': a.client_id },
    h('strong', {}, a.client_name),
    h('p', { class: 'muted small' }, t('agents-since', { when: dateTime(a.granted_at) })),
    h('p', { class: 'small' }, t('agents-scopes', { scopes: a.scopes.join(' · ') })),
    a.resources.length
      ? h('p', { class: 'small' }, t('agents-resources', { resources: a.resources.join(' · ') }))
      : null,
  );
  li.append(
    askFirst({
      label: t('agents-withdraw'),
      className: 'withdraw',
      question: t('agents-ask', { client: a.client_name }),
      yes: t('agents-withdraw'),
      yesId: 'withdraw-confirm',
      noId: 'withdraw-cancel',
      act: async () => {
        await device.withdrawDelegation(me, a.client_id);
        await showAgents(me, t('agents-withdrawn', { client: a.client_name }));
      },
    }),
  );
  return li;
}
