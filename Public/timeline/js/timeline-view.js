// The time axis with one lane per entry type (and one for the user's own notes). Bands for what
// lasts, points and counted clusters for the rest. Each lane is one Tab stop; the arrow keys move
// between its marks (roving tabindex), Enter or a click opens the details.

import { h } from './dom.js';
import { formatDate, formatDateTime } from './format.js';
import { ticks } from './window-nav.js';
import { LANES, POST_LANE, itemsFor, laneCount, layoutLane } from './lane-layout.js';
import { describePost } from './posts.js';
import { hasNote, isStruck, labelSuffix } from './annotations.js';
import { t } from './strings.js';

const ROW_H = 28;
const POINT_ROW_H = 30;

export class TimelineView {
  /** onOpen({items, title}, triggerElement) is called for a click or Enter on a mark. */
  constructor(root, { onOpen }) {
    this.root = root;
    this.onOpen = onOpen;
    this.expanded = new Set();
    this.data = null;
    this.lastWidth = 0;
    // Hidden (the Summary shown instead), the root is 0 wide: it is drawn again when it shows, if need be.
    const observer = new ResizeObserver(() => {
      const width = this.root.clientWidth;
      if (this.data && width > 0 && Math.abs(width - this.lastWidth) > 8) this.render(this.data);
    });
    observer.observe(root);
  }

  /** data: {payload, empty: Node|null}. */
  render(data) {
    this.data = data;
    const { payload } = data;
    // The width is read before the old lanes go: the page is laid out as it was (no scroll bar going and
    // coming back while the lanes are gone), and the lanes are built apart from it, then put in at once.
    const width = this.root.clientWidth;
    const labelWidth = parseFloat(getComputedStyle(this.root).getPropertyValue('--label-w')) || 0;
    this.lastWidth = width;
    const trackPx = Math.max(120, width - labelWidth);
    const root = document.createDocumentFragment();
    const ws = payload.start_date;
    const we = payload.end_date;

    const lanes = [];
    for (const lane of LANES) {
      const entries = payload[lane.key] || [];
      const ongoing = (payload.ongoing || []).filter((entry) => entry.type === lane.type);
      if (entries.length + ongoing.length === 0) continue;
      lanes.push({ lane, items: itemsFor(entries, ongoing, ws, we), count: entries.length + ongoing.length });
    }
    const posts = payload.timeline_entries || [];
    if (posts.length) {
      const items = posts.map((post) => ({ entry: { ...post, type: 'post', description: describePost(post) }, post, t: post.created_at, start: post.created_at, end: post.created_at, band: false }));
      lanes.push({ lane: POST_LANE, items, count: posts.length });
    }

    if (lanes.length === 0) {
      this.root.replaceChildren(data.empty || h('p', { class: 'muted' }, t('app.timeline_view.nothing_in_this_window', 'Nothing in this window.')));
      return { marks: 0 };
    }

    const tickList = ticks(ws, we, Math.max(2, Math.floor(trackPx / 80)));
    const axis = h('div', { class: 'axis', 'aria-hidden': 'true' });
    tickList.forEach((tick, index) => {
      const x = (tick.t - ws) / (we - ws);
      const el = h('span', { class: ['tick', x < 0.04 && 'first', x > 0.96 && 'last'] }, tick.label);
      el.style.left = `${(x * 100).toFixed(3)}%`;
      axis.append(el);
      void index;
    });
    root.append(axis);

    let marks = 0;
    for (const { lane, items, count } of lanes) {
      const laneEl = this.renderLane(lane, items, count, ws, we, trackPx, tickList);
      marks += laneEl.querySelectorAll('.mark').length;
      root.append(laneEl);
    }
    this.root.replaceChildren(root);
    return { marks };
  }

