// Shared by the web app's unit tests. Imported first, before any module of the app: the app reads
// dates in the browser's time zone, and the tests pin one that has daylight saving time (New York:
// 10 March 2024 lasts 23 hours, 3 November 2024 lasts 25), so that calendar arithmetic is tested where
// a fixed 86,400 s a day would go wrong, whatever the zone of the machine running them.

process.env.TZ = 'America/New_York';

/** Epoch seconds of a local date and time (month 1-12, as written). */
export function local(year, month, day, hour = 0, minute = 0, second = 0) {
  return new Date(year, month - 1, day, hour, minute, second).getTime() / 1000;
}

/** The local date a number of days from today, as YYYY-MM-DD. */
export function daysFromToday(days) {
  const d = new Date();
  d.setDate(d.getDate() + days);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
