// Dates, ages, numbers and units as a person reads them. Times from the API are epoch seconds.

import { t } from './strings.js';

const locale = undefined; // the browser's

const dayFormat = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' });
const dayTimeFormat = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const timeFormat = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' });
const monthFormat = new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric' });
const shortMonthFormat = new Intl.DateTimeFormat(locale, { month: 'short' });
const weekdayFormat = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', month: 'short' });
const shortDayFormat = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short' });
const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });

export const toDate = (seconds) => new Date(seconds * 1000);

export function formatDate(seconds) {
  return seconds == null ? '—' : dayFormat.format(toDate(seconds));
}

export function formatDateTime(seconds) {
  return seconds == null ? '—' : dayTimeFormat.format(toDate(seconds));
}

export function formatTime(seconds) {
  return timeFormat.format(toDate(seconds));
}

/** A window as a short range: "2 Jan 2001 – 1 Jan 2011", or one day with times. */
export function formatWindow(start, end, view) {
  const last = toDate(end);
  const wholeDay = last.getHours() === 23 && last.getMinutes() === 59;
  if (view === 'day' && wholeDay) return `${weekdayFormat.format(last)}, ${last.getFullYear()}`;
  if (view === 'day' || view === 'week') {
    const short = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
    if (!wholeDay) return `${short.format(toDate(start))} – ${short.format(last)}`;
  }
  return `${formatDate(start)} – ${formatDate(end)}`;
}

/** Axis labels, coarser as the step grows. */
export function formatTick(date, unit) {
  switch (unit) {
    case 'hour': return date.getHours() === 0 ? shortDayFormat.format(date) : timeFormat.format(date);
    case 'day': return shortDayFormat.format(date);
    case 'month': return date.getMonth() === 0 ? String(date.getFullYear()) : shortMonthFormat.format(date);
    case 'quarter': return monthFormat.format(date);
    default: return String(date.getFullYear());
  }
}

export function formatNumber(value) {
  return value == null ? '—' : numberFormat.format(value);
}

/** Whole years between a birthdate and now (or `at`). */
export function age(birthdate, at = Date.now() / 1000) {
  if (birthdate == null) return null;
  const born = toDate(birthdate);
  const now = toDate(at);
  let years = now.getFullYear() - born.getFullYear();
  if (now.getMonth() < born.getMonth() || (now.getMonth() === born.getMonth() && now.getDate() < born.getDate())) years -= 1;
  return years;
}

export function genderWord(gender) {
  switch ((gender || '').toUpperCase()) {
    case 'M': return t('app.format.male', 'Male');
    case 'F': return t('app.format.female', 'Female');
    case '': return null;
    default: return gender;
  }
}

/** UCUM-ish units made readable: mm[Hg] → mmHg, kg/m2 → kg/m², Cel → °C. */
export function prettyUnit(unit) {
  if (!unit) return '';
  const map = { 'Cel': '°C', '[degF]': '°F', 'kg/m2': 'kg/m²', '/min': '/min', '[in_i]': 'in', '[lb_av]': 'lb' };
  if (map[unit]) return map[unit];
  return unit.replace(/\[([^\]]*)\]/g, '$1');
}

/** YYYY-MM-DD of a local date. */
export function dayString(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** "3 minutes ago", "in 2 hours". */
export function relative(seconds, now = Date.now() / 1000) {
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const diff = seconds - now;
  const abs = Math.abs(diff);
  if (abs < 60) return rtf.format(Math.round(diff), 'second');
  if (abs < 3600) return rtf.format(Math.round(diff / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(diff / 3600), 'hour');
  if (abs < 86400 * 45) return rtf.format(Math.round(diff / 86400), 'day');
  return formatDate(seconds);
}

/** A file's size: "812 B", "405 KB", "12.4 MB", "1.2 GB". */
export function formatBytes(bytes) {
  if (bytes == null) return '—';
  if (bytes < 1024) return `${bytes.toLocaleString()} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: value < 10 ? 1 : 0 })} ${units[unit]}`;
}
