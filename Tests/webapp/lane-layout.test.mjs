// A lane's entries as bands and points, bands packed into rows, points grouped into marks that do not
// overlap (Public/timeline/js/lane-layout.js).

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { itemsFor, layoutLane, setClosedStatuses, CLOSED_STATUSES } from '../../Public/timeline/js/lane-layout.js';

const DAY = 86400;
const START = 1_000_000_000;
const END = START + 100 * DAY; // a window of 100 days
const at = (day) => START + day * DAY;

// The closed statuses are the module's state (set from /patients.json): every test starts from none.
beforeEach(() => setClosedStatuses([]));

test('no entries, no items', () => {
  assert.deepEqual(itemsFor([], [], START, END), []);
});

test('an entry with one date is a point at that date', () => {
  const [item] = itemsFor([{ type: 'encounter', date: at(10) }], [], START, END);
  assert.equal(item.band, false);
  assert.equal(item.t, at(10));
  assert.equal(item.start, at(10));
  assert.equal(item.ongoing, false);
});

test('a point outside the window is drawn at its edge, its own date kept', () => {
  const [before, after] = itemsFor([{ type: 'result', date: at(-5) }, { type: 'result', date: at(120) }], [], START, END);
  assert.equal(before.t, START);
  assert.equal(before.start, at(-5));
  assert.equal(after.t, END);
});

test('an entry with only an end date is placed there', () => {
  const [item] = itemsFor([{ type: 'procedure', end_date: at(30) }], [], START, END);
  assert.equal(item.t, at(30));
  assert.equal(item.band, false);
});

test('a span is a band, cut to the window and open where it goes on', () => {
  const [item] = itemsFor([{ type: 'encounter', start_date: at(-10), end_date: at(20) }], [], START, END);
  assert.equal(item.band, true);
  assert.equal(item.start, START);
  assert.equal(item.end, at(20));
  assert.equal(item.openStart, true);
  assert.equal(item.openEnd, false);
});

test('a span too short to see is a point', () => {
  // 0.8% of 100 days is 19.2 hours.
  const [short, long] = itemsFor([
    { type: 'encounter', start_date: at(10), end_date: at(10) + 19 * 3600 },
    { type: 'encounter', start_date: at(10), end_date: at(10) + 20 * 3600 },
  ], [], START, END);
  assert.equal(short.band, false);
  assert.equal(long.band, true);
});

test('a condition with no end lasts to the end of the window, unless its status closes it', () => {
  const active = { type: 'condition', start_date: at(5), status: 'active' };
  const resolved = { type: 'condition', start_date: at(5), status: 'Resolved' };
  const encounter = { type: 'encounter', start_date: at(5), status: 'active' };
  setClosedStatuses(['RESOLVED']);
  const [a, r, e] = itemsFor([active, resolved, encounter], [], START, END);
  assert.deepEqual([a.band, a.end, a.openEnd], [true, END, true]);
  assert.equal(r.band, false); // closed, whatever the case of its letters
  assert.equal(e.band, false); // an encounter does not last on its own
  assert.ok(CLOSED_STATUSES.has('resolved'));
});

test('ongoing entries span the window from its start, open at the end unless they end inside', () => {
  const items = itemsFor([], [
    { type: 'medication', start_date: at(-400) },
    { type: 'medication', start_date: at(-400), end_date: at(50) },
  ], START, END);
  assert.equal(items.length, 2);
  for (const item of items) {
    assert.equal(item.ongoing, true);
    assert.equal(item.start, START);
    assert.equal(item.openStart, true);
    assert.equal(item.t, at(-400));
  }
  assert.deepEqual([items[0].end, items[0].openEnd], [END, true]);
  assert.deepEqual([items[1].end, items[1].openEnd], [at(50), false]);
});

test('an empty lane lays out to nothing', () => {
  assert.deepEqual(layoutLane([], START, END, 800), { rows: [], hiddenBands: 0, overflow: [], clusters: [] });
});

test('one point is one mark, kept off the lane edges', () => {
  const px = 600;
  const middle = layoutLane(itemsFor([{ type: 'result', date: at(50) }], [], START, END), START, END, px);
  assert.equal(middle.clusters.length, 1);
  assert.equal(middle.clusters[0].x, 0.5);
  const first = layoutLane(itemsFor([{ type: 'result', date: START }], [], START, END), START, END, px);
  assert.equal(first.clusters[0].x, 12 / px);
  const last = layoutLane(itemsFor([{ type: 'result', date: END }], [], START, END), START, END, px);
  assert.equal(last.clusters[0].x, 1 - 12 / px);
});

