// The sign-up screen: name (checked as the person types), display name, country and photo.
import * as device from './device.js';
import { busy, field, h, message, photoInput, show } from './ui.js';

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
    'Create my scanid',
  );
  const out = h('div', { id: 'signup-result' });
  const form = h(
    'form',
    { id: 'signup-form', novalidate: true },
    field('Name (your unique handle)', name, '3 to 32 of a–z, 0–9, dot, underscore, hyphen.'),
    field('Display name', display),
    field('Country (two letters, e.g. SE)', country, 'ISO 3166-1 code, upper case.'),
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
      hint().textContent = '3 to 32 of a–z, 0–9, dot, underscore, hyphen.';
      hint().className = 'hint muted';
      return;
    }
    timer = setTimeout(async () => {
      const mine = ++checking;
      try {
        const free = await device.nameAvailable(value);
        if (mine !== checking) return;
        hint().textContent = free
          ? `“${value}” is available.`
          : `“${value}” is taken. Choose another name.`;
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
      out.replaceChildren(message('Please check the highlighted fields.'));
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

  show(
    'Create your scanid',
    intro ? h('p', {}, intro) : null,
    h(
      'p',
      { class: 'muted' },
      'Your identity lives on this phone: a key is made here and never leaves it.',
    ),
    form,
  );
}
