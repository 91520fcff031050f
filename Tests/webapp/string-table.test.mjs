// The web app's string table against the app's code: every key the app uses (t('key', …), later('key', …),
// data-t and data-t-attr in index.html, a key written as a string such as the sign-in reasons) is in
// Resources/library/strings/en.tsv with the English text written where it is used, and every key of
// en.tsv is used (a key made at run time, t(`app.view.${view}`), uses the keys under its prefix). The test
// language (fr.tsv) has only keys English has, each with the same {names} to fill.

import './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { later, setStrings, t, tn } from '../../Public/timeline/js/strings.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const app = join(root, 'Public', 'timeline');
const strings = join(root, 'Resources', 'library', 'strings');

/** key → text of a string table (the pack tool's format: key TAB text, # comments, \t \n \\ escapes). */
function readTable(file) {
  const table = new Map();
  const lines = readFileSync(join(strings, file), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
  assert.equal(lines.shift(), 'key\ttext', `${file}: header`);
  for (const line of lines) {
    const cells = line.split('\t');
    assert.equal(cells.length, 2, `${file}: ${line}`);
    assert.ok(!table.has(cells[0]), `${file}: ${cells[0]} twice`);
    table.set(cells[0], cells[1].replace(/\\(.)/g, (_, c) => (c === 't' ? '\t' : c === 'n' ? '\n' : c)));
  }
  return table;
}

/** A JavaScript string literal's text ('…' or "…", no ${}). */
const unquote = (literal) => JSON.parse(`"${literal.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"').replace(/\\\\"/g, '\\"')}"`);

/** What the app's code uses: keys with the fallbacks written beside them, and prefixes of keys made at run time. */
function scanApp() {
  const sources = [join(app, 'app.js'), ...readdirSync(join(app, 'js')).filter((f) => f.endsWith('.js')).map((f) => join(app, 'js', f))];
  const used = new Map(); // key → [fallback or null, …]
  const prefixes = new Set();
  const note = (key, fallback) => {
    if (!used.has(key)) used.set(key, []);
    used.get(key).push(fallback);
  };
  const literal = String.raw`'(?:[^'\\\n]|\\.)*'`;
  for (const file of sources) {
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(new RegExp(String.raw`\b(?:t|later)\(\s*'((?:app|library)\.[A-Za-z0-9_.]+)'(?:\s*,\s*(${literal}))?`, 'g'))) {
      note(m[1], m[2] ? unquote(m[2]) : null);
    }
    // tn('key', count, 'one', 'other'): the keys key.one and key.other (the count an expression without quotes).
    const counted = [...code.matchAll(new RegExp(String.raw`\btn\(\s*'((?:app|library)\.[A-Za-z0-9_.]+)'\s*,[^'\n]*?,\s*(${literal})\s*,\s*(${literal})`, 'g'))];
    assert.equal(counted.length, [...code.matchAll(/\btn\(/g)].length - (file.endsWith('strings.js') ? 1 : 0), `${file}: every tn( has a key, a count and two texts`);
    for (const m of counted) {
      note(`${m[1]}.one`, unquote(m[2]));
      note(`${m[1]}.other`, unquote(m[3]));
    }
    for (const m of code.matchAll(/\bt\(\s*`((?:app|library)\.[A-Za-z0-9_.]*)\$\{/g)) prefixes.add(m[1]);
    // A key written as a string of its own, to be looked up later (the sign-in reasons).
    const countedKeys = new Set(counted.map((m) => m[1]));
    for (const m of code.matchAll(/'((?:app|library)\.[a-z0-9_]+(?:\.[a-z0-9_]+)+)'/g)) if (!used.has(m[1]) && !countedKeys.has(m[1])) note(m[1], null);
  }
  const html = readFileSync(join(app, 'index.html'), 'utf8');
  for (const m of html.matchAll(/<([a-z0-9]+)\b[^>]*\sdata-t="([^"]+)"[^>]*>([^<]*)</g)) note(m[2], m[3].trim().replace(/&amp;/g, '&') || null);
  for (const m of html.matchAll(/data-t-attr="([^"]+)"/g)) {
    for (const part of m[1].split(';')) {
      const key = part.slice(part.indexOf(':') + 1).trim();
      if (key) note(key, null);
    }
  }
  return { used, prefixes };
}

const english = readTable('en.tsv');
const french = readTable('fr.tsv');
const { used, prefixes } = scanApp();

test('the app uses hundreds of keys, in every module that shows text', () => {
  assert.ok(used.size > 600, `${used.size} keys`);
  for (const module of ['page', 'summary', 'entry_details', 'entry_list', 'uploads', 'imports', 'backups', 'people', 'readings', 'annotations', 'documents', 'search']) {
    assert.ok([...used.keys()].some((key) => key.startsWith(`app.${module}.`)), module);
  }
});

test('every key the app uses is in en.tsv', () => {
  const missing = [...used.keys()].filter((key) => !english.has(key));
  assert.deepEqual(missing, []);
});

test("en.tsv's text of each key is the English written where the app uses it", () => {
  const differ = [];
  for (const [key, fallbacks] of used) {
    for (const fallback of fallbacks) {
      if (fallback !== null && english.has(key) && english.get(key) !== fallback) differ.push(`${key}: "${english.get(key)}" ≠ "${fallback}"`);
    }
  }
  assert.deepEqual(differ, []);
});

test('every key of en.tsv is used by the app', () => {
  const unused = [...english.keys()].filter((key) => !used.has(key) && ![...prefixes].some((prefix) => key.startsWith(prefix)));
  assert.deepEqual(unused, []);
});

test('the test language has only keys English has, with the same {names}, and covers several views', () => {
  const names = (text) => [...text.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]).sort();
  for (const [key, text] of french) {
    assert.ok(english.has(key), `fr.tsv: ${key} is not in en.tsv`);
    assert.deepEqual(names(text), names(english.get(key)), key);
  }
  for (const module of ['page', 'summary', 'entry_details', 'people', 'patients', 'lane_layout', 'search', 'backups']) {
    assert.ok([...french.keys()].some((key) => key.startsWith(`app.${module}.`)), `fr.tsv has no app.${module}.* key`);
  }
});

test('a text read later follows the table: shown, compared and lower-cased in the language of the moment', () => {
  const word = later('app.lane_layout.conditions', 'Conditions');
  setStrings({}, 'en');
  assert.equal(String(word), 'Conditions');
  assert.equal(`${word}`, 'Conditions');
  setStrings({ 'app.lane_layout.conditions': 'Problèmes de santé' }, 'fr');
  assert.equal(String(word), 'Problèmes de santé');
  assert.equal(word.toLowerCase(), 'problèmes de santé');
  assert.equal(word.length, 'Problèmes de santé'.length);
  assert.equal(JSON.stringify({ word }), '{"word":"Problèmes de santé"}');
  assert.equal(t('app.lane_layout.conditions', 'Conditions'), 'Problèmes de santé');
  setStrings({}, 'en');
});

test('a text with a count has its singular and its plural in each table', () => {
  for (const [name, table] of [['en.tsv', english], ['fr.tsv', french]]) {
    for (const key of table.keys()) {
      const stem = key.replace(/\.(one|other)$/, '');
      if (stem === key || !used.has(`${stem}.one`)) continue;
      assert.ok(table.has(`${stem}.one`) && table.has(`${stem}.other`), `${name}: ${stem} needs .one and .other`);
      assert.ok(table.get(`${stem}.other`).includes('{n}'), `${name}: ${stem}.other says the count`);
    }
  }
});

test("French counts from fr.tsv: 0 and 1 take the singular; a key French lacks is English, by English's rule", () => {
  setStrings(Object.fromEntries([...english, ...french]), 'fr'); // as the daemon sends it: English under what French lacks
  const entries = (n) => tn('app.people.count.record_entries', n, '{n} record entry', '{n} record entries');
  assert.deepEqual([0, 1, 2].map(entries), ['0 entrée du dossier', '1 entrée du dossier', '2 entrées du dossier']);
  assert.equal(tn('app.lane_layout.count.condition', 3, '{n} condition', '{n} conditions'), '3 problèmes de santé');
  assert.ok(!french.has('app.documents.count.sections.one'), 'a key the test language lacks');
  assert.deepEqual([0, 1].map((n) => tn('app.documents.count.sections', n, '{n} section', '{n} sections')), ['0 sections', '1 section']);
  setStrings({}, 'en');
});
