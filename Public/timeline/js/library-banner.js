// The library's state in the page (GET /library.json) and the update banner. When the publisher offers a
// newer pack the banner says so with its version and size and an Update button; Update posts
// /library/update and the banner follows the download (a <progress> and its text) by reading /library.json
// every second while it runs, then says how it ended: "updated to version X", or why it failed in words,
// with Try again. The page asks only while it is visible: a hidden tab stops, and goes on when shown again.
// The offer is checked again when the page comes back after a while.

import { h, s, clear } from './dom.js';
import { t } from './strings.js';
import { bannerModel, updateRunning } from './library-model.js';

const POLL_MS = 1000;
// The offer, read again this often while the page is seen (the daemon asks the publisher daily), and when
// the page is shown again after this long.
const RECHECK_MS = 15 * 60 * 1000;
const DISMISSED_KEY = 'hreaderd.libraryOfferDismissed';

export class LibraryBanner {
  /**
   * el: the banner's element (#library-banner). api: library(), updateLibrary(). onInfo(info, previous): each
   * /library.json read (the app reloads its strings when the installed version changed).
   */
  constructor(el, { api, onInfo }) {
    this.el = el;
    this.api = api;
    this.onInfo = onInfo;
    this.info = null;
    this.started = false; // this page asked for (or watched) an update: its end is said
    this.timer = 0;
    this.readAt = 0;
    this.active = false;
    this.seq = 0;
    document.addEventListener('visibilitychange', () => this.visibility());
  }

  /** Signed in: reads the state, and follows an update that runs already. Resolves to the info. */
  start() {
    this.active = true;
    return this.refresh();
  }

  /** Signed out: stops asking and forgets. */
  stop() {
    this.active = false;
    this.seq += 1;
    clearTimeout(this.timer);
    this.timer = 0;
    this.info = null;
    this.started = false;
    this.el.hidden = true;
    clear(this.el);
  }

  async refresh() {
    if (!this.active) return this.info;
    const seq = ++this.seq;
    clearTimeout(this.timer);
    this.timer = 0;
    let info;
    try {
      info = await this.api.library({ background: true });
    } catch (error) {
      if (seq !== this.seq) return this.info;
      // A daemon without a library (an older one) or a moment offline: no banner now; asked again later.
      if (error.status !== 401 && error.status !== 423) this.schedule();
      return this.info;
    }
    if (seq !== this.seq || !this.active) return this.info;
    this.readAt = Date.now();
    const previous = this.info;
    this.info = info;
    if (updateRunning(info)) this.started = true;
    this.draw();
    this.onInfo?.(info, previous);
    this.schedule();
    return info;
  }

  /** The next read: in a second while an update runs, else in a while; none while the page is hidden. */
  schedule() {
    clearTimeout(this.timer);
    // Only while the page is seen: a hidden tab goes on when it is shown again (visibility()).
    if (document.visibilityState !== 'visible' || !this.active) return;
    this.timer = setTimeout(() => this.refresh(), updateRunning(this.info) ? POLL_MS : RECHECK_MS);
  }

  visibility() {
    if (!this.active) return;
    if (document.visibilityState !== 'visible') {
      clearTimeout(this.timer);
      this.timer = 0;
      return;
    }
    if (updateRunning(this.info) || Date.now() - this.readAt > RECHECK_MS) this.refresh();
    else this.schedule();
  }

  async update(button) {
    if (button) button.disabled = true;
    this.started = true;
    try {
      const answer = await this.api.updateLibrary();
      if (answer?.update && this.info) {
        this.info = { ...this.info, update: answer.update };
        this.draw();
      }
    } catch (error) {
      // 409: one runs already (another tab, the command line): follow it.
      if (error.status !== 409) {
        if (error.status === 401 || error.status === 423) return;
        this.draw({ state: 'failed', text: t('library.update.failed', 'The library update failed: {reason} The library you have stays as it was.', { reason: error.message }), progress: null, action: 'retry' });
        return;
      }
    }
    await this.refresh();
  }

  draw(model = bannerModel(this.info, { started: this.started })) {
    const offered = this.info?.available?.version;
    if (model?.state === 'available' && offered && dismissed() === offered) model = null;
    if (!model) {
      this.el.hidden = true;
      clear(this.el);
      return;
    }
    this.el.hidden = false;
    this.el.dataset.state = model.state;
    const text = h('p', { class: 'library-banner-text', role: 'status' }, model.text);
    const actions = h('div', { class: 'library-banner-actions' });
    if (model.action) {
      const label = model.action === 'retry' ? t('library.update.retry', 'Try again') : t('library.update.button', 'Update');
      const button = h('button', { type: 'button', class: 'button primary small', 'data-action': model.action }, label);
      button.addEventListener('click', () => this.update(button));
      actions.append(button);
    }
    if (model.state === 'available' || model.state === 'installed' || model.state === 'failed') {
      const close = h('button', {
        type: 'button', class: 'button quiet small', 'data-action': 'dismiss',
        'aria-label': model.state === 'available' ? t('library.update.later', 'Not now') : t('library.update.close', 'Close this message'),
      }, model.state === 'available' ? t('library.update.later', 'Not now') : '✕');
      close.addEventListener('click', () => this.dismiss(model.state));
      actions.append(close);
    }
    let progress = null;
    if (model.progress) {
      progress = h('progress', { class: 'library-progress', max: String(model.progress.max), 'aria-label': t('library.update.progress_label', 'Library update') });
      if (model.progress.value !== null) progress.value = model.progress.value;
    }
    // One status region: the text is read out as it changes, the buttons stay where they are.
    const live = this.el.querySelector('.library-banner-text');
    if (live && this.el.querySelector('.library-banner-body')) {
      live.textContent = model.text;
      const old = this.el.querySelector('progress');
      if (progress && old) {
        old.max = progress.max;
        if (model.progress.value === null) old.removeAttribute('value');
        else old.value = model.progress.value;
      } else if (progress) {
        live.after(progress);
      } else {
        old?.remove();
      }
      const oldActions = this.el.querySelector('.library-banner-actions');
      if (oldActions.dataset.for !== `${model.state}:${model.action}`) {
        actions.dataset.for = `${model.state}:${model.action}`;
        oldActions.replaceWith(actions);
      }
      return;
    }
    actions.dataset.for = `${model.state}:${model.action}`;
    clear(this.el).append(bookIcon(), h('div', { class: 'library-banner-body' }, text, progress), actions);
  }

  dismiss(state) {
    if (state === 'available' && this.info?.available?.version) remember(this.info.available.version);
    this.started = false;
    this.el.hidden = true;
    clear(this.el);
    document.getElementById('main')?.focus({ preventScroll: true });
  }
}

function dismissed() {
  try { return sessionStorage.getItem(DISMISSED_KEY); } catch { return null; }
}

function remember(version) {
  try { sessionStorage.setItem(DISMISSED_KEY, version); } catch { /* for this page only */ }
}

function bookIcon() {
  return s('svg', { class: 'library-banner-icon', viewBox: '0 0 24 24', width: 22, height: 22, 'aria-hidden': 'true', focusable: 'false' },
    s('path', { d: 'M4 5.5A2.5 2.5 0 0 1 6.5 3H20v15H6.5A2.5 2.5 0 0 0 4 20.5v-15ZM4 20.5A2.5 2.5 0 0 0 6.5 23H20v-5',
      fill: 'none', stroke: 'currentColor', 'stroke-width': 2, 'stroke-linejoin': 'round' }));
}