test('points closer than a mark are grouped, farther ones are not', () => {
  // 800 px for 100 days: 8 px a day, a mark 34 px wide, so 4 days apart is together and 5 days apart is not.
  const near = layoutLane(itemsFor([{ date: at(40) }, { date: at(44) }], [], START, END), START, END, 800);
  assert.equal(near.clusters.length, 1);
  assert.equal(near.clusters[0].items.length, 2);
  assert.deepEqual([near.clusters[0].t0, near.clusters[0].t1], [at(40), at(44)]);
  const far = layoutLane(itemsFor([{ date: at(40) }, { date: at(45) }], [], START, END), START, END, 800);
  assert.equal(far.clusters.length, 2);
});

test('points exactly a mark apart are two marks', () => {
  // 1000 px for 100 days: 34 px is 3.4 days.
  const { clusters } = layoutLane(itemsFor([{ date: START }, { date: START + 3.4 * DAY }], [], START, END), START, END, 1000);
  assert.equal(clusters.length, 2);
});

test('marks are nudged apart so that none overlaps the next', () => {
  const px = 800;
  const gap = 34 / px;
  // Groups every 5 days in the middle: each its own mark, as close as marks may be.
  const points = [30, 35, 40, 45, 50, 55].map((day) => ({ date: at(day) }));
  const { clusters } = layoutLane(itemsFor(points, [], START, END), START, END, px);
  assert.equal(clusters.length, 6);
  for (let i = 1; i < clusters.length; i++) assert.ok(clusters[i].x - clusters[i - 1].x >= gap - 1e-12);
});

test('a narrow track is laid out as 120 pixels', () => {
  const items = () => itemsFor([{ date: at(40) }, { date: at(60) }], [], START, END);
  assert.deepEqual(layoutLane(items(), START, END, 50).clusters.map((c) => c.x), layoutLane(items(), START, END, 120).clusters.map((c) => c.x));
});

test('overlapping bands take rows of their own, bands apart share a row', () => {
  const narrowLabel = { labelWidth: () => 10 };
  const overlapping = itemsFor([
    { type: 'encounter', start_date: at(10), end_date: at(40) },
    { type: 'encounter', start_date: at(20), end_date: at(50) },
  ], [], START, END);
  assert.equal(layoutLane(overlapping, START, END, 1000, narrowLabel).rows.length, 2);
  const apart = itemsFor([
    { type: 'encounter', start_date: at(10), end_date: at(30) },
    { type: 'encounter', start_date: at(60), end_date: at(90) },
  ], [], START, END);
  const { rows } = layoutLane(apart, START, END, 1000, narrowLabel);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].length, 2);
  assert.deepEqual([rows[0][0].x0, rows[0][0].x1], [0.1, 0.3]);
});

test('a label that does not fit in its bar goes after it, or before it at the end of the lane', () => {
  const label = { labelWidth: () => 100 };
  const bands = itemsFor([
    { type: 'encounter', start_date: at(0), end_date: at(50), description: 'wide' },
    { type: 'encounter', start_date: at(60), end_date: at(63), description: 'narrow' },
    { type: 'encounter', start_date: at(95), end_date: at(99), description: 'at the end' },
  ], [], START, END);
  const { rows } = layoutLane(bands, START, END, 1000, label);
  const placed = Object.fromEntries(rows.flat().map((band) => [band.entry.description, band.labelAt]));
  assert.deepEqual(placed, { wide: 'inside', narrow: 'after', 'at the end': 'before' });
});

test('a label after its bar keeps the next band off that row', () => {
  // The label (100 px + room) runs past where the second band starts: a second row.
  const bands = itemsFor([
    { type: 'encounter', start_date: at(10), end_date: at(12) },
    { type: 'encounter', start_date: at(20), end_date: at(30) },
  ], [], START, END);
  assert.equal(layoutLane(bands, START, END, 1000, { labelWidth: () => 100 }).rows.length, 2);
});

test('past the row limit bands are counted as hidden, or drawn as points when asked', () => {
  const stacked = () => itemsFor([1, 2, 3, 4].map((n) => ({ type: 'encounter', start_date: at(10 + n), end_date: at(80) })), [], START, END);
  const hidden = layoutLane(stacked(), START, END, 1000, { maxRows: 2 });
  assert.equal(hidden.rows.length, 2);
  assert.equal(hidden.hiddenBands, 2);
  assert.equal(hidden.overflow.length, 2);
  assert.equal(hidden.clusters.length, 0);
  const asPoints = layoutLane(stacked(), START, END, 1000, { maxRows: 2, overflowAsPoints: true });
  assert.equal(asPoints.hiddenBands, 0);
  // The two bands left over start a day apart: one mark at their starts.
  assert.equal(asPoints.clusters.length, 1);
  assert.deepEqual([asPoints.clusters[0].t0, asPoints.clusters[0].t1], [at(13), at(14)]);
});
