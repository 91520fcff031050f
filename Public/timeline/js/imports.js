// Import status: the record servers (RHEx and FHIR sources), their jobs with progress, errors and
// sources that need the user to sign in again (a FHIR one: "Sign in again" here), and "Sync now". Polls
// while a job runs; calm when nothing is configured. The same list is shown in the Imports card and,
// under "Health record servers", in Add records (the `mirror`).

import { h, clear } from './dom.js';
import { relative, formatDateTime } from './format.js';
import { beginSignIn } from './fhir-connect.js';
import { showKey, t, tn } from './strings.js';

const ACTIVE = new Set(['queued', 'running']);
const KIND_NAMES = { fhir: 'FHIR', rhex: 'RHEx' };
const FAST_POLL = 2000;
const SLOW_POLL = 60000;
/**
 * Every authenticated request counts as activity for the daemon's idle lock, so the panel polls only
 * while the person is here: the page is visible and they used it in the last few minutes. A tab left
 * open does not keep the store unlocked.
 */
const AWAY_AFTER_MS = 5 * 60 * 1000;
let lastUse = Date.now();

export class ImportsPanel {
  constructor(root, button, { api, onImported, mirror = null }) {
    this.root = root;
    this.mirror = mirror;
    this.button = button;
    this.api = api;
    this.onImported = onImported;
    this.timer = 0;
    this.running = false;
    this.lastDone = null;
    this.paused = false;
    this.sources = []; // the servers listed last (not the files source)
    this.notes = new Map(); // source name → {text, error}: what "Sign in again" said
    this.arrived = null; // the source just signed in to, marked in the list
    button.addEventListener('click', () => this.syncNow());
    const back = () => {
      lastUse = Date.now();
      if (this.paused && this.running && !document.hidden) {
        this.paused = false;
        this.refresh();
      }
    };
    for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart']) document.addEventListener(type, back, { passive: true });
    document.addEventListener('visibilitychange', back);
    // Back from a provider's page to this page as the browser kept it: "Sign in again" is usable again.
    window.addEventListener('pageshow', (event) => {
      if (!event.persisted) return;
      this.notes.clear();
      if (this.running) this.refresh();
    });
  }

  /** Starts polling; resolves once the first answer is shown. */
  start() {
    this.running = true;
    return this.refresh();
  }

  /** Marks the source of this name in the list: the one the person just signed in to. */
  markArrived(name) {
    this.arrived = name || null;
  }

  stop() {
    this.running = false;
    clearTimeout(this.timer);
  }

  schedule(ms) {
    clearTimeout(this.timer);
    if (this.running) this.timer = setTimeout(() => this.refresh(), ms);
  }

  async refresh() {
    if (!this.running) return;
    if (document.hidden || Date.now() - lastUse > AWAY_AFTER_MS) {
      this.paused = true; // resumes on the next use of the page
      return;
    }
    let data;
    try {
      data = await this.api.imports();
    } catch (error) {
      if (error.status === 404 || error.status === 405) {
        this.renderNone();
        return; // This daemon has no import routes; nothing to poll.
      }
      if (error.status === 401 || error.status === 423) return;
      for (const root of this.roots()) clear(root).append(h('p', { class: 'muted' }, t('app.imports.import_status_is_not_available', 'Import status is not available: {message}', { message: error.message })));
      this.schedule(SLOW_POLL);
      return;
    }
    // The built-in source of `hreaderd import-file` (kind "file") cannot be synced from here.
    const all = data?.sources || [];
    const sources = all.filter((source) => source.kind !== 'file');
    const files = all.find((source) => source.kind === 'file');
    // Files added in the app (Add records) are jobs of that source: their reports are shown there.
    const fileSources = new Set(all.filter((source) => source.kind === 'file').map((source) => source.name));
    const jobs = (data?.jobs || []).map((job) => ({ ...job, source: job.source ?? job.source_name }))
      .filter((job) => job.trigger !== 'upload' && !fileSources.has(job.source));
    this.sources = sources;
    if (!sources.length && !jobs.length) {
      this.renderNone(files);
      this.schedule(SLOW_POLL);
      return;
    }
    this.render(sources, jobs);
    const active = jobs.some((job) => ACTIVE.has(job.state));
    const done = jobs.filter((job) => job.state === 'done').map((job) => job.id).join(',');
    if (this.lastDone !== null && done !== this.lastDone) this.onImported();
    this.lastDone = done;
    this.schedule(active ? FAST_POLL : SLOW_POLL);
  }

  roots() {
    return this.mirror ? [this.root, this.mirror] : [this.root];
  }

  /** What was drawn last, drawn again (in the table's language). */
  redraw() {
    this.drawn?.();
  }

