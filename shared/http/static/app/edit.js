// The profile editor: display name and photo.
import * as device from './device.js';
import { showHome } from './home.js';
import { t } from './i18n.js';
import { busy, field, h, photoInput, show } from './ui.js';

export function showEdit(me) {
  const display = h('input', {
    id: 'edit-display-name',
    required: true,
    maxlength: '64',
    value: me.profile.display_name,
  });
  const photo = photoInput('edit-photo');
  const save = h('button', { type: 'submit', class: 'primary', id: 'save' }, t('edit-save'));
  const out = h('div');
  const form = h(
    'form',
    { novalidate: true },
    field(t('display-name'), display),
    photo.field,
    save,
    h('button', { type: 'button', onclick: () => showHome(me) }, t('cancel')),
    out,
  );
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
      showHome(now, t('edit-saved'));
    });
  });
  show(t('edit-title'), form);
}
