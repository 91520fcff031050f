// The pure parts of the health library's views (Public/timeline/js/library-model.js): a snippet's parts as
// runs of text and marks, a summary cut short, the source lines, sizes, and what the update banner says.

import './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aboutSummary, attributionLines, bannerModel, groupCounts, isWebAddress, packSize, percent, publisherOf, sentence, shortSummary, snippetNodes, snippetRuns, summaryParagraphs, updateRunning } from '../../Public/timeline/js/library-model.js';
import { setStrings } from '../../Public/timeline/js/strings.js';

test('snippet parts become runs: matches marked, empty parts dropped, neighbours joined', () => {
  assert.deepEqual(snippetRuns([
    { text: '…an ', match: false }, { text: 'A1C', match: true }, { text: '', match: true },
    { text: ' test', match: false }, { text: ' for ', match: false }, { text: 'diabetes', match: true }, { text: ' and', match: true },
  ]), [{ text: '…an ', mark: false }, { text: 'A1C', mark: true }, { text: ' test for ', mark: false }, { text: 'diabetes and', mark: true }]);
  assert.deepEqual(snippetRuns(null), []);
  assert.deepEqual(snippetRuns([null, { text: 5 }, { match: true }]), [{ text: '5', mark: false }]);
});

test('markup in a snippet stays text: the runs become text nodes and <mark> elements with text', () => {
  const made = [];
  const doc = {
    createTextNode: (text) => { made.push(['text', text]); return { text }; },
    createElement: (tag) => { const el = { tag, textContent: '' }; made.push(['element', el]); return el; },
  };
  const nodes = snippetNodes([{ text: '<img src=x onerror=alert(1)> ', match: false }, { text: '<b>flu</b>', match: true }], doc);
  assert.equal(nodes.length, 2);
  assert.deepEqual(nodes[0], { text: '<img src=x onerror=alert(1)> ' });
  assert.equal(nodes[1].tag, 'mark');
  assert.equal(nodes[1].textContent, '<b>flu</b>');
});

test('a short summary: whole sentences up to the limit, else cut at a word with …', () => {
  const text = 'A1C is a blood test for type 2 diabetes and prediabetes. It measures your average blood glucose over the past 3 months. Doctors may use the A1C alone or with other tests.';
  assert.deepEqual(shortSummary(text, 500), { text, cut: false });
  assert.deepEqual(shortSummary(text, 120), { text: 'A1C is a blood test for type 2 diabetes and prediabetes. It measures your average blood glucose over the past 3 months.', cut: true });
  const long = shortSummary('word '.repeat(100), 50);
  assert.equal(long.cut, true);
  assert.ok(long.text.endsWith('word…'), long.text);
  assert.ok(long.text.length <= 51, long.text);
  assert.deepEqual(shortSummary('  several\n\n  spaces  '), { text: 'several spaces', cut: false });
  assert.deepEqual(shortSummary(null), { text: '', cut: false });
});

test("source lines: MedlinePlus's with the credit, or CDC's, each with the endorsement line", () => {
  setStrings({}, 'en');
  assert.deepEqual(attributionLines({ source: 'Source: MedlinePlus, National Library of Medicine', credit: 'NIH: National Cancer Institute' }), [
    { kind: 'source', text: 'Source: MedlinePlus, National Library of Medicine' },
    { kind: 'credit', text: 'Credit: NIH: National Cancer Institute' },
    { kind: 'endorsement', text: 'MedlinePlus and the National Library of Medicine do not endorse hreaderd.' },
  ]);
  assert.deepEqual(attributionLines(null, { publisher: 'cdc' }).map((l) => l.text), [
    'Source: CDC', "Use of CDC's vaccine codes does not imply endorsement of hreaderd by CDC."]);
  assert.equal(publisherOf({ source: 'Source: CDC' }), 'cdc');
  assert.equal(publisherOf({ publisher: 'medlineplus', source: 'Source: CDC' }), 'medlineplus');
  assert.equal(publisherOf({}), 'medlineplus');
  // From the table when it has them.
  setStrings({ 'library.source.cdc': 'Source : CDC' }, 'fr');
  assert.equal(attributionLines({ publisher: 'cdc' })[0].text, 'Source : CDC');
  setStrings({}, 'en');
});

test('sizes as a person reads them, and whole percents', () => {
  assert.equal(packSize(2215756), '2.1 MB');
  assert.equal(packSize(3 * 1024 * 1024), '3 MB');
  assert.equal(packSize(812), '812 B');
  assert.equal(packSize(undefined), '');
  assert.equal(percent(1, 3), 33);
  assert.equal(percent(5, 0), null);
  assert.equal(percent(7, 5), 100);
});