  renderNone(files) {
    this.drawn = () => this.renderNone(files);
    this.button.hidden = true;
    clear(this.root).append(h('div', { class: 'calm' },
      h('p', null, t('app.imports.no_record_servers_are_connected', 'No record servers are connected.')),
      h('p', { class: 'small' },
        files?.last_sync_at ? t('app.imports.records_came_from_files_last', 'Records came from files, last imported {last_sync_at}. ', { last_sync_at: relative(files.last_sync_at) }) : t('app.imports.records_in_this_store_came', 'Records in this store came from files. '),
        t('app.imports.connect_your_clinics_hospitals_or', 'Connect your clinic’s, hospital’s or insurer’s health record server (FHIR) with Connect a server. An RHEx server is added on the command line:')),
      h('p', { class: 'small' }, h('code', null, t('app.imports.hreaderd_source_add_name_url', 'hreaderd source add NAME --url …')))));
    if (this.mirror) clear(this.mirror).append(h('p', { class: 'muted small' }, t('app.imports.no_record_servers_are_connected_2', 'No record servers are connected yet.')));
  }

  render(sources, jobs) {
    this.drawn = () => this.render(sources, jobs);
    this.button.hidden = !sources.length;
    for (const root of this.roots()) {
      const list = h('ul', { class: 'sources' });
      const names = new Set(sources.map((source) => source.name));
      for (const source of sources) list.append(this.renderSource(source, jobs.filter((job) => job.source === source.name)));
      const orphans = jobs.filter((job) => !names.has(job.source));
      for (const job of orphans) list.append(h('li', { class: 'source' }, renderJob(job)));
      clear(root).append(list);
    }
  }

  renderSource(source, jobs) {
    const latest = [...jobs].sort((a, b) => (b.id > a.id ? 1 : -1));
    const active = latest.find((job) => ACTIVE.has(job.state));
    let badge;
    if (source.state === 'needs_sign_in' || latest[0]?.state === 'needs_sign_in') badge = h('span', { class: 'badge warn' }, t('app.imports.needs_sign_in', 'Needs sign-in'));
    else if (active) badge = h('span', { class: 'badge busy' }, active.state === 'queued' ? t('app.imports.waiting', 'Waiting') : t('app.imports.syncing', 'Syncing'));
    else if (latest[0]?.state === 'failed' || source.last_error) badge = h('span', { class: 'badge error' }, t('app.imports.failed', 'Failed'));
    else if (!source.last_sync_at && !latest.length) badge = h('span', { class: 'badge neutral' }, t('app.imports.not_synced_yet', 'Not synced yet'));
    else badge = h('span', { class: 'badge ok' }, t('app.imports.up_to_date', 'Up to date'));

    const kind = KIND_NAMES[source.kind] || source.kind;
    const item = h('li', { class: ['source', source.name === this.arrived && 'arrived'], 'data-source': source.name, 'data-kind': source.kind },
      h('div', { class: 'source-head' },
        h('span', { class: 'source-title' }, h('span', { class: 'source-name' }, source.name), kind ? h('span', { class: 'source-kind' }, kind) : null),
        badge));
    if (source.last_sync_at) item.append(h('p', { class: 'muted small' }, t('app.imports.last_synced', 'Last synced {last_sync_at}', { last_sync_at: relative(source.last_sync_at) })));
    else if (latest.length) item.append(h('p', { class: 'muted small' }, t('app.imports.not_synced_yet', 'Not synced yet')));
    if (source.url) item.append(h('p', { class: 'muted small source-url' }, source.url));
    if (source.state === 'needs_sign_in' && source.kind === 'fhir') {
      // The same sign-in as when it was connected: the provider's page, then back here.
      const note = this.notes.get(source.name);
      item.append(h('p', { class: 'small' }, t('app.imports.the_server_wants_you_to', 'The server wants you to sign in again before it sends more records.')),
        h('div', { class: 'sign-in-again' },
          h('button', { type: 'button', class: 'button small primary', onclick: (event) => this.signInAgain(source, event.currentTarget) }, t('app.imports.sign_in_again', 'Sign in again')),
          note ? h('p', { class: ['small', note.error ? 'error-text' : 'muted'], role: note.error ? 'alert' : 'status' }, note.text) : null));
    } else if (source.state === 'needs_sign_in') {
      item.append(h('p', { class: 'small' }, t('app.imports.the_server_wants_you_to_2', 'The server wants you to sign in again before it sends more records. Sign in again on this computer with '), h('code', null, t('app.imports.hreaderd_source_add_update', 'hreaderd source add {name} --update …', { name: source.name })), '.'));
    }
    // The running job, else the newest one; the source's last error only when the job does not say it.
    const shown = active || latest[0];
    const jobSaysIt = shown && (shown.last_error === source.last_error || shown.state === 'failed' || shown.state === 'needs_sign_in');
    if (source.last_error && source.state !== 'needs_sign_in' && !jobSaysIt) item.append(h('p', { class: 'small error-text' }, source.last_error));
    if (shown && !(shown.state === 'needs_sign_in' && source.state === 'needs_sign_in')) item.append(renderJob(shown));
    return item;
  }

