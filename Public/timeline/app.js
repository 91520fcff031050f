// hreaderd's web app: wires the modules under js/ together and keeps the state (signed in or not, the
// person, the view: the Summary or a window of the timeline) in step with the address and the daemon.

import { api, onSignedOut } from './js/api.js';
import { h, $, $$, clear } from './js/dom.js';
import { dayString, formatDate, formatWindow } from './js/format.js';
import { SUMMARY, viewName, parseHash, buildHash, earlier, later, canGoLater, endingAt } from './js/window-nav.js';
import { LANES, VITAL_LANE, setClosedStatuses } from './js/lane-layout.js';
import { TimelineView } from './js/timeline-view.js';
import { ChartGrid } from './js/vitals-chart.js';
import { vitalCharts, labCharts, levelCharts } from './js/chart-model.js';
import { EntryDetails } from './js/entry-details.js';
import { EntryLists } from './js/entry-list.js';
import { PostsList } from './js/posts.js';
import { setUpForms, currentMedications, renderRegimen, offerLivingForms } from './js/forms.js';
import { ImportsPanel } from './js/imports.js';
import { ConnectForm, IMPORTS_HASH, takeSignInReturn } from './js/fhir-connect.js';
import { UploadPanel } from './js/uploads.js';
import { SignIn } from './js/session.js';
import { PatientPicker, groupPeople, personMeta } from './js/patients.js';
import { PeoplePanel } from './js/people.js';
import { DocumentsPanel } from './js/documents.js';
import { SearchPanel } from './js/search.js';
import { BackupsPanel } from './js/backups.js';
import { withoutStruck } from './js/annotations.js';
import { SummaryView } from './js/summary.js';
import { ModulesPanel } from './js/modules-panel.js';
import { SharePanel } from './js/share.js';
import { OwnReadingsList, readingItem } from './js/readings.js';
import { clearStrings, loadStrings, onStringsChange, restoreStrings, setLanguageSetting, t, translate, tn } from './js/strings.js';
import { AboutEntry } from './js/about-entry.js';
import { LibraryPanel } from './js/library.js';
import { LibraryBanner } from './js/library-banner.js';
import { jsonArrived, drawn } from './js/draw-timing.js';

const HIDE_STRUCK_KEY = 'hreaderd.hideStruck';

