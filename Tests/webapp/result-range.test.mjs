// What the app flags of a result against its source's normal range and interpretation, and the band a
// lab chart shades (Public/timeline/js/result-range.js, chart-model.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartBand, interpretationLabel, isOutOfRange, placeValue, rangeText, resultFlag } from '../../Public/timeline/js/result-range.js';
import { chartScale, labCharts } from '../../Public/timeline/js/chart-model.js';

const range = (low, high, unit = 'mg/dL', text) => ({
  ...(low != null ? { low: { value: low, unit } } : {}), ...(high != null ? { high: { value: high, unit } } : {}), ...(text ? { text } : {}),
});
const result = (value, extra = {}, unit = 'mg/dL') => ({ description: 'Glucose', date: 1000, measurement: { value, unit }, type: 'result', ...extra });

test('a value is placed against its range in the same unit, and not across units', () => {
  assert.equal(placeValue(60, 'mg/dL', range(70, 99)), 'below');
  assert.equal(placeValue(80, 'mg/dl', range(70, 99)), 'within');
  assert.equal(placeValue(130, null, range(70, 99)), 'above');
  assert.equal(placeValue(130, 'mmol/L', range(70, 99)), null);
  assert.equal(placeValue(130, 'mg/dL', { text: 'see report' }), null);
  assert.equal(placeValue(null, 'mg/dL', range(70, 99)), null);
});

test('the interpretation wins over the bounds; the bounds flag when there is none; nothing said, nothing flagged', () => {
  assert.deepEqual(resultFlag(result(80, { interpretation: 'H', reference_range: range(70, 99) })), { flag: 'high', label: 'High' });
  assert.deepEqual(resultFlag(result(130, { reference_range: range(70, 99) })), { flag: 'high', label: 'Above the normal range' });
  assert.deepEqual(resultFlag(result(50, { reference_range: range(70, null) })), { flag: 'low', label: 'Below the normal range' });
  assert.equal(resultFlag(result(80, { reference_range: range(70, 99) })).flag, null);
  assert.equal(resultFlag(result(80)), null);
  assert.equal(isOutOfRange(result(80, { interpretation: 'LL' })), true);
  assert.equal(isOutOfRange(result(80, { interpretation: 'N', reference_range: range(90, 99) })), false);
  // A code the app does not know is said as it is, and flags nothing.
  assert.deepEqual(resultFlag(result(80, { interpretation: 'ZZ' })), { flag: null, label: 'ZZ' });
  assert.equal(interpretationLabel('HH'), 'Critically high');
});

test('a range as text: both bounds, one bound, or its own words', () => {
  assert.equal(rangeText(range(70, 99)), '70–99 mg/dL');
  assert.equal(rangeText(range(null, 200)), '< 200 mg/dL');
  assert.equal(rangeText(range(40, null)), '> 40 mg/dL');
  assert.equal(rangeText({ text: 'Negative' }), 'Negative');
  assert.equal(rangeText(null), '');
});

test('a lab chart shades the latest range in its unit and marks the results outside it', () => {
  const charts = labCharts([
    result(85, { reference_range: range(70, 99) }),
    { ...result(130, { reference_range: range(70, 99), interpretation: 'H' }), date: 2000 },
    { ...result(7.2, { reference_range: range(3.9, 5.5, 'mmol/L') }, 'mmol/L'), date: 3000 },
  ]);
  assert.equal(charts.length, 1);
  assert.deepEqual(charts[0].band, [70, 99]);
  assert.deepEqual(charts[0].series[0].out, [false, true, true]);
  // Each result by its own range: the mmol/L one against its own 3.9–5.5.
  assert.deepEqual(charts[0].series[0].flags, ['', 'High', 'Above the normal range']);
  assert.equal(chartBand([result(1, { reference_range: range(1, 2, 'mmol/L') })], 'mg/dL'), null);
  // Without ranges, no band and no marks.
  const plain = labCharts([result(85), { ...result(90), date: 2000 }]);
  assert.equal(plain[0].band, undefined);
  assert.equal(plain[0].series[0].out, undefined);
});

test('the band is inside the chart: its bounds widen the scale', () => {
  const spec = { title: 'G', unit: 'mg/dL', series: [{ values: [85, 90], dates: [0, 10] }], band: [70, 130] };
  const scale = chartScale(spec, 300);
  assert.equal(scale.lo, 70);
  assert.equal(scale.hi, 130);
  assert.deepEqual(scale.guides, [90, 85], 'the guides stay at the lowest and highest values');
});
