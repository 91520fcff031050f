// The app's texts from a string table, as Prescriber's Letter took its strings from its content bundle: the
// installed library pack carries the table (GET /library/strings.json?lang=, English under every key the
// language lacks), and t(key, fallback) reads it. A key the table does not have (no pack installed, an
// older pack, a key added to the app since) gives the fallback: the English text written where the key is
// used. Texts are put into the page as text, never as HTML; {name} in a text is a value filled in here.
//
// The language: the one set in the Library view (kept in localStorage), else the browser's. The last table
// loaded is kept too, so that the sign-in screen, drawn before a session can read the table, is in the same
// language as the app was.
//
// In index.html, data-t="key" gives an element's text (its English text is the fallback) and
// data-t-attr="placeholder:key; aria-label:key" its attributes; translate() applies the table to them.

const LANGUAGE_KEY = 'hreaderd.language';
const CACHE_KEY = 'hreaderd.strings';

let table = Object.create(null);
let language = 'en';
const listeners = new Set();

/** Fills {name} in a text with values.name (a missing value leaves {name} as it is). */
export function fill(text, values) {
  if (!values) return text;
  return String(text).replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name) => (values[name] !== undefined && values[name] !== null ? String(values[name]) : whole));
}

/** The text of `key` in the table, else `fallback` (else the key itself), with {name}s filled from values. */
export function t(key, fallback, values) {
  const found = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
  const text = typeof found === 'string' && found !== '' ? found : fallback ?? key;
  return fill(text, values);
}

/**
 * A text with a count in it: "{n} entry" or "{n} entries". The table holds one text for each plural form of
 * its language, `key.one`, `key.other` (and `key.few`, `key.many`… where the language has them, as
 * Intl.PluralRules names them); {n} is the count as numbers are written here, and values fill other {name}s.
 * one and other: the English (n === 1 is English's only singular). A table without the form the count asks
 * for gives `key.other`. The pack fills each key a language lacks with English: a text that is the English
 * one is chosen by English's rule, so "0 entries" never becomes "0 entry".
 */
export function tn(key, n, one, other, values) {
  const count = Number(n);
  const filled = { n: Number.isFinite(count) ? countFormat.format(count) : String(n), ...values };
  const english = count === 1 ? 'one' : 'other';
  let text = found(`${key}.${pluralForm(count, language)}`) ?? found(`${key}.other`);
  if (text === undefined || text === one || text === other) text = found(`${key}.${english}`) ?? (count === 1 ? one : other);
  return fill(text, filled);
}

// The count as count.toLocaleString() writes it, with the formatter made once (toLocaleString makes one a call).
const countFormat = new Intl.NumberFormat();
const pluralRules = new Map(); // language → Intl.PluralRules

/** The plural form ('one', 'few', 'many', 'other'…) of a count in a language; English's rule when unknown. */
export function pluralForm(n, lang = language) {
  let rules = pluralRules.get(lang);
  if (!rules) {
    try { rules = new Intl.PluralRules(lang); } catch { rules = new Intl.PluralRules('en'); }
    pluralRules.set(lang, rules);
  }
  return Number.isFinite(n) ? rules.select(n) : 'other';
}

function found(key) {
  const text = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
  return typeof text === 'string' && text !== '' ? text : undefined;
}

/**
 * A text of the table read each time it is shown, for the tables of texts a module makes when it loads
 * (before any string table is): String(text), `${text}` and the DOM helpers (h, textContent) read it then.
 * It is an object, not a string: a string's methods work on it, but typeof and === see an object.
 */
export function later(key, fallback) {
  return new LaterText(key, fallback);
}

class LaterText {
  constructor(key, fallback) {
    this.key = key;
    this.fallback = fallback;
  }

  toString() {
    return t(this.key, this.fallback);
  }

  toJSON() {
    return this.toString();
  }

  get length() {
    return this.toString().length;
  }
}

// Every method of a string (toLowerCase, replace, localeCompare…) works on the text as it reads now.
for (const name of Object.getOwnPropertyNames(String.prototype)) {
  if (name === 'constructor' || name === 'toString' || name === 'valueOf' || name === 'length') continue;
  if (typeof String.prototype[name] !== 'function') continue;
  LaterText.prototype[name] = function forward(...args) {
    return String.prototype[name].apply(this.toString(), args);
  };
}

/** Whether the table has the key (a translation or English from the pack): the fallback is not used. */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(table, key) && typeof table[key] === 'string' && table[key] !== '';
}

/** The language of the table in use ('en' when there is none). */
export function currentLanguage() {
  return language;
}

/**
 * Replaces the table: {key: text} from /library/strings.json (anything that is not a string is left out).
 * Everyone listening (onStringsChange) draws their texts again.
 */
export function setStrings(strings, lang = 'en') {
  const next = Object.create(null);
  for (const [key, text] of Object.entries(strings || {})) {
    if (typeof text === 'string') next[key] = text;
  }
  table = next;
  language = normaliseLanguage(lang) || 'en';
  for (const fn of listeners) fn();
}

/** fn() runs each time the table changes (a new language, a library update). */
export function onStringsChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** A language tag as the daemon takes it: letters, digits and hyphens ("fr", "pt-BR"), else ''. */
export function normaliseLanguage(tag) {
  const text = String(tag || '').trim().replace(/_/g, '-');
  return /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(text) ? text : '';
}

