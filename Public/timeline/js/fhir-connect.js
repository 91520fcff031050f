// Connecting a health record server (FHIR, SMART App Launch) from the app. POST /sources begins the
// sign-in and answers the provider's sign-in address; the window goes there (same tab). After the
// person signs in, the provider sends the browser to the daemon's /sources/callback, which makes the
// source, queues its first sync and sends the browser on to /timeline/#imports: the app then shows
// the servers in Add records, where the new source's sync is followed.

import { $ } from './dom.js';
import { t } from './strings.js';

/** Where the daemon sends the browser back after a sign-in at the provider. */
export const IMPORTS_HASH = '#imports';

/** The window the person left from and the source being connected, kept for this tab only. */
const RETURN_KEY = 'hreaderd.signInReturn';
/** The daemon keeps a sign-in this long; a return after it is not this one. */
const RETURN_MS = 15 * 60 * 1000;

/** The daemon's rule for a source's name. */
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Parts of a server's host name that say nothing about whose server it is. */
const GENERIC_LABELS = new Set(['www', 'fhir', 'fhir-api', 'api', 'apis', 'r4', 'stu3', 'dstu2', 'portal', 'patient', 'patients',
  'patientaccess', 'secure', 'auth', 'login', 'open', 'prod', 'ehr', 'mychart', 'interconnect', 'proxy', 'gateway']);

/**
 * A name for the server at `address` from its host: fhir.springfield-clinic.example/r4 → springfield-clinic;
 * an address by number (127.0.0.1:8422) → fhir-8422. Not one of `taken` (a -2, -3… is added). '' for no address.
 */
export function suggestName(address, taken = new Set()) {
  const url = parseAddress(address);
  if (!url) return '';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  let base;
  if (host === 'localhost' || /^[\d.]+$/.test(host) || host.startsWith('[')) {
    base = url.port ? `fhir-${url.port}` : 'fhir-server';
  } else {
    const labels = host.split('.').filter(Boolean);
    if (labels.length > 1) labels.pop(); // the top-level domain
    base = labels.find((label) => !GENERIC_LABELS.has(label)) || labels[labels.length - 1] || 'fhir-server';
  }
  base = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 56) || 'fhir-server';
  if (base === 'files') base = 'files-server'; // the name of the built-in source of imported files
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

/** An http(s) URL with a host, or null. */
function parseAddress(text) {
  let url;
  try {
    url = new URL(String(text || '').trim());
  } catch {
    return null;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname ? url : null;
}

/**
 * Begins a sign-in (POST /sources {name, fhir, client_id}) and, on 201, sends the window to the provider's
 * sign-in page, saying so first with note(text). error(message) says what went wrong; resolves to whether
 * the window is on its way.
 */
export async function beginSignIn(api, source, { note, error }) {
  let answer;
  try {
    answer = await api.addSource(source);
  } catch (failure) {
    if (failure.status === 401 || failure.status === 423) return false; // the app returns to its sign-in
    error(t('app.fhir_connect.could_not_connect', 'Could not connect: {message}', { message: failure.message }));
    return false;
  }
  const target = parseAddress(answer?.authorize_url);
  if (!target) {
    error(t('app.fhir_connect.could_not_connect_the_daemon', 'Could not connect: the daemon gave no sign-in page to open.'));
    return false;
  }
  try {
    sessionStorage.setItem(RETURN_KEY, JSON.stringify({ name: source.name, hash: location.hash, at: Date.now() }));
  } catch { /* private mode: the app opens on the servers anyway */ }
  note(t('app.fhir_connect.opening_your_providers_sign_in', 'Opening your provider’s sign-in page…'));
  location.assign(target.href);
  return true;
}

/**
 * What the app kept when it sent the window to a provider ({name, hash}), read once; null when nothing
 * (or something too old) was kept.
 */
export function takeSignInReturn() {
  let kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(RETURN_KEY) || 'null');
    sessionStorage.removeItem(RETURN_KEY);
  } catch {
    return null;
  }
  if (!kept || typeof kept !== 'object' || !(Date.now() - Number(kept.at) < RETURN_MS)) return null;
  return { name: typeof kept.name === 'string' ? kept.name : null, hash: typeof kept.hash === 'string' ? kept.hash : '' };
}

