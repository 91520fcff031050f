// Backups & activity: the daemon's backups (GET /backups.json: whether it takes them, into which folder,
// how often, how many it keeps, the last attempt and the last good one, the next, the files) with
// "Back up now" (POST /backups), and the audit trail (GET /audit.json) as a table, newest first, filtered
// by action and paged with "Older". The trail names people by the store's id: a person the app knows
// (from /patients.json) is shown by name. Paths, file names, actors and details come from the daemon:
// they go into the page as text only (textContent), never as HTML.

import { h, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { formatBytes, formatDateTime, relative } from './format.js';
import { later, showKey, t, tn } from './strings.js';

const PAGE = 50;

/** Each action of the trail, as the filter and the table say it. */
export const ACTIONS = [
  ['sign_in', later('app.backups.sign_in', 'Sign-in')],
  ['sign_in_failed', later('app.backups.failed_sign_in', 'Failed sign-in')],
  ['sign_out', later('app.backups.sign_out', 'Sign-out')],
  ['lock', later('app.backups.lock', 'Lock')],
  ['token_created', later('app.backups.token_created', 'Token created')],
  ['token_used', later('app.backups.token_used', 'Token used')],
  ['token_revoked', later('app.backups.token_revoked', 'Token revoked')],
  ['import', later('app.backups.import', 'Import')],
  ['sync', later('app.backups.sync', 'Sync')],
  ['export', later('app.backups.export', 'Export')],
  ['backup', later('app.backups.backup', 'Backup')],
  ['backup_failed', later('app.backups.failed_backup', 'Failed backup')],
  ['restore', later('app.backups.restore', 'Restore')],
  ['deletion', later('app.backups.deletion', 'Deletion')],
  ['annotation', later('app.backups.note_on_an_entry', 'Note on an entry')],
  ['patient_change', later('app.backups.change_to_people', 'Change to people')],
];
const ACTION_WORDS = Object.fromEntries(ACTIONS);
const ACTION_TONES = { sign_in_failed: 'error', backup_failed: 'error', backup: 'ok', restore: 'ok', deletion: 'warn' };

export function actionWord(action) {
  return ACTION_WORDS[action] || String(action || t('app.backups.unknown', 'Unknown')).replace(/_/g, ' ');
}

/** Who did it, in words: "session ab12cd34" → "Session ab12cd34", "cli" → "Command line"… */
export function actorWord(actor) {
  const text = String(actor ?? '').trim();
  const space = text.indexOf(' ');
  const kind = space === -1 ? text : text.slice(0, space);
  const rest = space === -1 ? '' : text.slice(space + 1);
  switch (kind) {
    case 'session': return t('app.backups.session', 'Session {rest}', { rest });
    case 'token': return t('app.backups.token', 'Token {rest}', { rest });
    case 'source': return t('app.backups.source', 'Source {rest}', { rest });
    case 'peer': return t('app.backups.from', 'From {rest}', { rest });
    case 'cli': return t('app.backups.command_line', 'Command line');
    case 'daemon': return t('app.backups.the_daemon', 'The daemon');
    case 'unauthenticated': return t('app.backups.not_signed_in', 'Not signed in');
    case '': return '—';
    default: return text;
  }
}

/** "every 24 hours", "every hour", "every 1.5 hours". */
function everyHours(hours) {
  if (hours === 1) return t('app.backups.every_hour', 'every hour');
  return t('app.backups.every_hours', 'every {hours} hours', { hours: Number(hours).toLocaleString(undefined, { maximumFractionDigits: 2 }) });
}

/** One attempt (last, last_good or a POST's answer) in words, with its time. */
function attemptText(attempt) {
  const when = formatDateTime(attempt.at);
  if (!attempt.ok) return t('app.backups.failed', '{when}: failed: {error}', { when, error: attempt.error || t('app.backups.no_reason_given', 'no reason given') });
  const seconds = attempt.seconds != null ? t('app.backups.in', ', in {value}', { value: attempt.seconds < 1 ? t('app.backups.under_a_second', 'under a second') : tn('app.backups.count.seconds', Math.round(attempt.seconds), '{n} second', '{n} seconds') }) : '';
  return t('app.backups.ok', '{when}: OK, {file} ({bytes}{seconds})', { when, file: attempt.file || t('app.backups.a_backup_file', 'a backup file'), bytes: formatBytes(attempt.bytes), seconds });
}

export class BackupsPanel {
  /**
   * dialog: the <dialog> of index.html. button: the Imports card's "Backups & activity" button, and
   * summary: the line beside it (the last backup, or that there are none). api: backups(), backUp(),
   * audit(params). patientName(id): the name of a patient the app knows, else null.
   */
  constructor(dialog, button, summary, { api, patientName }) {
    this.dialog = dialog;
    this.button = button;
    this.summary = summary;
    this.api = api;
    this.patientName = patientName;
    const $ = (selector) => dialog.querySelector(selector);
    this.ui = {
      state: $('#backups-state'),
      info: $('#backups-info'),
      nowRow: $('#backup-now-row'),
      now: $('#backup-now'),
      progress: $('#backup-progress'),
      result: $('#backup-result'),
      filesBlock: $('#backup-files-block'),
      filesHeading: $('#backup-files-heading'),
      files: $('#backup-files'),
      action: $('#activity-action'),
      rows: $('#activity-rows'),
      table: $('#activity-table'),
      status: $('#activity-status'),
      foot: $('#activity-foot'),
      shown: $('#activity-shown'),
      older: $('#activity-older'),
    };
    this.ui.action.append(...ACTIONS.map(([value]) => h('option', { value })));
    this.nameActions();
    this.backupSeq = 0;
    this.data = null; // the last /backups.json read
    this.events = []; // the activity listed
    this.auditSeq = 0;
    this.cursor = null;
    this.count = 0; // events listed
    this.busy = false; // a backup is being taken
    button.addEventListener('click', () => this.open(button));
    this.ui.now.addEventListener('click', () => this.backUp());
    this.ui.action.addEventListener('change', () => this.loadActivity());
    this.ui.older.addEventListener('click', () => this.older());
    this.modal = new Dialog(dialog, { fallback: () => this.button });
  }

  /** The activity filter's choices in the table's language (made before any table is loaded). */
  nameActions() {
    for (const option of this.ui.action.options) {
      const word = ACTION_WORDS[option.value];
      if (word) option.textContent = String(word);
    }
  }

  /** The line beside the button, and the panel when open, drawn again in the table's language. */
  redraw() {
    this.nameActions();
    if (this.data) this.renderSummary(this.data);
    if (!this.dialog.open) return;
    if (this.data) this.renderBackups(this.data);
    clear(this.ui.rows).append(...this.events.map((event) => this.row(event)));
    this.sayCount();
  }

  /** Signed in: the line beside the button says how the backups stand. */
  async start() {
    const seq = ++this.backupSeq;
    try {
      const data = await this.api.backups({ background: true });
      if (seq === this.backupSeq) this.renderSummary(data);
    } catch {
      if (seq === this.backupSeq) this.summary.textContent = '';
    }
  }

  /** Forgets everything (signed out, locked). */
  reset() {
    this.backupSeq += 1;
    this.auditSeq += 1;
    this.close();
    this.data = null;
    this.events = [];
    this.summary.textContent = '';
    this.summary.classList.remove('warn-text');
    clear(this.ui.info);
    clear(this.ui.files);
    clear(this.ui.rows);
    this.ui.result.textContent = '';
    this.ui.action.value = '';
  }

  open(trigger) {
    this.ui.result.textContent = '';
    this.ui.result.classList.remove('error');
    this.modal.open(trigger, { toTop: true });
    this.loadBackups();
    this.loadActivity();
  }

  close() {
    this.modal.close();
  }

  // ---- Backups ----

  async loadBackups() {
    const seq = ++this.backupSeq;
    this.ui.info.setAttribute('aria-busy', 'true');
    let data;
    try {
      data = await this.api.backups();
    } catch (error) {
      if (seq !== this.backupSeq) return;
      this.ui.info.removeAttribute('aria-busy');
      if (error.status === 401 || error.status === 423) return; // back to the sign-in screen
      this.ui.state.hidden = true;
      this.ui.nowRow.hidden = true;
      this.ui.filesBlock.hidden = true;
      clear(this.ui.info).append(h('p', { class: 'error-text' }, t('app.backups.could_not_read_the_backups', 'Could not read the backups: {message}', { message: error.message })));
      return;
    }
    if (seq !== this.backupSeq) return;
    this.ui.info.removeAttribute('aria-busy');
    this.renderSummary(data);
    this.renderBackups(data);
  }

  renderSummary(data) {
    this.data = data;
    const last = data?.last;
    const good = data?.last_good;
    let text;
    let warn = false;
    if (!data?.enabled) {
      text = t('app.backups.backups_are_off', 'Backups are off.');
    } else if (last && !last.ok) {
      text = t('app.backups.the_last_backup_failed', 'The last backup failed {at}.', { at: relative(last.at) });
      warn = true;
    } else if (good) {
      text = t('app.backups.last_backup', 'Last backup {at}.', { at: relative(good.at) });
    } else {
      // None since the daemon started: the next is due a period after the newest file there is.
      text = data.backups?.length
        ? t('app.backups.the_next_is_due', 'Backups are on; the next is due {next_at}.', { next_at: relative(data.next_at) })
        : t('app.backups.the_first_is_due', 'Backups are on; the first is due {next_at}.', { next_at: relative(data.next_at) });
    }
    this.summary.textContent = text;
    this.summary.classList.toggle('warn-text', warn);
  }

  renderBackups(data) {
    const { state, info, nowRow, filesBlock, filesHeading, files } = this.ui;
    state.hidden = false;
    if (!data?.enabled) {
      state.className = 'badge neutral';
      state.textContent = t('app.backups.off', 'Off');
      nowRow.hidden = true;
      filesBlock.hidden = true;
      clear(info).append(
        h('p', null, t('app.backups.this_daemon_takes_no_backups', 'This daemon takes no backups. To have it take one on a schedule, start it with '),
          h('code', null, '--backup-dir DIR'), t('app.backups.and', ' (and '), h('code', null, '--backup-every HOURS'), t('app.backups.to_take_one_by_hand', '); to take one by hand, run '),
          h('code', null, t('app.backups.hreaderd_backup_output_file', 'hreaderd backup --output FILE')), '.'));
      return;
    }
    const last = data.last;
    state.className = last && !last.ok ? 'badge error' : 'badge ok';
    state.textContent = last && !last.ok ? t('app.backups.last_one_failed', 'Last one failed') : t('app.backups.on', 'On');
    const keep = data.keep != null ? t('app.backups.keeping_the_newest', ', keeping the newest {keep}', { keep: tn('app.backups.count.backups', data.keep, '{n} backup', '{n} backups') }) : '';
    const facts = h('dl', { class: 'facts backup-facts' });
    const fact = (term, ...value) => facts.append(h('dt', null, term), h('dd', null, ...value));
    fact(t('app.backups.folder', 'Folder'), h('span', { class: 'path', 'data-field': 'directory', text: data.directory || '' }));
    fact(t('app.backups.schedule', 'Schedule'), t('app.backups.a_backup', 'A backup {every_hours}{keep}', { every_hours: everyHours(data.every_hours), keep }));
    fact(t('app.backups.last_attempt', 'Last attempt'), last
      ? h('span', { class: last.ok ? null : 'error-text', 'data-field': 'last', 'data-ok': String(Boolean(last.ok)), text: attemptText(last) })
      : h('span', { class: 'muted', 'data-field': 'last', text: t('app.backups.none_since_the_daemon_started', 'None since the daemon started') }));
    const newest = data.backups?.[0]?.name;
    fact(t('app.backups.last_good_backup', 'Last good backup'), data.last_good
      ? h('span', { 'data-field': 'last-good', text: attemptText(data.last_good) })
      : h('span', { class: 'muted', 'data-field': 'last-good', text: newest ? t('app.backups.none_since_the_daemon_started_2', 'None since the daemon started; the newest file is {newest}', { newest }) : t('app.backups.none_yet', 'None yet') }));
    fact(t('app.backups.next_backup', 'Next backup'), data.next_at != null ? `${formatDateTime(data.next_at)} (${relative(data.next_at)})` : '—');
    clear(info).append(facts);
    nowRow.hidden = false;

    const list = data.backups || [];
    filesBlock.hidden = false;
    filesHeading.textContent = list.length ? t('app.backups.backup_files_newest_first', 'Backup files ({length}, newest first)', { length: list.length.toLocaleString() }) : t('app.backups.backup_files', 'Backup files');
    clear(files);
    if (!list.length) {
      files.append(h('li', { class: 'muted' }, t('app.backups.no_backup_file_in_the', 'No backup file in the folder yet.')));
      return;
    }
    for (const file of list) {
      files.append(h('li', { 'data-name': file.name || '' },
        h('span', { class: 'backup-name', text: file.name || '' }),
        h('span', { class: 'backup-size muted', text: formatBytes(file.bytes) })));
    }
  }

  async backUp() {
    if (this.busy) return;
    const { now, progress, result } = this.ui;
    this.busy = true;
    now.disabled = true;
    showKey(now, 'app.backups.backing_up', 'Backing up…');
    progress.hidden = false;
    result.classList.remove('error');
    result.textContent = t('app.backups.taking_a_backup', 'Taking a backup…');
    let message;
    let failed = false;
    try {
      const answer = await this.api.backUp();
      const attempt = answer?.backup;
      message = attempt ? t('app.backups.backed_up', 'Backed up: {file} ({bytes}).', { file: attempt.file, bytes: formatBytes(attempt.bytes) }) : t('app.backups.backed_up_2', 'Backed up.');
    } catch (error) {
      failed = true;
      if (error.status === 401 || error.status === 423) message = '';
      else if (error.code === 'no_backup_dir') message = t('app.backups.this_daemon_takes_no_backups_2', 'This daemon takes no backups: start it with --backup-dir DIR.');
      else message = t('app.backups.the_backup_failed', 'The backup failed: {error}', { error: error.data?.backup?.error || error.message });
    } finally {
      this.busy = false;
      now.disabled = false;
      showKey(now);
      progress.hidden = true;
    }
    result.classList.toggle('error', failed);
    result.textContent = message;
    if (!this.dialog.open) return;
    // The new file, the last attempt and the next one; the backup (or its failure) in the trail.
    await this.loadBackups();
    this.loadActivity();
  }

  // ---- Activity ----

  async loadActivity() {
    const seq = ++this.auditSeq;
    this.cursor = null;
    this.count = 0;
    this.events = [];
    clear(this.ui.rows);
    this.ui.foot.hidden = true;
    this.say(t('app.backups.loading', 'Loading…'));
    await this.loadPage(seq, null);
  }

  async older() {
    if (this.cursor == null) return;
    const seq = this.auditSeq;
    const first = this.count;
    const { older } = this.ui;
    older.disabled = true;
    showKey(older, 'app.backups.loading', 'Loading…');
    await this.loadPage(seq, this.cursor);
    if (seq !== this.auditSeq) return;
    older.disabled = false;
    showKey(older);
    // The keyboard goes on from the first row added (Tab from there reaches Older again).
    const next = this.ui.rows.rows[first];
    if (next) {
      next.tabIndex = -1;
      next.focus();
    }
  }

  async loadPage(seq, cursor) {
    const action = this.ui.action.value;
    this.ui.table.setAttribute('aria-busy', 'true');
    let page;
    try {
      page = await this.api.audit({ action, limit: PAGE, cursor });
    } catch (error) {
      if (seq !== this.auditSeq) return;
      this.ui.table.removeAttribute('aria-busy');
      if (error.status === 401 || error.status === 423) return;
      this.say(t('app.backups.could_not_read_the_activity', 'Could not read the activity: {message}', { message: error.message }), true);
      return;
    }
    if (seq !== this.auditSeq) return;
    this.ui.table.removeAttribute('aria-busy');
    const events = page?.events || [];
    for (const event of events) this.ui.rows.append(this.row(event));
    this.events.push(...events);
    this.count += events.length;
    this.cursor = page?.next_cursor ?? null;
    this.sayCount();
  }

  /** How many events are listed, and whether older ones follow. */
  sayCount() {
    const action = this.ui.action.value;
    const what = action ? actionWord(action).toLowerCase() : '';
    if (this.count === 0) {
      this.say(action ? t('app.backups.no_action_events_in_the_trail', 'No {what} events in the trail.', { what }) : t('app.backups.nothing_in_the_trail_yet', 'Nothing in the trail yet.'));
    } else {
      this.say('');
    }
    this.ui.shown.textContent = this.count ? t('app.backups.shown', '{count} shown{value}.', {
      count: action ? tn('app.backups.count.action_events', this.count, '{n} {what} event', '{n} {what} events', { what }) : tn('app.backups.count.events', this.count, '{n} event', '{n} events'),
      value: this.cursor != null ? t('app.backups.older_ones_follow', '; older ones follow') : '',
    }) : '';
    this.ui.older.hidden = this.cursor == null;
    this.ui.foot.hidden = this.count === 0;
  }

  say(text, error = false) {
    this.ui.status.classList.toggle('error', error);
    this.ui.status.textContent = text;
  }

  row(event) {
    const name = event.patient ? this.patientName(event.patient) : null;
    const tone = ACTION_TONES[event.action] || 'neutral';
    const cell = (label, empty, ...content) => h('td', { role: 'cell', 'data-label': label, class: empty ? 'no-value' : null }, ...content);
    return h('tr', { role: 'row', 'data-id': String(event.id ?? ''), 'data-action': event.action || '' },
      h('td', { role: 'cell', class: 'when', 'data-label': t('app.backups.column_when', 'When') }, h('time', { datetime: new Date(event.at * 1000).toISOString(), text: formatDateTime(event.at) })),
      cell(t('app.backups.column_what', 'What'), false, h('span', { class: `badge ${tone}`, text: actionWord(event.action) })),
      cell(t('app.backups.column_who', 'Who'), !event.actor, h('span', { class: 'actor', 'data-actor': event.actor || '', text: actorWord(event.actor) })),
      cell(t('app.backups.column_person', 'Person'), !event.patient, !event.patient
        ? h('span', { class: 'muted', text: '—' })
        : name
          ? h('span', { class: 'person-name', 'data-patient': event.patient, text: name })
          : h('span', { class: 'patient-id', 'data-patient': event.patient, text: event.patient })),
      cell(t('app.backups.column_detail', 'Detail'), !event.detail, event.detail ? h('span', { class: 'detail', text: event.detail }) : h('span', { class: 'muted', text: '—' })));
  }
}
