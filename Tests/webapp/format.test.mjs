// Dates, ages, numbers, units and sizes as a person reads them (Public/timeline/js/format.js).
// Words and separators follow the machine's locale: expectations that depend on it are built from the
// number itself (toLocaleString), so that the tests check the module's choices, not one locale.

import { local } from './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  age, dayString, formatBytes, formatDate, formatDateTime, formatNumber, formatTick, formatWindow, genderWord, prettyUnit, relative,
} from '../../Public/timeline/js/format.js';

test('a missing date or number is a dash, zero is a number', () => {
  assert.equal(formatDate(null), '—');
  assert.equal(formatDate(undefined), '—');
  assert.equal(formatDateTime(null), '—');
  assert.equal(formatNumber(null), '—');
  assert.equal(formatNumber(0), (0).toLocaleString());
  assert.notEqual(formatDate(0), '—'); // 1 January 1970 is a date
});

test('numbers keep at most two decimals', () => {
  assert.equal(formatNumber(1.23456), formatNumber(1.23));
  assert.equal(formatNumber(120), (120).toLocaleString());
  assert.equal(formatNumber(-0.5), (-0.5).toLocaleString());
});

test('a date says its local day: late in the evening is not yet the next one', () => {
  const evening = local(2011, 12, 31, 23, 30);
  assert.equal(formatDate(evening), formatDate(local(2011, 12, 31)));
  assert.notEqual(formatDate(evening), formatDate(local(2012, 1, 1)));
  assert.match(formatDate(evening), /2011/);
});

test('age counts whole years, a birthday on the day itself included', () => {
  const born = local(1980, 6, 15);
  assert.equal(age(born, local(2010, 6, 14)), 29);
  assert.equal(age(born, local(2010, 6, 15)), 30);
  assert.equal(age(born, local(2010, 7, 1)), 30);
  assert.equal(age(born, local(1980, 6, 15)), 0);
});

test('someone born on 29 February is a year older on 1 March of a common year', () => {
  const born = local(2000, 2, 29);
  assert.equal(age(born, local(2001, 2, 28)), 0);
  assert.equal(age(born, local(2001, 3, 1)), 1);
  assert.equal(age(born, local(2004, 2, 28)), 3);
  assert.equal(age(born, local(2004, 2, 29)), 4);
});

test('no birthdate, no age', () => {
  assert.equal(age(null), null);
  assert.equal(age(undefined), null);
});

test('gender codes in words, anything else as given', () => {
  assert.equal(genderWord('M'), 'Male');
  assert.equal(genderWord('f'), 'Female');
  assert.equal(genderWord(''), null);
  assert.equal(genderWord(null), null);
  assert.equal(genderWord('UN'), 'UN');
});

test('UCUM units made readable', () => {
  assert.equal(prettyUnit('mm[Hg]'), 'mmHg');
  assert.equal(prettyUnit('kg/m2'), 'kg/m²');
  assert.equal(prettyUnit('Cel'), '°C');
  assert.equal(prettyUnit('[degF]'), '°F');
  assert.equal(prettyUnit('[lb_av]'), 'lb');
  assert.equal(prettyUnit('[iU]/L'), 'iU/L');
  assert.equal(prettyUnit('mg/dL'), 'mg/dL');
  assert.equal(prettyUnit(''), '');
  assert.equal(prettyUnit(null), '');
});

test('dayString pads month and day, and knows 29 February', () => {
  assert.equal(dayString(new Date(2024, 0, 5)), '2024-01-05');
  assert.equal(dayString(new Date(2024, 1, 29)), '2024-02-29');
  assert.equal(dayString(new Date(2023, 1, 29)), '2023-03-01'); // no 29 February in 2023
  assert.equal(dayString(new Date(2024, 11, 31, 23, 59)), '2024-12-31');
});

test('relative times choose their unit by size, then fall back to the date', () => {
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const now = local(2020, 5, 1, 12);
  assert.equal(relative(now - 59, now), rtf.format(-59, 'second'));
  assert.equal(relative(now - 60, now), rtf.format(-1, 'minute'));
  assert.equal(relative(now + 3599, now), rtf.format(60, 'minute'));
  assert.equal(relative(now + 3600, now), rtf.format(1, 'hour'));
  assert.equal(relative(now - 86400, now), rtf.format(-1, 'day'));
  assert.equal(relative(now - 44 * 86400, now), rtf.format(-44, 'day'));
  assert.equal(relative(now - 45 * 86400, now), formatDate(now - 45 * 86400));
});

test('sizes in bytes, then KB to TB with one decimal under 10', () => {
  const one = (n) => n.toLocaleString(undefined, { maximumFractionDigits: 1 });
  assert.equal(formatBytes(null), '—');
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), `${(1023).toLocaleString()} B`);
  assert.equal(formatBytes(1024), '1 KB');
  assert.equal(formatBytes(1536), `${one(1.5)} KB`);
  assert.equal(formatBytes(12.4 * 1024 * 1024), '12 MB');
  assert.equal(formatBytes(1024 ** 3), '1 GB');
  assert.equal(formatBytes(2048 * 1024 ** 4), `${(2048).toLocaleString()} TB`); // no unit past TB
});

test('a whole day is named by its weekday and year, a part of a day by its times', () => {
  const start = local(2024, 3, 10);
  const wholeDay = formatWindow(start, local(2024, 3, 10, 23, 59, 59), 'day');
  assert.match(wholeDay, /, 2024$/);
  assert.ok(!wholeDay.includes('–'));
  const partOfDay = formatWindow(local(2024, 3, 10, 8), local(2024, 3, 10, 14, 30), 'day');
  assert.ok(partOfDay.includes(' – '));
  assert.notEqual(partOfDay, `${formatDate(local(2024, 3, 10, 8))} – ${formatDate(local(2024, 3, 10, 14, 30))}`);
});

test('longer windows are a range of days', () => {
  const start = local(2001, 1, 2);
  const end = local(2011, 1, 1, 23, 59, 59);
  assert.equal(formatWindow(start, end, 'decade'), `${formatDate(start)} – ${formatDate(end)}`);
  assert.equal(formatWindow(start, end, 'week'), `${formatDate(start)} – ${formatDate(end)}`);
  assert.equal(formatWindow(start, end, 'all'), `${formatDate(start)} – ${formatDate(end)}`);
});

test('axis labels: the year for years and for January, the day at midnight', () => {
  assert.equal(formatTick(new Date(2011, 0, 1), 'month'), '2011');
  assert.notEqual(formatTick(new Date(2011, 1, 1), 'month'), '2011');
  assert.equal(formatTick(new Date(2011, 5, 1), 'year'), '2011');
  assert.equal(formatTick(new Date(2011, 5, 1), 'hour'), formatTick(new Date(2011, 5, 1), 'day'));
  assert.notEqual(formatTick(new Date(2011, 5, 1, 6), 'hour'), formatTick(new Date(2011, 5, 1, 6), 'day'));
});
