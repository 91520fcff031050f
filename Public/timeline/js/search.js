// Search: the header's search field and the panel of results (GET /search.json). The whole record of
// the person shown is searched (linked records too): entries, your notes on them, what you posted and
// the sections of imported documents. Each result says its date, its type, its title and where the
// words matched; following one shows it where the app shows it: an entry or a note of yours in a
// window that holds its date, with its details open, or a document's section in Documents.
// Snippets are the record's own text: they go into the page as text nodes and <mark> elements whose
// text is set as text, never as HTML.

import { h, $, $$, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { formatDate } from './format.js';
import { LANES, POST_LANE, VITAL_LANE } from './lane-layout.js';
import { SUMMARY, endingAt } from './window-nav.js';
import { describePost } from './posts.js';
import { readingItem } from './readings.js';
import { later, showKey, t, tn } from './strings.js';

const PAGE = 20;

/** What a post's kind is called in a result. */
const POST_TYPES = { levels: later('app.search.your_levels', 'your levels'), medication: later('app.search.your_medication', 'your medication'), regimen: later('app.search.medications_taken', 'medications taken') };

/** The small type label of a result, and the colour it borrows (a lane's). */
export function resultType(result) {
  if (result.kind === 'post') return { text: String(POST_TYPES[result.type] || t('app.search.your_note', 'your note')), colour: 'post' };
  if (result.kind === 'section') return { text: t('app.search.document_section', 'document section'), colour: 'document' };
  if (result.type === 'vital_sign') return { text: t('app.search.vital_sign', 'vital sign'), colour: 'vital_sign' };
  const lane = LANES.find((l) => l.type === result.type);
  return { text: lane ? String(lane.one) : String(result.type || t('app.search.entry', 'entry')).replace(/_/g, ' '), colour: lane ? lane.type : 'other' };
}

/** A snippet's parts as nodes: plain text as text, each match in a <mark> (its text set as text). */
export function snippetNodes(parts) {
  const nodes = [];
  for (const part of parts || []) {
    const text = String(part?.text ?? '');
    if (!text) continue;
    if (part.match) {
      const mark = document.createElement('mark');
      mark.textContent = text;
      nodes.push(mark);
    } else {
      nodes.push(document.createTextNode(text));
    }
  }
  return nodes;
}

/**
 * An entry of a timeline window's payload as the timeline would open it ({item, lane}), or null: a
 * lane's entry, an ongoing one, or a vital sign's reading (its value and date from the chart's series;
 * a reading of the person's own as its details open it, to change or delete it).
 */
export function findEntry(payload, id) {
  for (const lane of LANES) {
    const entry = (payload[lane.key] || []).find((e) => e.id === id);
    if (entry) return { item: { entry, t: entry.date ?? entry.start_date ?? entry.end_date }, lane };
  }
  const ongoing = (payload.ongoing || []).find((e) => e.id === id);
  if (ongoing) {
    return { item: { entry: ongoing, t: ongoing.start_date ?? ongoing.date, ongoing: true }, lane: LANES.find((l) => l.type === ongoing.type) || LANES[0] };
  }
  for (const vital of payload.vitals || []) {
    const i = (vital.ids || []).indexOf(id);
    if (i === -1) continue;
    const chart = /systolic|diastolic/i.test(vital.description) ? t('app.search.blood_pressure', 'Blood pressure') : vital.description;
    const reading = vital.self_reported?.[i] ? (payload.readings || []).find((r) => r.id === id) : null;
    if (reading) return { item: readingItem(reading, chart), lane: VITAL_LANE };
    const entry = { id, type: 'vital_sign', description: vital.description, date: vital.dates[i], measurement: { value: vital.values[i], unit: vital.units ?? null } };
    return { item: { entry, t: entry.date, chart }, lane: VITAL_LANE };
  }
  return null;
}

export class SearchPanel {
  /**
   * form: the header's role="search" form (its input and submit button). dialog: the results
   * <dialog> of index.html. api: search(params). personId(): the person shown (null: no one).
   * Following a result, the app is asked through: current(): {view, payload, loading}, the view the
   * address asks for, the timeline window drawn last and whether one is being loaded; showWindow(next):
   * goes to a window, resolving to whether it was drawn; openDetails(group, trigger) and
   * openSection(documentId, number, trigger) (resolves to whether it was found); showStatus(text): the
   * app's status line.
   */
  constructor(form, dialog, { api, personId, current, showWindow, openDetails, openSection, showStatus }) {
    this.form = form;
    this.input = form.querySelector('input[type="search"]');
    this.dialog = dialog;
    this.api = api;
    this.personId = personId;
    this.current = current;
    this.showWindow = showWindow;
    this.openDetails = openDetails;
    this.openSection = openSection;
    this.showStatus = showStatus;
    this.status = dialog.querySelector('#search-status');
    this.list = dialog.querySelector('#search-results');
    this.foot = dialog.querySelector('#search-foot');
    this.shown = dialog.querySelector('#search-shown');
    this.moreButton = dialog.querySelector('#search-more');
    this.query = '';
    this.person = null; // whose record the results are from
    this.cursor = null;
    this.count = 0; // results listed
    this.seq = 0;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.search(this.input.value);
    });
    this.moreButton.addEventListener('click', () => this.more());
    // Closed with Escape or ✕: back to the search field, whichever of field and button searched.
    this.modal = new Dialog(dialog);
  }

  /** The person shown changed: results of another person's record are not kept. */
  showFor(personId) {
    if (personId === this.person || this.person === null) return;
    this.seq += 1;
    this.close();
    this.person = null;
    clear(this.list);
  }

  /** Forgets everything (signed out, locked). */
  reset() {
    this.seq += 1;
    this.close();
    this.person = null;
    this.query = '';
    this.input.value = '';
    clear(this.list);
  }

  close() {
    this.modal.close();
  }

  async search(text) {
    const query = text.trim();
    if (!query) {
      this.input.focus();
      return;
    }
    const seq = ++this.seq;
    this.query = query;
    this.person = this.personId();
    this.cursor = null;
    this.count = 0;
    clear(this.list);
    this.foot.hidden = true;
    this.moreButton.disabled = false;
    showKey(this.moreButton);
    this.say(t('app.search.searching_for', 'Searching for {query}…', { query }));
    this.modal.open(this.input, { toTop: true });
    await this.load(seq, null);
  }

  async more() {
    if (this.cursor == null) return;
    const seq = this.seq;
    const first = this.count;
    this.moreButton.disabled = true;
    showKey(this.moreButton, 'app.search.loading', 'Loading…');
    await this.load(seq, this.cursor);
    if (seq !== this.seq) return;
    this.moreButton.disabled = false;
    showKey(this.moreButton);
    // The keyboard goes on from the first new result (or stays in the foot when there was none).
    const next = this.list.querySelectorAll('.search-result')[first];
    if (next) next.focus();
  }

  async load(seq, cursor) {
    this.dialog.setAttribute('aria-busy', 'true');
    let page;
    try {
      page = await this.api.search({ q: this.query, patient: this.person, limit: PAGE, cursor });
    } catch (error) {
      if (seq !== this.seq) return;
      this.dialog.removeAttribute('aria-busy');
      if (error.status === 401 || error.status === 423) return; // back to the sign-in screen
      // A 400 (a query with nothing to search for, a bad filter) says what was wrong.
      this.say(error.status === 400 ? error.message : t('app.search.could_not_search', 'Could not search: {message}', { message: error.message }), true);
      if (cursor != null) this.foot.hidden = false;
      return;
    }
    if (seq !== this.seq) return;
    this.dialog.removeAttribute('aria-busy');
    const results = page?.results || [];
    const total = page?.total ?? results.length;
    results.forEach((result) => this.list.append(this.item(result, this.count++)));
    this.cursor = page?.next_cursor ?? null;
    if (total === 0) {
      this.say(t('app.search.no_results_for', 'No results for {query}.', { query: this.query }));
      this.status.append(h('span', { class: 'search-hint muted' },
        t('app.search.words_of_3_letters_or', ' Words of 3 letters or more also find longer words (potas finds potassium); put a phrase in quotes.')));
    } else {
      this.say(t('app.search.for', '{total} for {query}', { total: tn('app.search.count.results', total, '{n} result', '{n} results'), query: this.query }));
    }
    this.shown.textContent = total > this.count ? t('app.search.showing_of', 'Showing {count} of {total}.', { count: this.count.toLocaleString(), total: total.toLocaleString() }) : '';
    this.moreButton.hidden = this.cursor == null;
    this.foot.hidden = this.cursor == null && !this.shown.textContent;
  }

  say(text, error = false) {
    this.status.classList.toggle('error', error);
    clear(this.status).append(text);
  }

  item(result, index) {
    const id = `search-result-${index}`;
    const type = resultType(result);
    const date = result.date != null ? formatDate(result.date) : 'undated';
    const title = result.title || (result.kind === 'section' ? t('app.search.untitled_section', 'Untitled section') : t('app.search.untitled', 'Untitled'));
    const snippet = h('span', { class: 'search-snippet', id: `${id}-snippet` });
    snippet.append(...snippetNodes(result.snippet));
    const button = h('button', {
      type: 'button', class: 'search-result', id,
      'data-kind': result.kind, 'data-id': result.id,
      'aria-label': `${title}, ${type.text}, ${date}`,
      'aria-describedby': snippet.childNodes.length ? `${id}-snippet` : null,
    },
    h('span', { class: 'search-meta' },
      h('span', { class: 'search-type', 'data-type': type.colour, text: type.text }),
      h('span', { class: 'search-date', text: date })),
    h('span', { class: 'search-title', text: title }),
    snippet.childNodes.length ? snippet : null);
    button.addEventListener('click', () => this.follow(result));
    return h('li', null, button);
  }

  // ---- Following a result ----

  /** Closes the panel (the result's view takes the focus) and shows the result. */
  async follow(result) {
    this.modal.close({ returnFocus: false });
    if (result.kind === 'section') {
      await this.followSection(result);
      return;
    }
    if (!(await this.showDate(result.date))) return;
    if (result.kind === 'post') {
      if (!this.openPost(result.id)) this.showStatus(t('app.search.this_note_of_yours_is', 'This note of yours is no longer on the timeline.'));
      return;
    }
    if (this.openEntry(result.id)) return;
    // Not in the window its date gives (an entry drawn by another of its dates): the whole record.
    if (this.current().view !== 'all' && (await this.showWindow({ view: 'all', end: null })) && this.openEntry(result.id)) return;
    this.showStatus(t('app.search.this_entry_is_not_on', 'This entry is not on the timeline any more: it may have been removed by a later import.'));
  }

  /** The window shown holds this date, or one of the same view that ends on its day; resolves to whether it is drawn. */
  async showDate(date) {
    const { view, payload, loading } = this.current();
    const ready = payload && view !== SUMMARY && !loading;
    if (date == null) return ready && view === 'all' ? true : this.showWindow({ view: 'all', end: null });
    if (ready && date >= payload.start_date && date <= payload.end_date) return true;
    return this.showWindow(endingAt(view, date));
  }

  openEntry(id) {
    const { payload } = this.current();
    const found = payload && findEntry(payload, id);
    if (!found) return false;
    const trigger = found.item.chart ? chartFound(found.item.chart) : markFound(id);
    trigger?.scrollIntoView({ block: 'center' });
    this.openDetails({ items: [found.item], lane: found.lane }, trigger);
    return true;
  }

  /** A post of the window drawn: its details, as a click on its mark opens them, and its row marked. */
  openPost(id) {
    const post = (this.current().payload?.timeline_entries || []).find((p) => p.id === id);
    if (!post) return false;
    const key = CSS.escape(id);
    for (const row of $$('#posts .post.found')) row.classList.remove('found');
    const row = $(`#posts .post[data-id="${key}"]`);
    row?.classList.add('found');
    const mark = $(`#timeline .lane[data-type="post"] .mark[data-id="${key}"]`);
    const trigger = mark || row?.querySelector('button') || $('#posts-heading');
    trigger.scrollIntoView({ block: 'center' });
    const item = { entry: { ...post, type: 'post', description: describePost(post) }, post, t: post.created_at };
    this.openDetails({ items: [item], lane: POST_LANE }, trigger);
    return true;
  }

  /** A section: `{document id}#{section number}`, opened in Documents. */
  async followSection(result) {
    const at = result.id.lastIndexOf('#');
    const number = Number(result.id.slice(at + 1));
    const opened = at > 0 && Number.isInteger(number) && (await this.openSection(result.id.slice(0, at), number, this.input));
    if (!opened) this.showStatus(t('app.search.this_section_is_no_longer', 'This section is no longer among the documents of the person shown.'));
  }
}

/** Where the details of an entry go back to: its mark (made its lane's Tab stop), its row, or the timeline. */
function markFound(id) {
  const key = CSS.escape(id);
  const mark = $(`#timeline .mark[data-id="${key}"]`);
  if (mark) {
    for (const other of mark.closest('.track')?.querySelectorAll('.mark[tabindex="0"]') || []) other.tabIndex = -1;
    mark.tabIndex = 0;
    return mark;
  }
  return $(`#entry-lists .entry-row[data-id="${key}"]`) || $('#timeline-heading');
}

/** The chart a vital sign is drawn in, marked as found (the details go back to it). */
function chartFound(title) {
  for (const chart of $$('#vitals .chart.found')) chart.classList.remove('found');
  const chart = $$('#vitals .chart').find((c) => c.dataset.title === title);
  if (!chart) return $('#vitals-heading');
  chart.classList.add('found');
  chart.tabIndex = -1;
  return chart;
}
