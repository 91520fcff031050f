// Share with a doctor: the person's record as a document a doctor's system reads, downloaded from the
// daemon (GET /patients/{id}/ips.json, an International Patient Summary; GET /patients/{id}/ccda.xml, a
// C-CDA CCD), with the sections chosen here and, optionally, results and vital signs since a day. The
// sections are the daemon's (SharedSection), in its order; the printed summary names them the same way.

import { h, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { t } from './strings.js';

/** The shared sections, in the documents' order: name (?sections=), title, and whether always included. */
export const SHARE_SECTIONS = [
  { name: 'problems', title: 'Problems', required: true },
  { name: 'allergies', title: 'Allergies and intolerances', required: true },
  { name: 'medications', title: 'Medications', required: true },
  { name: 'immunizations', title: 'Immunizations' },
  { name: 'results', title: 'Results' },
  { name: 'vital-signs', title: 'Vital signs' },
  { name: 'procedures', title: 'Procedures' },
  { name: 'devices', title: 'Medical devices' },
  { name: 'past-illness', title: 'History of past illness' },
  { name: 'plan-of-care', title: 'Plan of care' },
];

/** The title of a shared section by its name, in the language of the moment (English: the daemon's). */
export const sectionTitle = (name) => t(`app.share.section.${name.replace(/-/g, '_')}`, SHARE_SECTIONS.find((s) => s.name === name)?.title ?? name);

/**
 * The download's URL. format: 'ips' or 'ccda'. chosen: section names (the required ones are always in);
 * all of them gives no ?sections=. since: 'YYYY-MM-DD' or ''.
 */
export function shareURL(personId, format, chosen, since = '') {
  const path = `/patients/${encodeURIComponent(personId)}/${format === 'ccda' ? 'ccda.xml' : 'ips.json'}`;
  const names = SHARE_SECTIONS.filter((s) => s.required || chosen.includes(s.name)).map((s) => s.name);
  const query = [];
  if (names.length < SHARE_SECTIONS.length) query.push(`sections=${names.join(',')}`);
  if (/^\d{4}-\d{2}-\d{2}$/.test(since)) query.push(`since=${since}`);
  return query.length ? `${path}?${query.join('&')}` : path;
}

export class SharePanel {
  /** dialog: the <dialog> of index.html. personId(): whose record is shared. */
  constructor(dialog, { personId }) {
    this.dialog = dialog;
    this.personId = personId;
    this.list = dialog.querySelector('#share-sections');
    this.since = dialog.querySelector('#share-since');
    this.ips = dialog.querySelector('#share-ips');
    this.ccda = dialog.querySelector('#share-ccda');
    this.chosen = new Set(SHARE_SECTIONS.map((s) => s.name));
    this.since.addEventListener('input', () => this.update());
    this.modal = new Dialog(dialog, { fallback: () => document.getElementById('summary-heading') });
    this.draw();
  }

  draw() {
    const list = clear(this.list);
    for (const section of SHARE_SECTIONS) {
      const id = `share-section-${section.name}`;
      const box = h('input', { type: 'checkbox', id, value: section.name });
      box.checked = section.required || this.chosen.has(section.name);
      box.disabled = Boolean(section.required);
      box.addEventListener('change', () => {
        if (box.checked) this.chosen.add(section.name); else this.chosen.delete(section.name);
        this.update();
      });
      list.append(h('li', { class: 'check' }, box,
        h('label', { for: id }, sectionTitle(section.name), section.required ? h('span', { class: 'muted small' }, ' ', t('app.share.always_included', '(always included)')) : null)));
    }
    this.update();
  }

  update() {
    const id = this.personId();
    if (!id) return;
    const chosen = [...this.chosen];
    this.ips.href = shareURL(id, 'ips', chosen, this.since.value);
    this.ccda.href = shareURL(id, 'ccda', chosen, this.since.value);
  }

  open(trigger) {
    this.update();
    this.modal.open(trigger, { focus: () => this.ips });
  }

  close() {
    this.modal.close();
  }
}
