// Identities, events and the overview, over Keycloak's paths (`.../users`,
// `.../events`). A call the server does not have yet shows "not available".
import { api } from './api.js';
import { h, screen, say, field, table, failure, when } from './ui.js';

const enc = encodeURIComponent;

/** Identities: search, and one identity's page. */
export async function identities(query = '') {
  const f = h(
    'form',
    { id: 'identity-search', role: 'search' },
    field('search', 'Search by name', { type: 'search', value: query, autocomplete: 'off' }),
    h('button', { type: 'submit', class: 'primary' }, 'Search'),
  );
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    identities(f.querySelector('#search').value.trim());
  });
  const res = await api('GET', `/users?max=100${query ? `&search=${enc(query)}` : ''}`);
  const list = res.ok ? res.data : [];
  screen(
    'Identities',
    f,
    res.ok
      ? table(
          `${list.length} identities`,
          ['Name', 'service_id', 'State', 'Since', ''],
          list.map((u) => [
            u.username,
            u.attributes?.service_id?.[0] ?? '',
            u.enabled === false ? 'disabled' : 'enabled',
            when(u.createdTimestamp),
            h('button', { type: 'button', onclick: () => identity(u.id) }, `Show ${u.username}`),
          ]),
        )
      : failure(res, 'Identities'),
  );
}

async function identity(id) {
  const path = `/users/${enc(id)}`;
  const res = await api('GET', path);
  if (!res.ok) return screen('Identity', failure(res, 'Identity'));
  const u = res.data;
  const [groups, creds, sessions, logins] = await Promise.all([
    api('GET', `${path}/groups`),
    api('GET', `${path}/credentials`),
    api('GET', `${path}/sessions`),
    api('GET', `/events?user=${enc(id)}&type=LOGIN&max=10`),
  ]);
  const act = (label, method, sub, body, done) =>
    h(
      'button',
      {
        type: 'button',
        class: method === 'DELETE' ? 'danger' : undefined,
        onclick: async () => {
          const r = await api(method, `${path}${sub}`, body);
          if (!r.ok)
            return say(`${label}: ${r.missing ? 'not available' : `HTTP ${r.status}`}`, 'error');
          // Redrawn first, then said: the status describes the screen one sees.
          await (method === 'DELETE' && !sub ? identities() : identity(id));
          say(`${u.username}: ${done}.`);
        },
      },
      label,
    );
  const group = h(
    'form',
    { id: 'group-form' },
    field('group', 'Add to a group', { autocomplete: 'off' }),
    h('button', { type: 'submit' }, 'Add'),
  );
  group.addEventListener('submit', async (e) => {
    e.preventDefault();
    const g = group.querySelector('#group').value.trim();
    const r = await api('PUT', `${path}/groups/${enc(g)}`);
    if (!r.ok) return say(`Group: ${r.missing ? 'not available' : `HTTP ${r.status}`}`, 'error');
    await identity(id);
  });
  screen(
    `Identity ${u.username}`,
    h(
      'dl',
      {},
      h('dt', {}, 'sub'),
      h('dd', {}, h('code', {}, u.id)),
      h('dt', {}, 'service_id'),
      h('dd', {}, u.attributes?.service_id?.[0] ?? ''),
      h('dt', {}, 'State'),
      h('dd', {}, u.enabled === false ? 'disabled' : 'enabled'),
      h('dt', {}, 'Since'),
      h('dd', {}, when(u.createdTimestamp)),
    ),
    h(
      'div',
      { class: 'buttons' },
      u.enabled === false
        ? act('Enable', 'PUT', '', { enabled: true }, 'enabled')
        : act('Disable', 'PUT', '', { enabled: false }, 'disabled'),
      act('End its sessions', 'POST', '/logout', undefined, 'sessions ended'),
      act('Delete', 'DELETE', '', undefined, 'deleted'),
    ),
    h('h2', {}, 'Keys'),
    creds.ok
      ? table(
          'Device key and passkeys',
          ['Type', 'Label', 'Created'],
          creds.data.map((c) => [c.type, c.userLabel ?? c.id, when(c.createdDate)]),
        )
      : failure(creds, 'Keys'),
    h('h2', {}, 'Groups'),
    groups.ok
      ? table(
          'Groups',
          ['Group', ''],
          groups.data.map((g) => [
            g.name ?? g.path,
            h(
              'button',
              {
                type: 'button',
                onclick: async () => {
                  await api('DELETE', `${path}/groups/${enc(g.id ?? g.name)}`);
                  await identity(id);
                },
              },
              `Remove ${g.name ?? g.path}`,
            ),
          ]),
        )
      : failure(groups, 'Groups'),
    group,
    h('h2', {}, 'Sessions'),
    sessions.ok
      ? table(
          'Live sessions',
          ['Started', 'Last seen', 'Address', 'Clients'],
          sessions.data.map((s) => [
            when(s.start),
            when(s.lastAccess),
            s.ipAddress ?? '',
            Object.values(s.clients ?? {}).join(', '),
          ]),
        )
      : failure(sessions, 'Sessions'),
    h('h2', {}, 'Recent logins'),
    logins.ok ? eventTable('Recent logins', logins.data) : failure(logins, 'Recent logins'),
    h('button', { type: 'button', onclick: () => identities() }, 'Back to identities'),
  );
}

