// "In this window": every entry as text, one group per type, for reading and for screen readers.
// Long groups show their first rows and a button for the rest.

import { h, clear } from './dom.js';
import { formatDate } from './format.js';
import { LANES } from './lane-layout.js';
import { flagTag, valueText } from './entry-details.js';
import { resultFlag } from './result-range.js';
import { annotationTags, isStruck } from './annotations.js';
import { t } from './strings.js';

const FIRST_ROWS = 50;

export class EntryLists {
  /** onOpen({items, lane}, el) opens the details. */
  constructor(root, { onOpen }) {
    this.root = root;
    this.onOpen = onOpen;
    this.openGroups = new Set(['condition', 'ongoing']);
  }

  render(payload) {
    const root = clear(this.root);
    const ongoing = payload.ongoing || [];
    let any = false;
    if (ongoing.length) {
      any = true;
      root.append(this.group('ongoing', t('app.entry_list.ongoing_from_before_this_window', 'Ongoing from before this window'), ongoing.map((entry) => ({ entry, t: entry.start_date ?? entry.date, ongoing: true }))));
    }
    for (const lane of LANES) {
      const entries = payload[lane.key] || [];
      if (!entries.length) continue;
      any = true;
      root.append(this.group(lane.type, lane.name, entries.map((entry) => ({ entry, t: entry.date }))));
    }
    if (!any) root.append(h('p', { class: 'muted' }, t('app.entry_list.no_record_entries_in_this', 'No record entries in this window.')));
  }

  group(type, title, items) {
    const details = h('details', { class: 'entry-group', 'data-type': type });
    details.open = this.openGroups.has(type);
    details.addEventListener('toggle', () => {
      if (details.open) this.openGroups.add(type); else this.openGroups.delete(type);
      if (details.open && !details.dataset.filled) fill(FIRST_ROWS);
    });
    details.append(h('summary', null,
      h('span', { class: 'swatch', 'aria-hidden': 'true' }), title, h('span', { class: 'count' }, `(${items.length.toLocaleString()})`)));
    const list = h('ul');
    details.append(list);
    const fill = (limit) => {
      details.dataset.filled = '1';
      list.replaceChildren();
      for (const item of items.slice(0, limit)) {
        const lane = LANES.find((l) => l.type === item.entry.type) || LANES[0];
        const row = h('button', { type: 'button', class: ['entry-row', isStruck(item.entry) && 'struck'], 'data-id': item.entry.id },
          h('span', { class: 'date' }, item.ongoing ? t('app.entry_list.since', 'since {t}', { t: formatDate(item.t) }) : formatDate(item.t)),
          h('span', { class: ['desc', isStruck(item.entry) && 'struck'] }, h('span', { class: 'desc-text' }, item.entry.description || lane.one), annotationTags(item.entry)),
          h('span', { class: 'value' }, valueText(item.entry), flagTag(resultFlag(item.entry))));
        row.addEventListener('click', () => this.onOpen({ items: [item], lane }, row));
        list.append(h('li', null, row));
      }
      details.querySelector('.show-all')?.remove();
      if (items.length > limit) {
        const more = h('button', { type: 'button', class: 'button small show-all' }, t('app.entry_list.show_all', 'Show all {length}', { length: items.length.toLocaleString() }));
        more.addEventListener('click', () => { fill(items.length); list.querySelectorAll('button')[limit]?.focus(); });
        details.append(more);
      }
    };
    if (details.open) fill(FIRST_ROWS);
    return details;
  }
}
