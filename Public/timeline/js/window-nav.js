// The view and the time window: the Summary (the app opens on it) or a timeline view, where it ends,
// stepping back and forward, the axis ticks. The address keeps it (#/summary, #/decade/2011-01-01), so
// reload, back and forward work.

import { dayString, formatTick } from './format.js';
import { t } from './strings.js';

/** The summary of tiles: not a time window (no end, no stepping). */
export const SUMMARY = 'summary';
export const VIEWS = [SUMMARY, 'day', 'week', 'month', 'year', 'decade', 'all'];
export const VIEW_NAMES = { summary: 'Summary', day: 'Day', week: 'Week', month: 'Month', year: 'Year', decade: 'Decade', all: 'All' };
/** A view's name from the string table (app.view.*), its English name the fallback. */
export const viewName = (view) => t(`app.view.${view}`, VIEW_NAMES[view] ?? view);
export const DEFAULT_VIEW = SUMMARY;

/** Whether a view is a window of the timeline (every view but the Summary). */
export const isTimeline = (view) => view !== SUMMARY;

/** {view, end} from the address; end is 'YYYY-MM-DD' or null for now (always null for the Summary and All). */
export function parseHash(hash = location.hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const view = VIEWS.includes(parts[0]) ? parts[0] : DEFAULT_VIEW;
  const end = view !== 'all' && view !== SUMMARY && /^\d{4}-\d{2}-\d{2}$/.test(parts[1] || '') ? parts[1] : null;
  return { view, end };
}

export function buildHash({ view, end }) {
  return end && view !== 'all' && view !== SUMMARY ? `#/${view}/${end}` : `#/${view}`;
}

function parseDay(day) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d);
}

function addPeriod(date, view, sign) {
  const d = new Date(date);
  switch (view) {
    case 'day': d.setDate(d.getDate() + sign); break;
    case 'week': d.setDate(d.getDate() + 7 * sign); break;
    case 'month': return addMonths(d, sign);
    case 'year': return addMonths(d, 12 * sign);
    case 'decade': return addMonths(d, 120 * sign);
  }
  return d;
}

/** Calendar months later, the day kept where the month has it, else the month's last day, as the daemon's
 *  calendar counts a month (31 January + 1 month is 28 February; Date's own setMonth would say 3 March). */
function addMonths(date, months) {
  const d = new Date(date);
  const day = d.getDate();
  d.setDate(1);
  d.setMonth(d.getMonth() + months);
  const last = new Date(d.getFullYear(), d.getMonth() + 1, 0).getDate();
  d.setDate(Math.min(day, last));
  return d;
}

const today = () => dayString(new Date());

/** The window before the one shown: it ends on the day the shown one starts. */
export function earlier(state, startSeconds) {
  if (state.view === 'all' || state.view === SUMMARY) return state;
  return { view: state.view, end: dayString(new Date(startSeconds * 1000)) };
}

/** The window after the one shown, or the one ending now when that is reached. */
export function later(state) {
  if (state.view === 'all' || state.view === SUMMARY || !state.end) return state;
  const next = dayString(addPeriod(parseDay(state.end), state.view, 1));
  return { view: state.view, end: next >= today() ? null : next };
}

export const canGoLater = (state) => state.view !== 'all' && state.view !== SUMMARY && state.end !== null;
export const canGoEarlier = (state) => state.view !== 'all' && state.view !== SUMMARY;

/** A window of `view` that ends on the day of `seconds` (to jump to an entry); from All or the Summary, a year. */
export function endingAt(view, seconds) {
  const day = dayString(new Date(seconds * 1000));
  return { view: view === 'all' || view === SUMMARY ? 'year' : view, end: day >= today() ? null : day };
}

const HOUR = 3600, DAY = 86400;
const STEPS = [
  { unit: 'hour', n: 1, approx: HOUR }, { unit: 'hour', n: 3, approx: 3 * HOUR }, { unit: 'hour', n: 6, approx: 6 * HOUR },
  { unit: 'hour', n: 12, approx: 12 * HOUR }, { unit: 'day', n: 1, approx: DAY }, { unit: 'day', n: 2, approx: 2 * DAY },
  { unit: 'day', n: 7, approx: 7 * DAY }, { unit: 'month', n: 1, approx: 30.4 * DAY }, { unit: 'month', n: 3, approx: 91 * DAY },
  { unit: 'month', n: 6, approx: 182 * DAY }, { unit: 'year', n: 1, approx: 365 * DAY }, { unit: 'year', n: 2, approx: 730 * DAY },
  { unit: 'year', n: 5, approx: 1826 * DAY }, { unit: 'year', n: 10, approx: 3652 * DAY }, { unit: 'year', n: 20, approx: 7305 * DAY },
  { unit: 'year', n: 50, approx: 18262 * DAY },
];

function floorTo(date, step) {
  const d = new Date(date);
  d.setMinutes(0, 0, 0);
  if (step.unit === 'hour') { d.setHours(Math.floor(d.getHours() / step.n) * step.n); return d; }
  d.setHours(0);
  if (step.unit === 'day') return d;
  d.setDate(1);
  if (step.unit === 'month') { d.setMonth(Math.floor(d.getMonth() / step.n) * step.n); return d; }
  d.setMonth(0);
  d.setFullYear(Math.floor(d.getFullYear() / step.n) * step.n);
  return d;
}

function advance(date, step) {
  const d = new Date(date);
  if (step.unit === 'hour') d.setHours(d.getHours() + step.n);
  else if (step.unit === 'day') d.setDate(d.getDate() + step.n);
  else if (step.unit === 'month') d.setMonth(d.getMonth() + step.n);
  else d.setFullYear(d.getFullYear() + step.n);
  return d;
}

/** Calendar-aligned ticks inside [start, end], at most about `maxTicks` of them. */
export function ticks(start, end, maxTicks) {
  const span = Math.max(1, end - start);
  const step = STEPS.find((candidate) => span / candidate.approx <= maxTicks) || STEPS[STEPS.length - 1];
  const labelUnit = step.unit === 'month' && step.n > 1 ? 'quarter' : step.unit;
  const out = [];
  let d = floorTo(new Date(start * 1000), step);
  for (let guard = 0; guard < 200; guard++) {
    const t = d.getTime() / 1000;
    if (t > end) break;
    if (t >= start) out.push({ t, label: formatTick(d, labelUnit) });
    d = advance(d, step);
  }
  return out;
}