function eventTable(caption, events) {
  return table(
    caption,
    ['Time', 'Type', 'Client', 'Identity', 'Address', 'Error'],
    events.map((e) => [
      when(e.time),
      e.type,
      e.clientId ?? '',
      e.userId ?? '',
      e.ipAddress ?? '',
      e.error ?? '',
    ]),
  );
}

/** Events: filtered by type, client, identity and time. */
export async function events(filter = {}) {
  const f = h(
    'form',
    { id: 'event-filter', class: 'filters' },
    field('type', 'Type (LOGIN, LOGIN_ERROR, ...)', { value: filter.type ?? '' }),
    field('client', 'Client', { value: filter.client ?? '' }),
    field('user', 'Identity (sub)', { value: filter.user ?? '' }),
    field('dateFrom', 'From', { type: 'date', value: filter.dateFrom ?? '' }),
    field('dateTo', 'To', { type: 'date', value: filter.dateTo ?? '' }),
    h('button', { type: 'submit', class: 'primary' }, 'Filter'),
  );
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    const next = {};
    for (const k of ['type', 'client', 'user', 'dateFrom', 'dateTo']) {
      const v = f.querySelector(`#${k}`).value.trim();
      if (v) next[k] = v;
    }
    events(next);
  });
  const q = new URLSearchParams({ ...filter, max: '200' });
  const res = await api('GET', `/events?${q}`);
  screen(
    'Events',
    f,
    res.ok
      ? eventTable(`${res.data.length} events, newest first`, res.data)
      : failure(res, 'Events'),
  );
}

function bars(caption, counts) {
  const max = Math.max(1, ...counts.map(([, n]) => n));
  const chart = h('div', { class: 'bar-chart', role: 'list', 'aria-label': caption });
  for (const [label, n] of counts) {
    const fill = h('div', { class: 'fill' });
    fill.style.width = `${Math.round((n / max) * 100)}%`;
    chart.append(h('span', { role: 'listitem' }, label), fill, h('span', {}, String(n)));
  }
  return h(
    'section',
    {},
    h('h2', {}, caption),
    counts.length ? chart : h('p', { class: 'muted' }, 'None yet.'),
  );
}

/** The overview: logins per hour and refusals by reason, from the events. */
export async function overview() {
  const res = await api('GET', '/events?max=1000');
  if (!res.ok) return screen('Overview', failure(res, 'Events'));
  const perHour = new Map();
  const refusals = new Map();
  for (const e of res.data) {
    if (e.type === 'LOGIN') {
      const d = new Date(e.time);
      d.setMinutes(0, 0, 0);
      const k = d.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit' });
      perHour.set(k, (perHour.get(k) ?? 0) + 1);
    } else if (e.type?.endsWith('_ERROR') || e.error) {
      const k = e.error ?? e.type;
      refusals.set(k, (refusals.get(k) ?? 0) + 1);
    }
  }
  screen(
    'Overview',
    bars('Logins per hour', [...perHour].reverse()),
    bars(
      'Refusals by reason',
      [...refusals].sort((a, b) => b[1] - a[1]),
    ),
  );
}
