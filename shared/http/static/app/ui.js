// The web app's building blocks: elements, screens, messages, busy buttons, form fields and
// the photo picker. Markup is built with DOM calls and textContent only: nothing from the
// service or the person is ever parsed as HTML.

import * as i18n from './i18n.js';

const view = document.getElementById('view');

/** An element: `h('p', { class: 'muted' }, 'text', child, ...)`. */
export function h(tag, attrs = {}, ...children) {
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
export function show(title, ...children) {
  const heading = h('h1', { tabindex: '-1' }, title);
  view.replaceChildren(
    heading,
    ...children.flat().filter((c) => c !== null && c !== undefined && c !== false),
  );
  document.title = `${title} · scanid`;
  heading.focus();
}

export function message(text, kind = 'error') {
  return h('p', { class: `note ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** Runs `work` with `button` busy; shows a failure in `out`. */
export async function busy(button, out, work) {
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

/**
 * A button that asks before it acts: pressed, it shows `question` (an alert) with a confirming
 * button (`yes`, id `yesId`) and Cancel (id `noId`), which puts the button back; confirmed,
 * `act()` runs with the confirming button busy (a failure is shown below it). Returns the area
 * to place.
 */
export function askFirst({ label, className, question, yes, yesId, noId, act }) {
  const area = h('div');
  const ask = h('button', { type: 'button', class: `danger ${className}` }, label);
  ask.addEventListener('click', () => {
    const confirm = h('button', { type: 'button', class: 'danger', id: yesId }, yes);
    const no = h('button', { type: 'button', id: noId }, i18n.t('cancel'));
    const out = h('div');
    no.addEventListener('click', () => area.replaceChildren(ask));
    confirm.addEventListener('click', () => busy(confirm, out, act));
    area.replaceChildren(
      h('p', { class: 'note error small', role: 'alert' }, question),
      h('div', { class: 'buttons' }, confirm, no),
      out,
    );
    confirm.focus();
  });
  area.append(ask);
  return area;
}

export function field(label, input, hint) {
  const id = input.id;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { class: 'hint muted', id: `${id}-hint`, 'aria-live': 'polite' }, hint) : null,
  );
}

/** A photo picker (camera or file) with a preview; `file()` is the chosen file. */
export function photoInput(id) {
  const input = h('input', {
    id,
    type: 'file',
    accept: 'image/jpeg,image/png,image/webp',
    'aria-describedby': `${id}-hint`,
  });
  const preview = h('img', { class: 'avatar preview', alt: '', hidden: true });
  let url;
  input.addEventListener('change', () => {
    if (url) URL.revokeObjectURL(url);
    const f = input.files?.[0];
    const hint = document.getElementById(`${id}-hint`);
    if (f && f.size > 1024 * 1024) {
      hint.textContent = i18n.t('photo-too-large');
      hint.className = 'hint bad';
      input.value = '';
      preview.hidden = true;
      return;
    }
    hint.textContent = i18n.t('photo-hint');
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
    field: h(
      'div',
      { class: 'field' },
      h('label', { for: id }, i18n.t('photo')),
      input,
      preview,
      h(
        'p',
        { class: 'hint muted', id: `${id}-hint`, 'aria-live': 'polite' },
        i18n.t('photo-hint'),
      ),
    ),
    file: () => input.files?.[0],
  };
}

/** The language selector: the phone's language unless the person picks another here
 * (remembered on this phone); picking one shows the app again in it. */
export function languagePicker() {
  const select = h('select', { id: 'language', name: 'language' });
  for (const l of i18n.languages()) {
    select.append(
      h('option', { value: l.tag, lang: l.tag, selected: l.tag === i18n.current() }, l.name),
    );
  }
  select.addEventListener('change', () => {
    i18n.pick(select.value);
    location.reload();
  });
  return h(
    'div',
    { class: 'field language' },
    h('label', { for: 'language' }, i18n.t('language')),
    select,
  );
}
