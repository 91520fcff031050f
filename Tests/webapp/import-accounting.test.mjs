// The import report's accounting in words (Public/timeline/js/import-accounting.js): every statement of a
// file imported, merged as a duplicate, or left out with its reason; a file's count in its own unit.

import './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountedSentence, fileCount } from '../../Public/timeline/js/import-accounting.js';

test('a C-CDA document: every entry accounted for, duplicates and reasons in words', () => {
  const text = accountedSentence({ unit: 'entries', elements: 42, imported: 36, merged: 2, left_out: { negated: 1, unmapped_section: 3 } });
  assert.equal(text, 'All 42 entries accounted for: 36 imported, 2 duplicates merged, 4 left out (3 in sections not shown as entries (kept as text), 1 said not to be so).');
});

test('FHIR resources: nothing merged or left out says so briefly; one resource is singular', () => {
  assert.equal(accountedSentence({ unit: 'resources', elements: 1, imported: 1, merged: 0, left_out: {} }), '1 resource accounted for: 1 imported.');
  assert.equal(accountedSentence({ unit: 'resources', elements: 3, imported: 2, merged: 0, left_out: { entered_in_error: 1 } }),
    'All 3 resources accounted for: 2 imported, 1 left out (1 entered in error).');
});

test('an unknown reason is shown as written; counts that do not add up are not called "all"', () => {
  const text = accountedSentence({ unit: 'entries', elements: 5, imported: 1, merged: 0, left_out: { some_new_reason: 1 } });
  assert.equal(text, '5 entries: 1 imported, 1 left out (1 some new reason).');
});

test('no accounting (an RHEx record, an old report): nothing to say', () => {
  assert.equal(accountedSentence(undefined), null);
  assert.equal(accountedSentence({ elements: 0 }), null);
});

test("a file's count in its own unit: a C-CDA document's entries, FHIR resources, RHEx records", () => {
  assert.equal(fileCount({ format: 'ccda', resources: 12 }), '12 entries');
  assert.equal(fileCount({ format: 'ccda', resources: 1 }), '1 entry');
  assert.equal(fileCount({ format: 'fhir', resources: 3 }), '3 resources');
  assert.equal(fileCount({ format: 'rhex', resources: 1 }), '1 record');
  assert.equal(fileCount({ format: 'fhir' }), null);
});
