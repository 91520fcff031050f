// Small charts drawn by the app in SVG: one per vital sign (systolic and diastolic together) and per
// lab test with several numeric results. Readable without hovering: the latest value, its date,
// the lowest and highest values and the first and last dates are written out. The person's own
// (self-reported) readings are drawn as diamonds, named so in each point's title and in the chart's
// text alternative. The Summary's tiles draw the same charts without their heading (`bare`), and
// sparklines for the levels of How you feel. What is charted and where it goes is chart-model.js.

import { h, s, clear, debounce } from './dom.js';
import { formatDate, formatDateTime, formatNumber, formatTime, prettyUnit } from './format.js';
import { CHART_HEIGHT as HEIGHT, CHART_PAD as PAD, chartScale, diamondPath, sparkScale } from './chart-model.js';
import { t, tn } from './strings.js';

export class ChartGrid {
  constructor(root) {
    this.root = root;
    this.specs = [];
    this.width = 0; // the root's width at the last drawing
    this.cardWidth = null; // a card's width then
    // The width is read in the observer's callback, where the page is laid out already (read later, in a
    // timer, it could make the browser lay the page out again); the drawing waits for the end of a resize,
    // and is left out when the grid was drawn at that width meanwhile (a window loaded just after it shows).
    // A grid hidden (the Summary shown over the timeline, say) is 0 wide: nothing to draw until it shows again.
    let seen = 0;
    const differs = () => seen > 0 && Math.abs(seen - this.width) > 8;
    const drawSoon = debounce(() => { if (differs()) this.draw(); }, 120);
    this.observer = new ResizeObserver(() => {
      seen = this.root.clientWidth;
      if (differs()) drawSoon();
    });
    this.observer.observe(root);
  }

  /** Stops following the root's width (a grid whose root is drawn again from scratch). */
  disconnect() {
    this.observer.disconnect();
  }

  render(specs, emptyText) {
    ChartGrid.renderAll([[this, specs, emptyText]]);
  }

  /**
   * Draws several grids ([[grid, specs, emptyText]…]) laying the page out once for them all, not once a chart:
   * the grids' widths are read first, while their old charts are still in (the page as tall as it was, so no
   * scroll bar comes or goes meanwhile); every card of a grid is as wide as its first (the grid's columns are
   * equal), known from the last drawing when the grid is as wide as then, else read with the first cards of
   * all such grids put in (one more layout). The charts are built apart from the page and put in together.
   * Read for each card as it was added, a window of 20 lab charts laid the page out 20 times.
   */
  static renderAll(list) {
    // A grid never drawn (the Summary's, new at each drawing) has no card width to keep: its widths are read
    // with the first cards, not before as well.
    const widths = list.map(([grid]) => (grid.cardWidth !== null ? grid.root.clientWidth : null));
    const started = list.map(([grid, specs, emptyText]) => {
      grid.specs = specs;
      grid.emptyText = emptyText;
      return grid.begin();
    });
    const cardWidths = started.map((cards, i) => {
      const grid = list[i][0];
      if (!cards) return null;
      return widths[i] !== null && grid.width === widths[i] ? grid.cardWidth : cards[0].clientWidth;
    });
    list.forEach(([grid], i) => { if (widths[i] === null) widths[i] = grid.root.clientWidth; });
    list.forEach(([grid], i) => {
      grid.width = widths[i];
      grid.cardWidth = cardWidths[i];
      if (started[i]) grid.finish(started[i], cardWidths[i]);
    });
  }

  draw() {
    ChartGrid.renderAll([[this, this.specs, this.emptyText]]);
  }

  /** Clears the grid and puts its first (empty) card in; the cards, or null when there is no chart. */
  begin() {
    const root = clear(this.root);
    if (!this.specs.length) {
      if (this.emptyText) root.append(h('p', { class: 'muted' }, this.emptyText));
      return null;
    }
    const cards = this.specs.map((spec) => h('figure', { class: ['chart', spec.levels && 'levels', spec.bare && 'bare'], 'data-title': spec.title }));
    root.append(cards[0]);
    return cards;
  }

  /** Draws each chart into its card, `cardWidth` wide, and puts the others in at once. */
  finish(cards, cardWidth) {
    const rest = document.createDocumentFragment();
    this.specs.forEach((spec, i) => {
      fillChart(cards[i], spec, cardWidth);
      if (i > 0) rest.append(cards[i]);
    });
    this.root.append(rest);
  }
}

function latestOf(series) {
  const i = series.values.length - 1;
  return { value: series.values[i], date: series.dates[i] };
}

