// What the source said about a result's value: its normal range (`reference_range`) and its
// interpretation (`interpretation`, HL7's codes: H, L, HH, LL, A, AA, N, …), as the app shows them: a
// flag word for a value outside its range, the range as text, and the band a chart shades. Pure
// functions, no DOM: entry-details.js, entry-list.js and the charts use them; Tests/webapp tests them.

import { formatNumber, prettyUnit } from './format.js';
import { later, t } from './strings.js';

/** Interpretation codes and how the app says them. `flag`: the value lies outside its normal range. */
const CODES = {
  N: { label: later('app.result_range.normal', 'Normal'), flag: null },
  H: { label: later('app.result_range.high', 'High'), flag: 'high' },
  HU: { label: later('app.result_range.very_high', 'Very high'), flag: 'high' },
  HH: { label: later('app.result_range.critically_high', 'Critically high'), flag: 'high' },
  HX: { label: later('app.result_range.above_the_highest_reportable_value', 'Above the highest reportable value'), flag: 'high' },
  L: { label: later('app.result_range.low', 'Low'), flag: 'low' },
  LU: { label: later('app.result_range.very_low', 'Very low'), flag: 'low' },
  LL: { label: later('app.result_range.critically_low', 'Critically low'), flag: 'low' },
  LX: { label: later('app.result_range.below_the_lowest_reportable_value', 'Below the lowest reportable value'), flag: 'low' },
  A: { label: later('app.result_range.abnormal', 'Abnormal'), flag: 'abnormal' },
  AA: { label: later('app.result_range.critically_abnormal', 'Critically abnormal'), flag: 'abnormal' },
  POS: { label: later('app.result_range.positive', 'Positive'), flag: 'abnormal' },
  DET: { label: later('app.result_range.detected', 'Detected'), flag: 'abnormal' },
  R: { label: later('app.result_range.resistant', 'Resistant'), flag: 'abnormal' },
  NEG: { label: later('app.result_range.negative', 'Negative'), flag: null },
  ND: { label: later('app.result_range.not_detected', 'Not detected'), flag: null },
  IND: { label: later('app.result_range.indeterminate', 'Indeterminate'), flag: null },
  S: { label: later('app.result_range.susceptible', 'Susceptible'), flag: null },
  I: { label: later('app.result_range.intermediate', 'Intermediate'), flag: null },
  '<': { label: later('app.result_range.below_the_lowest_reportable_value', 'Below the lowest reportable value'), flag: null },
  '>': { label: later('app.result_range.above_the_highest_reportable_value', 'Above the highest reportable value'), flag: null },
};

/** The words for an interpretation code; the code itself when the app does not know it. */
export function interpretationLabel(code) {
  if (!code) return '';
  return CODES[code] ? String(CODES[code].label) : code;
}

const sameUnit = (a, b) => {
  const norm = (u) => (u == null ? '' : String(u).toLowerCase().replace(/\s+/g, ''));
  const x = norm(a), y = norm(b);
  return !x || !y || x === '1' || y === '1' || x === y;
};

/** Where a value lies against a range's bounds: 'below', 'within', 'above', or null (no bounds, units differ). */
export function placeValue(value, unit, range) {
  if (typeof value !== 'number' || !range) return null;
  const { low, high } = range;
  if (!low && !high) return null;
  for (const bound of [low, high]) if (bound && !sameUnit(bound.unit, unit)) return null;
  if (low && value < low.value) return 'below';
  if (high && value > high.value) return 'above';
  return 'within';
}

/**
 * What to flag of an entry: {flag: 'high' | 'low' | 'abnormal', label} when its interpretation or its
 * range puts it outside the normal range; {flag: null, label} for a said-normal one; null when the source
 * said nothing of it. The interpretation wins: the lab knew the person's own range.
 */
export function resultFlag(entry) {
  const code = entry?.interpretation;
  if (code && CODES[code]) return { flag: CODES[code].flag, label: String(CODES[code].label) };
  const place = placeValue(entry?.measurement?.value, entry?.measurement?.unit, entry?.reference_range);
  if (place === 'above') return { flag: 'high', label: t('app.result_range.above_the_normal_range', 'Above the normal range') };
  if (place === 'below') return { flag: 'low', label: t('app.result_range.below_the_normal_range', 'Below the normal range') };
  if (place === 'within') return { flag: null, label: t('app.result_range.within_the_normal_range', 'Within the normal range') };
  if (code) return { flag: null, label: interpretationLabel(code) };
  return null;
}

/** Whether an entry's value lies outside its normal range, as its source says. */
export function isOutOfRange(entry) {
  return Boolean(resultFlag(entry)?.flag);
}

/** "70–99 mg/dL", "< 200 mg/dL", "> 40 mg/dL", else the range's text; '' when there is none. */
export function rangeText(range) {
  if (!range) return '';
  const { low, high, text } = range;
  const unit = prettyUnit(high?.unit || low?.unit || '');
  const withUnit = (t) => (unit ? `${t} ${unit}` : t);
  if (low && high) {
    const sameUnits = sameUnit(low.unit, high.unit);
    return sameUnits ? withUnit(`${formatNumber(low.value)}–${formatNumber(high.value)}`)
      : `${formatNumber(low.value)} ${prettyUnit(low.unit || '')}–${formatNumber(high.value)} ${prettyUnit(high.unit || '')}`.trim();
  }
  if (high) return withUnit(`< ${formatNumber(high.value)}`);
  if (low) return withUnit(`> ${formatNumber(low.value)}`);
  return text || '';
}

/**
 * The normal band a lab chart shades: the range of its latest result that has one with bounds in the
 * chart's unit, as [low, high] (either may be null: open to that side); null when none has.
 */
export function chartBand(entries, unit) {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const range = entries[i].reference_range;
    if (!range || (!range.low && !range.high)) continue;
    if (![range.low, range.high].every((b) => !b || sameUnit(b.unit, unit))) continue;
    return [range.low ? range.low.value : null, range.high ? range.high.value : null];
  }
  return null;
}
