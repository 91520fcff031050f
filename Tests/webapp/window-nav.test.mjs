// The view and time window in the address, stepping between windows, and the axis ticks
// (Public/timeline/js/window-nav.js).

import { local, daysFromToday } from './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHash, buildHash, earlier, later, canGoLater, canGoEarlier, endingAt, ticks, VIEWS } from '../../Public/timeline/js/window-nav.js';

test('an empty or unknown address opens the Summary', () => {
  assert.deepEqual(parseHash(''), { view: 'summary', end: null });
  assert.deepEqual(parseHash('#'), { view: 'summary', end: null });
  assert.deepEqual(parseHash('#/weekly/2011-01-01'), { view: 'summary', end: null });
});

test('an address gives its view and end day, with or without the slash', () => {
  assert.deepEqual(parseHash('#/decade/2011-01-01'), { view: 'decade', end: '2011-01-01' });
  assert.deepEqual(parseHash('#month/2011-02-28'), { view: 'month', end: '2011-02-28' });
  assert.deepEqual(parseHash('#/day'), { view: 'day', end: null });
});

test('All and the Summary have no end, and a malformed day is ignored', () => {
  assert.deepEqual(parseHash('#/all/2011-01-01'), { view: 'all', end: null });
  assert.deepEqual(parseHash('#/summary/2011-01-01'), { view: 'summary', end: null });
  assert.deepEqual(parseHash('#/year/2011-1-1'), { view: 'year', end: null });
  assert.deepEqual(parseHash('#/year/yesterday'), { view: 'year', end: null });
});

test('every view survives the address both ways', () => {
  for (const view of VIEWS) {
    for (const end of [null, '2012-02-29']) {
      const keepsEnd = end !== null && view !== 'all' && view !== 'summary';
      const hash = buildHash({ view, end });
      assert.equal(hash, keepsEnd ? `#/${view}/${end}` : `#/${view}`);
      assert.deepEqual(parseHash(hash), { view, end: keepsEnd ? end : null });
    }
  }
});

test('the earlier window ends on the local day the shown one starts', () => {
  assert.deepEqual(earlier({ view: 'month', end: '2011-03-31' }, local(2011, 2, 28)), { view: 'month', end: '2011-02-28' });
  // Late in the evening is still that day where the person is (UTC is already on the next one).
  assert.deepEqual(earlier({ view: 'week', end: null }, local(2010, 12, 31, 23, 30)), { view: 'week', end: '2010-12-31' });
});

test('All and the Summary have no earlier window', () => {
  const all = { view: 'all', end: null };
  const summary = { view: 'summary', end: null };
  assert.equal(earlier(all, local(2000, 1, 1)), all);
  assert.equal(earlier(summary, local(2000, 1, 1)), summary);
  assert.equal(canGoEarlier(all), false);
  assert.equal(canGoEarlier(summary), false);
  assert.equal(canGoEarlier({ view: 'day', end: null }), true);
});

test('the later window steps by calendar days, over the end of a year and of February', () => {
  assert.equal(later({ view: 'day', end: '2010-12-31' }).end, '2011-01-01');
  assert.equal(later({ view: 'day', end: '2012-02-28' }).end, '2012-02-29');
  assert.equal(later({ view: 'day', end: '2011-02-28' }).end, '2011-03-01');
  assert.equal(later({ view: 'week', end: '2011-12-28' }).end, '2012-01-04');
});

test('a day and a week step over daylight saving time by the calendar, not by 86,400 s', () => {
  // 10 March 2024 is 23 hours long in New York, 3 November 25: adding seconds would land on the wrong day.
  assert.equal(later({ view: 'day', end: '2024-03-09' }).end, '2024-03-10');
  assert.equal(later({ view: 'day', end: '2024-03-10' }).end, '2024-03-11');
  assert.equal(later({ view: 'day', end: '2024-11-03' }).end, '2024-11-04');
  assert.equal(later({ view: 'week', end: '2024-03-07' }).end, '2024-03-14');
  assert.equal(later({ view: 'week', end: '2024-10-31' }).end, '2024-11-07');
});

test('a month after the 31st ends on the next month\'s last day, as the daemon counts a month', () => {
  // Date's setMonth(+1) on 31 January is 31 February, which it makes 3 March: a month would be skipped.
  assert.equal(later({ view: 'month', end: '2011-01-31' }).end, '2011-02-28');
  assert.equal(later({ view: 'month', end: '2012-01-31' }).end, '2012-02-29');
  assert.equal(later({ view: 'month', end: '2011-03-31' }).end, '2011-04-30');
  assert.equal(later({ view: 'month', end: '2011-11-30' }).end, '2011-12-30');
  assert.equal(later({ view: 'month', end: '2011-12-15' }).end, '2012-01-15');
  assert.equal(later({ view: 'month', end: '2011-12-31' }).end, '2012-01-31');
});

