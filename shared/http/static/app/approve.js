// The approval screen: a login (or a device's code) to approve or deny.
import * as device from './device.js';
import { decisionButtons } from './decision.js';
import { showHome } from './home.js';
import { parts, t, time } from './i18n.js';
import { h, message, show } from './ui.js';
import { whereFrom } from './where.js';

const SCOPES = {
  openid: 'scope-openid',
  profile: 'scope-profile',
  groups: 'scope-groups',
  address: 'scope-address',
  offline_access: 'scope-offline-access',
};

/** The scopes as said to a person, each once: `profile` says the groups already. */
function scopeItems(scopes) {
  const said = scopes.includes('profile') ? scopes.filter((s) => s !== 'groups') : scopes;
  return said.map((s) => h('li', { 'data-scope': s }, SCOPES[s] ? t(SCOPES[s]) : s));
}

/** The browser as a person reads it ("Chrome on Windows", parsed by the service), with the
 * raw User-Agent behind "Details" (it is the browser's own claim: anyone can send any). */
function agentOf(browser) {
  const raw = browser?.user_agent || t('unknown');
  const a = browser?.agent;
  const plain =
    a?.browser && a?.os
      ? t('agent', { browser: a.browser, os: a.os })
      : (a?.browser ?? a?.os ?? null);
  if (!plain) return h('dd', {}, h('span', { id: 'browser-ua' }, raw));
  return h(
    'dd',
    {},
    h('span', { id: 'browser-agent' }, plain),
    h('details', {}, h('summary', {}, t('details')), h('code', { id: 'browser-ua' }, raw)),
  );
}

/** Whether the login was started in this very browser (a login on the phone itself). The
 * service decides it: `started_here` is true only when the scan carried the login's own
 * browser-binding cookie. Never guessed from the User-Agent, which anyone can copy. */
function startedHere(info) {
  return info.started_here === true;
}

/** The resource servers (RFC 8707) the login's access tokens would be for, as the operator
 * registered them: the person sees which APIs the client may call as them. */
function resourcesOf(info) {
  const resources = Array.isArray(info.resources) ? info.resources : [];
  return resources.length === 0
    ? null
    : [
        h('p', {}, t('resources')),
        h(
          'ul',
          { class: 'resources', id: 'resources' },
          resources.map((r) => h('li', {}, h('code', {}, r))),
        ),
      ];
}

