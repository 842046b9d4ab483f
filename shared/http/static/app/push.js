// Notifications (Web Push, docs/app-protocol.md §7): on the person's "Turn on notifications",
// this browser subscribes with the service's VAPID key (the shell's `#push` block) and the
// identity registers the subscription with a signed `push-subscribe+jwt`; "Turn off", signing
// out everywhere and deleting the identity withdraw it. A push only says that a request is
// waiting (`{kind: "ciba", request}`); the service worker (sw.js) shows it in the person's
// language, with words this page hands it. Without push (no PushManager, no key, permission
// denied) the app still lists the waiting requests when it opens.
import * as device from './device.js';
import { current, languages, t } from './i18n.js';
import { busy, h, message } from './ui.js';

/** The VAPID public key to subscribe with (base64url), or `null`: the service sends no push. */
function serverKey() {
  try {
    const block = document.getElementById('push')?.textContent ?? '{}';
    return JSON.parse(block).application_server_key ?? null;
  } catch {
    return null;
  }
}

/** Whether this browser and this service can push at all. */
export function available() {
  return (
    !!serverKey() &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  );
}

function unb64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

const scope = () => `${device.issuer}/app/`;

/** This browser's push subscription for the app, if it has one. */
async function subscription() {
  if (!('serviceWorker' in navigator)) return null;
  const reg = await navigator.serviceWorker.getRegistration(scope());
  return (await reg?.pushManager?.getSubscription()) ?? null;
}

/** Hands the service worker the words of a notification, in the app's language: it keeps them
 * for the pushes that come while no page is open. */
export async function tellWorker() {
  if (!('serviceWorker' in navigator)) return;
  const reg = await navigator.serviceWorker.ready;
  const l = languages().find((x) => x.tag === current());
  reg.active?.postMessage({
    type: 'words',
    lang: current(),
    dir: l?.dir ?? 'ltr',
    title: t('push-notice-title'),
    body: t('push-notice-body'),
  });
}

/** Permission refused, now or before: the person has to allow it in the browser. */
class Blocked extends Error {
  constructor() {
    super(t('push-blocked'));
  }
}

/** Asks for the permission, subscribes and registers the subscription with the service. */
async function turnOn(me) {
  if (Notification.permission === 'denied') throw new Blocked();
  if ((await Notification.requestPermission()) !== 'granted') throw new Blocked();
  const reg = await navigator.serviceWorker.ready;
  await tellWorker();
  const sub = await reg.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: unb64url(serverKey()),
  });
  try {
    await device.subscribePush(me, sub.toJSON());
  } catch (e) {
    await sub.unsubscribe().catch(() => {});
    throw e;
  }
}

/** Withdraws this browser's subscription at the service and unsubscribes; with `local`, only
 * unsubscribes (the identity is deleted: its subscriptions went with it). Never throws on the
 * way out: a withdrawal that fails still unsubscribes here, and the push service then drops it. */
export async function turnOff(me, { local = false } = {}) {
  let sub;
  try {
    sub = await subscription();
  } catch {
    return;
  }
  if (!sub) return;
  try {
    if (!local) await device.withdrawPush(me, sub.endpoint);
  } finally {
    await sub.unsubscribe().catch(() => {});
  }
}

/** The home screen's "Notifications" card: whether they are on here, and the switch. Nothing
 * where this browser or the service has no push. */
export function pushSection(me) {
  if (!available()) return null;
  const state = h('p', { id: 'push-state', class: 'muted' });
  const toggle = h('button', { type: 'button', id: 'push-toggle' });
  const out = h('div', { id: 'push-out' });
  const render = (on) => {
    state.textContent = on ? t('push-is-on') : t('push-is-off');
    toggle.textContent = on ? t('push-turn-off') : t('push-turn-on');
    toggle.dataset.on = String(on);
  };
  render(false);
  subscription()
    .then((s) => render(!!s))
    .catch(() => {});
  toggle.addEventListener('click', () =>
    busy(toggle, out, async () => {
      if (toggle.dataset.on === 'true') {
        await turnOff(me);
        render(false);
        out.replaceChildren(message(t('push-now-off'), 'ok'));
      } else {
        await turnOn(me);
        render(true);
        out.replaceChildren(message(t('push-now-on'), 'ok'));
      }
    }),
  );
  return h(
    'section',
    { class: 'card notifications', id: 'notifications', 'aria-labelledby': 'notifications-title' },
    h('h2', { id: 'notifications-title' }, t('push-title')),
    h('p', {}, t('push-text')),
    state,
    toggle,
    out,
  );
}
