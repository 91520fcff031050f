// "Add records": record files dropped or picked, each uploaded on its own request
// (POST /imports/files?name=…), then followed as an import job (GET /imports/jobs/{id}) until its
// report says what it did: per person, what was added, updated or left unchanged, what was kept but
// is not shown, warnings and errors. Files go one after another, in the order given, so that files
// of one export that refer to each other arrive in that order.

import { h, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { LANES } from './lane-layout.js';
import { later, t, tn } from './strings.js';
import { accountedSentence, fileCount } from './import-accounting.js';

/** The daemon's cap on one upload. */
const MAX_BYTES = 64 * 1024 * 1024;
/** The job is asked again after this long, a little longer each time, up to a second. */
const FIRST_POLL_MS = 150;
const MAX_POLL_MS = 1000;

/** The report's sections (the timeline's entry arrays, and vital signs) in the lanes' order. */
const SECTIONS = [
  ...LANES.map((lane) => [lane.key, lane.name]),
  ['vital_signs', later('app.uploads.vital_signs', 'Vital signs')],
];
const SECTION_ORDER = new Map(SECTIONS.map(([key], index) => [key, index]));
const SECTION_NAMES = new Map(SECTIONS);

const COUNTS = ['added', 'updated', 'unchanged', 'removed'];

const STATE_TEXT = {
  waiting: later('app.uploads.waiting', 'Waiting'),
  uploading: later('app.uploads.uploading', 'Uploading'),
  importing: 'Importing',
  done: later('app.uploads.imported', 'Imported'),
  refused: later('app.uploads.not_imported', 'Not imported'),
  failed: later('app.uploads.import_failed', 'Import failed'),
  lost: later('app.uploads.not_followed', 'Not followed'),
};
const STATE_BADGE = { waiting: 'neutral', uploading: 'busy', importing: 'busy', done: 'ok', refused: 'error', failed: 'error', lost: 'warn' };

export class UploadPanel {
  /**
   * dialog: the <dialog> of index.html. api: uploadFile(file, patient) and importJob(id).
   * currentPatient(): {id, name} of the person shown, or null. isActive(): whether the app is shown
   * (a file dropped on the page opens the panel only then). onImported(report) refreshes the app
   * after an import that changed something; it returns a promise. onShow(id) shows that person.
   * onFinished(upload) runs when a file is over, whatever came of it.
   */
  constructor(dialog, { api, currentPatient, patientName, isActive, onImported, onShow, onFinished }) {
    this.dialog = dialog;
    this.api = api;
    this.currentPatient = currentPatient;
    this.patientName = patientName;
    this.isActive = isActive;
    this.onImported = onImported;
    this.onShow = onShow;
    this.onFinished = onFinished;
    this.input = dialog.querySelector('#upload-input');
    this.drop = dialog.querySelector('#upload-drop');
    this.list = dialog.querySelector('#upload-list');
    this.listHead = dialog.querySelector('#upload-list-head');
    this.clearButton = dialog.querySelector('#upload-clear');
    this.status = dialog.querySelector('#upload-status');
    this.intoField = dialog.querySelector('#upload-into-field');
    this.into = dialog.querySelector('#upload-into');
    this.intoName = dialog.querySelector('#upload-into-name');
    this.uploads = [];
    this.busy = false;
    this.nextId = 1;

    this.modal = new Dialog(dialog);
    this.input.addEventListener('change', () => {
      this.add([...this.input.files]);
      this.input.value = ''; // the same file may be chosen again
    });
    this.clearButton.addEventListener('click', () => {
      this.uploads = this.uploads.filter((upload) => !isFinished(upload));
      for (const el of [...this.list.children]) if (!this.uploads.some((u) => u.el === el)) el.remove();
      this.renderHead();
      this.input.focus();
    });

    // Files dragged over the drop zone light it up; files dropped anywhere on the app are taken.
    let depth = 0;
    this.drop.addEventListener('dragenter', (event) => { if (hasFiles(event)) { depth += 1; this.drop.classList.add('dragging'); } });
    this.drop.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) this.drop.classList.remove('dragging'); });
    document.addEventListener('dragover', (event) => {
      if (!hasFiles(event) || !this.isActive()) return;
      event.preventDefault(); // else the browser would open the file in place of the app
      event.dataTransfer.dropEffect = 'copy';
    });
    document.addEventListener('drop', (event) => {
      if (!hasFiles(event) || !this.isActive()) return;
      event.preventDefault();
      depth = 0;
      this.drop.classList.remove('dragging');
      if (!this.dialog.open) this.open();
      this.add([...event.dataTransfer.files]);
    });
  }

  /** Opens the panel; the focus goes to the file picker, or to `focus` (a place further down: the servers). */
  open(trigger, focus = null) {
    const current = this.currentPatient();
    this.intoField.hidden = !current;
    if (current) this.intoName.textContent = current.name || t('app.uploads.this_person', 'this person');
    else this.into.checked = false;
    this.modal.open(trigger, { focus: focus || this.input });
  }

  close(options) {
    this.modal.close(options);
  }

  /** Every file's line drawn again in the table's language (a person's details left open stay open). */
  redraw() {
    const current = this.currentPatient();
    if (this.dialog.open && current) this.intoName.textContent = current.name || t('app.uploads.this_person', 'this person');
    for (const upload of this.uploads) {
      if (!upload.el) continue;
      const open = [...upload.el.querySelectorAll('details')].map((details) => details.open);
      this.render(upload);
      upload.el.querySelectorAll('details').forEach((details, i) => { if (open[i] !== undefined) details.open = open[i]; });
    }
  }

  /** Queues files; they are uploaded one after another. */
  add(files) {
    if (!files.length) return;
    const into = this.into.checked && !this.intoField.hidden ? this.currentPatient()?.id : null;
    let first = null;
    for (const file of files) {
      const upload = { id: this.nextId++, file, patient: into, state: 'waiting', job: null, report: null, error: null, el: null };
      upload.el = h('li', { class: 'upload', 'data-upload': String(upload.id) });
      this.uploads.push(upload);
      this.list.append(upload.el);
      this.render(upload);
      if (!first) first = upload;
    }
    first.scrollWhenDone = true;
    this.renderHead();
    first.el.scrollIntoView({ block: 'nearest' });
    this.run();
  }

  async run() {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let upload = this.next(); upload; upload = this.next()) {
        await this.importOne(upload);
      }
    } finally {
      this.busy = false;
      this.renderHead();
    }
  }

  next() {
    return this.uploads.find((upload) => upload.state === 'waiting') || null;
  }

  async importOne(upload) {
    const name = upload.file.name;
    if (upload.file.size > MAX_BYTES) {
      upload.error = t('app.uploads.the_file_is_the_limit', 'The file is {size}; the limit is 64 MB a file.', { size: megabytes(upload.file.size) });
      this.finish(upload, 'refused', t('app.uploads.not_imported_2', '{name}: not imported. {error}', { name, error: upload.error }));
      return;
    }
    upload.state = 'uploading';
    this.render(upload);
    try {
      const answer = await this.api.uploadFile(upload.file, upload.patient);
      upload.job = answer?.job || null;
    } catch (error) {
      upload.error = refusal(error);
      this.finish(upload, error.status >= 400 && error.status < 500 ? 'refused' : 'failed', t('app.uploads.not_imported_2', '{name}: not imported. {error}', { name, error: upload.error }));
      return;
    }
    if (!upload.job) {
      upload.error = t('app.uploads.the_daemon_did_not_say', 'The daemon did not say which import job took the file.');
      this.finish(upload, 'lost', `${name}: ${upload.error}`);
      return;
    }
    upload.state = 'importing';
    this.render(upload);
    await this.follow(upload);
  }

  /** Polls the job until it is over (done with its report, or failed). */
  async follow(upload) {
    const name = upload.file.name;
    let delay = FIRST_POLL_MS;
    let errors = 0;
    let reportless = 0;
    for (;;) {
      await sleep(delay);
      delay = Math.min(MAX_POLL_MS, Math.round(delay * 1.5));
      let data;
      try {
        data = await this.api.importJob(upload.job.id);
        errors = 0;
      } catch (error) {
        if (error.status === 401 || error.status === 423) {
          upload.error = t('app.uploads.the_session_ended_before_the', 'The session ended before the import was over. Sign in again: the import goes on, and its result is under Imports.');
          this.finish(upload, 'lost', `${name}: ${upload.error}`);
          return;
        }
        errors += 1;
        if (errors >= 5 || error.status === 404) {
          upload.error = t('app.uploads.could_not_follow_the_import', 'Could not follow the import: {message}', { message: error.message });
          this.finish(upload, 'lost', `${name}: ${upload.error}`);
          return;
        }
        continue;
      }
      upload.job = data?.job || upload.job;
      upload.report = data?.report || null;
      const state = upload.job.state;
      if (state === 'done' && (upload.report || ++reportless > 10)) break;
      if (state === 'failed' || state === 'needs_sign_in') {
        upload.error = upload.job.last_error || t('app.uploads.the_import_stopped_without_saying', 'The import stopped without saying why.');
        this.finish(upload, 'failed', t('app.uploads.the_import_failed', '{name}: the import failed. {error}', { name, error: upload.error }));
        return;
      }
      this.render(upload);
    }
    const changed = changedSomething(upload);
    if (changed) {
      try { await this.onImported(upload.report); } catch { /* the app says what went wrong */ }
    }
    this.finish(upload, 'done', t('app.uploads.imported_2', '{name}: imported. {upload}', { name, upload: summary(upload) }));
  }

  finish(upload, state, announcement) {
    upload.state = state;
    this.render(upload);
    // The first file of those added together comes to the top of the panel: what follows is below it.
    if (upload.scrollWhenDone && this.dialog.open) upload.el.scrollIntoView({ block: 'start' });
    upload.scrollWhenDone = false;
    this.status.textContent = announcement;
    this.renderHead();
    this.onFinished?.(upload);
  }

  renderHead() {
    this.listHead.hidden = this.uploads.length === 0;
    this.clearButton.hidden = !this.uploads.some(isFinished);
  }

  render(upload) {
    const { file, state } = upload;
    const el = clear(upload.el);
    el.dataset.state = state;
    el.append(h('div', { class: 'upload-head' },
      h('span', { class: 'upload-name' }, file.name),
      h('span', { class: 'upload-size muted small' }, megabytes(file.size)),
      h('span', { class: ['badge', STATE_BADGE[state]] }, STATE_TEXT[state])));
    switch (state) {
      case 'waiting':
        el.append(h('p', { class: 'muted small' }, t('app.uploads.waits_for_the_file_before', 'Waits for the file before it.')));
        break;
      case 'uploading':
        el.append(h('p', { class: 'small' }, t('app.uploads.sending_the_file_to_hreaderd', 'Sending the file to hreaderd…')), h('progress', { 'aria-label': t('app.uploads.uploading_2', 'Uploading {name}', { name: file.name }) }));
        break;
      case 'importing': {
        const job = upload.job || {};
        const total = job.progress_total || 0;
        const label = job.state === 'queued' ? t('app.uploads.waiting_for_another_import_to', 'Waiting for another import to finish…')
          : total ? t('app.uploads.importing_of', 'Importing: {value} of {total}', { value: (job.progress_done || 0).toLocaleString(), total: tn('app.uploads.count.records', total, '{n} record', '{n} records') }) : t('app.uploads.importing', 'Importing…');
        const bar = h('progress', { max: String(Math.max(total, 1)), 'aria-label': `${file.name}: ${label}` });
        if (total) bar.value = job.progress_done || 0;
        el.append(h('p', { class: 'small' }, label), bar);
        break;
      }
      case 'done':
        el.append(h('p', { class: 'upload-summary' }, summary(upload)));
        if (upload.report) el.append(this.renderReport(upload));
        break;
      default: // refused, failed, lost
        el.append(h('p', { class: 'upload-error error-text' },
          state === 'lost' ? '' : h('strong', null, t('app.uploads.nothing_was_imported_from_this', 'Nothing was imported from this file. ')), upload.error));
    }
  }

  renderReport(upload) {
    const report = upload.report;
    const box = h('div', { class: 'upload-report' });
    for (const file of report.files || []) {
      const facts = [formatName(file.format, file.shape), fileCount(file)].filter(Boolean);
      if (facts.length) box.append(h('p', { class: 'muted small' }, `${report.files.length > 1 ? `${file.name}: ` : ''}${facts.join(' · ')}`));
      if (file.error) box.append(h('p', { class: 'error-text small' }, `${file.name}: ${file.error}`));
    }
    const patients = report.patients || [];
    if (!patients.length) box.append(h('p', { class: 'muted' }, t('app.uploads.the_file_held_no_ones', 'The file held no one’s record.')));
    const collapse = patients.length > 3;
    for (const patient of patients) box.append(this.renderPatient(patient, upload, !collapse));
    const unowned = countsText(report.unowned);
    if (unowned) box.append(h('p', { class: 'muted small' }, t('app.uploads.kept_not_about_one_person', 'Kept, not about one person: {unowned}.', { unowned })));
    const problems = report.problems || [];
    if (problems.length) {
      box.append(h('div', { class: 'upload-problems' },
        h('p', { class: 'small' }, h('strong', null, problems.length === 1 ? t('app.uploads.a_problem_in_the_file', 'A problem in the file:') : t('app.uploads.problems_in_the_file', '{length} problems in the file:', { length: problems.length }))),
        h('ul', { class: 'notes warn-text small' }, problems.slice(0, 50).map((problem) => h('li', null, problemText(problem)))),
        problems.length > 50 ? h('p', { class: 'muted small' }, t('app.uploads.and_more', 'And {value} more.', { value: (problems.length - 50).toLocaleString() })) : null));
    }
    return box;
  }

  renderPatient(patient, upload, open) {
    const sections = Object.entries(patient.entries || {})
      .sort(([a], [b]) => (SECTION_ORDER.get(a) ?? 99) - (SECTION_ORDER.get(b) ?? 99) || a.localeCompare(b));
    const totals = Object.fromEntries(COUNTS.map((key) => [key, sections.reduce((n, [, counts]) => n + (counts?.[key] || 0), 0)]));
    const name = patient.name || t('app.uploads.unnamed_person', 'Unnamed person');
    const change = changeBadge(patient);

    const details = h('details', { class: 'upload-patient', 'data-patient': patient.id || '' });
    details.open = open;
    details.append(h('summary', null,
      h('span', { class: 'patient-name' }, name),
      h('span', { class: ['badge', change.kind] }, change.text),
      h('span', { class: 'muted small' }, entriesLine(totals))));

    const body = h('div', { class: 'upload-patient-body' });
    const known = patient.id ? this.patientName(patient.id) : null;
    if (known != null && known !== patient.name) body.append(h('p', { class: 'muted small' }, t('app.uploads.added_to_s_record', 'Added to {known}’s record.', { known: known || t('app.uploads.an_unnamed_person', 'an unnamed person') })));
    const warnings = patient.warnings || [];
    const saysReference = warnings.some((w) => problemText(w).includes(patient.reference));
    if (!patient.name && patient.reference && !saysReference) body.append(h('p', { class: 'muted small' }, t('app.uploads.known_in_the_file_as', 'Known in the file as {reference}.', { reference: patient.reference })));

    if (sections.length) {
      const showRemoved = totals.removed > 0;
      const columns = showRemoved ? COUNTS : COUNTS.slice(0, 3);
      const table = h('table', { class: 'counts' },
        h('caption', { class: 'visually-hidden' }, t('app.uploads.entries_of_in_this_file', 'Entries of {name} in this file, by type', { name })),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('app.uploads.entries', 'Entries')), columns.map((key) => h('th', { scope: 'col' }, capital(key))))),
        h('tbody', null, sections.map(([key, counts]) => h('tr', { 'data-section': key },
          h('th', { scope: 'row' }, SECTION_NAMES.get(key) || capital(key.replace(/_/g, ' '))),
          columns.map((column) => h('td', { class: counts?.[column] ? null : 'zero' }, (counts?.[column] || 0).toLocaleString()))))),
        sections.length > 1 ? h('tfoot', null, h('tr', null, h('th', { scope: 'row' }, t('app.uploads.all', 'All')),
          columns.map((column) => h('td', null, totals[column].toLocaleString())))) : null);
      body.append(h('div', { class: 'table-wrap' }, table));
    } else if (!patient.error) {
      body.append(h('p', { class: 'muted small' }, t('app.uploads.no_entries_for_the_timeline', 'No entries for the timeline.')));
    }
    const kept = countsText(patient.kept);
    if (kept) body.append(h('p', { class: 'small' }, h('span', { class: 'label' }, t('app.uploads.kept_not_shown', 'Kept, not shown: ')), kept, '.'));
    const accounted = accountedSentence(patient.accounted);
    if (accounted) {
      body.append(h('p', { class: 'small upload-accounted' }, accounted));
    } else if (patient.entered_in_error) {
      body.append(h('p', { class: 'small' }, t('app.uploads.left_out_marked_entered_in', 'Left out: {entered_in_error} marked “entered in error”.', { entered_in_error: tn('app.uploads.count.entries', patient.entered_in_error, '{n} entry', '{n} entries') })));
    }
    if (warnings.length) body.append(h('ul', { class: 'notes warn-text small', 'aria-label': t('app.uploads.warnings', 'Warnings') }, warnings.map((w) => h('li', null, problemText(w)))));
    if (patient.error) body.append(h('p', { class: 'error-text small' }, h('strong', null, t('app.uploads.not_imported_3', 'Not imported: ')), patient.error));
    if (patient.id && !patient.error) {
      body.append(h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'button small show-patient', 'data-patient': patient.id, onclick: () => { this.close({ returnFocus: false }); this.onShow(patient.id); } },
          t('app.uploads.show_on_the_timeline', 'Show {name} on the timeline', { name: patient.name || 'this person' }))));
    }
    details.append(body);
    return details;
  }
}

