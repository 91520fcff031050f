// What the charts draw and where, as plain values: the chart specs taken from a timeline window (one
// chart per vital sign, blood pressure's two series together; lab tests with several numeric results;
// the levels of How you feel) and the scales that place values and dates in a chart's SVG or a
// sparkline. Pure functions, no DOM: vitals-chart.js draws them, Tests/webapp tests them.

import { t } from './strings.js';
import { chartBand, isOutOfRange, resultFlag } from './result-range.js';

/** A chart's SVG height and the room around its plot (the value labels on the right, dates below). */
export const CHART_HEIGHT = 84;
export const CHART_PAD = { top: 10, right: 44, bottom: 20, left: 6 };

/** Chart specs from the payload's vitals: [{title, unit, series: [{name, values, dates, second?}]}]. */
export function vitalCharts(vitals) {
  const isSystolic = (v) => /systolic/i.test(v.description);
  const isDiastolic = (v) => /diastolic/i.test(v.description);
  const systolic = vitals.find(isSystolic);
  const diastolic = vitals.find(isDiastolic);
  const charts = [];
  for (const vital of vitals) {
    if (vital === systolic || vital === diastolic) continue;
    charts.push({ title: vital.description, unit: vital.units, series: [{ name: vital.description, values: vital.values, dates: vital.dates, mine: vital.self_reported }] });
  }
  if (systolic || diastolic) {
    const series = [];
    if (systolic) series.push({ name: t('app.chart_model.systolic', 'Systolic'), values: systolic.values, dates: systolic.dates, mine: systolic.self_reported });
    if (diastolic) series.push({ name: t('app.chart_model.diastolic', 'Diastolic'), values: diastolic.values, dates: diastolic.dates, mine: diastolic.self_reported, second: true });
    charts.push({ title: t('app.chart_model.blood_pressure', 'Blood pressure'), unit: (systolic || diastolic).units, series, pressure: true });
  }
  return charts;
}

/**
 * Chart specs for lab results with two or more numeric values in the window. A chart whose results carry
 * a normal range has `band` ([low, high], either null when open) and each point's `out` (outside its range,
 * as its source says) and `flags` (the word for it: "High", "Low"…).
 */
export function labCharts(results) {
  const groups = new Map();
  for (const entry of results || []) {
    const value = entry.measurement?.value;
    if (typeof value !== 'number') continue;
    let group = groups.get(entry.description);
    if (!group) { group = { values: [], dates: [], entries: [], unit: null }; groups.set(entry.description, group); }
    group.values.push(value);
    group.dates.push(entry.date);
    group.entries.push(entry);
    group.unit = group.unit || entry.measurement.unit;
  }
  const charts = [];
  for (const [title, group] of groups) {
    if (group.values.length < 2) continue;
    const series = { name: title, values: group.values, dates: group.dates };
    const spec = { title, unit: group.unit, series: [series] };
    const band = chartBand(group.entries, group.unit);
    const out = group.entries.map(isOutOfRange);
    if (band || out.some(Boolean)) {
      spec.band = band;
      series.out = out;
      series.flags = group.entries.map((e) => (isOutOfRange(e) ? resultFlag(e).label : ''));
    }
    charts.push(spec);
  }
  return charts.sort((a, b) => a.title.localeCompare(b.title));
}

/** The user's own levels (pain, mood, energy) over the window, when posted more than once. */
export function levelCharts(posts) {
  const names = ['pain', 'mood', 'energy'];
  const series = names.map((name, i) => ({ name: name[0].toUpperCase() + name.slice(1), values: [], dates: [], tone: i }));
  let count = 0;
  for (const post of posts || []) {
    if (post.type !== 'levels') continue;
    count += 1;
    names.forEach((name, i) => {
      const raw = Array.isArray(post.data?.[name]) ? post.data[name][0] : post.data?.[name];
      const value = Number(raw);
      if (raw !== undefined && raw !== '' && Number.isFinite(value)) {
        series[i].values.push(value);
        series[i].dates.push(post.created_at);
      }
    });
  }
  const drawn = series.filter((sr) => sr.values.length);
  if (count < 2 || !drawn.length) return [];
  return [{ title: t('app.chart_model.your_levels_0_10', 'Your levels (0–10)'), unit: '', series: drawn, levels: true, fixedRange: [0, 10] }];
}

/**
 * Where a chart's points go in an SVG `width` wide: x(t) for a date, y(v) for a value, and the guides
 * (the lowest and highest values, or the one value when all are equal). Values get a margin above and
 * below (a fixed range, 0.5); one date alone is drawn in the middle.
 */
export function chartScale(spec, width) {
  const all = spec.series.flatMap((sr) => sr.values);
  const dates = spec.series.flatMap((sr) => sr.dates);
  // A normal band's bounds are in the scale too: a value's place against it shows.
  const bounds = (spec.band || []).filter((b) => typeof b === 'number');
  const lo = spec.fixedRange ? spec.fixedRange[0] : Math.min(...all, ...bounds);
  const hi = spec.fixedRange ? spec.fixedRange[1] : Math.max(...all, ...bounds);
  const t0 = Math.min(...dates);
  const t1 = Math.max(...dates);
  // Equal values are drawn mid-height: a margin of a tenth of the value (at least 1) either side.
  const pad = spec.fixedRange ? 0.5 : hi === lo ? Math.max(1, Math.abs(hi) * 0.1) : (hi - lo) * 0.12;
  const yLo = lo - pad;
  const yHi = hi + pad;
  const plotW = width - CHART_PAD.left - CHART_PAD.right;
  const plotH = CHART_HEIGHT - CHART_PAD.top - CHART_PAD.bottom;
  const x = (t) => CHART_PAD.left + (t1 === t0 ? plotW / 2 : ((t - t0) / (t1 - t0)) * plotW);
  const y = (v) => CHART_PAD.top + (1 - (v - yLo) / (yHi - yLo)) * plotH;
  // The guides mark the lowest and highest values (not the band's bounds, which the band itself shows).
  const vLo = spec.fixedRange ? lo : Math.min(...all);
  const vHi = spec.fixedRange ? hi : Math.max(...all);
  return { lo, hi, t0, t1, plotW, plotH, x, y, guides: vLo === vHi ? [vLo] : [vHi, vLo] };
}

/** The outline of a reading of the person's own: a diamond of half-diagonal r around (cx, cy). */
export function diamondPath(cx, cy, r) {
  return `M${cx.toFixed(1)} ${(cy - r).toFixed(1)}l${r} ${r}l${-r} ${r}l${-r} ${-r}z`;
}

/**
 * A sparkline's scale (values not empty): x(t, i) and y(v) inside `pad` of its edges. Readings all at
 * one time are spread evenly by their order; equal values (or one) are drawn mid-height.
 */
export function sparkScale(values, dates, { range = null, width = 120, height = 30 } = {}) {
  const lo = range ? range[0] : Math.min(...values);
  const hi = range ? range[1] : Math.max(...values);
  const t0 = Math.min(...dates);
  const t1 = Math.max(...dates);
  const pad = 4;
  const x = (t, i) => pad + (t1 === t0 ? (values.length > 1 ? (i / (values.length - 1)) : 0.5) : (t - t0) / (t1 - t0)) * (width - 2 * pad);
  const y = (v) => pad + (1 - (hi === lo ? 0.5 : (v - lo) / (hi - lo))) * (height - 2 * pad);
  return { pad, x, y };
}
