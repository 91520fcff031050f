// The pure parts of following a search result (Public/timeline/js/search.js): finding the entry a
// result names in the window drawn, and the type label a result gets.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findEntry, resultType } from '../../Public/timeline/js/search.js';

const payload = {
  conditions: [{ id: 'c1', type: 'condition', start_date: 50 }],
  encounters: [{ id: 'e1', type: 'encounter', date: 70, start_date: 60 }, { id: 'e2', type: 'encounter', end_date: 80 }],
  ongoing: [{ id: 'o1', type: 'medication', start_date: 10 }, { id: 'o2', type: 'unknown_kind', date: 20 }],
  vitals: [
    { description: 'Systolic blood pressure', ids: ['v1', 'v2'], values: [120, 130], dates: [100, 200], units: 'mm[Hg]', self_reported: [false, true] },
    { description: 'Body weight', ids: ['w1'], values: [70], dates: [300] },
  ],
  readings: [{ id: 'v2', kind: 'blood_pressure', date: 200 }],
};

test('nothing is found in an empty window or for an unknown id', () => {
  assert.equal(findEntry({}, 'c1'), null);
  assert.equal(findEntry(payload, 'nope'), null);
});

test("an entry of a lane is found in that lane, at its date, else its start, else its end", () => {
  const condition = findEntry(payload, 'c1');
  assert.equal(condition.lane.type, 'condition');
  assert.equal(condition.item.t, 50);
  assert.equal(findEntry(payload, 'e1').item.t, 70);
  assert.equal(findEntry(payload, 'e2').item.t, 80);
  assert.equal(findEntry(payload, 'e2').lane.key, 'encounters');
});

test('an ongoing entry is found in the lane of its type, or the first lane', () => {
  const medication = findEntry(payload, 'o1');
  assert.equal(medication.item.ongoing, true);
  assert.equal(medication.lane.type, 'medication');
  assert.equal(findEntry(payload, 'o2').lane.type, 'condition');
  assert.equal(findEntry(payload, 'o2').item.t, 20);
});

test("a vital sign's reading is found in its chart's series, blood pressure in one chart", () => {
  const found = findEntry(payload, 'v1');
  assert.equal(found.lane.type, 'vital_sign');
  assert.equal(found.item.chart, 'Blood pressure');
  assert.deepEqual(found.item.entry.measurement, { value: 120, unit: 'mm[Hg]' });
  assert.equal(found.item.t, 100);
  const weight = findEntry(payload, 'w1');
  assert.equal(weight.item.chart, 'Body weight');
  assert.equal(weight.item.entry.measurement.unit, null);
});

test("a reading of the person's own opens as that reading, to change or delete it", () => {
  const found = findEntry(payload, 'v2');
  assert.equal(found.item.reading, payload.readings[0]);
  assert.equal(found.item.chart, 'Blood pressure');
  assert.equal(found.item.entry.type, 'vital_sign');
  assert.equal(found.item.t, 200);
  // Marked as one's own but not among the readings (removed since): the chart's value.
  const gone = findEntry({ ...payload, readings: [] }, 'v2');
  assert.equal(gone.item.reading, undefined);
  assert.equal(gone.item.entry.measurement.value, 130);
});

test('result types: notes, sections, vital signs, lanes and the rest', () => {
  assert.deepEqual(resultType({ kind: 'post', type: 'levels' }), { text: 'your levels', colour: 'post' });
  assert.deepEqual(resultType({ kind: 'post', type: 'other' }), { text: 'your note', colour: 'post' });
  assert.deepEqual(resultType({ kind: 'section' }), { text: 'document section', colour: 'document' });
  assert.deepEqual(resultType({ kind: 'entry', type: 'vital_sign' }), { text: 'vital sign', colour: 'vital_sign' });
  assert.deepEqual(resultType({ kind: 'entry', type: 'social_history' }), { text: 'social history entry', colour: 'social_history' });
  assert.deepEqual(resultType({ kind: 'entry', type: 'family_history' }), { text: 'family history', colour: 'other' });
});
