// The sign-up screen: name (checked as the person types), display name, country and photo.
import * as device from './device.js';
import { t } from './i18n.js';
import { busy, field, h, languagePicker, message, photoInput, show } from './ui.js';

/** The sign-up form; `done(me)` runs with the new identity. */
export function showSignUp(done, intro) {
  const name = h('input', {
    id: 'name',
    name: 'name',
    required: true,
    minlength: '3',
    maxlength: '32',
    pattern: '[a-z0-9._\\-]{3,32}',
    autocomplete: 'username',
    autocapitalize: 'none',
    spellcheck: 'false',
    'aria-describedby': 'name-hint',
  });
  const display = h('input', {
    id: 'display-name',
    name: 'display_name',
    required: true,
    maxlength: '64',
    autocomplete: 'name',
  });
  const country = h('input', {
    id: 'country',
    name: 'country_code',
    required: true,
    minlength: '2',
    maxlength: '2',
    pattern: '[A-Z]{2}',
    autocapitalize: 'characters',
    autocomplete: 'country',
    'aria-describedby': 'country-hint',
  });
  country.value = (navigator.language.split('-')[1] ?? '').toUpperCase().slice(0, 2);
  const photo = photoInput('photo');
  const submit = h(
    'button',
    { type: 'submit', class: 'primary', id: 'signup' },
    t('signup-submit'),
  );
  const out = h('div', { id: 'signup-result' });
  const form = h(
    'form',
    { id: 'signup-form', novalidate: true },
    field(t('signup-name'), name, t('signup-name-hint')),
    field(t('display-name'), display),
    field(t('signup-country'), country, t('signup-country-hint')),
    photo.field,
    submit,
    out,
  );

  const hint = () => document.getElementById('name-hint');
  let checking = 0;
  let timer;
  name.addEventListener('input', () => {
    name.value = name.value.toLowerCase();
    clearTimeout(timer);
    const value = name.value;
    if (!name.checkValidity()) {
      hint().textContent = t('signup-name-hint');
      hint().className = 'hint muted';
      return;
    }
    timer = setTimeout(async () => {
      const mine = ++checking;
      try {
        const free = await device.nameAvailable(value);
        if (mine !== checking) return;
        hint().textContent = t(free ? 'signup-available' : 'signup-taken', { name: value });
        hint().className = free ? 'hint ok' : 'hint bad';
        name.setCustomValidity(free ? '' : 'taken');
      } catch (e) {
        if (mine === checking) hint().textContent = e.message;
      }
    }, 250);
  });
  name.addEventListener('input', () => name.setCustomValidity(''));
  country.addEventListener('input', () => {
    country.value = country.value.toUpperCase();
  });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!form.checkValidity()) {
      out.replaceChildren(message(t('signup-check')));
      form.querySelector(':invalid')?.focus();
      return;
    }
    busy(submit, out, async () => {
      try {
        await device.signUp({
          name: name.value,
          displayName: display.value.trim(),
          country: country.value,
        });
      } catch (e) {
        if (e.code === 'name_taken') {
          hint().textContent = t('signup-taken', { name: name.value });
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
          alert(t('signup-photo-failed', { reason: e.message }));
        }
        me = await device.load();
      }
      done(me);
    });
  });

  show(
    t('signup-title'),
    intro ? h('p', {}, intro) : null,
    h('p', { class: 'muted' }, t('signup-intro')),
    form,
    // Not while a scanned login waits: picking a language loads the app again.
    location.pathname.endsWith('/app/scan') ? null : languagePicker(),
  );
}
