// The daemon's JSON API, same origin, with the session cookie. Every failure becomes an ApiError
// with the daemon's error code; 401 and 423 also tell the app that the session is gone.

import { t } from './strings.js';

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null, data = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.data = data; // the answer's JSON, when it had one (a failed backup says its error there)
  }
}

const listeners = new Set();

/** fn(error) runs when a request finds no session (401) or a locked store (423). */
export function onSignedOut(fn) {
  listeners.add(fn);
}

async function request(method, path, { query, body, raw, quiet, background, signal } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, value);
  }
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, cache: 'no-store', signal };
  // A poll the page makes on its own is not the person using the store: it must not keep it from locking.
  if (background) init.headers['X-Hreaderd-Background'] = '1';
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  } else if (raw) {
    // A file as its own bytes (a Blob or File), with its media type.
    init.headers['Content-Type'] = raw.type;
    init.body = raw.body;
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    // Cancelled by the page (a panel closed before its answer came): not the daemon's failure.
    if (error?.name === 'AbortError') throw new ApiError(0, 'aborted', t('app.api.cancelled', 'Cancelled.'));
    throw new ApiError(0, 'offline', t('app.api.the_hreaderd_daemon_does_not', 'The hreaderd daemon does not answer. Is it running?'));
  }
  if (response.status === 204) return null;
  let data = null;
  const type = response.headers.get('Content-Type') || '';
  if (type.includes('application/json')) {
    try { data = await response.json(); } catch { data = null; }
  }
  if (!response.ok) {
    const code = data?.error?.code || `http_${response.status}`;
    const message = data?.error?.message || t('app.api.the_daemon_answered', 'The daemon answered {status}.', { status: response.status });
    const error = new ApiError(response.status, code, message, response.headers.get('Retry-After'), data);
    if ((response.status === 401 || response.status === 423) && !quiet) {
      for (const fn of listeners) fn(error);
    }
    throw error;
  }
  return data;
}