function isFinished(upload) {
  return !['waiting', 'uploading', 'importing'].includes(upload.state);
}

function hasFiles(event) {
  return Array.from(event.dataTransfer?.types || []).includes('Files');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function refusal(error) {
  if (error.status === 413) return t('app.uploads.the_file_is_larger_than', 'The file is larger than the daemon accepts (64 MB a file).');
  if (error.status === 0) return error.message;
  return error.message || t('app.uploads.the_daemon_answered', 'The daemon answered {status}.', { status: error.status });
}

function changedSomething(upload) {
  const totals = upload.report?.totals;
  if (totals) return Boolean(totals.patients_added || totals.patients_updated || totals.entries_added || totals.entries_updated || totals.entries_removed);
  const p = upload.job?.patients || {};
  const e = upload.job?.entries || {};
  return Boolean(p.added || p.updated || e.added || e.updated || e.removed);
}

/** One line for a finished file: who is new or updated, and what happened to the entries. */
function summary(upload) {
  const totals = upload.report?.totals;
  if (!totals) {
    const p = upload.job?.patients || {};
    const e = upload.job?.entries || {};
    return joined([
      p.added ? tn('app.uploads.count.new_people', p.added, '{n} new person', '{n} new people') : null,
      p.updated ? tn('app.uploads.count.people_updated', p.updated, '{n} person updated', '{n} people updated') : null,
      e.added ? tn('app.uploads.count.entries_added', e.added, '{n} entry added', '{n} entries added') : null,
      e.updated ? t('app.uploads.updated', '{updated} updated', { updated: e.updated.toLocaleString() }) : null,
      e.removed ? t('app.uploads.removed', '{removed} removed', { removed: e.removed.toLocaleString() }) : null,
      p.failed ? tn('app.uploads.count.people_not_imported', p.failed, '{n} person not imported', '{n} people not imported') : null,
    ], t('app.uploads.nothing_new', 'Nothing new.'));
  }
  const people = [
    totals.patients_added ? tn('app.uploads.count.new_people', totals.patients_added, '{n} new person', '{n} new people') : null,
    totals.patients_updated ? tn('app.uploads.count.people_updated', totals.patients_updated, '{n} person updated', '{n} people updated') : null,
    totals.patients_unchanged && !totals.patients_added && !totals.patients_updated ? tn('app.uploads.count.people_unchanged', totals.patients_unchanged, '{n} person unchanged', '{n} people unchanged') : null,
    totals.patients_failed ? tn('app.uploads.count.people_not_imported', totals.patients_failed, '{n} person not imported', '{n} people not imported') : null,
  ];
  const entries = entriesLine({ added: totals.entries_added, updated: totals.entries_updated, unchanged: totals.entries_unchanged, removed: totals.entries_removed });
  return joined([...people, entries], t('app.uploads.nothing_new', 'Nothing new.'));
}

/** "252 entries added", "3 added, 1 updated, 248 unchanged". */
function entriesLine(c) {
  const parts = [
    c.added ? t('app.uploads.added', '{added} added', { added: c.added.toLocaleString() }) : null,
    c.updated ? t('app.uploads.updated', '{updated} updated', { updated: c.updated.toLocaleString() }) : null,
    c.unchanged ? t('app.uploads.unchanged_2', '{unchanged} unchanged', { unchanged: c.unchanged.toLocaleString() }) : null,
    c.removed ? t('app.uploads.removed', '{removed} removed', { removed: c.removed.toLocaleString() }) : null,
  ].filter(Boolean);
  if (!parts.length) return t('app.uploads.no_entries', 'no entries');
  const total = (c.added || 0) + (c.updated || 0) + (c.unchanged || 0) + (c.removed || 0);
  if (parts.length === 1) {
    if (c.added) return tn('app.uploads.count.entries_added', total, '{n} entry added', '{n} entries added');
    if (c.updated) return tn('app.uploads.count.entries_updated', total, '{n} entry updated', '{n} entries updated');
    if (c.unchanged) return tn('app.uploads.count.entries_unchanged', total, '{n} entry unchanged', '{n} entries unchanged');
    return tn('app.uploads.count.entries_removed', total, '{n} entry removed', '{n} entries removed');
  }
  return t('app.uploads.entries_2', 'entries: {value}', { value: parts.join(', ') });
}

function joined(parts, none) {
  const text = parts.filter(Boolean).join(' · ');
  return text ? `${capital(text)}.` : none;
}

function changeBadge(patient) {
  if (patient.error) return { kind: 'error', text: t('app.uploads.not_imported', 'Not imported') };
  switch (patient.change) {
    case 'added': return { kind: 'ok', text: t('app.uploads.new_person_2', 'New person') };
    case 'updated': return { kind: 'busy', text: t('app.uploads.updated_3', 'Updated') };
    case 'unchanged': return { kind: 'neutral', text: t('app.uploads.unchanged_3', 'Unchanged') };
    default: return { kind: 'neutral', text: patient.change ? capital(String(patient.change)) : t('app.uploads.no_change', 'No change') };
  }
}

/** {"Claim": 38, "ExplanationOfBenefit": 32} → "38 Claim, 32 ExplanationOfBenefit", most first. */
function countsText(counts) {
  const list = Object.entries(counts || {}).filter(([, n]) => n).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return list.map(([type, n]) => `${n.toLocaleString()} ${type}`).join(', ');
}

function problemText(problem) {
  if (problem == null) return '';
  if (typeof problem !== 'object') return String(problem);
  const where = problem.resource || problem.reference || problem.file || problem.path || '';
  const what = problem.message || problem.error || problem.warning || JSON.stringify(problem);
  return where && !String(what).includes(where) ? `${where}: ${what}` : String(what);
}

function formatName(format, shape) {
  const formats = { fhir: t('app.uploads.fhir_r4', 'FHIR R4'), rhex: 'RHEx', ccda: t('app.uploads.c_cda_or_c32', 'C-CDA or C32') };
  const shapes = { bundle: 'bundle', ndjson: 'NDJSON', resource: t('app.uploads.single_resource', 'single resource'), record: 'record', document: 'document' };
  return [formats[format] || format, shapes[shape] || shape].filter(Boolean).join(' ');
}

function megabytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB`;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
