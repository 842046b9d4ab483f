// The approval screen: a login (or a device's code) to approve or deny.
import * as device from './device.js';
import { decisionButtons } from './decision.js';
import { showHome } from './home.js';
import { h, message, show } from './ui.js';
import { whereFrom } from './where.js';

const SCOPES = {
  openid: 'Your scanid identifiers (subject and service ID)',
  profile:
    'Your user name, display name, profile photo, when your profile last changed, and the groups you belong to',
  groups: 'The groups you belong to',
  address: 'Your country',
  offline_access: 'Access while you are not using the app (offline access)',
};

/** The scopes as said to a person, each once: `profile` says the groups already. */
function scopeItems(scopes) {
  const said = scopes.includes('profile') ? scopes.filter((s) => s !== 'groups') : scopes;
  return said.map((s) => h('li', { 'data-scope': s }, SCOPES[s] ?? s));
}

/** The browser as a person reads it ("Chrome on Windows", parsed by the service), with the
 * raw User-Agent behind "Details" (it is the browser's own claim: anyone can send any). */
function agentOf(browser) {
  const raw = browser?.user_agent || 'unknown';
  const a = browser?.agent;
  const plain = a?.browser && a?.os ? `${a.browser} on ${a.os}` : (a?.browser ?? a?.os ?? null);
  if (!plain) return h('dd', {}, h('span', { id: 'browser-ua' }, raw));
  return h(
    'dd',
    {},
    h('span', { id: 'browser-agent' }, plain),
    h('details', {}, h('summary', {}, 'Details'), h('code', { id: 'browser-ua' }, raw)),
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
        h('p', {}, 'and access, as you, to:'),
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
      const connected = info.user_code
        ? `${info.client.name} is connected. Continue on the device.`
        : null;
      show(
        status === 'approved' ? 'Login approved' : 'Login denied',
        h(
          'p',
          { id: 'decided', 'data-status': status },
          status === 'approved'
            ? (connected ??
                `You are logging in to ${info.client.name}. Continue on the screen where you started.`)
            : `${info.client.name} was told you said no.`,
        ),
        h('button', { type: 'button', onclick: () => showHome(me) }, 'Done'),
      );
    } catch (e) {
      buttons.hold(false);
      if (e.code === 'login_cancelled') {
        buttons.stop();
        history.replaceState(null, '', `${device.issuer}/app/`);
        show(
          'Login cancelled',
          h('p', { id: 'cancelled', class: 'error' }, e.message),
          h('button', { type: 'button', onclick: () => showHome(me) }, 'Done'),
        );
        return;
      }
      out.replaceChildren(
        message(
          e.status === 403
            ? // The application's policy refused the login's warnings (login_refused).
              `${info.client.name} does not allow this login: ${e.message}. It was cancelled.`
            : e.status === 404 || e.status === 409
              ? 'This login is no longer waiting (it expired or was decided). Scan the code again.'
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
        h('p', { id: 'pick' }, h('strong', {}, 'Pick the number shown on the login screen:')),
        me.passkey
          ? h(
              'p',
              { class: 'muted small', id: 'passkey-ask' },
              'Your phone will then ask for your fingerprint, face or screen lock to approve.',
            )
          : null,
        info.number === undefined
          ? null
          : h(
              'p',
              { class: 'muted small', id: 'number-here' },
              `Started in this browser: its login page showed ${info.number}.`,
            ),
      ]
    : [];

  if (info.user_code) {
    // A device (a TV, a CLI) asks (RFC 8628): the code on its screen must be this one.
    show(
      `Connect ${info.client.name}?`,
      h(
        'section',
        { class: 'card request', id: 'request' },
        h('p', {}, h('strong', { id: 'client-name' }, info.client.name), ' asks for:'),
        info.client.self_registered
          ? h(
              'p',
              { class: 'muted small', id: 'self-registered' },
              `${info.client.name} registered itself with this service: nobody has checked that name.`,
            )
          : null,
        h('ul', { class: 'scopes', id: 'scopes' }, scopeItems(info.scopes)),
        h(
          'p',
          { class: 'muted small' },
          'As ',
          h('strong', {}, `@${me.profile.name}`),
          ` · until ${new Date(info.expires_at).toLocaleTimeString()}`,
        ),
      ),
      h(
        'section',
        { class: 'where warn', id: 'where', role: 'alert' },
        h('p', {}, 'Check that the device shows this code:'),
        h('p', {}, h('strong', { id: 'user-code' }, info.user_code)),
        // The device's own address and the name it gave itself (anyone can send any name).
        h(
          'dl',
          {},
          h('dt', {}, "The device's address"),
          h('dd', { id: 'browser-ip' }, info.browser?.ip || 'unknown'),
          h('dt', {}, 'The device calls itself (its own claim, unchecked)'),
          agentOf(info.browser),
        ),
        h(
          'p',
          { id: 'device-notice' },
          h(
            'strong',
            {},
            info.device_request?.notice ??
              'A device code is a request from a device. Approve only if you are holding that device (or it is in front of you) and it shows this code. If someone sent you this code, deny.',
          ),
        ),
        h('p', {}, 'If the codes differ, deny.'),
      ),
      whereFrom(info),
      // Typed in a browser, the code became a login whose page shows a number: pick it.
      ...choose,
      buttons.row,
      out,
    );
    buttons.start();
    return;
  }
  const here = startedHere(info);
  show(
    `Log in to ${info.client.name}?`,
    h(
      'section',
      { class: 'card request', id: 'request' },
      h(
        'p',
        {},
        h('strong', { id: 'client-name' }, info.client.name),
        ' at ',
        h('code', { id: 'redirect-host' }, info.client.redirect_host || 'an app'),
        ' asks for:',
      ),
      info.client.self_registered
        ? h(
            'p',
            { class: 'muted small', id: 'self-registered' },
            `${info.client.name} registered itself with this service: nobody has checked that name.`,
          )
        : null,
      h('ul', { class: 'scopes', id: 'scopes' }, scopeItems(info.scopes)),
      resourcesOf(info),
      h(
        'p',
        { class: 'muted small' },
        'As ',
        h('strong', {}, `@${me.profile.name}`),
        ` · until ${new Date(info.expires_at).toLocaleTimeString()}`,
      ),
    ),
    h(
      'section',
      { class: `where ${here ? 'ok' : 'warn'}`, id: 'where', role: here ? undefined : 'alert' },
      h(
        'p',
        {},
        h(
          'strong',
          {},
          here ? 'Started on this phone.' : 'This login was started on another device.',
        ),
      ),
      h(
        'dl',
        {},
        h('dt', {}, 'Address'),
        h('dd', { id: 'browser-ip' }, info.browser?.ip || 'unknown'),
        h('dt', {}, 'Browser'),
        agentOf(info.browser),
      ),
      here
        ? null
        : h(
            'p',
            {},
            'Approve only if you started this login yourself, just now, on a screen in front of you. If someone sent you this code, deny.',
          ),
    ),
    whereFrom(info),
    ...choose,
    buttons.row,
    out,
  );
  buttons.start();
}
