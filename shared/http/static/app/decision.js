// Approve and Deny, with Approve armed only while the screen is in front of the person.
import { t } from './i18n.js';
import { h } from './ui.js';

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
export function decisionButtons(choices = []) {
  // Number matching: with choices, each number is an Approve (the one the login page shows
  // approves, any other cancels the login); without (a device's code), one Approve button.
  const approves = choices.length
    ? choices.map((n) =>
        h(
          'button',
          {
            type: 'button',
            class: 'decision approve number',
            id: `number-${n}`,
            'data-number': String(n),
            disabled: true,
            'data-armed': 'false',
          },
          String(n),
        ),
      )
    : [
        h(
          'button',
          {
            type: 'button',
            class: 'decision approve',
            id: 'approve',
            disabled: true,
            'data-armed': 'false',
          },
          t('approve'),
        ),
      ];
  const [approve] = approves;
  const deny = h('button', { type: 'button', class: 'decision deny', id: 'deny' }, t('deny'));
  const row = h(
    'div',
    { class: 'buttons decisions', id: choices.length ? 'numbers' : undefined },
    ...approves,
    deny,
  );
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
    approve,
    approves,
    deny,
    row,
    stop,
    armed: () => armed,
    hold(on) {
      held = on;
      render();
    },
    start() {
      listen(document, 'visibilitychange', () =>
        document.visibilityState === 'visible' ? rearm() : disarm(),
      );
      listen(window, 'blur', disarm);
      listen(window, 'focus', rearm);
      listen(window, 'pageshow', rearm);
      listen(window, 'pagehide', disarm);
      rearm();
    },
  };
}
