// The keys screen: the identity's passkeys and device key.
import * as device from './device.js';
import { showHome } from './home.js';
import { signedOutNote } from './signout.js';
import { dateTime, t } from './i18n.js';
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
    t(upgrade ? 'keys-upgrade' : 'keys-add'),
  );
  show(
    t('home-keys'),
    upgrade ? h('p', { id: 'upgrade-why' }, t('keys-upgrade-why')) : null,
    list,
    add,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('back')),
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
      ? t(k.last_used_from ? 'keys-last-used-from' : 'keys-last-used', {
          when: dateTime(k.last_used_at),
          place: k.last_used_from,
        })
      : t('keys-not-used');
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
    showHome(me, `${t('keys-removed')} ${signedOutNote(done)}`);
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
            t('keys-remove-confirm'),
          );
          const no = h(
            'button',
            { type: 'button', id: 'remove-cancel', onclick: () => area.replaceChildren(ask) },
            t('cancel'),
          );
          yes.addEventListener('click', async () => {
            yes.disabled = true;
            try {
              await confirmRemoval(id, everywhere.checked);
            } catch (e) {
              yes.disabled = false;
              out.replaceChildren(message(e.code === 'last_key' ? t('keys-last-key') : e.message));
            }
          });
          area.replaceChildren(
            h(
              'div',
              { class: 'check' },
              everywhere,
              h('label', { for: 'remove-sign-out' }, t('keys-remove-sign-out')),
            ),
            h('div', { class: 'buttons' }, yes, no),
          );
        },
      },
      t('keys-remove'),
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
        k.credential_id === me.passkey ? ` ${t('keys-this-phone')}` : '',
        h('p', { class: 'muted small' }, `${t('keys-passkey')} · ${used(k)}`),
        k.max_acr === '1'
          ? h('p', { class: 'muted small passkey-level' }, t('keys-passkey-level'))
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
        h('strong', {}, t('keys-device-key')),
        me.passkey ? '' : ` ${t('keys-this-phone')}`,
        h('p', { class: 'muted small' }, t('keys-device-key-note')),
        remove('device'),
      ),
    );
  }
}
