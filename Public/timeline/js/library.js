// The Library view: the offline health library beside the record, in a panel (dialog.js) opened from the
// header. Search (GET /library/search.json: results with snippets, the matched words in <mark> elements made
// as elements, never from markup), the results narrowed to one MedlinePlus group, and a topic's page (GET
// /library/topics/{id}.json): its summary, also-called names, groups, related topics as links within the
// view, the credit, the source and endorsement lines, and the publisher's page as a plain external link.
// At its foot: the installed version, and the language of the app's texts (strings.js).
// Everything shown is the publisher's text, put into the page as text.

import { h, clear } from './dom.js';
import { Dialog } from './dialog.js';
import { formatDate } from './format.js';
import { t, currentLanguage, languageSetting, normaliseLanguage } from './strings.js';
import { attributionLines, cleanQuery, groupCounts, isWebAddress, snippetNodes } from './library-model.js';
import { sourceLines, summaryNodes } from './about-entry.js';

const LIMIT = 25;
const GROUPS_SHOWN = 6;

export class LibraryPanel {
  /**
   * dialog: the #library <dialog>. button: the header's Library button. api: librarySearch, libraryTopic.
   * info(): the last GET /library.json (null before it came). onLanguage(tag): the person chose the
   * language of the app ('' for the browser's).
   */
  constructor(dialog, button, { api, info, onLanguage }) {
    this.dialog = dialog;
    this.button = button;
    this.api = api;
    this.info = info;
    this.onLanguage = onLanguage;
    this.form = dialog.querySelector('#library-search');
    this.input = dialog.querySelector('#library-q');
    this.status = dialog.querySelector('#library-status');
    this.content = dialog.querySelector('#library-content');
    this.installed = dialog.querySelector('#library-installed');
    this.language = dialog.querySelector('#library-language');
    this.stack = []; // the views shown before the current one, for Back: {kind: 'results'|'group'|'topic', …}
    this.view = { kind: 'home' };
    this.results = null; // {query, results, group}: the last search, kept while a topic from it is read
    this.seq = 0;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.search(this.input.value);
    });
    this.language.addEventListener('change', () => this.onLanguage(this.language.value));
    button.addEventListener('click', () => this.open(button));
    this.modal = new Dialog(dialog);
  }

  /** Shown only while a library is installed. */
  setAvailable(available) {
    this.button.hidden = !available;
    if (!available) this.close();
  }

  open(trigger, { topic = null } = {}) {
    const opener = trigger || document.activeElement;
    this.drawFoot();
    if (topic != null) {
      this.stack = this.view.kind === 'home' ? [] : [this.view];
      this.modal.open(opener, { toTop: true });
      this.showTopic(topic, { push: false });
      return;
    }
    if (this.view.kind === 'home') this.drawHome();
    this.modal.open(opener, { focus: this.input });
  }

  close() {
    this.modal.close();
  }

  /** Forgets everything (signed out, locked). */
  reset() {
    this.seq += 1;
    this.close();
    this.stack = [];
    this.view = { kind: 'home' };
    this.results = null;
    this.groups = null;
    this.input.value = '';
    this.say('');
    clear(this.content);
  }

  /** The table changed (another language, an update): what is shown is drawn again in it. */
  redraw() {
    this.groups = null; // a library update may bring other groups
    this.drawFoot();
    if (!this.dialog.open) return;
    if (this.view.kind === 'home') this.drawHome();
    else if (this.view.kind === 'results' && this.results) this.drawResults();
    else if (this.view.kind === 'topic' && this.view.data) this.drawTopic(this.view.data);
    else if (this.view.kind === 'group' && this.view.data) this.drawGroup(this.view.data);
  }

  say(text, error = false) {
    this.status.classList.toggle('error', error);
    this.status.textContent = text;
  }

  // ---- Home ----

  drawHome() {
    this.say('');
    const groups = h('div', { class: 'library-browse' });
    clear(this.content).append(h('div', { class: 'library-home' },
      h('p', null, t('library.home.intro', 'Plain-language health topics from MedlinePlus (National Library of Medicine) and CDC’s vaccine codes, kept on this computer: reading them needs no network.')),
      h('p', { class: 'muted small' }, t('library.home.hint', 'Search by a word of your record (a condition, a test, a vaccine); the results can then be narrowed to a group of topics.')),
      groups));
    this.drawGroups(groups);
  }

  // ---- Browsing by group (GET /library/groups.json, /library/groups/{id}.json) ----

  /** The pack's groups as buttons, each opening its topics; read once a library version. */
  async drawGroups(box) {
    if (!this.groups) {
      try {
        this.groups = (await this.api.libraryGroups())?.groups || [];
      } catch (error) {
        if (error.status === 401 || error.status === 423) return;
        box.append(h('p', { class: 'error-text small' }, t('library.browse.failed', 'Could not read the groups: {reason}', { reason: error.message })));
        return;
      }
    }
    if (!box.isConnected || !this.groups.length) return;
    const list = h('ul', { class: 'library-group-list' });
    for (const group of this.groups) {
      const button = h('button', { type: 'button', class: 'chip library-group', 'data-group': group.id },
        String(group.name), h('span', { class: 'count muted' }, ` ${Number(group.count || 0).toLocaleString()}`));
      button.addEventListener('click', () => this.showGroup(group.id));
      list.append(h('li', null, button));
    }
    box.replaceChildren(h('h3', { class: 'library-browse-heading' }, t('library.browse.groups', 'Browse by group')), list);
  }

  /** Shows a group's topics; push: the view shown now goes on the Back stack. */
  async showGroup(id, { push = true } = {}) {
    const seq = ++this.seq;
    if (push && this.view.kind !== 'home') this.stack.push(this.view);
    this.view = { kind: 'group', id, data: null };
    this.content.setAttribute('aria-busy', 'true');
    this.say(t('library.browse.loading', 'Opening the group…'));
    let group;
    try {
      group = await this.api.libraryGroup(id);
    } catch (error) {
      if (seq !== this.seq) return;
      this.content.removeAttribute('aria-busy');
      if (error.status === 401 || error.status === 423) return;
      clear(this.content).append(this.backButton());
      this.say(t('library.browse.failed', 'Could not read the groups: {reason}', { reason: error.message }), true);
      return;
    }
    if (seq !== this.seq) return;
    this.content.removeAttribute('aria-busy');
    this.view = { kind: 'group', id, data: group };
    this.say('');
    this.drawGroup(group);
    this.content.querySelector('.group-page h3')?.focus();
  }

  drawGroup(group) {
    const list = h('ul', { class: 'library-results', 'aria-labelledby': 'library-group-title' });
    for (const topic of group.topics || []) {
      const button = h('button', { type: 'button', class: 'search-result library-result', 'data-topic': topic.id },
        h('span', { class: 'search-title' }, String(topic.title || topic.id)));
      button.addEventListener('click', () => this.showTopic(topic.id));
      list.append(h('li', null, button));
    }
    clear(this.content).append(this.backButton(),
      h('div', { class: 'group-page', 'data-group': group.id },
        h('h3', { id: 'library-group-title', tabindex: '-1' }, String(group.name)),
        h('p', { class: 'muted small' }, t('library.browse.group_topics', '{count} topics in this group', { count: Number(group.count || 0).toLocaleString() })),
        list));
  }

  // ---- Search ----

  async search(text, { group = null } = {}) {
    const query = cleanQuery(text);
    if (!query) {
      this.input.focus();
      return;
    }
    const seq = ++this.seq;
    this.stack = [];
    this.view = { kind: 'results' };
    this.say(t('library.search.searching', 'Searching for {query}…', { query }));
    this.content.setAttribute('aria-busy', 'true');
    let page;
    try {
      page = await this.api.librarySearch(query, LIMIT);
    } catch (error) {
      if (seq !== this.seq) return;
      this.content.removeAttribute('aria-busy');
      if (error.status === 401 || error.status === 423) return;
      clear(this.content);
      this.say(error.code === 'no_library'
        ? t('library.installed.none', 'No library is installed.')
        : t('library.search.failed', 'Could not search the library: {reason}', { reason: error.message }), error.code !== 'no_library');
      return;
    }
    if (seq !== this.seq) return;
    this.content.removeAttribute('aria-busy');
    this.results = { query, results: Array.isArray(page?.results) ? page.results : [], group };
    this.drawResults();
  }

  drawResults() {
    const { query, results, group } = this.results;
    this.view = { kind: 'results' };
    const shown = group ? results.filter((r) => (r.groups || []).includes(group)) : results;
    if (!results.length) this.say(`${t('library.search.none', 'No topic matches these words.')} (${query})`);
    else this.say(t('library.search.results_for', '{count} topics for {query}', { count: shown.length.toLocaleString(), query }));
    const box = clear(this.content);
    const groups = groupCounts(results);
    if (groups.length > 1) {
      const chips = h('div', { class: 'library-groups', role: 'group', 'aria-label': t('library.browse.by_group', 'Narrow to a group') });
      const chip = (name, count, value) => {
        const pressed = (group || null) === value;
        const button = h('button', { type: 'button', class: 'chip', 'aria-pressed': String(pressed), 'data-group': value ?? '' },
          name, h('span', { class: 'chip-count' }, count.toLocaleString()));
        button.addEventListener('click', () => {
          this.results.group = value;
          this.drawResults();
          this.content.querySelector(`.library-groups .chip[data-group="${CSS.escape(value ?? '')}"]`)?.focus();
        });
        return button;
      };
      chips.append(chip(t('library.browse.all', 'All'), results.length, null));
      // The groups with most of the results first; the rest one click away.
      const shownGroups = this.results.allGroups ? groups : groups.filter(([name], i) => i < GROUPS_SHOWN || name === group);
      for (const [name, count] of shownGroups) chips.append(chip(name, count, name));
      if (shownGroups.length < groups.length) {
        const more = h('button', { type: 'button', class: 'button quiet small link-like', 'data-more-groups': '' },
          t('library.browse.more_groups', 'More groups ({count})', { count: (groups.length - shownGroups.length).toLocaleString() }));
        more.addEventListener('click', () => {
          this.results.allGroups = true;
          const focusAt = shownGroups.length + 1; // the first chip that was hidden
          this.drawResults();
          this.content.querySelectorAll('.library-groups .chip')[focusAt]?.focus();
        });
        chips.append(more);
      }
      box.append(h('p', { class: 'library-groups-label muted small' }, t('library.topic.groups', 'Groups')), chips);
    }
    const list = h('ol', { class: 'search-results library-results' });
    shown.forEach((result, i) => list.append(h('li', null, this.resultButton(result, i))));
    box.append(list);
  }

  resultButton(result, index) {
    const id = `library-result-${index}`;
    const snippet = h('span', { class: 'search-snippet', id: `${id}-snippet` }, snippetNodes(result.snippet));
    const groups = (result.groups || []).filter(Boolean);
    const button = h('button', {
      type: 'button', class: 'search-result library-result', id, 'data-topic': result.id,
      'aria-describedby': snippet.childNodes.length ? `${id}-snippet` : null,
    },
    h('span', { class: 'search-title' }, String(result.title || result.id)),
    snippet.childNodes.length ? snippet : null,
    groups.length ? h('span', { class: 'library-result-groups muted small' }, groups.join(' · ')) : null);
    button.addEventListener('click', () => this.showTopic(result.id));
    return button;
  }

  // ---- A topic ----

  /** Shows a topic's page; push: the view shown now goes on the Back stack. */
  async showTopic(id, { push = true } = {}) {
    const seq = ++this.seq;
    if (push && this.view.kind !== 'home') this.stack.push(this.view);
    this.view = { kind: 'topic', id, data: null };
    this.content.setAttribute('aria-busy', 'true');
    this.say(t('library.topic.loading', 'Opening the topic…'));
    let topic;
    try {
      topic = await this.api.libraryTopic(id);
    } catch (error) {
      if (seq !== this.seq) return;
      this.content.removeAttribute('aria-busy');
      if (error.status === 401 || error.status === 423) return;
      clear(this.content).append(this.backButton());
      this.say(error.status === 404 && error.code !== 'no_library'
        ? t('library.topic.missing', 'This topic is not in the installed library.')
        : t('library.topic.failed', 'Could not open the topic: {reason}', { reason: error.message }), true);
      return;
    }
    if (seq !== this.seq) return;
    this.content.removeAttribute('aria-busy');
    this.view = { kind: 'topic', id, data: topic };
    this.say('');
    this.drawTopic(topic);
    this.content.querySelector('.topic-page h3')?.focus();
    const body = this.dialog.querySelector('.details-body');
    if (body) body.scrollTop = 0;
    this.dialog.scrollTop = 0;
  }

  backButton() {
    const previous = this.stack[this.stack.length - 1];
    if (!previous && this.view.kind === 'group') {
      const home = h('button', { type: 'button', class: 'button quiet small', 'data-back': '' }, t('library.browse.all_groups', '‹ All groups'));
      home.addEventListener('click', () => this.back());
      return h('div', null, home);
    }
    if (!previous) return null;
    const label = (previous.kind === 'topic' || previous.kind === 'group') && previous.data
      ? t('library.topic.back_to', '‹ Back to {title}', { title: previous.data.title ?? previous.data.name })
      : t('library.topic.back_results', '‹ Back to the results');
    const back = h('button', { type: 'button', class: 'button quiet small', 'data-back': '' }, label);
    back.addEventListener('click', () => this.back());
    return h('div', null, back);
  }

  back() {
    const previous = this.stack.pop();
    if (!previous && this.view.kind === 'group') {
      // A group opened from the home page: back to the list of groups.
      this.seq += 1;
      this.content.removeAttribute('aria-busy');
      this.view = { kind: 'home' };
      this.drawHome();
      (this.content.querySelector('.library-group') || this.input).focus();
      return;
    }
    if (!previous) return;
    this.seq += 1;
    this.content.removeAttribute('aria-busy');
    if (previous.kind === 'topic' && previous.data) {
      this.view = previous;
      this.say('');
      this.drawTopic(previous.data);
      this.content.querySelector('.topic-page h3')?.focus();
    } else if (previous.kind === 'group' && previous.data) {
      this.view = previous;
      this.say('');
      this.drawGroup(previous.data);
      this.content.querySelector('.group-page h3')?.focus();
    } else if (this.results) {
      this.drawResults();
      (this.content.querySelector('.library-result') || this.input).focus();
    } else {
      this.view = { kind: 'home' };
      this.drawHome();
      this.input.focus();
    }
  }

  drawTopic(topic) {
    const box = clear(this.content);
    box.append(this.backButton());
    const page = h('article', { class: 'topic-page', 'data-topic': topic.id, 'aria-labelledby': 'library-topic-title' });
    page.append(h('h3', { id: 'library-topic-title', tabindex: '-1' }, String(topic.title || topic.id)));
    const also = (topic.also_called || []).filter(Boolean);
    if (also.length) {
      page.append(h('p', { class: 'topic-also muted' }, h('span', { class: 'topic-label' }, `${t('library.topic.also_called', 'Also called')}: `), also.join(', ')));
    }
    page.append(h('div', { class: 'topic-summary' }, summaryNodes(topic.summary)));
    const groups = (topic.groups || []).filter(Boolean);
    if (groups.length) {
      page.append(h('p', { class: 'topic-groups muted small' }, h('span', { class: 'topic-label' }, `${t('library.topic.groups', 'Groups')}: `), groups.join(' · ')));
    }
    const related = (topic.related || []).filter((r) => r && r.id != null);
    if (related.length) {
      const list = h('ul', { class: 'related-list' });
      for (const other of related) {
        const link = h('button', { type: 'button', class: 'chip', 'data-topic': other.id }, String(other.title || other.id));
        link.addEventListener('click', () => this.showTopic(other.id));
        list.append(h('li', null, link));
      }
      page.append(h('section', { class: 'related', 'aria-labelledby': 'library-related-heading' },
        h('h4', { id: 'library-related-heading' }, t('library.topic.related', 'Related topics')), list));
    }
    if (isWebAddress(topic.url)) {
      page.append(h('p', { class: 'topic-link' },
        h('a', { href: topic.url, target: '_blank', rel: 'noopener noreferrer', class: 'external' },
          t('library.topic.page', 'The topic on MedlinePlus'), h('span', { class: 'visually-hidden' }, ` (${t('library.topic.new_window', 'opens in a new window')})`)),
        h('span', { class: 'topic-url muted small' }, ` ${topic.url}`)));
    }
    page.append(sourceLines(attributionLines(topic.attribution, { credit: topic.credit })),
      h('p', { class: 'about-advice muted small' }, t('library.disclaimer.advice', 'This library explains; it does not replace advice from your doctor.')));
    box.append(page);
  }

  // ---- The foot: version and language ----

  drawFoot() {
    const info = this.info();
    const installed = info?.installed;
    if (installed) {
      const parts = [t('library.installed.version', 'Library version {version}', { version: installed.version })];
      if (installed.installed_at) parts.push(t('library.installed.date', 'Installed {date}', { date: formatDate(installed.installed_at) }));
      if (Number.isFinite(installed.topics)) parts.push(t('library.installed.topics', '{count} topics', { count: installed.topics.toLocaleString() }));
      this.installed.textContent = parts.join(' · ');
    } else {
      this.installed.textContent = t('library.installed.none', 'No library is installed.');
    }
    const setting = languageSetting();
    const tags = new Set(['en', ...(installed?.languages || []).map(normaliseLanguage).filter(Boolean)]);
    if (setting) tags.add(setting);
    const browser = navigator.language || 'en';
    const options = [h('option', { value: '' }, t('library.language.browser', 'The browser’s language ({language})', { language: languageName(browser, currentLanguage()) }))];
    for (const tag of tags) options.push(h('option', { value: tag, lang: tag }, languageName(tag, tag)));
    this.language.replaceChildren(...options);
    this.language.value = setting;
  }
}

/** A language's own name ("français"), else its tag. */
function languageName(tag, inLanguage) {
  try {
    const name = new Intl.DisplayNames([inLanguage || tag, 'en'], { type: 'language' }).of(tag);
    return name ? name.charAt(0).toLocaleUpperCase(inLanguage || tag) + name.slice(1) : tag;
  } catch {
    return tag;
  }
}
