// Where a login came from: the browser's place and network, this phone's, and the service's
// risk flags.
import { dateTime, t } from './i18n.js';
import { h } from './ui.js';

/** The risk flags (issue 24), as warnings. */
const FLAGS = {
  location_mismatch: 'flag-location-mismatch',
  first_from_here: 'flag-first-from-here',
  high_usage: 'flag-high-usage',
};

/** A risk flag as a person reads it (an unknown one as it is). */
export function flagText(f) {
  return FLAGS[f] ? t(FLAGS[f]) : f;
}

/** An address with its place and network, as far as the service knows them. */
export function placeText(p) {
  const out = [p?.ip || t('place-unknown')];
  const loc = p?.location;
  const names = [loc?.city, loc?.country].filter(Boolean).join(', ');
  if (names) out.push(loc?.country_code ? `${names} (${loc.country_code})` : names);
  if (p?.network) {
    const network = `AS${p.network.asn}${p.network.org ? ` ${p.network.org}` : ''}`;
    out.push(t('place-network', { network }));
  }
  return out.join(' · ');
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
      h('dt', {}, t('where-started-from')),
      h('dd', { id: 'browser-place' }, placeText(info.browser)),
      info.phone ? h('dt', {}, t('where-this-phone')) : null,
      info.phone ? h('dd', { id: 'phone-place' }, placeText(info.phone)) : null,
      info.requested_at ? h('dt', {}, t('where-asked-at')) : null,
      info.requested_at
        ? h(
            'dd',
            { id: 'requested-at' },
            h('time', { datetime: info.requested_at }, dateTime(info.requested_at)),
          )
        : null,
    ),
    flags.length
      ? h(
          'ul',
          { id: 'flags', role: 'alert' },
          flags.map((f) =>
            h('li', { 'data-flag': f }, h('strong', {}, t('where-warning')), ' ', flagText(f)),
          ),
        )
      : null,
    info.refused
      ? h(
          'p',
          { id: 'refused', role: 'alert' },
          h('strong', {}, t('where-refused', { client: info.client.name })),
          ` ${t('where-deny-it')}`,
        )
      : null,
  );
}