/**
 * "Connect a health record server (FHIR)": the form in Add records. `sources()` gives the servers the
 * import panel listed last ({name, kind, url}), so that the name suggested is a new one and a name already
 * taken is said before anything is sent.
 */
export class ConnectForm {
  constructor(details, { api, sources }) {
    this.details = details;
    this.api = api;
    this.sources = sources;
    this.form = $('form', details);
    this.address = this.form.elements.fhir;
    this.name = this.form.elements.name;
    this.clientId = this.form.elements.client_id;
    this.error = $('.form-error', this.form);
    this.note = $('.form-note', this.form);
    this.button = $('button[type="submit"]', this.form);
    this.nameTyped = false; // the person's own name is not replaced by a suggestion

    this.address.addEventListener('input', () => {
      if (!this.nameTyped) this.name.value = suggestName(this.address.value, this.takenNames());
    });
    this.name.addEventListener('input', () => { this.nameTyped = this.name.value.trim() !== ''; });
    for (const field of [this.address, this.name, this.clientId]) {
      field.addEventListener('input', () => field.removeAttribute('aria-invalid'));
    }
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    // Back from the provider's page with the browser's back button: the form is usable again.
    window.addEventListener('pageshow', () => this.setBusy(false));
  }

  /** Opens the form (Add records' disclosure); the first field is where the person starts. */
  show() {
    this.details.open = true;
    return this.address;
  }

  takenNames() {
    return new Set((this.sources() || []).map((source) => source.name));
  }

  fail(message, field) {
    this.note.textContent = '';
    this.error.textContent = message;
    if (field) {
      field.setAttribute('aria-invalid', 'true');
      field.focus();
    }
  }

  setBusy(busy) {
    this.button.disabled = busy;
    this.form.setAttribute('aria-busy', String(busy));
    if (!busy && this.note.textContent === t('app.fhir_connect.opening_your_providers_sign_in', 'Opening your provider’s sign-in page…')) this.note.textContent = '';
  }

  async submit() {
    this.error.textContent = '';
    this.note.textContent = '';
    const fhir = this.address.value.trim();
    const name = this.name.value.trim();
    const clientId = this.clientId.value.trim();
    if (!parseAddress(fhir)) {
      this.fail(t('app.fhir_connect.enter_the_servers_address_the', 'Enter the server’s address: the FHIR base URL your provider gives, starting with https://.'), this.address);
      return;
    }
    if (!NAME_PATTERN.test(name) || name === 'files') {
      this.fail(t('app.fhir_connect.give_the_server_a_name', 'Give the server a name of letters, digits, “.”, “-” or “_” (at most 64), other than “files”.'), this.name);
      return;
    }
    if (!clientId) {
      this.fail(t('app.fhir_connect.enter_the_client_id_your', 'Enter the client id your provider gave for hreaderd.'), this.clientId);
      return;
    }
    // A new sign-in under a name in use would replace that source's settings: only the same server's.
    const same = (this.sources() || []).find((source) => source.name === name);
    if (same && !(same.kind === 'fhir' && sameAddress(same.url, fhir))) {
      this.fail(t('app.fhir_connect.there_is_already_a_server', 'There is already a server named {name}{value}. Choose another name.', { name, value: same.url ? ` (${same.url})` : '' }), this.name);
      return;
    }
    this.setBusy(true);
    const going = await beginSignIn(this.api, { name, fhir, client_id: clientId }, {
      note: (text) => { this.note.textContent = text; },
      error: (message) => this.fail(message),
    });
    if (!going) this.setBusy(false);
  }
}

function sameAddress(a, b) {
  const strip = (url) => String(url || '').trim().replace(/\/+$/, '').toLowerCase();
  return strip(a) === strip(b);
}