export function showRequest(me, session, challenge, info) {
  // Number matching: the login page shows one of these; picking it approves.
  const picks = (info.number_choices ?? []).length > 0;
  const buttons = decisionButtons(info.number_choices ?? []);
  const { deny } = buttons;
  const out = h('div');
  const decide = async (yes, number) => {
    if (yes && !buttons.armed()) return;
    buttons.hold(true);
    out.replaceChildren();
    try {
      const status = await device.decide(me, session, challenge, yes, number);
      buttons.stop();
      history.replaceState(null, '', `${device.issuer}/app/`);
      const approved = status === 'approved';
      const connected = Boolean(info.user_code);
      show(
        t(approved ? 'approved-title' : 'denied-title'),
        h(
          'p',
          { id: 'decided', 'data-status': status },
          t(
            approved && connected ? 'approved-device' : approved ? 'approved-text' : 'denied-text',
            {
              client: info.client.name,
            },
          ),
        ),
        h('button', { type: 'button', onclick: () => showHome(me) }, t('done')),
      );
    } catch (e) {
      buttons.hold(false);
      if (e.code === 'login_cancelled') {
        buttons.stop();
        history.replaceState(null, '', `${device.issuer}/app/`);
        show(
          t('cancelled-title'),
          h('p', { id: 'cancelled', class: 'error' }, e.message),
          h('button', { type: 'button', onclick: () => showHome(me) }, t('done')),
        );
        return;
      }
      out.replaceChildren(
        message(
          e.status === 403
            ? // The application's policy refused the login's warnings (login_refused).
              t('refused', { client: info.client.name, reason: e.message })
            : e.status === 404 || e.status === 409
              ? t('not-waiting')
              : e.message,
        ),
      );
    }
  };
  for (const b of buttons.approves) {
    b.addEventListener('click', () =>
      decide(true, b.dataset.number ? Number(b.dataset.number) : undefined),
    );
  }
  deny.addEventListener('click', () => decide(false));
  const choose = picks
    ? [
        h('p', { id: 'pick' }, h('strong', {}, t('pick'))),
        me.passkey ? h('p', { class: 'muted small', id: 'passkey-ask' }, t('pick-passkey')) : null,
        info.number === undefined
          ? null
          : h(
              'p',
              { class: 'muted small', id: 'number-here' },
              // As the login page shows it: the number's own digits, not the language's.
              t('number-here', { number: String(info.number) }),
            ),
      ]
    : [];
  const arming = h('p', { class: 'muted small', id: 'arming' }, t('arming'));
  const as = () =>
    h(
      'p',
      { class: 'muted small' },
      parts('approve-as', {
        user: h('strong', { dir: 'ltr' }, `@${me.profile.name}`),
        time: h('time', { datetime: info.expires_at }, time(info.expires_at)),
      }),
    );
  const selfRegistered = info.client.self_registered
    ? h(
        'p',
        { class: 'muted small', id: 'self-registered' },
        t('self-registered', { client: info.client.name }),
      )
    : null;
  const name = h('strong', { id: 'client-name' }, info.client.name);

  if (info.user_code) {
    // A device (a TV, a CLI) asks (RFC 8628): the code on its screen must be this one.
    show(
      t('connect-title', { client: info.client.name }),
      h(
        'section',
        { class: 'card request', id: 'request' },
        h('p', {}, parts('asks-for', { client: name })),
        selfRegistered,
        h('ul', { class: 'scopes', id: 'scopes' }, scopeItems(info.scopes)),
        as(),
      ),
      h(
        'section',
        { class: 'where warn', id: 'where', role: 'alert' },
        h('p', {}, t('device-check')),
        h('p', {}, h('strong', { id: 'user-code' }, info.user_code)),
        // The device's own address and the name it gave itself (anyone can send any name).
        h(
          'dl',
          {},
          h('dt', {}, t('device-address')),
          h('dd', { id: 'browser-ip' }, info.browser?.ip || t('unknown')),
          h('dt', {}, t('device-calls-itself')),
          agentOf(info.browser),
        ),
        h('p', { id: 'device-notice' }, h('strong', {}, t('device-notice'))),
        h('p', {}, t('device-differ')),
      ),
      whereFrom(info),
      // Typed in a browser, the code became a login whose page shows a number: pick it.
      ...choose,
      buttons.row,
      arming,
      out,
    );
    buttons.start();
    return;
  }
  const here = startedHere(info);
  // A request by the back channel (OpenID CIBA): the message the one asking shows.
  const binding = info.backchannel
    ? h(
        'section',
        { class: 'where warn', id: 'binding', role: 'alert' },
        h('p', {}, t(info.binding_message ? 'binding-message' : 'binding-none')),
        info.binding_message
          ? h('p', {}, h('strong', { id: 'binding-message' }, h('bdi', {}, info.binding_message)))
          : null,
        h('p', {}, t('binding-check')),
      )
    : null;
  show(
    t('login-title', { client: info.client.name }),
    h(
      'section',
      { class: 'card request', id: 'request' },
      h(
        'p',
        {},
        parts('asks-for-at', {
          client: name,
          host: h('code', { id: 'redirect-host' }, info.client.redirect_host || t('an-app')),
        }),
      ),
      selfRegistered,
      h('ul', { class: 'scopes', id: 'scopes' }, scopeItems(info.scopes)),
      resourcesOf(info),
      info.delegation
        ? h(
            'p',
            { class: 'agent', id: 'delegation' },
            h('strong', {}, t('approve-agent', { client: info.client.name })),
          )
        : null,
      as(),
    ),
    binding,
    h(
      'section',
      { class: `where ${here ? 'ok' : 'warn'}`, id: 'where', role: here ? undefined : 'alert' },
      h('p', {}, h('strong', {}, t(here ? 'started-here' : 'started-elsewhere'))),
      h(
        'dl',
        {},
        h('dt', {}, t('address')),
        h('dd', { id: 'browser-ip' }, info.browser?.ip || t('unknown')),
        h('dt', {}, t('browser')),
        agentOf(info.browser),
      ),
      here ? null : h('p', {}, t('approve-only-if')),
    ),
    whereFrom(info),
    ...choose,
    buttons.row,
    arming,
    out,
  );
  buttons.start();
}
