// Documents: the C-CDA and C32 documents imported for the person shown (GET /patients/{id}/documents.json,
// linked records included), newest first, each section's narrative as the daemon gives it: plain text,
// lines for paragraphs and table rows, cells joined by " | ". Sections with no entries on the timeline
// (family history, advance directives…) are marked "narrative only": their text is all there is.
// A document comes from elsewhere: its text goes into the page as text only (textContent, shown with
// white-space: pre-wrap), never as HTML.

import { h, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { formatDate, formatDateTime } from './format.js';
import { t, tn } from './strings.js';

const FORMATS = { ccda: 'C-CDA', c32: 'HITSP C32' };

export class DocumentsPanel {
  /**
   * dialog: the <dialog> of index.html. button: the header's Documents button, shown only while the
   * person shown has a document. api: documents(id). personName(): the name of the person shown.
   */
  constructor(dialog, button, { api, personName }) {
    this.dialog = dialog;
    this.button = button;
    this.api = api;
    this.personName = personName;
    this.list = dialog.querySelector('#documents-list');
    this.intro = dialog.querySelector('#documents-intro');
    this.personId = null; // whose documents these are
    this.documents = [];
    this.shown = ''; // the documents drawn last, as JSON: an unchanged list is not drawn again
    this.seq = 0;
    button.addEventListener('click', () => this.open(button));
    // The button hides when the person has no document left: the focus goes to People then.
    this.modal = new Dialog(dialog, { fallback: () => document.getElementById('people-button') });
  }

  /** The person shown (null: no one): their documents are read when the person changes. */
  showFor(personId) {
    if (personId === this.personId) return;
    this.personId = personId;
    this.documents = [];
    this.button.hidden = true;
    this.close();
    this.refresh();
  }

  /** Reads the documents of the person shown again (after an import, a link…). */
  async refresh() {
    const seq = ++this.seq;
    const personId = this.personId;
    if (!personId) return;
    let documents;
    try {
      documents = (await this.api.documents(personId))?.documents || [];
    } catch {
      documents = []; // documents are extra: without them the button stays hidden
    }
    if (seq !== this.seq || personId !== this.personId) return;
    this.documents = documents;
    this.button.hidden = documents.length === 0;
    if (!this.dialog.open) return;
    if (documents.length) this.render();
    else this.close();
  }

  /** Forgets everything (signed out, locked). */
  /** The panel, open, drawn again in the table's language (sections left open stay open). */
  redraw() {
    if (!this.dialog.open || !this.documents.length) return;
    const open = [...this.list.querySelectorAll('details')].map((details) => details.open);
    this.shown = '';
    this.render();
    this.list.querySelectorAll('details').forEach((details, i) => { if (open[i] !== undefined) details.open = open[i]; });
  }

  reset() {
    this.seq += 1;
    this.personId = null;
    this.documents = [];
    this.button.hidden = true;
    this.close();
    clear(this.list);
    this.shown = '';
  }

  open(trigger) {
    const opener = trigger || document.activeElement; // before the list is drawn again
    this.render();
    this.modal.open(opener, { toTop: true });
  }

  /**
   * Opens the panel on one section (a search result: `{document id}#{section number}`): that section's
   * block open, scrolled into view and focused. False when the person shown has no such section.
   */
  async openSection(documentId, number, trigger) {
    if (!this.documents.some((doc) => doc.id === documentId)) await this.refresh();
    const index = this.documents.findIndex((doc) => doc.id === documentId);
    if (index === -1 || !this.documents[index].sections?.[number]) return false;
    this.open(trigger);
    const card = this.list.children[index];
    const section = card?.querySelectorAll('.document-section')[number];
    if (!section) return false;
    for (const found of this.list.querySelectorAll('.document-section.found')) found.classList.remove('found');
    section.open = true;
    section.classList.add('found');
    section.scrollIntoView({ block: 'start' });
    section.querySelector('summary').focus({ preventScroll: true });
    return true;
  }

  close() {
    this.modal.close();
  }

  render() {
    const documents = this.documents;
    const name = this.personName() || t('app.documents.this_person', 'this person');
    const key = JSON.stringify([this.personId, name, documents]);
    if (key === this.shown) return; // sections opened stay open
    this.shown = key;
    this.intro.textContent = tn('app.documents.count.imported_for', documents.length, 'The clinical document (C-CDA or C32) imported for {name}. ', '{n} clinical documents (C-CDA or C32) imported for {name}, newest first. ', { name })
      + t('app.documents.each_section_is_shown_as', 'Each section is shown as the document wrote it, as plain text. A section marked “narrative only” has nothing on the timeline: its text is all there is.');
    const list = clear(this.list);
    if (!documents.length) {
      list.append(h('li', { class: 'muted' }, t('app.documents.no_documents_have_been_imported', 'No documents have been imported for {name}.', { name })));
      return;
    }
    documents.forEach((doc, index) => list.append(this.card(doc, `document-${index}`)));
  }

  card(doc, id) {
    const sections = doc.sections || [];
    const facts = [
      doc.time != null ? t('app.documents.dated', 'Dated {time}', { time: formatDate(doc.time) }) : t('app.documents.undated', 'Undated'),
      FORMATS[doc.format] || doc.format,
      tn('app.documents.count.sections', sections.length, '{n} section', '{n} sections'),
      doc.imported_at != null ? t('app.documents.imported', 'imported {imported_at}', { imported_at: formatDateTime(doc.imported_at) }) : null,
    ].filter(Boolean).join(' · ');
    const card = h('li', { class: 'document-card', 'data-document': doc.id || '', 'aria-labelledby': `${id}-title` },
      h('div', { class: 'document-head' },
        h('h3', { id: `${id}-title`, text: doc.title || t('app.documents.untitled_document', 'Untitled document') }),
        h('p', { class: 'muted small', text: facts })));
    if (!sections.length) {
      card.append(h('p', { class: 'muted small' }, t('app.documents.this_document_has_no_section', 'This document has no section text.')));
      return card;
    }
    card.append(h('div', { class: 'document-sections' }, sections.map((section) => this.section(section))));
    return card;
  }

  section(section) {
    const title = section.title || t('app.documents.untitled_section', 'Untitled section');
    const details = h('details', { class: 'document-section', 'data-code': section.code || '', 'data-narrative-only': section.narrative_only ? 'true' : 'false' });
    details.append(h('summary', null,
      h('span', { class: 'section-title', text: title }),
      section.narrative_only ? h('span', { class: 'badge narrative', title: t('app.documents.no_entries_on_the_timeline', 'No entries on the timeline: this text is all there is') }, t('app.documents.narrative_only', 'narrative only')) : null,
      section.entries ? h('span', { class: 'muted small' }, t('app.documents.on_the_timeline', '{entries} on the timeline', { entries: tn('app.documents.count.entries', section.entries, '{n} entry', '{n} entries') })) : null));
    const about = [
      section.code ? t('app.documents.loinc', 'LOINC {code}', { code: section.code }) : null,
      section.narrative_only ? t('app.documents.nothing_from_this_section_is', 'Nothing from this section is on the timeline.') : null,
    ].filter(Boolean).join(' · ');
    // The text container holds text and nothing else: no element of the document ever reaches the page.
    const text = h('div', { class: 'section-text' });
    text.textContent = section.text || '';
    details.append(h('div', { class: 'document-section-body' }, about ? h('p', { class: 'muted small', text: about }) : null, text));
    return details;
  }
}
