// Search: the header's search field and the panel of results (GET /search.json). The whole record of
// the person shown is searched (linked records too): entries, your notes on them, what you posted and
// the sections of imported documents. Each result says its date, its type, its title and where the
// words matched; following one shows it where the app shows it (the caller's onFollow).
// Snippets are the record's own text: they go into the page as text nodes and <mark> elements whose
// text is set as text, never as HTML.

import { h, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { formatDate, plural } from './format.js';
import { LANES } from './lane-layout.js';

const PAGE = 20;

/** What a post's kind is called in a result. */
const POST_TYPES = { levels: 'your levels', medication: 'your medication', regimen: 'medications taken' };

/** The small type label of a result, and the colour it borrows (a lane's). */
export function resultType(result) {
  if (result.kind === 'post') return { text: POST_TYPES[result.type] || 'your note', colour: 'post' };
  if (result.kind === 'section') return { text: 'document section', colour: 'document' };
  if (result.type === 'vital_sign') return { text: 'vital sign', colour: 'vital_sign' };
  const lane = LANES.find((l) => l.type === result.type);
  return { text: lane ? lane.one : String(result.type || 'entry').replace(/_/g, ' '), colour: lane ? lane.type : 'other' };
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

export class SearchPanel {
  /**
   * form: the header's role="search" form (its input and submit button). dialog: the results
   * <dialog> of index.html. api: search(params). personId(): the person shown (null: no one).
   * onFollow(result): shows the result (the panel is closed first).
   */
  constructor(form, dialog, { api, personId, onFollow }) {
    this.form = form;
    this.input = form.querySelector('input[type="search"]');
    this.dialog = dialog;
    this.api = api;
    this.personId = personId;
    this.onFollow = onFollow;
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
    this.moreButton.textContent = 'More results';
    this.say(`Searching for ${query}…`);
    this.modal.open(this.input, { toTop: true });
    await this.load(seq, null);
  }

  async more() {
    if (this.cursor == null) return;
    const seq = this.seq;
    const first = this.count;
    this.moreButton.disabled = true;
    this.moreButton.textContent = 'Loading…';
    await this.load(seq, this.cursor);
    if (seq !== this.seq) return;
    this.moreButton.disabled = false;
    this.moreButton.textContent = 'More results';
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
      this.say(error.status === 400 ? error.message : `Could not search: ${error.message}`, true);
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
      this.say(`No results for ${this.query}.`);
      this.status.append(h('span', { class: 'search-hint muted' },
        ' Words of 3 letters or more also find longer words (potas finds potassium); put a phrase in quotes.'));
    } else {
      this.say(`${plural(total, 'result')} for ${this.query}`);
    }
    this.shown.textContent = total > this.count ? `Showing ${this.count.toLocaleString()} of ${total.toLocaleString()}.` : '';
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
    const title = result.title || (result.kind === 'section' ? 'Untitled section' : 'Untitled');
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

  /** Closes the panel (the result's view takes the focus) and shows the result. */
  follow(result) {
    this.modal.close({ returnFocus: false });
    this.onFollow(result);
  }
}