test('the banner: an offer with version and size, progress while it runs, then how it ended', () => {
  setStrings({}, 'en');
  const installed = { version: '2025.10.1' };
  assert.equal(bannerModel(null), null);
  assert.equal(bannerModel({ installed, available: null, update: { state: 'idle' } }), null);
  const offer = bannerModel({ installed, available: { version: '2025.11', bytes: 2215756 }, update: { state: 'idle' } });
  assert.deepEqual(offer, { state: 'available', text: 'A new health library (version 2025.11, 2.1 MB) is available.', progress: null, action: 'update' });
  const running = bannerModel({ installed, available: { version: '2025.11', bytes: 2215756 }, update: { state: 'downloading', done: 1048576, total: 2215756 } });
  assert.equal(running.text, 'Downloading the library update: 47% (1 MB of 2.1 MB)');
  assert.deepEqual(running.progress, { value: 1048576, max: 2215756 });
  assert.equal(running.action, null);
  assert.equal(updateRunning({ update: { state: 'downloading' } }), true);
  const unknown = bannerModel({ installed, available: null, update: { state: 'downloading', done: 10, total: null } });
  assert.deepEqual(unknown.progress, { value: null, max: 1 });
  assert.equal(bannerModel({ installed, update: { state: 'verifying' } }).text, 'Checking the library update…');
  const done = { installed: { version: '2025.11' }, available: null, update: { state: 'installed', done: 5, total: 5 } };
  assert.equal(bannerModel(done), null, 'an update this page did not ask for is not announced');
  assert.equal(bannerModel(done, { started: true }).text, 'The library was updated to version 2025.11.');
  const failed = { installed, available: { version: '2025.11', bytes: 10 }, update: { state: 'failed', error: 'The signature does not verify' } };
  assert.deepEqual(bannerModel(failed, { started: true }), {
    state: 'failed', text: 'The library update failed: The signature does not verify. The library you have stays as it was.', progress: null, action: 'retry' });
  assert.equal(updateRunning(failed), false);
  const stays = { ...failed, update: { state: 'failed', error: 'The file was changed or damaged. The installed pack stays.' } };
  assert.equal(bannerModel(stays, { started: true }).text,
    'The library update failed: The file was changed or damaged. The library you have stays as it was.');
});

test('an error in words ends as a sentence', () => {
  setStrings({}, 'en');
  assert.equal(sentence('cut halfway'), 'cut halfway.');
  assert.equal(sentence({ message: 'The publisher answered 500.' }), 'The publisher answered 500.');
  assert.equal(sentence(null), 'no reason was given.');
});

test('groups of the results, most topics first; only web addresses are links', () => {
  assert.deepEqual(groupCounts([{ groups: ['Infections', 'Children'] }, { groups: ['Infections', 'Infections'] }, { groups: [] }, {}]),
    [['Infections', 2], ['Children', 1]]);
  assert.equal(isWebAddress('https://medlineplus.gov/a1c.html'), true);
  assert.equal(isWebAddress('javascript:alert(1)'), false);
  assert.equal(isWebAddress('data:text/html,x'), false);
  assert.equal(isWebAddress('not a url'), false);
});

test('a summary in paragraphs: a new one at each question that opens a part, the question its lead', () => {
  assert.deepEqual(summaryParagraphs('What is heart failure? Heart failure means that your heart  cannot pump. What causes heart failure? Many things: a, b. Who is at risk for it? Older people.'), [
    { lead: 'What is heart failure?', text: 'Heart failure means that your heart cannot pump.' },
    { lead: 'What causes heart failure?', text: 'Many things: a, b.' },
    { lead: 'Who is at risk for it?', text: 'Older people.' },
  ]);
  assert.deepEqual(summaryParagraphs('A1C is a blood test. Is it accurate? Yes.'), [{ lead: '', text: 'A1C is a blood test.' }, { lead: 'Is it accurate?', text: 'Yes.' }]);
  assert.deepEqual(summaryParagraphs('No question here.'), [{ lead: '', text: 'No question here.' }]);
  assert.deepEqual(summaryParagraphs(''), []);
  // About this shows the first part's words without its question, and says there is more.
  assert.deepEqual(aboutSummary('What is heart failure? Heart failure means that your heart cannot pump. What causes it? Many things.'),
    { text: 'Heart failure means that your heart cannot pump.', cut: true });
  assert.deepEqual(aboutSummary('One short paragraph.'), { text: 'One short paragraph.', cut: false });
});