  /** "Sign in again" for a FHIR source: the same POST /sources as when it was connected, then its provider's page. */
  async signInAgain(source, button) {
    const say = (text, error = false) => {
      this.notes.set(source.name, { text, error });
      // The line beside the button, in every list this source is shown in (the next poll draws it too).
      for (const root of this.roots()) {
        const place = root.querySelector(`.source[data-source="${CSS.escape(source.name)}"] .sign-in-again`);
        if (!place) continue;
        place.querySelector('p')?.remove();
        place.append(h('p', { class: ['small', error ? 'error-text' : 'muted'], role: error ? 'alert' : 'status' }, text));
      }
    };
    button.disabled = true;
    const going = await beginSignIn(this.api, { name: source.name, fhir: source.url, client_id: source.client_id }, {
      note: (text) => say(text),
      error: (message) => say(message, true),
    });
    if (!going) button.disabled = false;
  }

  async syncNow() {
    this.button.disabled = true;
    // Over the button's own text (index.html's data-t), kept if the language changes meanwhile.
    showKey(this.button, 'app.imports.starting', 'Starting…');
    try {
      await this.api.syncNow();
      await this.refresh();
    } catch (error) {
      await this.refresh();
      this.root.prepend(h('p', { class: 'small error-text', role: 'alert' }, t('app.imports.could_not_start_a_sync', 'Could not start a sync: {message}', { message: error.message })));
    } finally {
      this.button.disabled = false;
      showKey(this.button);
    }
  }
}

function renderJob(job) {
  const el = h('div', { class: 'job', 'data-state': job.state });
  const total = job.progress_total || 0;
  const done = job.progress_done || 0;
  switch (job.state) {
    case 'queued':
      if (job.attempts && job.last_error) {
        el.append(h('p', { class: 'error-text' }, t('app.imports.attempt_failed', 'Attempt {attempts} failed: {last_error}', { attempts: job.attempts, last_error: job.last_error })));
        el.append(h('p', { class: 'muted small' }, job.next_run_at ? t('app.imports.trying_again', 'Trying again {next_run_at}.', { next_run_at: relative(job.next_run_at) }) : t('app.imports.trying_again_soon', 'Trying again soon.')));
      } else {
        el.append(h('p', null, t('app.imports.waiting_to_start', 'Waiting to start'), job.next_run_at ? ` (${relative(job.next_run_at)})` : ''));
      }
      break;
    case 'running': {
      const label = total ? t('app.imports.importing_of_records', 'Importing: {done} of {total} records', { done, total }) : t('app.imports.importing', 'Importing…');
      el.append(h('p', null, label));
      const bar = h('progress', { max: String(Math.max(total, 1)), 'aria-label': label });
      if (total) bar.value = done; // no value: an indeterminate bar
      el.append(bar);
      break;
    }
    case 'done': {
      const p = job.patients || {};
      const e = job.entries || {};
      const changes = [
        p.added ? tn('app.imports.count.new_people', p.added, '{n} new person', '{n} new people') : null,
        p.updated ? t('app.imports.updated', '{updated} updated', { updated: p.updated }) : null,
        e.added ? tn('app.imports.count.new_entries', e.added, '{n} new entry', '{n} new entries') : null,
        p.failed ? t('app.imports.could_not_be_read', '{failed} could not be read', { failed: p.failed }) : null,
      ].filter(Boolean);
      const when = job.finished_at ? ` ${relative(job.finished_at)}` : '';
      el.append(h('p', { class: 'muted' }, t('app.imports.last_import_finished', 'Last import finished{when}: {value}.', { when, value: changes.length ? changes.join(', ') : t('app.imports.nothing_new', 'nothing new') })));
      break;
    }
    case 'failed':
      el.append(h('p', { class: 'error-text' }, t('app.imports.import_failed', 'Import failed{value}: {last_error}', { value: job.attempts ? tn('app.imports.count.after_attempts', job.attempts, ' after {n} attempt', ' after {n} attempts') : '', last_error: job.last_error || t('app.imports.no_reason_given', 'no reason given') })));
      if (job.next_run_at) el.append(h('p', { class: 'muted small' }, t('app.imports.next_try', 'Next try {next_run_at}.', { next_run_at: formatDateTime(job.next_run_at) })));
      break;
    case 'needs_sign_in':
      el.append(h('p', null, t('app.imports.stopped_the_server_needs_you', 'Stopped: the server needs you to sign in again.')));
      break;
    default:
      el.append(h('p', null, job.state));
  }
  return el;
}
