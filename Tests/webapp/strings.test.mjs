// The string table (Public/timeline/js/strings.js): a key the table has gives its text, a missing one the
// English fallback; {name}s are filled; the language asked for is the setting, else the browser's.

import './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attrPairs, chooseLanguage, currentLanguage, fill, has, loadStrings, normaliseLanguage, onStringsChange, setStrings, t } from '../../Public/timeline/js/strings.js';

test('without a table every key gives its fallback, else the key itself', () => {
  setStrings({}, 'en');
  assert.equal(t('library.title', 'Health library'), 'Health library');
  assert.equal(t('library.nothing'), 'library.nothing');
  assert.equal(has('library.title'), false);
});

test("a key the table has gives the table's text; a missing key English", () => {
  setStrings({ 'library.title': 'Bibliothèque santé', 'library.search.button': 'Rechercher' }, 'fr');
  assert.equal(t('library.title', 'Health library'), 'Bibliothèque santé');
  assert.equal(t('library.search.label', 'Search the health library'), 'Search the health library');
  assert.equal(currentLanguage(), 'fr');
  assert.equal(has('library.title'), true);
});

test('an empty or non-text entry of the table is missing, and an object key of the prototype too', () => {
  setStrings({ 'a.empty': '', 'a.number': 3, 'a.null': null }, 'en');
  assert.equal(t('a.empty', 'fallback'), 'fallback');
  assert.equal(t('a.number', 'fallback'), 'fallback');
  assert.equal(t('a.null', 'fallback'), 'fallback');
  assert.equal(t('toString', 'fallback'), 'fallback');
  assert.equal(t('__proto__', 'fallback'), 'fallback');
});

test('{name} is filled from the values, as text; an unknown name stays as written', () => {
  setStrings({ 'u.offer': 'Version {version} ({size}) est là.' }, 'fr');
  assert.equal(t('u.offer', 'Version {version} ({size}) is here.', { version: '2025.11', size: '2.1 MB' }), 'Version 2025.11 (2.1 MB) est là.');
  assert.equal(t('u.missing', 'Updated to {version}.', { version: '<b>1</b>' }), 'Updated to <b>1</b>.');
  assert.equal(fill('{a} and {b}', { a: 1 }), '1 and {b}');
  assert.equal(fill('{a}', { a: 0 }), '0');
  assert.equal(fill('{a}', null), '{a}');
});

test("the language: the setting, else the browser's first usable tag, else English", () => {
  assert.equal(chooseLanguage('fr', ['de-DE']), 'fr');
  assert.equal(chooseLanguage('', ['de-DE', 'en']), 'de-DE');
  assert.equal(chooseLanguage('auto', ['pt_BR']), 'pt-BR');
  assert.equal(chooseLanguage(null, ['*', 'it']), 'it');
  assert.equal(chooseLanguage('', []), 'en');
  assert.equal(normaliseLanguage('fr"><script>'), '');
  assert.equal(normaliseLanguage(' es-419 '), 'es-419');
});

test('loading a table: its strings in its language; no library: English; a failure keeps what there was', async () => {
  let changes = 0;
  const stop = onStringsChange(() => { changes += 1; });
  assert.equal(await loadStrings(async (lang) => ({ language: lang, strings: { 'x.y': `in ${lang}` } }), 'fr'), true);
  assert.equal(t('x.y', 'English'), 'in fr');
  assert.equal(currentLanguage(), 'fr');
  assert.equal(await loadStrings(async () => { throw Object.assign(new Error('down'), { code: 'offline' }); }, 'fr'), false);
  assert.equal(t('x.y', 'English'), 'in fr', 'a daemon that does not answer changes nothing');
  assert.equal(await loadStrings(async () => { throw Object.assign(new Error('none'), { code: 'no_library' }); }, 'fr'), false);
  assert.equal(t('x.y', 'English'), 'English');
  assert.equal(currentLanguage(), 'en');
  assert.equal(changes, 2);
  stop();
});

test('data-t-attr lists attribute:key pairs', () => {
  assert.deepEqual(attrPairs('placeholder:library.search.placeholder; aria-label: app.x'), [['placeholder', 'library.search.placeholder'], ['aria-label', 'app.x']]);
  assert.deepEqual(attrPairs(''), []);
  assert.deepEqual(attrPairs('nokey; :x; title:'), []);
});

test('a count chooses its text by the plural rule of the language: English 1 and the rest, French 0 and 1', async () => {
  const { tn, pluralForm } = await import('../../Public/timeline/js/strings.js');
  const entries = (n) => tn('app.x.entries', n, '{n} entry', '{n} entries');
  setStrings({}, 'en');
  assert.deepEqual([0, 1, 2, 1234].map(entries), ['0 entries', '1 entry', '2 entries', `${(1234).toLocaleString()} entries`]);
  setStrings({ 'app.x.entries.one': '{n} entrée', 'app.x.entries.other': '{n} entrées' }, 'fr');
  assert.deepEqual([0, 1, 2].map(entries), ['0 entrée', '1 entrée', '2 entrées']);
  assert.equal(pluralForm(1000000, 'fr'), 'many', 'French has a form English lacks');
  assert.equal(entries(1000000), `${(1000000).toLocaleString()} entrées`, 'a form the table lacks gives key.other');
  // The pack's English under a key French lacks: English's rule, not French's.
  setStrings({ 'app.x.entries.one': '{n} entry', 'app.x.entries.other': '{n} entries' }, 'fr');
  assert.deepEqual([0, 1].map(entries), ['0 entries', '1 entry']);
  // Other values are filled too; a tag Intl does not know counts as English.
  setStrings({ 'app.x.of.one': '{n} de {who}', 'app.x.of.other': '{n} de {who}s' }, 'xx-Qqqq');
  assert.equal(tn('app.x.of', 2, '{n} of {who}', '{n} of {who}s', { who: 'x' }), '2 de xs');
  setStrings({}, 'en');
});

test("a text the code shows over an element's own (Sync now's Starting…) stays through a change of language", async () => {
  const { showKey, translate } = await import('../../Public/timeline/js/strings.js');
  const attrs = new Map();
  const button = {
    textContent: 'Sync now', dataset: { t: 'app.html.sync_now' },
    getAttribute: (name) => (attrs.has(name) ? attrs.get(name) : null), setAttribute: (name, value) => attrs.set(name, String(value)), removeAttribute: (name) => attrs.delete(name),
  };
  const root = { querySelectorAll: () => [button] };
  globalThis.document ??= { documentElement: { lang: 'en' } };
  setStrings({}, 'en');
  translate(root);
  showKey(button, 'app.imports.starting', 'Starting…');
  assert.equal(button.textContent, 'Starting…');
  setStrings({ 'app.imports.starting': 'Démarrage…', 'app.html.sync_now': 'Synchroniser' }, 'fr');
  translate(root);
  assert.equal(button.textContent, 'Démarrage…', 'the text shown, in the new language');
  showKey(button);
  assert.equal(button.textContent, 'Synchroniser', "the element's own text again, in the language of the moment");
  setStrings({}, 'en');
  translate(root);
  assert.equal(button.textContent, 'Sync now');
});
