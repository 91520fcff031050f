// Turns a window's entries into what a lane draws: bands (things that last) packed into rows, and
// points grouped into clusters when they would overlap. Pure functions: no DOM.
// The cost is one sort per lane; what is drawn stays small (at most a few hundred marks) however
// many entries the window holds, which keeps a window of 10,000 entries responsive.

import { later, tn } from './strings.js';

export const LANES = [
  { type: 'condition', key: 'conditions', name: later('app.lane_layout.conditions', 'Conditions'), one: later('app.lane_layout.condition', 'condition') },
  { type: 'medication', key: 'medications', name: later('app.lane_layout.medications', 'Medications'), one: later('app.lane_layout.medication', 'medication') },
  { type: 'encounter', key: 'encounters', name: later('app.lane_layout.encounters', 'Encounters'), one: later('app.lane_layout.encounter', 'encounter') },
  { type: 'procedure', key: 'procedures', name: later('app.lane_layout.procedures', 'Procedures'), one: later('app.lane_layout.procedure', 'procedure') },
  { type: 'result', key: 'results', name: later('app.lane_layout.results', 'Results'), one: later('app.lane_layout.result', 'result') },
  { type: 'immunization', key: 'immunizations', name: later('app.lane_layout.immunizations', 'Immunizations'), one: later('app.lane_layout.immunization', 'immunization') },
  { type: 'allergy', key: 'allergies', name: later('app.lane_layout.allergies', 'Allergies'), one: later('app.lane_layout.allergy', 'allergy') },
  { type: 'social_history', key: 'social_history', name: later('app.lane_layout.social_history', 'Social history'), one: later('app.lane_layout.social_history_entry', 'social history entry') },
  { type: 'care_goal', key: 'care_goals', name: later('app.lane_layout.care_goals', 'Care goals'), one: later('app.lane_layout.care_goal', 'care goal') },
  { type: 'medical_equipment', key: 'medical_equipment', name: later('app.lane_layout.medical_equipment', 'Medical equipment'), one: later('app.lane_layout.medical_equipment_2', 'medical equipment') },
];
export const POST_LANE = { type: 'post', name: later('app.lane_layout.your_notes', 'Your notes'), one: later('app.lane_layout.note', 'note') };
/** Vital signs are charted, not on a lane; one reading still has its details (found by a search). */
export const VITAL_LANE = { type: 'vital_sign', name: later('app.lane_layout.vital_signs', 'Vital signs'), one: later('app.lane_layout.vital_sign', 'vital sign') };

/** "3 conditions": a count of a lane's entries in the table's words (a plural key for each lane). */
export function laneCount(lane, n) {
  switch (lane?.type) {
    case 'condition': return tn('app.lane_layout.count.condition', n, '{n} condition', '{n} conditions');
    case 'medication': return tn('app.lane_layout.count.medication', n, '{n} medication', '{n} medications');
    case 'encounter': return tn('app.lane_layout.count.encounter', n, '{n} encounter', '{n} encounters');
    case 'procedure': return tn('app.lane_layout.count.procedure', n, '{n} procedure', '{n} procedures');
    case 'result': return tn('app.lane_layout.count.result', n, '{n} result', '{n} results');
    case 'immunization': return tn('app.lane_layout.count.immunization', n, '{n} immunization', '{n} immunizations');
    case 'allergy': return tn('app.lane_layout.count.allergy', n, '{n} allergy', '{n} allergies');
    case 'social_history': return tn('app.lane_layout.count.social_history', n, '{n} social history entry', '{n} social history entries');
    case 'care_goal': return tn('app.lane_layout.count.care_goal', n, '{n} care goal', '{n} care goals');
    case 'medical_equipment': return tn('app.lane_layout.count.medical_equipment', n, '{n} medical equipment', '{n} medical equipment');
    case 'post': return tn('app.lane_layout.count.post', n, '{n} note', '{n} notes');
    case 'vital_sign': return tn('app.lane_layout.count.vital_sign', n, '{n} vital sign', '{n} vital signs');
    default: return tn('app.lane_layout.count.entry', n, '{n} entry', '{n} entries');
  }
}

/** Statuses that end a condition, medication or allergy: the server's rule, from /patients.json. */
export const CLOSED_STATUSES = new Set();

export function setClosedStatuses(statuses) {
  CLOSED_STATUSES.clear();
  for (const status of statuses) CLOSED_STATUSES.add(String(status).toLowerCase());
}
const LASTING_TYPES = new Set(['condition', 'medication', 'allergy']);

/** Bands narrower than this share of the window are drawn as points. */
const MIN_BAND_FRACTION = 0.008;
/** Marks closer than this (in pixels) are grouped into one counted mark. */
const MARK_GAP_PX = 34;

/**
 * One item per entry: {entry, t (its date), start, end, band, openStart, openEnd, ongoing}.
 * start/end are clamped to the window; `band` says whether it is drawn as a band.
 */