export const api = {
  session: () => request('GET', '/session'),
  signIn: (password) => request('POST', '/session', { body: { password }, quiet: true }),
  signOut: () => request('DELETE', '/session', { quiet: true }),
  lock: () => request('POST', '/lock', { quiet: true }),
  patients: () => request('GET', '/patients.json'),
  selectPatient: (id) => request('POST', '/patients/current', { body: { id } }),
  timeline: (page, end, patient) => request('GET', '/timeline.json', { query: { page, end, patient } }),
  post: (key, data, patient) => request('POST', '/timeline.json', { query: { key, patient }, body: data }),
  deletePost: (id) => request('DELETE', `/timeline/entries/${encodeURIComponent(id)}`),
  imports: () => request('GET', '/imports.json', { background: true }),
  // No body: every source; {"source": name}: that one.
  syncNow: (source) => request('POST', '/imports', source ? { body: { source } } : {}),
  // A FHIR server (SMART App Launch): {name, fhir, client_id} begins the sign-in; 201 {name, authorize_url,
  // expires_at}: the provider's sign-in page, which sends the browser back through /sources/callback.
  addSource: (source) => request('POST', '/sources', { body: source }),
  // One file a request: its raw bytes, named by `name`; `patient`: add it to that person's record.
  uploadFile: (file, patient) => request('POST', '/imports/files', {
    query: { name: file.name, patient },
    raw: { body: file, type: file.type || 'application/octet-stream' },
  }),
  importJob: (id) => request('GET', `/imports/jobs/${encodeURIComponent(id)}`, { background: true }),
  exportURL: (id) => `/patients/${encodeURIComponent(id)}/export.json`,

  // Your note on an entry: {note, struck, reason, medication} replaces the whole annotation.
  saveAnnotation: (patient, entry, annotation) => request('PUT', `${entryPath(patient, entry)}/annotation`, { body: annotation }),
  deleteAnnotation: (patient, entry) => request('DELETE', `${entryPath(patient, entry)}/annotation`),
  annotations: (patient) => request('GET', `${patientPath(patient)}/annotations.json`),

  // The person's whole record searched (entries, your notes, posts, documents' sections), a page at a time:
  // {q, patient, type, from, to, limit, cursor}; next_cursor of one page asks for the next.
  search: (params) => request('GET', '/search.json', { query: params }),

  // The C-CDA and C32 documents imported for a person (linked records too), each section's text.
  documents: (patient) => request('GET', `${patientPath(patient)}/documents.json`),

  // The family: {relationship, order, display_name} (any of them); removing a person removes everything of theirs.
  updatePatient: (patient, changes) => request('PATCH', patientPath(patient), { body: changes }),
  removePatient: (patient) => request('DELETE', patientPath(patient)),
  links: (patient) => request('GET', `${patientPath(patient)}/links.json`),
  link: (patient, other) => request('POST', `${patientPath(patient)}/links`, { body: { patient: other } }),
  unlink: (patient, other) => request('DELETE', `${patientPath(patient)}/links/${encodeURIComponent(other)}`),

  // The summary: the person and one tile per module shown, in the person's order (GET), and which
  // modules are shown, in what order ({modules: [ids]}; null: the defaults).
  // all: every module, whatever tiles the person chose (the printed summary for a doctor).
  summary: (patient, all = false) => request('GET', `${patientPath(patient)}/summary.json${all ? '?modules=all' : ''}`),
  modules: (patient) => request('GET', `${patientPath(patient)}/modules`),
  saveModules: (patient, modules) => request('PUT', `${patientPath(patient)}/modules`, { body: { modules } }),

  // The person's own readings (blood pressure, weight, height, glucose, pulse): {kind, systolic, diastolic}
  // or {kind, value, unit, context}, with an optional date and note. 400 bad_reading says what is wrong.
  addReading: (patient, reading) => request('POST', `${patientPath(patient)}/readings`, { body: reading }),
  updateReading: (id, reading) => request('PUT', `/readings/${encodeURIComponent(id)}`, { body: reading }),
  deleteReading: (id) => request('DELETE', `/readings/${encodeURIComponent(id)}`),

  // The daemon's backups: whether it takes them, the schedule, the last attempt, the files; one now
  // (201 with the attempt, 500 with ok false and its error, 409 no_backup_dir when it takes none).
  backups: ({ background } = {}) => request('GET', '/backups.json', { background }),
  backUp: () => request('POST', '/backups'),
  // The audit trail, newest first: {action, limit, cursor}; next_cursor of one page asks for the next.
  audit: (params) => request('GET', '/audit.json', { query: params }),

  // The health library (a pack of public content beside the record). Without a pack every route but
  // /library.json answers 404 no_library. library(): what is installed, what the publisher offers and the
  // update's progress; updateLibrary(): 202, or 409 while one runs.
  library: ({ background } = {}) => request('GET', '/library.json', { background }),
  updateLibrary: () => request('POST', '/library/update'),
  librarySearch: (q, limit) => request('GET', '/library/search.json', { query: { q, limit } }),
  libraryGroups: () => request('GET', '/library/groups.json'),
  libraryGroup: (id) => request('GET', `/library/groups/${encodeURIComponent(id)}.json`),
  libraryTopic: (id, { signal } = {}) => request('GET', `/library/topics/${encodeURIComponent(id)}.json`, { signal }),
  about: (patient, entry, { signal } = {}) => request('GET', `${entryPath(patient, entry)}/about.json`, { signal }),
  // The app's string table in a language: {language, strings: {key: text}}, English under every key it lacks.
  libraryStrings: (lang) => request('GET', '/library/strings.json', { query: { lang } }),
};

function patientPath(patient) {
  return `/patients/${encodeURIComponent(patient)}`;
}

function entryPath(patient, entry) {
  return `${patientPath(patient)}/entries/${encodeURIComponent(entry)}`;
}
