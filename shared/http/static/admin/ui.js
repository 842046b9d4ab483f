// Small DOM helpers: elements built from text (never markup), the screen, the status line.

/** An element: `h('button', { type: 'button', onclick }, 'Save')`. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces the screen with `children`, headed by `title`; focus moves to the heading. */
export function screen(title, ...children) {
  const main = document.getElementById('view');
  const heading = h('h1', { tabindex: '-1' }, title);
  main.replaceChildren(heading, ...children);
  heading.focus();
  return main;
}

/** Says `text` in the status line (read out by screen readers). */
export function say(text, kind = 'ok') {
  const s = document.getElementById('status');
  s.replaceChildren(text ? h('span', { class: `note ${kind}` }, text) : '');
}

/** A labelled input: `field('client-id', 'Client ID', { value })`. */
export function field(id, label, attrs = {}, tag = 'input') {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h(tag, { id, name: id, ...attrs }),
  );
}

/** A labelled checkbox. */
export function check(id, label, checked) {
  return h(
    'div',
    { class: 'check' },
    h('input', { type: 'checkbox', id, name: id, checked: !!checked }),
    h('label', { for: id }, label),
  );
}

/** A table of `rows` (arrays of cells) under `headers`. */
export function table(caption, headers, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', { class: 'muted small' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            r.map((c) => h('td', {}, c)),
          ),
        ),
      ),
    ),
  );
}

/** The note for an API answer that did not succeed; "not available" for a 404 of a path. */
export function failure(res, what) {
  if (res.status === 404 && res.missing) {
    return h(
      'p',
      { class: 'note warn', dataset: { unavailable: what } },
      `${what}: not available on this server.`,
    );
  }
  const why =
    res.data?.errorMessage ??
    res.data?.error_description ??
    res.data?.error ??
    `HTTP ${res.status}`;
  return h('p', { class: 'note error', role: 'alert' }, `${what}: ${why}`);
}

/** Seconds or milliseconds since the epoch, as a local date and time. */
export function when(ms) {
  return ms ? new Date(ms).toLocaleString() : '';
}