export function itemsFor(entries, ongoing, windowStart, windowEnd) {
  const span = Math.max(1, windowEnd - windowStart);
  const items = [];
  for (const entry of entries) {
    const t = entry.date ?? entry.start_date ?? entry.end_date;
    const s = entry.start_date ?? entry.date;
    let e = entry.end_date;
    let openEnd = false;
    if (e == null && LASTING_TYPES.has(entry.type) && !CLOSED_STATUSES.has((entry.status || '').toLowerCase())) {
      e = windowEnd;
      openEnd = true;
    }
    if (s != null && e != null && e > s) {
      const start = Math.max(s, windowStart);
      const end = Math.min(e, windowEnd);
      if ((end - start) / span >= MIN_BAND_FRACTION) {
        items.push({ entry, t, start, end, band: true, openStart: s < windowStart, openEnd: openEnd || e > windowEnd, ongoing: false });
        continue;
      }
    }
    items.push({ entry, t: Math.min(Math.max(t, windowStart), windowEnd), start: t, end: t, band: false, ongoing: false });
  }
  for (const entry of ongoing) {
    const openEnd = entry.end_date == null || entry.end_date > windowEnd;
    items.push({
      entry, t: entry.start_date ?? entry.date, start: windowStart, end: openEnd ? windowEnd : entry.end_date,
      band: true, openStart: true, openEnd, ongoing: true,
    });
  }
  return items;
}

/**
 * Lays out one lane for a track `trackPx` wide.
 * Returns {rows: [[band…]…], hiddenBands, clusters: [{items, x, t0, t1}]}; x and band.x0/x1 are 0…1.
 * A band carries `labelAt`: 'inside', 'after' or 'before' its bar.
 */
export function layoutLane(items, windowStart, windowEnd, trackPx, { maxRows = 6, overflowAsPoints = false, labelWidth = (i) => 8 * (i.entry.description || '').length } = {}) {
  const span = Math.max(1, windowEnd - windowStart);
  const px = Math.max(120, trackPx);
  const frac = (t) => Math.min(1, Math.max(0, (t - windowStart) / span));

  const bands = items.filter((i) => i.band).sort((a, b) => a.start - b.start || b.end - a.end);
  const points = items.filter((i) => !i.band);

  const rows = [];
  const rowEnds = [];
  let hiddenBands = 0;
  const overflow = [];
  for (const band of bands) {
    band.x0 = frac(band.start);
    band.x1 = frac(band.end);
    const barPx = (band.x1 - band.x0) * px;
    band.labelPx = Math.min(Math.ceil(labelWidth(band)) + 2, 280);
    const labelPx = band.labelPx + 18; // the bar's padding, or the gap beside it
    const textPx = labelPx / px;
    let occupied0 = band.x0;
    let occupied1 = band.x1;
    if (barPx >= textPx * px) band.labelAt = 'inside';
    else if (band.x1 + textPx + 8 / px <= 1) { band.labelAt = 'after'; occupied1 = band.x1 + textPx + 8 / px; }
    else { band.labelAt = 'before'; occupied0 = band.x0 - textPx - 8 / px; }
    let row = rowEnds.findIndex((end) => end + 6 / px <= occupied0);
    if (row === -1 && rows.length < maxRows) {
      row = rows.length;
      rows.push([]);
      rowEnds.push(-Infinity);
    }
    if (row === -1) {
      if (!overflowAsPoints) hiddenBands += 1;
      overflow.push(band);
      continue;
    }
    rows[row].push(band);
    rowEnds[row] = occupied1;
  }

  // Points (and, past the row limit, bands at their start) are grouped when closer than a mark.
  const spots = points.map((i) => ({ item: i, t: i.t }));
  if (overflowAsPoints) for (const band of overflow) spots.push({ item: band, t: band.start });
  spots.sort((a, b) => a.t - b.t);
  const gap = MARK_GAP_PX / px;
  const clusters = [];
  let current = null;
  for (const spot of spots) {
    const x = frac(spot.t);
    if (current && x - current.x0 < gap) {
      current.items.push(spot.item);
      current.x1 = x;
      current.t1 = spot.t;
    } else {
      current = { items: [spot.item], x0: x, x1: x, t0: spot.t, t1: spot.t };
      clusters.push(current);
    }
  }
  // Each mark at the middle of what it holds, then nudged apart so that no two overlap.
  for (const cluster of clusters) cluster.x = (cluster.x0 + cluster.x1) / 2;
  const edge = 12 / px;
  for (let i = 0; i < clusters.length; i++) {
    const min = i === 0 ? edge : clusters[i - 1].x + gap;
    clusters[i].x = Math.max(clusters[i].x, min);
  }
  for (let i = clusters.length - 1; i >= 0; i--) {
    const max = i === clusters.length - 1 ? 1 - edge : clusters[i + 1].x - gap;
    clusters[i].x = Math.min(clusters[i].x, max);
  }
  return { rows, hiddenBands, overflow, clusters };
}