  renderLane(lane, items, count, ws, we, trackPx, tickList) {
    const expanded = this.expanded.has(lane.type);
    // A band with your note starts its label with a note mark (about 18px).
    const labelWidth = (item) => measure(item.entry.description || lane.one) + (hasNote(item.entry) ? 18 : 0);
    // Past 40 rows even an expanded lane groups what is left with the points.
    const layout = layoutLane(items, ws, we, trackPx, { maxRows: expanded ? 40 : 6, overflowAsPoints: expanded, labelWidth });
    const laneName = lane.name;
    const label = h('div', { class: 'lane-label' },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }),
      h('span', { id: `lane-${lane.type}` }, laneName),
      h('span', { class: 'count' }, count.toLocaleString()));
    if (layout.hiddenBands > 0 || expanded) {
      const more = h('button', {
        type: 'button', class: 'button quiet small lane-more', 'aria-expanded': String(expanded),
        onclick: () => { if (expanded) this.expanded.delete(lane.type); else this.expanded.add(lane.type); this.render(this.data); },
      }, expanded ? t('app.timeline_view.show_fewer', 'Show fewer') : t('app.timeline_view.more', '+{hidden_bands} more', { hidden_bands: layout.hiddenBands.toLocaleString() }));
      label.append(more);
    }

    const track = h('div', { class: 'track', role: 'group', 'aria-labelledby': `lane-${lane.type}` });
    for (const tick of tickList) {
      const line = h('span', { class: 'gridline', 'aria-hidden': 'true' });
      line.style.left = `${(((tick.t - ws) / (we - ws)) * 100).toFixed(3)}%`;
      track.append(line);
    }

    const marks = [];
    layout.rows.forEach((row, rowIndex) => {
      for (const band of row) {
        const text = bandLabel(band, lane);
        const el = h('button', {
          type: 'button',
          class: ['mark', 'band', band.openStart && 'open-start', band.openEnd && 'open-end', band.labelAt !== 'inside' && `label-${band.labelAt}`,
            isStruck(band.entry) && 'struck', hasNote(band.entry) && 'has-note'],
          'aria-label': text,
          title: text,
          'data-id': band.entry.id,
          tabindex: '-1',
        }, h('span', { class: 'band-text', 'aria-hidden': 'true' },
          hasNote(band.entry) ? h('span', { class: 'note-mark' }, '✎') : null, band.entry.description || lane.one));
        if (band.labelAt !== 'inside') el.firstChild.style.maxWidth = `${band.labelPx}px`;
        el.style.left = `${(band.x0 * 100).toFixed(3)}%`;
        el.style.width = `max(6px, ${((band.x1 - band.x0) * 100).toFixed(3)}%)`;
        el.style.top = `${6 + rowIndex * ROW_H}px`;
        el.addEventListener('click', () => this.onOpen({ items: [band], lane }, el));
        marks.push({ el, x: band.x0 });
        track.append(el);
      }
    });
    const pointTop = 6 + layout.rows.length * ROW_H;
    for (const cluster of layout.clusters) {
      let el;
      if (cluster.items.length === 1) {
        const item = cluster.items[0];
        const text = pointLabel(item, lane);
        el = h('button', {
          type: 'button', class: ['mark', 'point', isStruck(item.entry) && 'struck', hasNote(item.entry) && 'has-note'],
          'aria-label': text, title: text, 'data-id': item.entry.id, tabindex: '-1',
        });
      } else {
        const text = clusterLabel(cluster, lane, we - ws <= 8 * 86400);
        const struck = cluster.items.filter((i) => isStruck(i.entry)).length;
        const noted = cluster.items.some((i) => hasNote(i.entry));
        el = h('button', { type: 'button', class: ['mark', 'cluster', struck === cluster.items.length && 'struck', noted && 'has-note'], 'aria-label': text, title: text, tabindex: '-1' },
          cluster.items.length > 999 ? '1k+' : String(cluster.items.length));
      }
      el.style.left = `${(cluster.x * 100).toFixed(3)}%`;
      el.style.top = `${pointTop}px`;
      el.addEventListener('click', () => this.onOpen({ items: cluster.items, lane, t0: cluster.t0, t1: cluster.t1 }, el));
      marks.push({ el, x: cluster.x });
      track.append(el);
    }
    track.style.height = `${pointTop + (layout.clusters.length ? POINT_ROW_H : 0) + 4}px`;

    marks.sort((a, b) => a.x - b.x);
    if (marks.length) marks[0].el.tabIndex = 0;
    track.addEventListener('keydown', (event) => {
      const index = marks.findIndex((m) => m.el === document.activeElement);
      if (index === -1) return;
      let next = index;
      if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = Math.min(marks.length - 1, index + 1);
      else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = Math.max(0, index - 1);
      else if (event.key === 'Home') next = 0;
      else if (event.key === 'End') next = marks.length - 1;
      else return;
      event.preventDefault();
      marks[index].el.tabIndex = -1;
      marks[next].el.tabIndex = 0;
      marks[next].el.focus();
    });

    return h('div', { class: 'lane', 'data-type': lane.type, 'data-count': String(count) }, label, track);
  }
}