function fillChart(card, spec, cardWidth) {
  const unit = prettyUnit(spec.unit);
  const latest = spec.series.map(latestOf);
  const latestText = spec.levels
    ? spec.series.map((sr, i) => `${sr.name.toLowerCase()} ${formatNumber(latest[i].value)}`).join(' · ')
    : spec.pressure && latest.length === 2
      ? `${formatNumber(latest[0].value)}/${formatNumber(latest[1].value)}`
      : formatNumber(latest[0].value);
  const latestDate = Math.max(...latest.map((l) => l.date));
  const allDates = spec.series.flatMap((sr) => sr.dates);
  // Readings within two days of each other are told apart by their time.
  const when = Math.max(...allDates) - Math.min(...allDates) < 2 * 86400 && allDates.length > 1 ? formatDateTime : formatDate;
  const count = Math.max(...spec.series.map((sr) => sr.values.length));
  // Readings of the person's own (self-reported), counted once for a pair drawn as two series.
  const mineCount = Math.max(0, ...spec.series.map((sr) => (sr.mine || []).filter(Boolean).length));

  // A bare chart (in a Summary tile) has the tile's heading and latest value above it.
  if (!spec.bare) {
    card.append(
      h('h3', null, spec.title),
      h('div', { class: 'latest' },
        h('span', { class: 'value' }, latestText),
        unit ? h('span', { class: 'unit' }, unit) : null,
        h('span', { class: 'when' }, count === 1 ? t('app.vitals_chart.on', 'on {latest_date}', { latest_date: formatDate(latestDate) }) : t('app.vitals_chart.latest', 'latest, {latest_date}', { latest_date: when(latestDate) }))),
    );
  }

  const width = Math.max(180, cardWidth - 26);
  const { guides, t0, t1, plotW, x, y } = chartScale(spec, width);

  const summary = spec.levels ? latestText : spec.series.map((sr) => {
    const min = Math.min(...sr.values), max = Math.max(...sr.values);
    const range = min === max ? `${formatNumber(min)}` : t('app.vitals_chart.between_and', 'between {min} and {max}', { min: formatNumber(min), max: formatNumber(max) });
    return `${spec.series.length > 1 ? sr.name + ' ' : ''}${range}`;
  }).join('; ');
  let mineText = '';
  if (mineCount && mineCount === count) mineText = count === 1 ? t('app.vitals_chart.it_is_your_own_reading', ' It is your own reading.') : t('app.vitals_chart.all_are_your_own_readings', ' All are your own readings.');
  else if (mineCount) mineText = t('app.vitals_chart.of_them', ' {mine_count} of them {value}.', { mine_count: mineCount.toLocaleString(), value: mineCount === 1 ? t('app.vitals_chart.is_your_own_reading', 'is your own reading') : t('app.vitals_chart.are_your_own_readings', 'are your own readings') });
  const label = t('app.vitals_chart.from_to_latest_on', '{title}: {count} from {t0} to {t1}, {summary}{value}. Latest {latest_text}{value} on {latest_date}.{mine_text}', { title: spec.title, count: tn('app.vitals_chart.count.readings', count, '{n} reading', '{n} readings'), t0: formatDate(t0), t1: formatDate(t1), summary, value: unit ? ' ' + unit : '', latest_text: latestText, latest_date: formatDate(latestDate), mine_text: mineText });

  // The source's normal range, shaded; points outside it are flagged (a ring, and the word in their title).
  const outCount = spec.series.reduce((n, sr) => n + (sr.out || []).filter(Boolean).length, 0);
  const bandRange = spec.band ? `${bandWords(spec.band)}${unit ? ' ' + unit : ''}` : '';
  const bandText = spec.band ? ` ${t('app.vitals_chart.normal_range_sentence', 'Normal range {range}.', { range: bandRange })}` : '';
  const outText = outCount ? ` ${tn('app.vitals_chart.count.outside_the_normal_range', outCount, '{n} result outside the normal range.', '{n} results outside the normal range.')}` : '';
  const svg = s('svg', { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: 'img', 'aria-label': label + bandText + outText });
  if (spec.band) {
    const top = spec.band[1] == null ? PAD.top : Math.max(PAD.top, y(spec.band[1]));
    const bottom = spec.band[0] == null ? HEIGHT - PAD.bottom : Math.min(HEIGHT - PAD.bottom, y(spec.band[0]));
    if (bottom > top) {
      svg.append(s('rect', { class: 'chart-band', x: PAD.left, y: top, width: plotW, height: bottom - top },
        s('title', { text: t('app.vitals_chart.normal_range', 'Normal range {range}', { range: bandRange }) })));
    }
  }
  // Guides at the lowest and highest values, labelled on the right.
  for (const value of guides) {
    svg.append(
      s('line', { class: 'chart-guide', x1: PAD.left, x2: PAD.left + plotW, y1: y(value), y2: y(value) }),
      s('text', { class: 'chart-text', x: PAD.left + plotW + 6, y: y(value) + 4, text: formatNumber(value) }),
    );
  }
  svg.append(
    s('text', { class: 'chart-text', x: PAD.left, y: HEIGHT - 4, text: when(t0) }),
  );
  if (t1 !== t0) {
    // Two times of one day: the last says only its time (both in full would overlap on a small chart).
    const sameDay = when === formatDateTime && formatDate(t0) === formatDate(t1);
    svg.append(s('text', { class: 'chart-text', x: PAD.left + plotW, y: HEIGHT - 4, 'text-anchor': 'end', text: sameDay ? formatTime(t1) : when(t1) }));
  }
  for (const series of spec.series) {
    const cls = series.tone === 2 ? 'third' : series.second || series.tone === 1 ? 'second' : '';
    if (series.values.length > 1) {
      const points = series.values.map((v, i) => `${x(series.dates[i]).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      svg.append(s('polyline', { class: `chart-line ${cls}`, points }));
    }
    const many = series.values.length > 80;
    series.values.forEach((v, i) => {
      const last = i === series.values.length - 1;
      const mine = Boolean(series.mine?.[i]);
      if (many && !last && !mine) return;
      const flag = series.out?.[i] ? ` (${series.flags?.[i] || t('app.vitals_chart.outside_it', 'outside the normal range')})` : '';
      const title = s('title', { text: `${series.name}: ${formatNumber(v)}${unit ? ' ' + unit : ''}, ${when(series.dates[i])}${mine ? t('app.vitals_chart.your_own_reading_suffix', ' (your own reading)') : ''}${flag}` });
      const cx = x(series.dates[i]);
      const cy = y(v);
      if (flag) svg.append(s('circle', { class: 'chart-out', cx, cy, r: last ? 7.5 : 5.5 }));
      if (mine) {
        // Your own reading: a hollow diamond, told apart from the record's dots without colour.
        svg.append(s('path', { class: `chart-dot mine ${cls} ${last ? 'latest' : ''}`, d: diamondPath(cx, cy, last ? 5.5 : 4.5) }, title));
      } else {
        svg.append(s('circle', { class: `chart-dot ${cls} ${last ? 'latest' : ''}`, cx, cy, r: last ? 4.5 : 2.8 }, title));
      }
    });
  }
  card.append(svg);
  if (spec.series.length > 1 || mineCount) {
    card.append(h('figcaption', { class: 'legend' },
      ...(spec.series.length > 1 ? spec.series.map((sr) => h('span', { class: sr.tone === 2 ? 'third' : sr.second || sr.tone === 1 ? 'second' : '' }, sr.name)) : []),
      mineCount ? h('span', { class: 'mine-key' }, t('app.vitals_chart.your_own_reading', 'your own reading')) : null));
  }
  if (spec.band || outCount) {
    card.append(h('figcaption', { class: 'legend range-key' },
      spec.band ? h('span', { class: 'band-key' }, t('app.vitals_chart.normal_range_key', 'normal range {range}', { range: bandRange })) : null,
      outCount ? h('span', { class: 'out-key' }, tn('app.vitals_chart.count.outside_key', outCount, '{n} result outside it', '{n} results outside it')) : null));
  }
}

/** "70–99", "below 200", "above 40": a band's bounds in words. */
function bandWords([low, high]) {
  if (low != null && high != null) return `${formatNumber(low)}–${formatNumber(high)}`;
  return high != null ? t('app.vitals_chart.below_n', 'below {n}', { n: formatNumber(high) }) : t('app.vitals_chart.above_n', 'above {n}', { n: formatNumber(low) });
}

/**
 * A sparkline: a line of values over their dates, the latest as a dot, no axes (a trend at a glance).
 * `label` is its text alternative; `range` [lo, hi] fixes the scale (0–10 for the levels).
 */
export function sparkline(values, dates, { label, range = null, width = 120, height = 30 } = {}) {
  const svg = s('svg', { class: 'sparkline', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
  if (!values.length) return svg;
  const { pad, x, y } = sparkScale(values, dates, { range, width, height });
  svg.append(s('line', { class: 'chart-guide', x1: pad, x2: width - pad, y1: height - pad, y2: height - pad }));
  if (values.length > 1) {
    svg.append(s('polyline', { class: 'chart-line', points: values.map((v, i) => `${x(dates[i], i).toFixed(1)},${y(v).toFixed(1)}`).join(' ') }));
  }
  const last = values.length - 1;
  svg.append(s('circle', { class: 'chart-dot latest', cx: x(dates[last], last), cy: y(values[last]), r: 3.5 }));
  return svg;
}
