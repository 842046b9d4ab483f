// The scanid web app: sign up, approve or deny a scanned login, manage the identity.
// Markup is built with DOM calls and textContent only: nothing from the service or the
// person is ever parsed as HTML.
import * as device from './device.js';

const view = document.getElementById('view');

/** An element: `h('p', { class: 'muted' }, 'text', child, ...)`. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null && c !== false) el.append(c);
  }
  return el;
}

/** Shows a screen; the heading takes the focus so keyboards and screen readers follow. */
function show(title, ...children) {
  const heading = h('h1', { tabindex: '-1' }, title);
  view.replaceChildren(heading, ...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  document.title = `${title} · scanid`;
  heading.focus();
}

function message(text, kind = 'error') {
  return h('p', { class: `note ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** Runs `work` with `button` busy; shows a failure in `out`. */
async function busy(button, out, work) {
  button.disabled = true;
  out.replaceChildren();
  try {
    await work();
  } catch (e) {
    out.replaceChildren(message(e.message));
  } finally {
    button.disabled = false;
  }
}

const SCOPES = {
  openid: 'Your scanid identifiers (subject and service ID)',
  profile: 'Your user name, display name, profile photo, when your profile last changed, and the groups you belong to',
  groups: 'The groups you belong to',
  address: 'Your country',
  offline_access: 'Access while you are not using the app (offline access)',
};

// ---------------------------------------------------------------------------- sign-up

function field(label, input, hint) {
  const id = input.id;
  return h('div', { class: 'field' },
    h('label', { for: id }, label), input, hint ? h('p', { class: 'hint muted', id: `${id}-hint`, 'aria-live': 'polite' }, hint) : null);
}

/** The sign-up form; `done(me)` runs with the new identity. */
function showSignUp(done, intro) {
  const name = h('input', { id: 'name', name: 'name', required: true, minlength: '3', maxlength: '32',
    pattern: '[a-z0-9._\\-]{3,32}', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false',
    'aria-describedby': 'name-hint' });
  const display = h('input', { id: 'display-name', name: 'display_name', required: true, maxlength: '64', autocomplete: 'name' });
  const country = h('input', { id: 'country', name: 'country_code', required: true, minlength: '2', maxlength: '2',
    pattern: '[A-Z]{2}', autocapitalize: 'characters', autocomplete: 'country', 'aria-describedby': 'country-hint' });
  country.value = (navigator.language.split('-')[1] ?? '').toUpperCase().slice(0, 2);
  const photo = photoInput('photo');
  const submit = h('button', { type: 'submit', class: 'primary', id: 'signup' }, 'Create my scanid');
  const out = h('div', { id: 'signup-result' });
  const form = h('form', { id: 'signup-form', novalidate: true },
    field('Name (your unique handle)', name, '3 to 32 of a–z, 0–9, dot, underscore, hyphen.'),
    field('Display name', display),
    field('Country (two letters, e.g. SE)', country, 'ISO 3166-1 code, upper case.'),
    photo.field,
    submit, out);

  const hint = () => document.getElementById('name-hint');
  let checking = 0;
  let timer;
  name.addEventListener('input', () => {
    name.value = name.value.toLowerCase();
    clearTimeout(timer);
    const value = name.value;
    if (!name.checkValidity()) {
      hint().textContent = '3 to 32 of a–z, 0–9, dot, underscore, hyphen.';
      hint().className = 'hint muted';
      return;
    }
    timer = setTimeout(async () => {
      const mine = ++checking;
      try {
        const free = await device.nameAvailable(value);
        if (mine !== checking) return;
        hint().textContent = free ? `“${value}” is available.` : `“${value}” is taken. Choose another name.`;
        hint().className = free ? 'hint ok' : 'hint bad';
        name.setCustomValidity(free ? '' : 'taken');
      } catch (e) {
        if (mine === checking) hint().textContent = e.message;
      }
    }, 250);
  });
  name.addEventListener('input', () => name.setCustomValidity(''));
  country.addEventListener('input', () => { country.value = country.value.toUpperCase(); });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!form.checkValidity()) {
      out.replaceChildren(message('Please check the highlighted fields.'));
      form.querySelector(':invalid')?.focus();
      return;
    }
    busy(submit, out, async () => {
      try {
        await device.signUp({ name: name.value, displayName: display.value.trim(), country: country.value });
      } catch (e) {
        if (e.code === 'name_taken') {
          hint().textContent = `“${name.value}” is taken. Choose another name.`;
          hint().className = 'hint bad';
          name.focus();
        }
        throw e;
      }
      let me = await device.load();
      if (photo.file()) {
        try {
          await device.uploadPhoto(me, photo.file());
        } catch (e) {
          alert(`Your identity was created, but the photo was not saved: ${e.message}`);
        }
        me = await device.load();
      }
      done(me);
    });
  });

  show('Create your scanid',
    intro ? h('p', {}, intro) : null,
    h('p', { class: 'muted' }, 'Your identity lives on this phone: a key is made here and never leaves it.'),
    form);
}

/** A photo picker (camera or file) with a preview; `file()` is the chosen file. */
function photoInput(id) {
  const input = h('input', { id, type: 'file', accept: 'image/jpeg,image/png,image/webp', 'aria-describedby': `${id}-hint` });
  const preview = h('img', { class: 'avatar preview', alt: '', hidden: true });
  let url;
  input.addEventListener('change', () => {
    if (url) URL.revokeObjectURL(url);
    const f = input.files?.[0];
    const hint = document.getElementById(`${id}-hint`);
    if (f && f.size > 1024 * 1024) {
      hint.textContent = 'This photo is larger than 1 MB; choose a smaller one.';
      hint.className = 'hint bad';
      input.value = '';
      preview.hidden = true;
      return;
    }
    hint.textContent = 'JPEG, PNG or WebP, at most 1 MB. Optional.';
    hint.className = 'hint muted';
    if (f) {
      url = URL.createObjectURL(f);
      preview.src = url;
      preview.hidden = false;
    } else {
      preview.hidden = true;
    }
  });
  return {
    field: h('div', { class: 'field' }, h('label', { for: id }, 'Photo (camera or file)'), input, preview,
      h('p', { class: 'hint muted', id: `${id}-hint`, 'aria-live': 'polite' }, 'JPEG, PNG or WebP, at most 1 MB. Optional.')),
    file: () => input.files?.[0],
  };
}

// ---------------------------------------------------------------------------- identity

function card(p) {
  return h('section', { class: 'card', id: 'identity', 'aria-label': 'Your identity' },
    p.profile_photo ? h('img', { class: 'avatar', src: p.profile_photo, alt: '' }) : h('span', { class: 'avatar initials', 'aria-hidden': 'true' }, p.display_name.slice(0, 1).toUpperCase()),
    h('div', {},
      h('p', { class: 'display-name', id: 'display-name-shown' }, p.display_name),
      h('p', { class: 'muted' }, `@${p.name} · ${p.country_code}`),
      h('p', { class: 'muted small' }, 'Service ID ', h('code', { id: 'service-id' }, p.service_id))));
}

function showHome(me, note) {
  show('Your scanid',
    note ? message(note, 'ok') : null,
    card(me.profile),
    h('p', {}, 'To log in somewhere, scan the QR code on its login page with your phone’s camera. The link opens here.'),
    h('nav', { class: 'actions', 'aria-label': 'Manage' },
      h('button', { type: 'button', id: 'edit', onclick: () => showEdit(me) }, 'Edit profile'),
      h('button', { type: 'button', id: 'activity', onclick: () => showActivity(me) }, 'Recent logins'),
      h('button', { type: 'button', id: 'keys', onclick: () => showKeys(me) }, 'Keys and passkeys'),
      me.passkey ? null
        : h('button', { type: 'button', id: 'rotate', onclick: () => showRotate(me) }, 'Replace device key'),
      h('button', { type: 'button', id: 'delete', class: 'danger', onclick: () => showDelete(me) }, 'Delete identity')));
}

/** The identity's keys (issue 26): each passkey and the device key, where each was last used;
 * add a passkey (an upgrade retires the device key), remove one (never the last). */
async function showKeys(me) {
  const list = h('ul', { class: 'keys', id: 'keys-list' });
  const out = h('div');
  const upgrade = !me.passkey && await device.canUsePasskeys();
  const add = h('button', { type: 'button', class: 'primary', id: upgrade ? 'upgrade' : 'add-passkey' },
    upgrade ? 'Use a passkey on this phone' : 'Add a passkey');
  show('Keys and passkeys',
    upgrade ? h('p', { id: 'upgrade-why' }, 'With a passkey, every approval asks for your fingerprint, face or PIN: someone holding your unlocked phone cannot approve for you. Your current key signs the passkey over, then retires.') : null,
    list, add, h('button', { type: 'button', onclick: () => showHome(me) }, 'Back'), out);
  add.disabled = !(await device.canUsePasskeys());
  add.addEventListener('click', async () => {
    add.disabled = true;
    try {
      await device.addPasskey(me, { retire: upgrade });
      me = await device.load();
      showKeys(me);
    } catch (e) {
      add.disabled = false;
      out.replaceChildren(message(e.message));
    }
  });
  let keys;
  try {
    keys = await device.keys(me);
  } catch (e) {
    out.replaceChildren(message(e.message));
    return;
  }
  const used = (k) => (k.last_used_at
    ? `Last used ${new Date(k.last_used_at).toLocaleString()}${k.last_used_from ? ` from ${k.last_used_from}` : ''}`
    : 'Not used yet');
  const remove = (id) => h('button', { type: 'button', class: 'danger remove-key', 'data-key': id, onclick: async () => {
    try {
      await device.removeKey(me, id);
      if (id === me.passkey) {
        // This phone signed with the removed passkey: it signs with another one from now on.
        const other = keys.passkeys.find((k) => k.credential_id !== id);
        me = other ? await device.usePasskey(me, other.credential_id) : me;
      }
      showKeys(me);
    } catch (e) {
      out.replaceChildren(message(e.code === 'last_key' ? 'This is your last key: add another before removing it.' : e.message));
    }
  } }, 'Remove');
  for (const k of keys.passkeys) {
    list.append(h('li', { class: 'passkey', 'data-credential': k.credential_id },
      h('strong', {}, k.name), k.credential_id === me.passkey ? ' (this phone)' : '',
      h('p', { class: 'muted small' }, `Passkey · ${used(k)}`), remove(k.credential_id)));
  }
  if (keys.device_key) {
    list.append(h('li', { class: 'device-key', 'data-credential': 'device' },
      h('strong', {}, 'Device key'), me.passkey ? '' : ' (this phone)',
      h('p', { class: 'muted small' }, 'Signs without asking for your unlock'), remove('device')));
  }
}

function showEdit(me) {
  const display = h('input', { id: 'edit-display-name', required: true, maxlength: '64', value: me.profile.display_name });
  const photo = photoInput('edit-photo');
  const save = h('button', { type: 'submit', class: 'primary', id: 'save' }, 'Save');
  const out = h('div');
  const form = h('form', { novalidate: true }, field('Display name', display), photo.field, save,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Cancel'), out);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(save, out, async () => {
      const name = display.value.trim();
      if (name !== me.profile.display_name) await device.update(me, { display_name: name });
      let now = await device.load();
      if (photo.file()) {
        await device.uploadPhoto(now, photo.file());
        now = await device.load();
      }
      showHome(now, 'Profile saved.');
    });
  });
  show('Edit profile', form);
}

function showRotate(me) {
  const go = h('button', { type: 'button', class: 'primary', id: 'rotate-confirm' }, 'Replace the key');
  const everywhere = h('input', { type: 'checkbox', id: 'rotate-end-sessions', checked: true });
  const out = h('div');
  go.addEventListener('click', () => busy(go, out, async () => {
    const endSessions = everywhere.checked;
    await device.rotateKey(me, endSessions);
    showHome(await device.load(), endSessions
      ? 'A new device key is in place; the old one no longer works, and you are signed out everywhere.'
      : 'A new device key is in place; the old one no longer works.');
  }));
  show('Replace device key',
    h('p', {}, 'A new key is made on this phone. The old key signs it over, and stops working at once.'),
    h('div', { class: 'check' }, everywhere,
      h('label', { for: 'rotate-end-sessions' }, 'Also sign out everywhere'),
      h('p', { class: 'muted small' }, 'Ends every login made with scanid: each app and site asks you to log in again. Choose this if someone else may have had your phone.')),
    go, h('button', { type: 'button', onclick: () => showHome(me) }, 'Cancel'), out);
}

function showDelete(me) {
  const confirmName = h('input', { id: 'delete-name', autocapitalize: 'none', spellcheck: 'false' });
  const go = h('button', { type: 'button', class: 'danger', id: 'delete-confirm' }, 'Delete my identity');
  const out = h('div');
  go.addEventListener('click', () => {
    if (confirmName.value !== me.profile.name) {
      out.replaceChildren(message(`Type your name, ${me.profile.name}, to confirm.`));
      confirmName.focus();
      return;
    }
    busy(go, out, async () => {
      await device.deleteIdentity(me);
      showSignUp(showHome, 'Your identity was deleted. You can create a new one.');
    });
  });
  show('Delete identity',
    h('p', {}, 'This deletes your scanid identity at the service: your profile and photo, your logins everywhere, and the key on this phone. Your name becomes free for others. This cannot be undone.'),
    field(`Type your name (${me.profile.name}) to confirm`, confirmName),
    go, h('button', { type: 'button', onclick: () => showHome(me) }, 'Cancel'), out);
}

async function showActivity(me, note) {
  const list = h('ol', { class: 'activity', id: 'activity-list' });
  const out = h('div');
  show('Recent logins', note ? message(note, 'ok') : null, list, out,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Back'));
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
  const li = h('li', { 'data-login-id': l.id, 'data-method': l.method },
    h('strong', {}, l.client_name), ` ${OUTCOMES[l.outcome] ?? 'denied'}${how} `,
    h('time', { datetime: l.at }, new Date(l.at).toLocaleString()),
    h('p', { class: 'muted small' }, `from ${placeText({ ip: l.browser_ip, location: l.location, network: l.network })} · ${l.user_agent || 'unknown browser'}`),
    l.flags?.length ? h('p', { class: 'muted small', 'data-flags': l.flags.join(' ') }, l.flags.map((f) => FLAGS[f] ?? f).join(' · ')) : null);
  if (l.reported) {
    li.append(h('p', { class: 'note ok small reported' }, 'Reported: signed out, its access revoked.'));
    return li;
  }
  if (!l.id || l.outcome !== 'approved') return li;
  const area = h('div');
  const ask = h('button', { type: 'button', class: 'danger report' }, 'This wasn’t me');
  ask.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger', id: 'report-confirm' }, 'Yes, sign it out');
    const no = h('button', { type: 'button', id: 'report-cancel' }, 'Cancel');
    const out = h('div');
    no.addEventListener('click', () => area.replaceChildren(ask));
    yes.addEventListener('click', () => busy(yes, out, async () => {
      await device.reportLogin(me, l.id);
      await showActivity(me, `Done: ${l.client_name} was signed out of that login and its access was revoked.`);
    }));
    area.replaceChildren(
      h('p', { class: 'note error small', role: 'alert' },
        `Sign out this login to ${l.client_name}? Its access is revoked at once and ${l.client_name} is told.`),
      h('div', { class: 'buttons' }, yes, no), out);
    yes.focus();
  });
  area.append(ask);
  li.append(area);
  return li;
}

// ---------------------------------------------------------------------------- approve

/** What each outcome of the recent logins says. */
const OUTCOMES = {
  approved: 'approved',
  denied: 'denied',
  refused: 'refused (the application does not allow it)',
  wrong_number: 'cancelled (a wrong number was picked)',
  second_device: 'cancelled (a second phone scanned it)',
};

/** The risk flags (issue 24), as warnings. */
const FLAGS = {
  location_mismatch: 'It was started in another country than this phone is in.',
  first_from_here: 'You have never approved a login from that place.',
  high_usage: 'Many logins were asked for your identity in the last hour.',
};

/** An address with its place and network, as far as the service knows them. */
function placeText(p) {
  const parts = [p?.ip || 'unknown address'];
  const loc = p?.location;
  const names = [loc?.city, loc?.country].filter(Boolean).join(', ');
  if (names) parts.push(loc?.country_code ? `${names} (${loc.country_code})` : names);
  if (p?.network) parts.push(`network AS${p.network.asn}${p.network.org ? ` ${p.network.org}` : ''}`);
  return parts.join(' · ');
}

/**
 * Where the login came from (the browser's place and network), where this phone is, when it
 * was asked for, and the service's risk flags as warnings; a login the application refuses
 * says it cannot be approved.
 */
function whereFrom(info) {
  const flags = info.flags ?? [];
  return h('section', { class: `where ${flags.length || info.refused ? 'warn' : 'ok'}`, id: 'where-from' },
    h('dl', {},
      h('dt', {}, 'Started from'), h('dd', { id: 'browser-place' }, placeText(info.browser)),
      info.phone ? h('dt', {}, 'This phone') : null,
      info.phone ? h('dd', { id: 'phone-place' }, placeText(info.phone)) : null,
      info.requested_at ? h('dt', {}, 'Asked at') : null,
      info.requested_at ? h('dd', { id: 'requested-at' }, h('time', { datetime: info.requested_at }, new Date(info.requested_at).toLocaleString())) : null),
    flags.length
      ? h('ul', { id: 'flags', role: 'alert' }, flags.map((f) => h('li', { 'data-flag': f }, h('strong', {}, 'Warning: '), FLAGS[f] ?? f)))
      : null,
    info.refused
      ? h('p', { id: 'refused', role: 'alert' }, h('strong', {}, `${info.client.name} does not allow a login with these warnings: it cannot be approved.`), ' Deny it.')
      : null);
}

/** Whether the login was started in this very browser (a login on the phone itself). The
 * service decides it: `started_here` is true only when the scan carried the login's own
 * browser-binding cookie. Never guessed from the User-Agent, which anyone can copy. */
function startedHere(info) {
  return info.started_here === true;
}

/** How long Approve stays disarmed once the screen is in front of the person. */
const ARM_DELAY_MS = 1500;

/**
 * The decision buttons, side by side, Deny exactly as prominent as Approve (same size, same
 * weight). Deny works at once. Approve arms only after ARM_DELAY_MS of the screen being
 * visible, disarms whenever the page is hidden or the window loses focus, and the delay starts
 * again when it is back: a double click or a tap meant for something else (an overlay taken
 * away just before) cannot land on Approve.
 *
 * `start()` once the buttons are on the screen; `hold(true)` while a decision is on its way.
 */
function decisionButtons(choices = []) {
  // Number matching: with choices, each number is an Approve (the one the login page shows
  // approves, any other cancels the login); without (a device's code), one Approve button.
  const approves = choices.length
    ? choices.map((n) => h('button', { type: 'button', class: 'decision approve number', id: `number-${n}`, 'data-number': String(n), disabled: true, 'data-armed': 'false' }, String(n)))
    : [h('button', { type: 'button', class: 'decision approve', id: 'approve', disabled: true, 'data-armed': 'false' }, 'Approve')];
  const [approve] = approves;
  const deny = h('button', { type: 'button', class: 'decision deny', id: 'deny' }, 'Deny');
  const row = h('div', { class: 'buttons decisions', id: choices.length ? 'numbers' : undefined }, ...approves, deny);
  let armed = false;
  let held = false;
  let timer;
  const events = new AbortController();
  const render = () => {
    for (const b of approves) {
      b.disabled = !armed || held;
      b.dataset.armed = String(armed);
    }
    deny.disabled = held;
  };
  const stop = () => {
    clearTimeout(timer);
    events.abort();
  };
  const disarm = () => {
    clearTimeout(timer);
    armed = false;
    render();
  };
  const rearm = () => {
    disarm();
    if (!approve.isConnected) {
      // The screen was replaced: nothing to arm any more.
      stop();
      return;
    }
    if (document.visibilityState !== 'visible') return;
    timer = setTimeout(() => {
      armed = true;
      render();
    }, ARM_DELAY_MS);
  };
  const listen = (target, type, fn) => target.addEventListener(type, fn, { signal: events.signal });
  return {
    approve, approves, deny, row, stop,
    armed: () => armed,
    hold(on) {
      held = on;
      render();
    },
    start() {
      listen(document, 'visibilitychange', () => (document.visibilityState === 'visible' ? rearm() : disarm()));
      listen(window, 'blur', disarm);
      listen(window, 'focus', rearm);
      listen(window, 'pageshow', rearm);
      listen(window, 'pagehide', disarm);
      rearm();
    },
  };
}

function showRequest(me, session, challenge, info) {
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
      const connected = info.user_code ? `${info.client.name} is connected. Continue on the device.` : null;
      show(status === 'approved' ? 'Login approved' : 'Login denied',
        h('p', { id: 'decided', 'data-status': status }, status === 'approved'
          ? (connected ?? `You are logging in to ${info.client.name}. Continue on the screen where you started.`)
          : `${info.client.name} was told you said no.`),
        h('button', { type: 'button', onclick: () => showHome(me) }, 'Done'));
    } catch (e) {
      buttons.hold(false);
      if (e.code === 'login_cancelled') {
        buttons.stop();
        history.replaceState(null, '', `${device.issuer}/app/`);
        show('Login cancelled', h('p', { id: 'cancelled', class: 'error' }, e.message),
          h('button', { type: 'button', onclick: () => showHome(me) }, 'Done'));
        return;
      }
      out.replaceChildren(message(e.status === 403
        // The application's policy refused the login's warnings (login_refused).
        ? `${info.client.name} does not allow this login: ${e.message}. It was cancelled.`
        : e.status === 404 || e.status === 409
          ? 'This login is no longer waiting (it expired or was decided). Scan the code again.'
          : e.message));
    }
  };
  for (const b of buttons.approves) {
    b.addEventListener('click', () => decide(true, b.dataset.number ? Number(b.dataset.number) : undefined));
  }
  deny.addEventListener('click', () => decide(false));
  const choose = picks
    ? [h('p', { id: 'pick' }, h('strong', {}, 'Pick the number shown on the login screen:')),
      me.passkey ? h('p', { class: 'muted small', id: 'passkey-ask' }, 'Your phone will then ask for your fingerprint, face or screen lock to approve.') : null,
      info.number === undefined ? null
        : h('p', { class: 'muted small', id: 'number-here' }, `Started in this browser: its login page showed ${info.number}.`)]
    : [];

  if (info.user_code) {
    // A device (a TV, a CLI) asks (RFC 8628): the code on its screen must be this one.
    show(`Connect ${info.client.name}?`,
      h('section', { class: 'card request', id: 'request' },
        h('p', {}, h('strong', { id: 'client-name' }, info.client.name), ' asks for:'),
        info.client.self_registered
          ? h('p', { class: 'muted small', id: 'self-registered' }, `${info.client.name} registered itself with this service: nobody has checked that name.`)
          : null,
        h('ul', { class: 'scopes', id: 'scopes' }, info.scopes.map((s) => h('li', { 'data-scope': s }, SCOPES[s] ?? s))),
        h('p', { class: 'muted small' }, 'As ', h('strong', {}, `@${me.profile.name}`), ` · until ${new Date(info.expires_at).toLocaleTimeString()}`)),
      h('section', { class: 'where warn', id: 'where', role: 'alert' },
        h('p', {}, 'Check that the device shows this code:'),
        h('p', {}, h('strong', { id: 'user-code' }, info.user_code)),
        h('dl', {},
          h('dt', {}, 'Address'), h('dd', { id: 'browser-ip' }, info.browser?.ip || 'unknown'),
          h('dt', {}, 'Device'), h('dd', { id: 'browser-ua' }, info.browser?.user_agent || 'unknown')),
        h('p', {}, 'Approve only if it is a device you are setting up yourself, in front of you. If the codes differ, or someone sent you this code, deny.')),
      whereFrom(info),
      buttons.row,
      out);
    buttons.start();
    return;
  }
  const here = startedHere(info);
  show(`Log in to ${info.client.name}?`,
    h('section', { class: 'card request', id: 'request' },
      h('p', {}, h('strong', { id: 'client-name' }, info.client.name), ' at ', h('code', { id: 'redirect-host' }, info.client.redirect_host || 'an app'), ' asks for:'),
      info.client.self_registered
        ? h('p', { class: 'muted small', id: 'self-registered' }, `${info.client.name} registered itself with this service: nobody has checked that name.`)
        : null,
      h('ul', { class: 'scopes', id: 'scopes' }, info.scopes.map((s) => h('li', { 'data-scope': s }, SCOPES[s] ?? s))),
      h('p', { class: 'muted small' }, 'As ', h('strong', {}, `@${me.profile.name}`), ` · until ${new Date(info.expires_at).toLocaleTimeString()}`)),
    h('section', { class: `where ${here ? 'ok' : 'warn'}`, id: 'where', role: here ? undefined : 'alert' },
      h('p', {}, h('strong', {}, here ? 'Started on this phone.' : 'This login was started on another device.')),
      h('dl', {},
        h('dt', {}, 'Address'), h('dd', { id: 'browser-ip' }, info.browser?.ip || 'unknown'),
        h('dt', {}, 'Browser'), h('dd', { id: 'browser-ua' }, info.browser?.user_agent || 'unknown')),
      here ? null : h('p', {}, 'Approve only if you started this login yourself, just now, on a screen in front of you. If someone sent you this code, deny.')),
    whereFrom(info),
    ...choose,
    buttons.row,
    out);
  buttons.start();
}

async function showScan(me, session, challenge, info) {
  if (!info) {
    show('Reading the code…');
    try {
      info = await device.scan(session, challenge, me);
    } catch (e) {
      show(e.code === 'login_cancelled' ? 'Login cancelled' : 'This code has expired',
        message(e.status === 404 ? 'The login is no longer waiting, or the code was old. Scan the code on the login page again.' : e.message),
        me ? h('button', { type: 'button', onclick: () => showHome(me) }, 'Go to my scanid') : null);
      return;
    }
  }
  if (!me) {
    showSignUp((created) => showRequest(created, session, challenge, info),
      `${info.client.name} asks you to log in with scanid. You have no scanid on this phone yet: create one, then approve.`);
    return;
  }
  showRequest(me, session, challenge, info);
}

/** A device's code (RFC 8628): the service answers a login session to decide as any other. */
async function showDeviceScan(me, userCode) {
  show('Reading the code…');
  let info;
  try {
    info = await device.scanUserCode(userCode);
  } catch (e) {
    show('This code is not waiting',
      message(e.status === 404 ? 'The code is not valid, has expired or was used. Start again on the device.' : e.message),
      me ? h('button', { type: 'button', onclick: () => showHome(me) }, 'Go to my scanid') : null);
    return;
  }
  await showScan(me, info.session, info.challenge, info);
}

// ---------------------------------------------------------------------------- start

async function start() {
  if (!window.isSecureContext || !crypto.subtle || !window.indexedDB) {
    // WebCrypto and IndexedDB need https (or localhost): the device key cannot be made here.
    show('scanid needs a secure connection',
      message('Open this page over https. The scanid app keeps its key with your browser’s cryptography, which works only on secure pages.'));
    return;
  }
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register(`${device.issuer}/app/sw.js`, { scope: `${device.issuer}/app/` })
      .catch(() => {});
  }
  const me = await device.load();
  const q = new URLSearchParams(location.search);
  const session = q.get('session');
  const challenge = q.get('challenge');
  const userCode = q.get('user_code');
  if (location.pathname.endsWith('/app/scan') && session && challenge) {
    // Read the code first: the scan is what the service accepts, and challenges rotate.
    await showScan(me, session, challenge);
  } else if (location.pathname.endsWith('/app/scan') && userCode) {
    await showDeviceScan(me, userCode);
  } else if (me) {
    showHome(me);
  } else {
    showSignUp((created) => showHome(created, 'Welcome! Your scanid is ready.'));
  }
}

start().catch((e) => show('Something went wrong', message(e.message)));
