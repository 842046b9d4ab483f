// Keys: the signing keys with where each is in its rotation, the rotation steps
// (POST .../keys/rotate: publish a next key, then activate it 300 s later) and removing a
// retired key (DELETE .../keys/{kid}). Every step asks for a confirmation first.
import { api } from './api.js';
import { h, screen, say, table, failure } from './ui.js';

const STATES = {
  next: 'published, not signing yet',
  active: 'signing',
  retired: 'retired: verifies the tokens it signed',
};

/** A button that asks again before it acts: the first press arms it with `confirm`. */
function confirmed(attrs, label, confirm, act) {
  let armed = false;
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      b.textContent = confirm;
      b.setAttribute('aria-live', 'polite');
      return;
    }
    b.disabled = true;
    await act();
  });
  return b;
}

/** The keys screen; `note`: the answer of the step just made. */
export async function keys(note) {
  const res = await api('GET', '/keys');
  const list = res.ok ? (res.data.keys ?? []) : [];
  const out = h('div', { id: 'keys-result' }, note ?? null);
  const remove = (k, force) =>
    confirmed(
      { class: 'danger', dataset: { remove: k.kid, force: force ? 'true' : undefined } },
      force ? `Remove ${k.algorithm} key anyway` : `Remove ${k.algorithm} key`,
      force
        ? 'Really remove it now? Tokens it signed stop verifying'
        : 'Really remove it? It leaves the JWKS',
      async () => {
        const r = await api(
          'DELETE',
          `/keys/${encodeURIComponent(k.kid)}${force ? '?force=true' : ''}`,
        );
        if (r.status === 204) {
          // The list is redrawn before the status says so: whoever reads the status sees the
          // key gone (a screen reader, or a test that waits for the words).
          await keys();
          return say(`Key ${k.kid} removed.`);
        }
        out.replaceChildren(
          failure(r, 'Remove'),
          r.status === 409 && !force ? remove(k, true) : null,
        );
      },
    );
  const rows = list.map((k) => [
    h('code', {}, k.kid),
    k.algorithm ?? '',
    k.status ?? '',
    STATES[k.rotation] ?? k.rotation ?? '',
    k.rotation === 'retired' ? remove(k, false) : '',
  ]);
  const alg = h(
    'select',
    { id: 'rotate-alg' },
    ['RS256', 'ES256'].map((a) => h('option', { value: a }, a)),
  );
  const hasNext = () => list.some((k) => k.algorithm === alg.value && k.rotation === 'next');
  const stepText = () =>
    hasNext() ? `Activate the next ${alg.value} key` : `Publish a next ${alg.value} key`;
  const rotate = confirmed(
    { id: 'rotate-keys', class: 'primary' },
    stepText(),
    'Confirm: rotate',
    async () => {
      const r = await api('POST', `/keys/rotate?alg=${encodeURIComponent(alg.value)}`);
      if (!r.ok) return keys(failure(r, 'Rotate'));
      const s = r.data;
      const text =
        s.step === 'published'
          ? `Published ${s.kid}: relying parties fetch it now; activate it from ${new Date(s.activate_after).toLocaleString()}.`
          : `Activated ${s.kid}: it signs from now on; remove the retired key from ${new Date(s.remove_retired_after).toLocaleString()}.`;
      await keys(h('p', { class: 'note ok', dataset: { step: s.step } }, text));
      return say(text);
    },
  );
  alg.addEventListener('change', () => {
    rotate.textContent = stepText();
  });
  screen(
    'Keys',
    res.ok
      ? table('Signing keys', ['kid', 'Algorithm', 'Status', 'Rotation', ''], rows)
      : failure(res, 'Keys'),
    h('h2', {}, 'Rotate'),
    h(
      'p',
      { class: 'muted' },
      'Two steps per algorithm: publish a next key (it is in the JWKS, signs nothing), then, 5 minutes or more later, activate it. Remove the retired key once the tokens it signed have expired.',
    ),
    h('div', { class: 'field' }, h('label', { for: 'rotate-alg' }, 'Algorithm'), alg),
    h('div', { class: 'buttons' }, rotate),
    out,
  );
}