function remembered(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

function remember(key, value) {
  try { localStorage.setItem(key, value); } catch { /* private mode: kept for this page only */ }
}

const state = {
  signedIn: false,
  patientId: null,
  payload: null, // the timeline window drawn last
  summary: null, // the summary drawn last
  window: parseHash(),
  loadSeq: 0,
  patients: new Map(), // patient id → the patient as /patients.json lists it (with earliest and latest)
  people: [], // the family, linked records together (groupPeople); state.patientId is one of their ids
  hideStruck: remembered(HIDE_STRUCK_KEY) === '1',
  orphansFor: null, // the person whose notes on removed entries were counted last
  afterLoad: null, // {hash, resolve}: a window asked for by showWindow, settled once it is drawn
};

const ui = {
  boot: $('#boot'),
  app: $('#app'),
  main: $('#main'),
  status: $('#status'),
  name: $('#person-name'),
  meta: $('#person-meta'),
  exportLink: $('#export-link'),
  windowLabel: $('#window-label'),
  back: $('#step-back'),
  forward: $('#step-forward'),
  endDate: $('#end-date'),
  now: $('#go-now'),
  summary: $('#timeline-summary'),
  labsCard: $('#labs-card'),
  hideStruck: $('#hide-struck'),
  orphanNotice: $('#orphan-notice'),
  layout: $('#timeline-layout'),
  summaryView: $('#summary-view'),
  stepper: $('#stepper'),
  jump: $('#jump'),
};

// The texts of the page from the table kept from the last visit (the sign-in screen is drawn before a
// session can read the table); the installed library's table replaces it once signed in.
restoreStrings();
translate();

// Annotations go to the person shown (for linked records the daemon finds the entry's own record).
const annotationPatient = () => state.payload?.patient.id || state.patientId;

// The health library: its state and update banner, its view, and "About this" in an entry's details.
const libraryBanner = new LibraryBanner($('#library-banner'), {
  api,
  onInfo: (info, previous) => {
    library.setAvailable(Boolean(info?.installed));
    // A pack installed (or another one now): its string table. None: English.
    if (info?.installed && info.installed.version !== previous?.installed?.version) loadAppStrings();
    else if (info && !info.installed) clearStrings();
  },
});
const library = new LibraryPanel($('#library'), $('#library-button'), {
  api,
  info: () => libraryBanner.info,
  onLanguage: (tag) => {
    setLanguageSetting(tag);
    loadAppStrings();
  },
});
const aboutEntry = new AboutEntry({
  load: (entry, signal) => api.about(annotationPatient(), entry.id, { signal }),
  topic: (id, signal) => api.libraryTopic(id, { signal }),
  enabled: () => Boolean(libraryBanner.info?.installed),
  openTopic: (id, trigger) => library.open(trigger, { topic: id }),
});

function loadAppStrings() {
  return loadStrings((lang) => api.libraryStrings(lang));
}

const details = new EntryDetails($('#details'), {
  about: aboutEntry,
  onDeletePost: deletePost,
  annotations: {
    save: async (entry, body) => (await api.saveAnnotation(annotationPatient(), entry.id, body)).annotation,
    remove: (entry) => api.deleteAnnotation(annotationPatient(), entry.id),
    onChange: () => loadTimeline(),
  },
  // A reading of the person's own, opened from the list under the charts or a search: changed or deleted.
  readings: {
    save: async (reading, body) => (await api.updateReading(reading.id, body))?.reading,
    remove: (reading) => api.deleteReading(reading.id),
    onChange: () => loadTimeline(),
  },
});
const ownReadings = new OwnReadingsList($('#own-readings'), {
  onOpen: (reading, row) => details.open({ items: [readingItem(reading)], lane: VITAL_LANE }, row),
});
const summary = new SummaryView(ui.summaryView, {
  api,
  personId: () => state.patientId,
  onReadingSaved: () => loadSummary(),
  onChooseTiles: (button) => modules.open(button),
});
const share = new SharePanel($('#share'), { personId: () => state.patientId });
$('#share-summary').addEventListener('click', (event) => share.open(event.currentTarget));
const modules = new ModulesPanel($('#modules'), {
  api,
  personId: () => state.patientId,
  personName: () => state.summary?.patient.name || picker.find(state.patientId)?.name || '',
  onSaved: async (message) => {
    await loadSummary();
    showStatus(message);
  },
});
const timeline = new TimelineView($('#timeline'), { onOpen: (group, el) => details.open(group, el) });
const vitals = new ChartGrid($('#vitals'));
const labs = new ChartGrid($('#labs'));
const levelsChart = new ChartGrid($('#levels-chart'));
const lists = new EntryLists($('#entry-lists'), { onOpen: (group, el) => details.open(group, el) });
const posts = new PostsList($('#posts'), { onDelete: deletePost });
const imports = new ImportsPanel($('#imports'), $('#sync-now'), {
  api, mirror: $('#servers-list'), onImported: () => { loadPatients().then(reload); },
});
const connect = new ConnectForm($('#fhir-connect'), { api, sources: () => imports.sources });
const uploads = new UploadPanel($('#upload'), {
  api,
  currentPatient: () => (state.patientId ? { id: state.patientId, name: state.patients.get(state.patientId)?.name || '' } : null),
  patientName: (id) => (state.patients.has(id) ? state.patients.get(id).name || '' : null),
  isActive: () => state.signedIn && !ui.app.hidden,
  onImported: afterImport,
  onShow: showPatient,
  // A document may have arrived (or, with nothing else new, only a document): the button shows it.
  onFinished: () => documents.refresh(),
});
for (const button of [$('#add-records'), $('#add-files')]) button.addEventListener('click', () => uploads.open(button));
$('#connect-server').addEventListener('click', (event) => uploads.open(event.currentTarget, connect.show()));
$('#upload').addEventListener('close', () => {
  $('#servers-note').textContent = '';
  imports.markArrived(null);
});
const signIn = new SignIn({ api, onSignedIn: enterApp });

// A new table (another language, a library update): the page's texts, and those the modules set, again.
onStringsChange(() => {
  translate();
  signIn.drawTexts();
  library.redraw();
  libraryBanner.draw();
  if (state.signedIn) {
    retitle();
    // The dialogs open now, the people's list and the lines drawn from what was read last: again.
    picker.render(state.people, state.patientId);
    for (const panel of [details, people, documents, modules, uploads, imports, backups]) panel.redraw();
    // The view the modules drew, again in the new language, from what it was drawn from (nothing is asked again).
    if (state.window.view === SUMMARY) {
      if (state.summary) renderSummary(state.summary, state.summaryEverything || state.summary);
    } else if (state.payload) {
      render(state.payload);
    }
  }
});
const picker = new PatientPicker($('#patient-select'), { onChange: selectPatient });
const people = new PeoplePanel($('#people'), {
  api,
  people: () => state.people,
  current: () => state.patientId,
  onChanged: async () => { await loadPatients(); await reload(); documents.refresh(); },
});
$('#people-button').addEventListener('click', (event) => people.open(event.currentTarget));
const documents = new DocumentsPanel($('#documents'), $('#documents-button'), {
  api,
  personName: () => state.payload?.patient.name || '',
});
const search = new SearchPanel($('#search-form'), $('#search-panel'), {
  api,
  personId: () => state.payload?.patient.id || state.patientId,
  current: () => ({ view: state.window.view, payload: state.payload, loading: ui.main.hasAttribute('aria-busy') }),
  showWindow,
  openDetails: (group, trigger) => details.open(group, trigger),
  openSection: (documentId, number, trigger) => documents.openSection(documentId, number, trigger),
  showStatus,
});
const backups = new BackupsPanel($('#backups'), $('#backups-button'), $('#backups-summary'), {
  api,
  patientName: (id) => (state.patients.has(id) ? state.patients.get(id).name || null : null),
});

ui.hideStruck.checked = state.hideStruck;
ui.hideStruck.addEventListener('change', () => {
  state.hideStruck = ui.hideStruck.checked;
  remember(HIDE_STRUCK_KEY, state.hideStruck ? '1' : '0');
  if (state.payload) render(state.payload);
});

setUpForms({
  post: (key, data) => api.post(key, data, state.patientId),
  onPosted: (stored) => {
    const shown = state.payload;
    // A window that ends now (or later) shows the post once reloaded.
    if (!shown || state.window.end === null || (stored.created_at >= shown.start_date && stored.created_at <= shown.end_date)) {
      loadTimeline();
    } else {
      // The post is dated now, outside the window shown: say where it went.
      showStatus(h('span', null, t('app.page.saved_it_is_on_todays', 'Saved. It is on today’s timeline. '),
        h('button', { type: 'button', class: 'button small', onclick: () => go({ view: 'day', end: null }) }, t('app.page.show_today', 'Show today'))));
    }
  },
});

onSignedOut((error) => leaveApp(error.status === 423 ? 'locked' : 'expired'));

// ---- Navigation ----

function go(next) {
  const hash = buildHash(next);
  if (location.hash === hash) reload();
  else location.hash = hash;
}

/** Draws what the address asks for again: the Summary or the timeline's window. */
function reload() {
  return state.window.view === SUMMARY ? loadSummary() : loadTimeline();
}

/** go(next), and a promise of whether that window was then drawn (false: it failed, or another was asked for). */
function showWindow(next) {
  state.afterLoad?.resolve(false);
  return new Promise((resolve) => {
    state.afterLoad = { hash: buildHash(next), resolve };
    go(next);
  });
}

/** Settles showWindow's promise once the window it asked for is drawn (or could not be). */
function settleAfterLoad(drawn) {
  const waiting = state.afterLoad;
  if (!waiting || waiting.hash !== buildHash(state.window)) return;
  state.afterLoad = null;
  waiting.resolve(drawn);
}

window.addEventListener('hashchange', () => {
  // #imports (where a provider's sign-in comes back to) is taken once signed in: see enterApp.
  const arrival = state.signedIn ? takeImportsAddress() : null;
  state.window = parseHash();
  if (state.signedIn) reload();
  if (arrival) showServers(arrival);
});

/**
 * The address #imports, where the daemon sends the browser after a sign-in at a FHIR provider: the window
 * the person left from takes its place in the address (else the Summary). Returns {name} (the source being
 * connected, when this tab began it) or null for any other address.
 */
function takeImportsAddress() {
  if (location.hash !== IMPORTS_HASH) return null;
  const kept = takeSignInReturn();
  const back = kept?.hash && kept.hash !== IMPORTS_HASH ? parseHash(kept.hash) : parseHash('');
  history.replaceState(history.state, '', buildHash(back));
  state.window = parseHash();
  return { name: kept?.name || null };
}

/** Add records, open at the servers: the one just signed in to is marked, its first import followed. */
function showServers(arrival) {
  imports.markArrived(arrival.name);
  const known = arrival.name && imports.sources.some((source) => source.name === arrival.name);
  $('#servers-note').textContent = known
    ? t('app.page.you_are_signed_in_at', 'You are signed in at {name}. Its first import is followed below.', { name: arrival.name })
    : '';
  imports.refresh();
  uploads.open(null, $('#servers-heading'));
}

for (const button of $$('.view-button')) {
  button.addEventListener('click', () => {
    const view = button.dataset.view;
    // From the Summary a window of the timeline ends now.
    go({ view, end: view === 'all' || view === SUMMARY ? null : state.window.end });
  });
}
ui.back.addEventListener('click', () => state.payload && go(earlier(state.window, state.payload.start_date)));
ui.forward.addEventListener('click', () => go(later(state.window)));
const windowView = () => (state.window.view === 'all' || state.window.view === SUMMARY ? 'year' : state.window.view);
ui.now.addEventListener('click', () => go({ view: windowView(), end: null }));
ui.endDate.addEventListener('change', () => {
  const value = ui.endDate.value;
  go({ view: windowView(), end: value || null });
});

$('#sign-out').addEventListener('click', async () => {
  try { await api.signOut(); } catch { /* signed out either way */ }
  leaveApp('signed-out');
});
$('#lock').addEventListener('click', async () => {
  try { await api.lock(); } catch { /* a locked store is what we want */ }
  leaveApp('locked');
});

// ---- Session ----

async function boot() {
  let session;
  try {
    session = await api.session();
  } catch (error) {
    ui.boot.replaceChildren(h('p', null, error.message), h('button', { type: 'button', class: 'button', onclick: () => location.reload() }, t('app.page.try_again', 'Try again')));
    return;
  }
  ui.boot.hidden = true;
  if (session.signed_in && !session.locked) enterApp();
  else signIn.show(session.locked ? 'locked' : 'start');
}

async function enterApp() {
  state.signedIn = true;
  ui.boot.hidden = true;
  ui.app.hidden = false;
  ui.main.focus({ preventScroll: true });
  const arrival = takeImportsAddress();
  const importsShown = imports.start();
  backups.start();
  libraryBanner.start();
  // Back from a provider's sign-in: what the first import has brought is in the family list too.
  if (arrival) await importsShown;
  await loadPatients();
  await reload();
  if (arrival) showServers(arrival);
}

function leaveApp(reason) {
  state.signedIn = false;
  state.payload = null;
  state.summary = null;
  state.summaryEverything = null;
  state.patients.clear();
  imports.stop();
  libraryBanner.stop();
  library.reset();
  details.close();
  uploads.close();
  people.close();
  documents.reset();
  search.reset();
  backups.reset();
  summary.reset();
  modules.close();
  share.close();
  ui.app.hidden = true;
  signIn.show(reason);
}

// ---- Patients ----

async function loadPatients() {
  try {
    const data = await api.patients();
    state.patients = new Map(data.patients.map((patient) => [patient.id, patient]));
    state.people = groupPeople(data.patients);
    state.orphansFor = null;
    setClosedStatuses(data.closed_statuses || []);
    // The person (linked records are one) is named by the head record's id.
    const current = state.people.find((person) => person.members.some((m) => m.id === data.current)) || state.people[0];
    state.patientId = current?.id || null;
    picker.render(state.people, state.patientId);
  } catch (error) {
    if (error.status !== 401 && error.status !== 423) showError(t('app.page.could_not_load_the_family', 'Could not load the family list: {message}', { message: error.message }), loadPatients);
  }
}

/** After an import that changed something: the family again, and the window redrawn. With no one
 *  shown before, the first person imported is shown. */
async function afterImport(report) {
  const hadPatient = Boolean(state.patientId);
  await loadPatients();
  const imported = (report?.patients || []).filter((p) => p.id && !p.error && state.patients.has(p.id)).map((p) => p.id);
  if (!hadPatient && imported.length) await showPatient(imported[0]);
  else await reload();
  imports.refresh();
}

/** "Show on the timeline" after an import: that person, the whole record. */
async function showPatient(id) {
  state.patientId = picker.personOf(id)?.id || id;
  picker.choose(id);
  ui.main.focus({ preventScroll: true });
  window.scrollTo({ top: 0 });
  try {
    await api.selectPatient(id);
  } catch (error) {
    showError(t('app.page.could_not_switch_to_this', 'Could not switch to this person: {message}', { message: error.message }));
  }
  go({ view: 'all', end: null });
}

async function selectPatient(id) {
  state.patientId = id;
  try {
    await api.selectPatient(id);
  } catch (error) {
    showError(t('app.page.could_not_switch_to_this', 'Could not switch to this person: {message}', { message: error.message }));
  }
  await reload();
}

// ---- Loading what the address asks for ----

/**
 * Loads and draws the view shown (the timeline's window or the Summary): the loading state, the family
 * read first when no one is chosen yet, and the errors, in one place. read(personId) resolves to the
 * data; draw(data) shows it. A load asked for later wins: an earlier one's answer is dropped.
 */
async function load({ what, view, read, draw, retry }) {
  const seq = ++state.loadSeq;
  markControls();
  ui.main.setAttribute('aria-busy', 'true');
  const slow = setTimeout(() => seq === state.loadSeq && showStatus(t('app.page.loading', 'Loading…')), 250);
  try {
    if (!state.patientId) await loadPatients();
    if (!state.patientId) {
      renderNoPatients();
      return;
    }
    const data = await read(state.patientId);
    if (seq !== state.loadSeq) return;
    const timing = jsonArrived(view, seq);
    showStatus('');
    draw(data);
    drawn(timing);
    settleAfterLoad(true);
  } catch (error) {
    if (seq !== state.loadSeq) return;
    settleAfterLoad(false);
    if (error.status === 401 || error.status === 423) return;
    if (error.code === 'no_patient') renderNoPatients();
    else if (error.code === 'unknown_patient') { state.patientId = null; await loadPatients(); if (state.patientId) reload(); }
    else showError(t('app.page.could_not_load_the', 'Could not load the {what}: {message}', { what, message: error.message }), retry);
  } finally {
    clearTimeout(slow);
    if (seq === state.loadSeq) ui.main.removeAttribute('aria-busy');
  }
}

function loadTimeline() {
  const { view, end } = state.window;
  return load({
    what: 'timeline',
    view,
    read: (personId) => api.timeline(view, end, personId),
    draw: (payload) => {
      state.payload = payload;
      render(payload);
    },
    retry: loadTimeline,
  });
}

function loadSummary() {
  return load({
    what: 'summary',
    view: SUMMARY,
    // The tiles the person chose, and every module for the printed sheet (a hidden tile still goes on paper).
    read: (personId) => Promise.all([api.summary(personId), api.summary(personId, true)]),
    draw: ([data, everything]) => {
      state.summary = data;
      state.summaryEverything = everything;
      renderSummary(data, everything);
    },
    retry: loadSummary,
  });
}

// ---- Drawing ----

function renderSummary(data, everything = data) {
  const person = picker.find(data.patient.id) || data.patient;
  showPerson(data.patient.id, data.patient.name, person);
  retitle();
  summary.render(data, person, everything);
}

/** The heading over either view: the person's name, age, gender and where the record comes from. */
function showPerson(id, name, person) {
  if (state.orphansFor !== id) checkOrphans(id);
  documents.showFor(id);
  search.showFor(id);
  ui.name.textContent = name || t('app.page.unnamed', 'Unnamed');
  ui.meta.textContent = personMeta(person);
  ui.exportLink.href = api.exportURL(id);
}

function markControls() {
  const { view } = state.window;
  for (const button of $$('.view-button')) button.setAttribute('aria-pressed', String(button.dataset.view === view));
  // The Summary has no window: no stepping, no end date, and the timeline's cards give way to its tiles.
  const onSummary = view === SUMMARY;
  ui.main.dataset.view = onSummary ? 'summary' : 'timeline'; // the print stylesheet's cue
  ui.summaryView.hidden = !onSummary;
  ui.layout.hidden = onSummary;
  ui.stepper.hidden = onSummary;
  ui.jump.hidden = onSummary;
  if (onSummary) return;
  ui.back.disabled = view === 'all';
  ui.forward.disabled = !canGoLater(state.window);
  ui.now.disabled = view !== 'all' && state.window.end === null;
  ui.endDate.value = state.window.end || (state.window.view === 'all' ? '' : dayString(new Date()));
}

/** The page's title and the timeline's count line, which name the view (from the string table). */
function retitle() {
  const view = state.window.view;
  if (view === SUMMARY) {
    if (state.summary) document.title = t('app.page.hreaderd', '{name} — {summary} — hreaderd', { name: state.summary.patient.name || t('app.page.unnamed', 'Unnamed'), summary: viewName(SUMMARY) });
    return;
  }
  if (!state.payload) return;
  document.title = t('app.page.hreaderd_2', '{name} — {view} — hreaderd', { name: state.payload.patient.name, view: viewName(view) });
  const { count, posts, hidden } = state.counts || { count: 0, posts: 0, hidden: 0 };
  const counts = [tn('app.page.count.record_entries', count, '{n} record entry', '{n} record entries')];
  if (posts) counts.push(tn('app.page.count.your_notes', posts, '{n} note of yours', '{n} notes of yours'));
  if (hidden) counts.push(tn('app.page.count.hidden', hidden, '{n} marked wrong, hidden', '{n} marked wrong, hidden'));
  ui.summary.textContent = t('app.page.view', '{view} view · {count}', { view: viewName(view), count: counts.join(' · ') });
}

function recordCount(payload) {
  return LANES.reduce((n, lane) => n + (payload[lane.key]?.length || 0), 0) + (payload.ongoing?.length || 0);
}

function render(fullPayload) {
  const { view } = state.window;
  // Entries marked wrong are left out everywhere when the person asks for it.
  const { payload, hidden } = state.hideStruck ? withoutStruck(fullPayload) : { payload: fullPayload, hidden: 0 };
  const person = picker.find(payload.patient.id) || payload.patient;
  showPerson(payload.patient.id, payload.patient.name, person);
  const label = formatWindow(payload.start_date, payload.end_date, view);
  ui.windowLabel.textContent = label;
  state.counts = { count: recordCount(payload), posts: payload.timeline_entries?.length || 0, hidden };
  retitle();

  const { count, posts: postCount } = state.counts;
  const inWindow = count - (payload.ongoing?.length || 0);

  // Nothing dated in the window: say so and offer the latest entry. When open conditions or
  // medications (or the user's notes) are still drawn, the notice stands above the lanes.
  $('#timeline-notice')?.remove();
  let empty = null;
  if (inWindow === 0) {
    const box = emptyState(payload, count > 0);
    if (count === 0 && postCount === 0) empty = box;
    else $('#timeline').before(h('div', { id: 'timeline-notice' }, box));
  }
  timeline.render({ payload, empty });
  // The charts' grids together, with one layout between them; the labs' card shown first, so that its
  // charts take their width.
  const labCharted = labCharts(payload.results);
  ui.labsCard.hidden = labCharted.length === 0;
  ChartGrid.renderAll([
    [vitals, vitalCharts(payload.vitals), t('app.page.no_vital_signs_in_this', 'No vital signs in this window.')],
    [labs, labCharted, t('app.page.no_lab_result_with_several', 'No lab result with several numeric values in this window.')],
    [levelsChart, levelCharts(payload.timeline_entries), ''],
  ]);
  ownReadings.render(payload.readings || []);
  lists.render(payload);
  posts.render(payload.timeline_entries || []);
  renderRegimen(currentMedications(payload));
  offerLivingForms(!payload.patient?.deceased);
}

/** Notes of the person shown on entries that their source has since removed: a line under the name. */
async function checkOrphans(personId) {
  state.orphansFor = personId;
  const person = picker.personOf(personId);
  ui.orphanNotice.hidden = true;
  if (!person) return;
  let count = 0;
  try {
    for (const member of person.members) {
      const data = await api.annotations(member.id);
      count += (data?.annotations || []).filter((a) => a.orphaned).length;
    }
  } catch {
    return; // the People panel lists them too
  }
  if (state.orphansFor !== personId) return;
  clear(ui.orphanNotice).append(
    tn('app.page.count.orphan_notes', count, '{n} note of yours is on an entry the source has removed. ', '{n} notes of yours are on entries the source has removed. '),
    h('button', { type: 'button', class: 'button small', onclick: (event) => people.open(event.currentTarget, personId) }, t('app.page.see_in_people', 'See in People')));
  ui.orphanNotice.hidden = count === 0;
}

/** "Nothing here": say so, and offer the latest entry and the whole record. */
function emptyState(payload, onlyOngoing) {
  const between = t('app.page.between_and', 'between {start_date} and {end_date}', { start_date: formatDate(payload.start_date), end_date: formatDate(payload.end_date) });
  const box = h('div', { class: 'empty' },
    h('p', null, h('strong', null, onlyOngoing
      ? t('app.page.nothing_new_in_s_record', 'Nothing new in {name}’s record {between}: only what began earlier and is still open.', { name: payload.patient.name, between })
      : t('app.page.nothing_in_s_record', 'Nothing in {name}’s record {between}.', { name: payload.patient.name, between }))));
  const actions = h('div', { class: 'actions' });
  const hint = h('p', { class: 'muted' }, t('app.page.looking_for_the_latest_entry', 'Looking for the latest entry…'));
  box.append(hint, actions);
  overview(payload.patient.id).then((info) => {
    if (!info || info.latest == null) {
      hint.textContent = t('app.page.this_record_has_no_entries', 'This record has no entries yet. Records arrive through imports (see Imports).');
      return;
    }
    const view = state.window.view === 'all' ? 'year' : state.window.view;
    const later = info.latest > payload.end_date;
    hint.textContent = later
      ? t('app.page.the_record_goes_on_after', 'The record goes on after this window; its latest entry is from {latest}.', { latest: formatDate(info.latest) })
      : t('app.page.the_latest_entry_in_this', 'The latest entry in this record is from {latest}.', { latest: formatDate(info.latest) });
    actions.append(
      h('button', { type: 'button', class: 'button primary', onclick: () => go(endingAt(view, info.latest)) }, t('app.page.jump_to', 'Jump to {latest}', { latest: formatDate(info.latest) })),
      h('button', { type: 'button', class: 'button', onclick: () => go({ view: 'all', end: null }) }, t('app.page.show_the_whole_record', 'Show the whole record')));
  }).catch(() => { hint.textContent = t('app.page.try_another_window_or_the', 'Try another window, or the All view.'); });
  return box;
}

/** The span of a patient's record, as /patients.json gives it (read again after an import). */
async function overview(patientId) {
  if (!state.patients.has(patientId)) await loadPatients();
  const patient = state.patients.get(patientId);
  return patient ? { latest: patient.latest, earliest: patient.earliest } : null;
}

function renderNoPatients() {
  documents.showFor(null);
  ui.name.textContent = t('app.page.no_records_yet', 'No records yet');
  ui.meta.textContent = '';
  ui.windowLabel.textContent = '';
  summary.reset();
  const box = h('div', { class: 'empty' },
    h('p', null, h('strong', null, t('app.page.this_store_holds_no_ones', 'This store holds no one’s records yet.'))),
    h('p', null, t('app.page.add_a_record_file_here', 'Add a record file here (FHIR R4, C-CDA or RHEx), or import one with '), h('code', null, t('app.page.hreaderd_import_file_file', 'hreaderd import-file FILE')), t('app.page.or_set_up_an_rhex', ', or set up an RHEx source (see Imports).')),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'button primary', onclick: (event) => uploads.open(event.currentTarget) }, t('app.page.add_records', 'Add records')),
      h('button', { type: 'button', class: 'button', onclick: () => location.reload() }, t('app.page.reload', 'Reload'))));
  // The Summary says the same where its tiles would be.
  clear(state.window.view === SUMMARY ? $('#tiles') : $('#timeline')).append(box);
  vitals.render([], t('app.page.no_vital_signs_yet', 'No vital signs yet.'));
  ownReadings.render([]);
  labs.render([], '');
  ui.labsCard.hidden = true;
  clear($('#entry-lists'));
  posts.render([]);
  renderRegimen([]);
  offerLivingForms(true);
}

async function deletePost(post) {
  try {
    await api.deletePost(post.id);
    await loadTimeline();
    showStatus(t('app.page.deleted', 'Deleted.'));
    // The button that was pressed is gone: keep the keyboard in the same place.
    if (!document.activeElement || document.activeElement === document.body) $('#posts-heading').focus();
  } catch (error) {
    showError(t('app.page.could_not_delete', 'Could not delete: {message}', { message: error.message }));
    throw error;
  }
}

// ---- Status line ----

function showStatus(content) {
  ui.status.classList.remove('error');
  clear(ui.status);
  if (content) ui.status.append(content);
}

function showError(message, retry) {
  ui.status.classList.add('error');
  clear(ui.status).append(message);
  if (retry) ui.status.append(h('button', { type: 'button', class: 'button small', onclick: retry }, t('app.page.try_again', 'Try again')));
}

boot();