// Band labels are measured with the font they are drawn in, so that packing leaves them room.
let measureContext = null;
let measureFont = '';
function measure(text) {
  if (!measureContext) {
    measureContext = document.createElement('canvas').getContext('2d');
    const probe = document.createElement('span');
    probe.className = 'mark band';
    probe.hidden = true;
    document.body.append(probe);
    const style = getComputedStyle(probe);
    measureFont = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    probe.remove();
  }
  measureContext.font = measureFont;
  return measureContext.measureText(text).width;
}

function bandLabel(band, lane) {
  return bandText(band, lane) + labelSuffix(band.entry);
}

function bandText(band, lane) {
  const entry = band.entry;
  const what = `${entry.description || lane.one}, ${lane.one}`;
  const started = entry.start_date ?? entry.date;
  if (band.ongoing) {
    return t('app.timeline_view.ongoing_since', '{what}, ongoing since {started}{value}', { what, started: formatDate(started), value: entry.end_date ? `, until ${formatDate(entry.end_date)}` : '' });
  }
  if (band.openEnd && entry.end_date == null) return t('app.timeline_view.since_no_end_recorded', '{what}, since {started}, no end recorded', { what, started: formatDate(started) });
  return t('app.timeline_view.to', '{what}, {started} to {end_date}', { what, started: formatDate(started), end_date: formatDate(entry.end_date) });
}

function pointLabel(item, lane) {
  const entry = item.entry;
  if (lane.type === 'post') return `${entry.description}, ${formatDateTime(item.t)}`;
  const value = entry.measurement?.value != null ? `, ${entry.measurement.value}${entry.measurement.unit ? ' ' + entry.measurement.unit : ''}` : (entry.measurement?.text ? `, ${entry.measurement.text}` : '');
  return `${entry.description || lane.one}, ${lane.one}, ${formatDate(item.t)}${value}${labelSuffix(entry)}`;
}

function clusterLabel(cluster, lane, short) {
  const many = laneCount(lane, cluster.items.length);
  const format = short ? formatDateTime : formatDate;
  const first = format(cluster.t0);
  const last = format(cluster.t1);
  const struck = cluster.items.filter((i) => isStruck(i.entry)).length;
  const noted = cluster.items.filter((i) => hasNote(i.entry)).length;
  const extra = [struck ? t('app.timeline_view.marked_wrong', '{struck} marked wrong', { struck: struck.toLocaleString() }) : null, noted ? t('app.timeline_view.with_your_note', '{noted} with your note', { noted: noted.toLocaleString() }) : null].filter(Boolean);
  return (first === last ? t('app.timeline_view.on', '{many} on {first}', { many, first }) : t('app.timeline_view.to_2', '{many}, {first} to {last}', { many, first, last })) + (extra.length ? ` (${extra.join(', ')})` : '');
}
