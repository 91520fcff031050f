// What the vital sign, lab and levels charts show, and where their points go
// (Public/timeline/js/chart-model.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHART_HEIGHT, CHART_PAD, chartScale, diamondPath, labCharts, levelCharts, sparkScale, vitalCharts,
} from '../../Public/timeline/js/chart-model.js';

const vital = (description, values, extra = {}) => ({ description, values, dates: values.map((_, i) => 1000 + i * 60), units: 'x', ...extra });

test('no vital signs, no charts', () => {
  assert.deepEqual(vitalCharts([]), []);
});

test('systolic and diastolic are one blood pressure chart, after the others', () => {
  const charts = vitalCharts([
    vital('Systolic blood pressure', [120, 130], { units: 'mm[Hg]', self_reported: [false, true] }),
    vital('Body weight', [70]),
    vital('Diastolic blood pressure', [80, 85], { units: 'mm[Hg]' }),
  ]);
  assert.deepEqual(charts.map((c) => c.title), ['Body weight', 'Blood pressure']);
  const pressure = charts[1];
  assert.equal(pressure.pressure, true);
  assert.equal(pressure.unit, 'mm[Hg]');
  assert.deepEqual(pressure.series.map((s) => [s.name, s.values, Boolean(s.second)]), [['Systolic', [120, 130], false], ['Diastolic', [80, 85], true]]);
  assert.deepEqual(pressure.series[0].mine, [false, true]);
});

test('a diastolic reading alone is still a blood pressure chart', () => {
  const charts = vitalCharts([vital('DIASTOLIC', [75])]);
  assert.equal(charts.length, 1);
  assert.equal(charts[0].title, 'Blood pressure');
  assert.equal(charts[0].series.length, 1);
  assert.equal(charts[0].series[0].second, true);
});

test('lab charts: tests with two numeric results or more, sorted by name', () => {
  const result = (description, value, date, unit = 'mg/dL') => ({ description, date, measurement: { value, unit } });
  const charts = labCharts([
    result('LDL', 130, 1), result('HbA1c', 6.1, 2, null), result('LDL', 120, 3),
    result('HbA1c', 5.9, 4, '%'), result('Potassium', 4.1, 5), result('Note', '5', 6), result('Note', '6', 7),
    { description: 'No value', date: 8 },
  ]);
  assert.deepEqual(charts.map((c) => c.title), ['HbA1c', 'LDL']);
  assert.equal(charts[0].unit, '%'); // the first unit given, when the first result had none
  assert.deepEqual(charts[1].series[0].values, [130, 120]);
  assert.deepEqual(charts[1].series[0].dates, [1, 3]);
});

test('no results, no lab charts', () => {
  assert.deepEqual(labCharts(null), []);
  assert.deepEqual(labCharts([]), []);
});

test('levels are charted once posted twice, each level that has a number', () => {
  const levels = (created_at, data) => ({ type: 'levels', created_at, data });
  assert.deepEqual(levelCharts([levels(1, { pain: '3' })]), []);
  assert.deepEqual(levelCharts([]), []);
  const [chart] = levelCharts([
    levels(1, { pain: ['3'], mood: '7', energy: '' }),
    { type: 'medication', created_at: 2, data: { pain: '9' } },
    levels(3, { pain: '4', mood: 'high' }),
  ]);
  assert.deepEqual(chart.fixedRange, [0, 10]);
  assert.deepEqual(chart.series.map((s) => [s.name, s.values, s.dates, s.tone]), [['Pain', [3, 4], [1, 3], 0], ['Mood', [7], [1], 1]]);
});

test('levels posted twice with no number are not charted', () => {
  assert.deepEqual(levelCharts([{ type: 'levels', created_at: 1, data: {} }, { type: 'levels', created_at: 2, data: { pain: 'x' } }]), []);
});

const spec = (values, dates, extra = {}) => ({ series: [{ values, dates }], ...extra });
const plotW = (width) => width - CHART_PAD.left - CHART_PAD.right;
const plotH = CHART_HEIGHT - CHART_PAD.top - CHART_PAD.bottom;

test('the first and last dates are the ends of the plot, higher values higher up', () => {
  const scale = chartScale(spec([10, 20, 15], [100, 200, 300]), 300);
  assert.equal(scale.x(100), CHART_PAD.left);
  assert.equal(scale.x(300), CHART_PAD.left + plotW(300));
  assert.equal(scale.x(200), CHART_PAD.left + plotW(300) / 2);
  assert.ok(scale.y(20) < scale.y(15) && scale.y(15) < scale.y(10));
  assert.deepEqual(scale.guides, [20, 10]);
});

test('values keep a margin of 12% of their range from the plot edges', () => {
  const scale = chartScale(spec([0, 100], [1, 2]), 300);
  assert.ok(Math.abs(scale.y(112) - CHART_PAD.top) < 1e-9);
  assert.ok(Math.abs(scale.y(-12) - (CHART_PAD.top + plotH)) < 1e-9);
});

test('one reading is drawn in the middle, with one guide', () => {
  const scale = chartScale(spec([72], [500]), 240);
  assert.equal(scale.x(500), CHART_PAD.left + plotW(240) / 2);
  assert.equal(scale.y(72), CHART_PAD.top + plotH / 2);
  assert.deepEqual(scale.guides, [72]);
});

test('equal values of zero are drawn mid-height, not divided by zero', () => {
  const scale = chartScale(spec([0, 0], [1, 2]), 240);
  assert.equal(scale.y(0), CHART_PAD.top + plotH / 2);
  assert.ok(Number.isFinite(scale.y(1)));
});

test('a fixed range is the scale, whatever the values', () => {
  const scale = chartScale(spec([4, 5], [1, 2], { fixedRange: [0, 10] }), 240);
  assert.deepEqual(scale.guides, [10, 0]);
  assert.ok(Math.abs(scale.y(10.5) - CHART_PAD.top) < 1e-9);
  assert.ok(Math.abs(scale.y(-0.5) - (CHART_PAD.top + plotH)) < 1e-9);
});

test('two series share one scale', () => {
  const scale = chartScale({ series: [{ values: [120, 140], dates: [1, 3] }, { values: [70, 90], dates: [2, 4] }] }, 300);
  assert.deepEqual(scale.guides, [140, 70]);
  assert.deepEqual([scale.t0, scale.t1], [1, 4]);
});

test('a diamond is a closed path around its centre', () => {
  assert.equal(diamondPath(10, 20, 5), 'M10.0 15.0l5 5l-5 5l-5 -5z');
});

test('a sparkline spans its width inside the padding, the lowest value at the bottom', () => {
  const { pad, x, y } = sparkScale([1, 3, 2], [10, 20, 30], { width: 100, height: 30 });
  assert.equal(x(10, 0), pad);
  assert.equal(x(30, 2), 100 - pad);
  assert.equal(y(1), 30 - pad);
  assert.equal(y(3), pad);
});

test('a sparkline of readings all at one time spreads them by their order; one reading sits in the middle', () => {
  const same = sparkScale([1, 2, 3], [5, 5, 5], { width: 100 });
  assert.deepEqual([0, 1, 2].map((i) => same.x(5, i)), [4, 50, 96]);
  const one = sparkScale([7], [5], { width: 100, height: 30 });
  assert.equal(one.x(5, 0), 50);
  assert.equal(one.y(7), 15);
});

test('a sparkline with a fixed range places values on it', () => {
  const { y } = sparkScale([5], [1], { range: [0, 10], height: 30 });
  assert.equal(y(5), 15);
  assert.equal(y(10), 4);
});
