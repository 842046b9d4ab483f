// Where a login came from: the browser's place and network, this phone's, and the service's
// risk flags.
import { h } from './ui.js';

/** The risk flags (issue 24), as warnings. */
export const FLAGS = {
  location_mismatch: 'It was started in another country than this phone is in.',
  first_from_here: 'You have never approved a login from that place.',
  high_usage: 'Many logins were asked for your identity in the last hour.',
};

/** An address with its place and network, as far as the service knows them. */
export function placeText(p) {
  const parts = [p?.ip || 'unknown address'];
  const loc = p?.location;
  const names = [loc?.city, loc?.country].filter(Boolean).join(', ');
  if (names) parts.push(loc?.country_code ? `${names} (${loc.country_code})` : names);
  if (p?.network)
    parts.push(`network AS${p.network.asn}${p.network.org ? ` ${p.network.org}` : ''}`);
  return parts.join(' · ');
}

/**
 * Where the login came from (the browser's place and network), where this phone is, when it
 * was asked for, and the service's risk flags as warnings; a login the application refuses
 * says it cannot be approved.
 */
export function whereFrom(info) {
  const flags = info.flags ?? [];
  return h(
    'section',
    { class: `where ${flags.length || info.refused ? 'warn' : 'ok'}`, id: 'where-from' },
    h(
      'dl',
      {},
      h('dt', {}, 'Started from'),
      h('dd', { id: 'browser-place' }, placeText(info.browser)),
      info.phone ? h('dt', {}, 'This phone') : null,
      info.phone ? h('dd', { id: 'phone-place' }, placeText(info.phone)) : null,
      info.requested_at ? h('dt', {}, 'Asked at') : null,
      info.requested_at
        ? h(
            'dd',
            { id: 'requested-at' },
            h(
              'time',
              { datetime: info.requested_at },
              new Date(info.requested_at).toLocaleString(),
            ),
          )
        : null,
    ),
    flags.length
      ? h(
          'ul',
          { id: 'flags', role: 'alert' },
          flags.map((f) =>
            h('li', { 'data-flag': f }, h('strong', {}, 'Warning: '), FLAGS[f] ?? f),
          ),
        )
      : null,
    info.refused
      ? h(
          'p',
          { id: 'refused', role: 'alert' },
          h(
            'strong',
            {},
            `${info.client.name} does not allow a login with these warnings: it cannot be approved.`,
          ),
          ' Deny it.',
        )
      : null,
  );
}