/** The language asked for: the setting when there is one ('' or 'auto': none), else the browser's first. */
export function chooseLanguage(setting, browserLanguages = []) {
  const chosen = normaliseLanguage(setting === 'auto' ? '' : setting);
  if (chosen) return chosen;
  for (const tag of browserLanguages || []) {
    const browser = normaliseLanguage(tag);
    if (browser) return browser;
  }
  return 'en';
}

/** The setting kept in this browser: a tag, or '' for the browser's language. */
export function languageSetting() {
  try { return localStorage.getItem(LANGUAGE_KEY) || ''; } catch { return ''; }
}

export function setLanguageSetting(tag) {
  try {
    if (tag) localStorage.setItem(LANGUAGE_KEY, tag);
    else localStorage.removeItem(LANGUAGE_KEY);
  } catch { /* private mode: for this page only */ }
}

/** The language to ask the daemon for now. */
export function wantedLanguage() {
  const browser = typeof navigator !== 'undefined' ? (navigator.languages?.length ? navigator.languages : [navigator.language]) : [];
  return chooseLanguage(languageSetting(), browser);
}

/** The table kept from the last load, when it was for `lang`: used before a session can read it. */
export function restoreStrings(lang = wantedLanguage()) {
  try {
    const kept = JSON.parse(localStorage.getItem(CACHE_KEY) || 'null');
    if (kept && kept.language === lang && kept.strings && typeof kept.strings === 'object') {
      setStrings(kept.strings, kept.language);
      return true;
    }
  } catch { /* nothing kept, or not readable */ }
  return false;
}

/**
 * Loads the table of the wanted language with read(lang) (the API's libraryStrings). Without a library
 * (no_library) or a session (401) the app stays in English: the fallbacks. Resolves to whether a table was
 * loaded.
 */
export async function loadStrings(read, lang = wantedLanguage()) {
  let data;
  try {
    data = await read(lang);
  } catch (error) {
    if (error?.code === 'no_library') clearStrings();
    return false;
  }
  const strings = data?.strings && typeof data.strings === 'object' ? data.strings : {};
  setStrings(strings, data?.language || lang);
  try { localStorage.setItem(CACHE_KEY, JSON.stringify({ language: lang, strings: table })); } catch { /* not kept */ }
  return true;
}

/** No library (any more): English, the fallbacks, and no table kept for the next visit. */
export function clearStrings() {
  forget();
  if (Object.keys(table).length || language !== 'en') setStrings({}, 'en');
}

function forget() {
  try { localStorage.removeItem(CACHE_KEY); } catch { /* nothing to forget */ }
}

// ---- The page's own texts (index.html) ----

const originals = new WeakMap(); // element → {text, attrs: {name: English text}}
const shownKeys = new WeakMap(); // element → [key, fallback]: a text the code put over its data-t text

/**
 * Shows another text in an element of the page that has a data-t text of its own (Sync now's "Starting…"),
 * kept through a change of language: translate() draws this key, not the element's. showKey(el) without a
 * key gives the element its own text again.
 */
export function showKey(el, key, fallback) {
  if (!originals.has(el)) originals.set(el, { text: el.textContent, attrs: {} });
  if (key) shownKeys.set(el, [key, fallback]);
  else shownKeys.delete(el);
  const own = originals.get(el);
  el.textContent = key ? t(key, fallback) : el.dataset.t ? t(el.dataset.t, own.text.trim()) : own.text;
}

/** Applies the table to root's [data-t] and [data-t-attr] elements; the English written there is the fallback. */
export function translate(root = document) {
  for (const el of root.querySelectorAll('[data-t], [data-t-attr]')) {
    let original = originals.get(el);
    if (!original) {
      original = { text: el.textContent, attrs: {} };
      originals.set(el, original);
    }
    let translated = false;
    const shown = shownKeys.get(el);
    if (shown) {
      const text = t(shown[0], shown[1]);
      if (el.textContent !== text) el.textContent = text;
      translated = text !== shown[1];
    } else if (el.dataset.t) {
      const text = t(el.dataset.t, original.text.trim());
      if (el.textContent !== text) el.textContent = text;
      translated = text !== original.text.trim();
    }
    for (const [attr, key] of attrPairs(el.dataset.tAttr)) {
      if (!(attr in original.attrs)) original.attrs[attr] = el.getAttribute(attr) ?? '';
      const text = t(key, original.attrs[attr]);
      el.setAttribute(attr, text);
      translated ||= text !== original.attrs[attr];
    }
    // A text in another language than the page's says so, for screen readers' voices.
    if (translated && language !== document.documentElement.lang) el.setAttribute('lang', language);
    else el.removeAttribute('lang');
  }
}

/** "placeholder:key; aria-label:key2" → [['placeholder', 'key'], ['aria-label', 'key2']]. */
export function attrPairs(spec) {
  const pairs = [];
  for (const part of String(spec || '').split(';')) {
    const at = part.indexOf(':');
    if (at < 1) continue;
    const attr = part.slice(0, at).trim();
    const key = part.slice(at + 1).trim();
    if (attr && key) pairs.push([attr, key]);
  }
  return pairs;
}
