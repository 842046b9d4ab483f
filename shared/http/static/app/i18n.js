// The web app's words, in the phone's language (docs/book/src/languages.md).
//
// The shell's `#languages` block lists the languages scanid speaks, each with the file of its
// messages (`messages-{tag}-{hash}.json`, compiled from shared/http/locales/app/{tag}.ftl when
// scanid is built, named by its content so it is cached for good). The app fetches only its
// own language's file: the one the person picked in the app (remembered in localStorage),
// else the first of `navigator.languages` scanid speaks, else the realm's default.

const KEY = 'scanid-language';
let table = {};
let lang = 'en';
let intl = 'en';
let rtl = false;

/** Message ids a screen asked for that the catalogue lacks (the tests hold it empty). */
export const missing = [];

function shell() {
  try {
    return JSON.parse(document.getElementById('languages')?.textContent ?? '{}');
  } catch {
    return {};
  }
}

/** The languages scanid speaks: `{tag, name, dir, href}`. */
export function languages() {
  return shell().languages ?? [];
}

/** The language of `tag` scanid speaks, matched as the pages match it
 * (shared/core/src/domain/locale.rs): by the first subtag; Chinese only in simplified script. */
export function matching(tag, list = languages()) {
  const [primary, ...rest] = String(tag).toLowerCase().replace(/_/g, '-').split('-');
  if (primary === 'zh') {
    const first = rest[0];
    const traditional =
      first === 'hant' || ['tw', 'hk', 'mo'].includes(first) || rest.includes('hant');
    return traditional && first !== 'hans' ? null : (list.find((l) => l.tag === 'zh-Hans') ?? null);
  }
  return list.find((l) => l.tag.toLowerCase().split('-')[0] === primary) ?? null;
}

/** The person's pick in the app, if any. */
export function picked() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Remembers `tag` as the person's pick (`null`: the phone's language again). */
export function pick(tag) {
  try {
    if (tag) localStorage.setItem(KEY, tag);
    else localStorage.removeItem(KEY);
  } catch {
    // Private browsing without storage: the pick lasts this page only.
  }
}

async function fetchMessages(l) {
  const res = await fetch(new URL(l.href, document.baseURI ?? location.href), {
    credentials: 'same-origin',
  });
  if (!res.ok) throw new Error(`${res.status}`);
  return res.json();
}

/** Chooses the language and loads its messages; sets `<html lang dir>`. */
export async function load() {
  const { default: fallback = 'en' } = shell();
  const list = languages();
  let choice = list.find((l) => l.tag === picked());
  if (choice) intl = choice.tag;
  for (const t of choice ? [] : (navigator.languages ?? [navigator.language])) {
    choice = matching(t, list);
    if (choice) {
      // Dates and numbers as the phone's own tag says (de-AT, pt-BR), words in its language.
      intl = t;
      break;
    }
  }
  if (!choice) {
    choice = list.find((l) => l.tag === fallback) ?? list[0];
    intl = choice?.tag ?? 'en';
  }
  if (!choice) return;
  lang = choice.tag;
  rtl = choice.dir === 'rtl';
  document.documentElement.lang = lang;
  document.documentElement.dir = choice.dir;
  try {
    table = await fetchMessages(choice);
  } catch {
    // Offline before the messages were ever kept: English, if it was.
    const en = list.find((l) => l.tag === 'en');
    table = en && en !== choice ? await fetchMessages(en).catch(() => ({})) : {};
  }
  const manifest = document.querySelector('link[rel="manifest"]');
  if (manifest)
    manifest.href = manifest.href.replace(/manifest-[^/]*$/, `manifest-${lang}.webmanifest`);
}

/** The language the app speaks now (a tag of `languages()`). */
export function current() {
  return lang;
}

/** A number, for this language. */
export function number(n) {
  return new Intl.NumberFormat(intl).format(n);
}

/** A time of day ("until 12:03"). */
export function time(at) {
  return new Intl.DateTimeFormat(intl, { hour: 'numeric', minute: '2-digit' }).format(new Date(at));
}

/** A date and time ("asked at", "last used"). */
export function dateTime(at) {
  return new Intl.DateTimeFormat(intl, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(at),
  );
}

function value(v) {
  if (typeof v === 'number') return number(v);
  if (typeof v === 'string' && rtl) return `\u2068${v}\u2069`; // names keep their direction
  return v;
}

function variant(sel, v) {
  const exact = sel.v[String(v)];
  if (exact) return exact;
  if (typeof v === 'number') {
    const cat = new Intl.PluralRules(intl).select(v);
    if (sel.v[cat]) return sel.v[cat];
  }
  return sel.v[sel.d];
}

function format(pattern, args, out) {
  if (typeof pattern === 'string') {
    out.push(pattern);
    return out;
  }
  for (const p of pattern) {
    if (typeof p === 'string') out.push(p);
    else if (p.s !== undefined) format(variant(p, args[p.s]), args, out);
    else out.push(value(args[p.$]) ?? `{$${p.$}}`);
  }
  return out;
}

function find(id) {
  if (id in table) return table[id];
  missing.push(`${lang}:${id}`);
  document.documentElement.dataset.missing = missing.join(' ');
  // Never in a build that passed its tests (they hold every catalogue complete).
  return id;
}

/** The message `id` with `args` (strings, numbers), as text. */
export function t(id, args = {}) {
  return format(find(id), args, []).join('');
}

/** The message `id` as parts, where an argument may be an element (a name in `<strong>`). */
export function parts(id, args = {}) {
  return format(find(id), args, []);
}