test('a year or a decade after 29 February is 28 February', () => {
  assert.equal(later({ view: 'year', end: '2012-02-29' }).end, '2013-02-28');
  assert.equal(later({ view: 'decade', end: '2012-02-29' }).end, '2022-02-28');
  assert.equal(later({ view: 'year', end: '2011-02-28' }).end, '2012-02-28');
  assert.equal(later({ view: 'decade', end: '2001-01-01' }).end, '2011-01-01');
});

test('the later window that reaches today is the one ending now', () => {
  assert.deepEqual(later({ view: 'day', end: daysFromToday(-1) }), { view: 'day', end: null });
  assert.deepEqual(later({ view: 'week', end: daysFromToday(-3) }), { view: 'week', end: null });
  assert.deepEqual(later({ view: 'day', end: daysFromToday(-2) }), { view: 'day', end: daysFromToday(-1) });
});

test('a window ending now, All and the Summary have no later window', () => {
  const now = { view: 'year', end: null };
  assert.equal(later(now), now);
  assert.equal(canGoLater(now), false);
  assert.equal(canGoLater({ view: 'all', end: null }), false);
  assert.equal(canGoLater({ view: 'summary', end: null }), false);
  assert.equal(canGoLater({ view: 'year', end: '2011-01-01' }), true);
});

test('a jump to an entry ends on its local day, in a year from All and the Summary', () => {
  const seconds = local(2009, 6, 15, 23, 59);
  assert.deepEqual(endingAt('month', seconds), { view: 'month', end: '2009-06-15' });
  assert.deepEqual(endingAt('all', seconds), { view: 'year', end: '2009-06-15' });
  assert.deepEqual(endingAt('summary', seconds), { view: 'year', end: '2009-06-15' });
});

test('a jump to today or later is the window ending now', () => {
  assert.deepEqual(endingAt('day', Date.now() / 1000), { view: 'day', end: null });
  assert.deepEqual(endingAt('week', Date.now() / 1000 + 30 * 86400), { view: 'week', end: null });
});

test('day ticks fall on local midnights, 23 hours apart over the spring change', () => {
  const start = local(2024, 3, 8);
  const end = local(2024, 3, 12);
  const list = ticks(start, end, 5);
  assert.deepEqual(list.map((tick) => new Date(tick.t * 1000).getDate()), [8, 9, 10, 11, 12]);
  for (const tick of list) assert.equal(new Date(tick.t * 1000).getHours(), 0);
  assert.equal(list[3].t - list[2].t, 23 * 3600);
  assert.equal(list[1].t - list[0].t, 24 * 3600);
});

test('ticks stay inside the window, in order, and about as many as asked', () => {
  const start = local(2003, 5, 17, 13, 20);
  const end = local(2013, 5, 17, 13, 20);
  for (const max of [2, 5, 8, 12]) {
    const list = ticks(start, end, max);
    assert.ok(list.length >= 1 && list.length <= max + 1, `${list.length} ticks for at most ${max}`);
    for (const tick of list) assert.ok(tick.t >= start && tick.t <= end);
    for (let i = 1; i < list.length; i++) assert.ok(list[i].t > list[i - 1].t);
  }
});

test('year ticks are labelled with the year, month ticks with the year in January', () => {
  const years = ticks(local(2000, 6, 1), local(2010, 6, 1), 12);
  assert.deepEqual(years.map((tick) => tick.label), ['2001', '2002', '2003', '2004', '2005', '2006', '2007', '2008', '2009', '2010']);
  const months = ticks(local(2010, 11, 15), local(2011, 3, 15), 6);
  assert.equal(months.length, 4);
  for (const tick of months) assert.equal(new Date(tick.t * 1000).getDate(), 1);
  assert.equal(months[1].label, '2011'); // 1 January
  assert.notEqual(months[0].label, '2010'); // 1 December: the month alone
});

test('a window of no length has a tick only when it is on one', () => {
  assert.deepEqual(ticks(local(2011, 1, 1, 10, 30), local(2011, 1, 1, 10, 30), 5), []);
  assert.equal(ticks(local(2011, 1, 1, 10), local(2011, 1, 1, 10), 5).length, 1);
});
