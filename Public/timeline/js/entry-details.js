// The details dialog: one entry (description, dates, status, value and units, codes), a group of
// entries behind a cluster mark, or one of the user's posts (with delete). A record entry has
// "Your note" (a note, not mine / wrong, a medication's details); a reading of the person's own (a
// self-reported vital sign) has Edit and Delete. A modal panel (dialog.js): focus moves into it,
// Escape closes it, and focus returns to the mark that opened it (or, when the timeline was redrawn
// behind it, to the same entry's new mark).

import { h, clear, redrawKeeping } from './dom.js';
import { Dialog } from './dialog.js';
import { formatDate, formatDateTime, formatNumber, prettyUnit } from './format.js';
import { LANES, POST_LANE, VITAL_LANE, CLOSED_STATUSES, laneCount } from './lane-layout.js';
import { describePost } from './posts.js';
import { annotationSection, annotationTags, isStruck } from './annotations.js';
import { kindName, readingDetails } from './readings.js';
import { t } from './strings.js';
import { interpretationLabel, rangeText, resultFlag } from './result-range.js';

const laneOf = (type) => LANES.find((l) => l.type === type) || (type === 'post' ? POST_LANE : type === 'vital_sign' ? VITAL_LANE : { type, name: type, one: type });
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export class EntryDetails {
  /**
   * onDeletePost(post) returns a promise. annotations: {save(entry, body), remove(entry)} (promises;
   * save gives the stored annotation) and onChange() (redraws the timeline behind the dialog).
   * readings: {save(reading, body), remove(reading)} (promises; save gives the stored reading) and
   * onChange() (redraws the timeline behind). about: an AboutEntry (about-entry.js), whose section ("About
   * this", from the health library) a record entry's details end with; asked for only once they open.
   */
  constructor(dialog, { onDeletePost, annotations, readings, about = null }) {
    this.dialog = dialog;
    this.title = dialog.querySelector('#details-title');
    this.body = dialog.querySelector('#details-body');
    this.onDeletePost = onDeletePost;
    this.annotations = annotations;
    this.readings = readings;
    this.about = about;
    this.entryId = null;
    this.modal = new Dialog(dialog, { fallback: (trigger) => this.redrawnTrigger(trigger) });
    // Closed by Escape, ✕ or the backdrop as well as by close(): what the library was asked is dropped.
    dialog.addEventListener('close', () => this.about?.cancel());
  }

  /** The same entry's mark (or row) after the timeline was drawn again behind the dialog. */
  redrawnTrigger(trigger) {
    if (!trigger || !this.entryId) return null;
    const id = CSS.escape(this.entryId);
    // A reading of yours: its row in the list under the charts, else (deleted) the charts' heading.
    if (trigger.classList.contains('reading-row') || trigger.classList.contains('chart')) {
      return document.querySelector(`#own-readings .reading-row[data-id="${id}"]`) || document.getElementById('vitals-heading');
    }
    const inList = trigger.classList.contains('entry-row');
    const found = document.querySelector(inList ? `#entry-lists .entry-row[data-id="${id}"]` : `#timeline .mark[data-id="${id}"]`)
      || document.querySelector(`#timeline .mark[data-id="${id}"], #entry-lists .entry-row[data-id="${id}"]`);
    if (found) {
      // A mark is one of its lane's roving stops: make it the lane's Tab stop.
      for (const mark of found.closest('.track')?.querySelectorAll('.mark[tabindex="0"]') || []) mark.tabIndex = -1;
      if (found.classList.contains('mark')) found.tabIndex = 0;
    }
    return found || document.getElementById('timeline-heading');
  }

  close() {
    this.about?.cancel();
    this.modal.close();
  }

  /** What is shown, open, drawn again in the table's language (what is typed in a note is kept). */
  redraw() {
    if (this.dialog.open && this.drawn) redrawKeeping(this.dialog, this.drawn);
  }

  /** group: {items: [{entry, ongoing?, post?}], lane, t0?, t1?}. */
  open(group, trigger) {
    const opener = trigger || document.activeElement; // before the body is drawn again
    this.entryId = group.items.length === 1 && !group.items[0].post ? group.items[0].entry.id : null;
    if (group.items.length === 1) this.showItem(group.items[0], null);
    else this.showGroup(group);
    this.modal.open(opener);
  }

  showGroup(group) {
    this.drawn = () => this.showGroup(group);
    this.about?.cancel();
    const { items, lane } = group;
    this.dialog.dataset.type = lane.type;
    const first = formatDate(group.t0 ?? items[0].t);
    const last = formatDate(group.t1 ?? items[items.length - 1].t);
    this.title.textContent = first === last ? t('app.entry_details.on', '{length} on {first}', { length: laneCount(lane, items.length), first }) : laneCount(lane, items.length);
    const body = clear(this.body);
    if (first !== last) body.append(h('p', { class: 'muted' }, t('app.entry_details.to', '{first} to {last}', { first, last })));
    const list = h('ul', { class: 'cluster-list' });
    const shown = items.slice(0, 300);
    for (const item of shown) {
      const row = h('button', { type: 'button', class: 'entry-row' },
        h('span', { class: 'date' }, lane.type === 'post' ? formatDateTime(item.t) : formatDate(item.t)),
        h('span', { class: ['desc', isStruck(item.entry) && 'struck'] }, h('span', { class: 'desc-text' }, item.entry.description || lane.one), annotationTags(item.entry)),
        h('span', { class: 'value' }, valueText(item.entry)));
      row.addEventListener('click', () => { this.showItem(item, group); this.dialog.querySelector('[data-back]')?.focus(); });
      list.append(h('li', null, row));
    }
    body.append(list);
    if (items.length > shown.length) body.append(h('p', { class: 'muted small' }, t('app.entry_details.and_more_choose_a_shorter', 'And {value} more: choose a shorter window to see them.', { value: (items.length - shown.length).toLocaleString() })));
  }

  showItem(item, group) {
    this.drawn = () => this.showItem(item, group);
    this.about?.cancel();
    const entry = item.entry;
    const post = item.post;
    const lane = laneOf(post ? 'post' : entry.type);
    this.dialog.dataset.type = lane.type;
    const body = clear(this.body);
    if (group) {
      const back = h('button', { type: 'button', class: 'button quiet small', 'data-back': '' }, t('app.entry_details.back_to_the', '‹ Back to the {length}', { length: laneCount(lane, group.items.length) }));
      back.addEventListener('click', () => { this.showGroup(group); this.dialog.querySelector('.cluster-list button')?.focus(); });
      body.append(h('div', null, back));
    }
    if (post) {
      this.title.textContent = describePost(post).replace(/:.*$/, '');
      body.append(kind(lane, t('app.entry_details.recorded_by_you', 'Recorded by you')));
      const facts = h('dl', { class: 'facts' });
      addFact(facts, t('app.entry_details.recorded', 'Recorded'), formatDateTime(post.created_at));
      for (const [name, value] of Object.entries(post.data || {})) {
        addFact(facts, capital(name.replace(/^select-choice-/, '').replace(/-/g, ' ')), Array.isArray(value) ? value.join(', ') : String(value));
      }
      body.append(facts);
      const del = h('button', { type: 'button', class: 'button danger' }, t('app.entry_details.delete_this_note', 'Delete this note'));
      del.addEventListener('click', async () => {
        del.disabled = true;
        try { await this.onDeletePost(post); this.close(); } catch { del.disabled = false; }
      });
      body.append(h('div', { class: 'actions' }, del));
      return;
    }

    this.entryId = entry.id;
    if (item.reading && this.readings) {
      // A reading of the person's own: what it holds, Edit and Delete.
      const reading = item.reading;
      this.title.textContent = kindName(reading.kind);
      body.append(kind(lane, t('app.entry_details.your_own_reading_self_reported', 'Your own reading (self-reported)')),
        readingDetails(reading, {
          save: (data) => this.readings.save(reading, data),
          remove: () => this.readings.remove(reading),
          onSaved: () => this.readings.onChange(),
          // Drawn again first: the focus then goes to what stands where the reading was.
          onRemoved: async () => { await this.readings.onChange(); this.close(); },
        }));
      if (item.chart) {
        body.append(h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button quiet', onclick: () => this.close() }, t('app.entry_details.show_the_chart', 'Show the “{chart}” chart', { chart: item.chart }))));
      }
      return;
    }
    this.title.textContent = entry.description || capital(lane.one);
    body.append(kind(lane, capital(lane.one)));
    // A vital sign reading (item.chart: the chart it is drawn in) is a value and a date; notes are for lane entries.
    const reading = lane === VITAL_LANE;
    const annotation = this.annotations && !reading ? annotationSection(entry, {
      save: (data) => this.annotations.save(entry, data),
      remove: () => this.annotations.remove(entry),
      onChange: () => this.annotations.onChange(entry),
    }) : null;
    if (annotation) body.append(annotation.banner);
    if (item.ongoing) {
      body.append(h('p', { class: 'note' }, t('app.entry_details.began_before_this_window_and', 'Began before this window and is still open, so it is drawn across the whole window.')));
    }
    const facts = h('dl', { class: 'facts' });
    const start = entry.start_date;
    const end = entry.end_date;
    if (start != null || end != null) {
      if (start != null) addFact(facts, t('app.entry_details.started', 'Started'), formatDate(start));
      const open = end == null && !CLOSED_STATUSES.has((entry.status || '').toLowerCase());
      addFact(facts, t('app.entry_details.ended', 'Ended'), end != null ? formatDate(end) : open ? t('app.entry_details.no_end_recorded', 'No end recorded') : '—');
    } else {
      addFact(facts, t('app.entry_details.date', 'Date'), formatDate(entry.date));
    }
    if (!reading || entry.status) addFact(facts, t('app.entry_details.status', 'Status'), entry.status ? capital(entry.status) : t('app.entry_details.not_recorded', 'Not recorded'));
    const value = valueText(entry);
    // What the source said of the value: the flag beside it, its normal range, its interpretation, its note.
    const flag = resultFlag(entry);
    if (value) addFact(facts, t('app.entry_details.value', 'Value'), flag?.flag ? h('span', { class: 'value-out' }, value, flagTag(flag)) : value);
    const range = rangeText(entry.reference_range);
    if (range) addFact(facts, t('app.entry_details.normal_range', 'Normal range'), range);
    if (entry.interpretation) addFact(facts, t('app.entry_details.interpretation', 'Interpretation'), interpretationLabel(entry.interpretation));
    else if (flag?.flag) addFact(facts, t('app.entry_details.interpretation', 'Interpretation'), flag.label);
    if (entry.source_note) addFact(facts, t('app.entry_details.note_in_the_record', 'Note in the record'), entry.source_note);
    const codes = Object.entries(entry.codes || {});
    if (reading && !codes.length) {
      // The charts carry no codes: nothing to say.
    } else if (codes.length) {
      const list = h('ul', { class: 'codes' });
      for (const [system, values] of codes) {
        list.append(h('li', null, h('span', { class: 'system' }, system), ...values.map((code, i) => [i ? ', ' : '', h('code', null, code)])));
      }
      addFact(facts, codes.length === 1 ? t('app.entry_details.code', 'Code') : t('app.entry_details.codes', 'Codes'), list);
    } else {
      addFact(facts, t('app.entry_details.codes', 'Codes'), t('app.entry_details.none_recorded', 'None recorded'));
    }
    if (Array.isArray(entry.sources) && entry.sources.length > 1) {
      addFact(facts, t('app.entry_details.sources', 'Sources'), entry.sources.map((source) => (source === 'files' ? t('app.entry_details.imported_files', 'imported files') : source)).join(', '));
    }
    body.append(facts);
    if (reading && item.chart) {
      body.append(h('p', { class: 'note' }, t('app.entry_details.one_reading_of_the_chart', 'One reading of the “{chart}” chart under Vital signs.', { chart: item.chart })),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button', onclick: () => this.close() }, t('app.entry_details.show_the_chart_2', 'Show the chart'))));
    }
    if (annotation) body.append(annotation.section);
    // What the health library says about it: a record entry's (not a reading of the chart's own), asked now.
    const about = !reading && this.about ? this.about.section(entry) : null;
    if (about) body.append(about);
  }
}

function kind(lane, text) {
  return h('p', { class: 'kind' }, h('span', { class: 'swatch', 'aria-hidden': 'true' }), text);
}

function addFact(dl, name, value) {
  dl.append(h('dt', null, name), h('dd', null, value));
}

/** The word that flags a value outside its normal range ("High", "Low", "Abnormal"). */
export function flagTag(flag) {
  if (!flag?.flag) return null;
  const word = flag.flag === 'high' ? t('app.entry_details.flag_high', 'High')
    : flag.flag === 'low' ? t('app.entry_details.flag_low', 'Low') : t('app.entry_details.flag_abnormal', 'Abnormal');
  return h('span', { class: 'tag flag-tag', title: flag.label }, word);
}

export function valueText(entry) {
  const m = entry.measurement;
  if (!m) return '';
  if (m.value != null) return `${formatNumber(m.value)}${m.unit ? ' ' + prettyUnit(m.unit) : ''}`;
  if (m.text) return `${m.text}${m.unit ? ' ' + prettyUnit(m.unit) : ''}`;
  return '';
}
