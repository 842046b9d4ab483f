// The keys screen: the identity's passkeys and device key.
import * as device from './device.js';
import { showHome } from './home.js';
import { signedOutNote } from './signout.js';
import { h, message, show } from './ui.js';

/** The identity's keys (issue 26): each passkey and the device key, where each was last used;
 * add a passkey (an upgrade retires the device key), remove one (never the last). */
export async function showKeys(me) {
  const list = h('ul', { class: 'keys', id: 'keys-list' });
  const out = h('div');
  const upgrade = !me.passkey && (await device.canUsePasskeys());
  const add = h(
    'button',
    { type: 'button', class: 'primary', id: upgrade ? 'upgrade' : 'add-passkey' },
    upgrade ? 'Use a passkey on this phone' : 'Add a passkey',
  );
  show(
    'Keys and passkeys',
    upgrade
      ? h(
          'p',
          { id: 'upgrade-why' },
          'With a passkey, every approval asks for your fingerprint, face or PIN: someone holding your unlocked phone cannot approve for you. Your current key signs the passkey over, then retires.',
        )
      : null,
    list,
    add,
    h('button', { type: 'button', onclick: () => showHome(me) }, 'Back'),
    out,
  );
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
  const used = (k) =>
    k.last_used_at
      ? `Last used ${new Date(k.last_used_at).toLocaleString()}${k.last_used_from ? ` from ${k.last_used_from}` : ''}`
      : 'Not used yet';
  // Removing a key asks first, and offers to sign out everywhere (checked: a key one removes
  // may have been lost or copied, and whoever holds it may hold sessions too; issue 38).
  const confirmRemoval = async (id, everywhere) => {
    await device.removeKey(me, id);
    if (id === me.passkey) {
      // This phone signed with the removed passkey: it signs with another one from now on.
      const other = keys.passkeys.find((k) => k.credential_id !== id);
      me = other ? await device.usePasskey(me, other.credential_id) : me;
    }
    if (!everywhere) return showKeys(me);
    const done = await device.signOutEverywhere(me);
    showHome(me, `The key was removed. ${signedOutNote(done)}`);
  };
  const remove = (id) => {
    const area = h('div', { class: 'remove-area' });
    const ask = h(
      'button',
      {
        type: 'button',
        class: 'danger remove-key',
        'data-key': id,
        onclick: () => {
          const everywhere = h('input', { type: 'checkbox', id: 'remove-sign-out', checked: true });
          const yes = h(
            'button',
            { type: 'button', class: 'danger', id: 'remove-confirm' },
            'Remove it',
          );
          const no = h(
            'button',
            { type: 'button', id: 'remove-cancel', onclick: () => area.replaceChildren(ask) },
            'Cancel',
          );
          yes.addEventListener('click', async () => {
            yes.disabled = true;
            try {
              await confirmRemoval(id, everywhere.checked);
            } catch (e) {
              yes.disabled = false;
              out.replaceChildren(
                message(
                  e.code === 'last_key'
                    ? 'This is your last key: add another before removing it.'
                    : e.message,
                ),
              );
            }
          });
          area.replaceChildren(
            h(
              'div',
              { class: 'check' },
              everywhere,
              h(
                'label',
                { for: 'remove-sign-out' },
                'It was lost or may have been copied: also sign out everywhere',
              ),
            ),
            h('div', { class: 'buttons' }, yes, no),
          );
        },
      },
      'Remove',
    );
    area.append(ask);
    return area;
  };
  for (const k of keys.passkeys) {
    list.append(
      h(
        'li',
        { class: 'passkey', 'data-credential': k.credential_id },
        h('strong', {}, k.name),
        k.credential_id === me.passkey ? ' (this phone)' : '',
        h('p', { class: 'muted small' }, `Passkey · ${used(k)}`),
        k.max_acr === '1'
          ? h(
              'p',
              { class: 'muted small passkey-level' },
              'Added with the device key: its logins count as the device key’s (no fingerprint, face or PIN level).',
            )
          : null,
        remove(k.credential_id),
      ),
    );
  }
  if (keys.device_key) {
    list.append(
      h(
        'li',
        { class: 'device-key', 'data-credential': 'device' },
        h('strong', {}, 'Device key'),
        me.passkey ? '' : ' (this phone)',
        h('p', { class: 'muted small' }, 'Signs without asking for your unlock'),
        remove('device'),
      ),
    );
  }
}
