// "About this" in an entry's details: what the health library says about the entry (GET
// /patients/{pid}/entries/{eid}/about.json): each topic's title and a short summary ("Read more" shows the
// rest, "Open in the library" its page in the Library view), "Matched by its name" when only the name led
// to it, its related topics, CDC's description of a vaccine, and where it all comes from with the line that
// the publisher does not endorse hreaderd. Asked for when the details open, never before; dropped when they
// close or show another entry. No topic: one quiet line. No library installed: nothing at all.
// Every text is the publisher's and goes into the page as text.

import { h, clear } from './dom.js';
import { t } from './strings.js';
import { aboutSummary, attributionLines, summaryParagraphs } from './library-model.js';

const RELATED_SHOWN = 6;
const TOPICS_SHOWN = 3;
let sections = 0;

export class AboutEntry {
  /**
   * load(entry, signal): the about.json of an entry (a promise; rejects with the API's error).
   * topic(id, signal): a topic's page (for its related topics and credit, when about.json has none).
   * enabled(): whether a library is installed (nothing is asked for when it is not).
   * openTopic(id, trigger): shows the topic in the Library view.
   */
  constructor({ load, topic, enabled = () => true, openTopic }) {
    this.load = load;
    this.topic = topic;
    this.enabled = enabled;
    this.openTopic = openTopic;
    this.controller = null;
  }

  /** Drops the request in flight, if any (the details closed, or show something else now). */
  cancel() {
    this.controller?.abort();
    this.controller = null;
  }

  /**
   * The section for an entry, empty at first and filled when the library answers (or removed when it has
   * no pack). Returns null when the library is not installed.
   */
  section(entry) {
    this.cancel();
    if (!entry?.id || !this.enabled()) return null;
    const id = `about-${++sections}`;
    const status = h('p', { class: 'about-status muted small', role: 'status' });
    const body = h('div', { class: 'about-body' });
    const section = h('section', { class: 'about', 'aria-labelledby': `${id}-heading`, 'aria-busy': 'true' },
      h('h3', { id: `${id}-heading` }, t('library.about.heading', 'About this')),
      status, body);
    const controller = new AbortController();
    this.controller = controller;
    // "Looking…" only when the answer is slow to come: a quick one is drawn without a flash.
    const slow = setTimeout(() => { status.textContent = t('library.about.loading', 'Looking in the health library…'); }, 300);
    this.fill(entry, section, status, body, controller.signal).finally(() => {
      clearTimeout(slow);
      if (this.controller === controller) this.controller = null;
      section.removeAttribute('aria-busy');
    });
    return section;
  }

  async fill(entry, section, status, body, signal) {
    let about;
    try {
      about = await this.load(entry, signal);
    } catch (error) {
      if (signal.aborted) return;
      // No pack installed: the details say nothing of a library. Signed out or locked: the app handles it.
      if (error?.code === 'no_library' || error?.status === 401 || error?.status === 423 || error?.code === 'aborted') {
        section.remove();
        return;
      }
      status.textContent = t('library.about.failed', 'The health library could not be read: {reason}', { reason: error?.message || '' });
      return;
    }
    if (signal.aborted) return;
    const topics = Array.isArray(about?.topics) ? about.topics.filter((topic) => topic && topic.id != null).slice(0, TOPICS_SHOWN) : [];
    const vaccine = about?.vaccine || null;
    if (!topics.length && !vaccine) {
      status.textContent = t('library.about.none', 'The library has nothing on this entry yet.');
      section.classList.add('quiet');
      return;
    }
    status.textContent = '';
    // A topic's page gives its related topics and credit when about.json has none of them.
    const pages = await Promise.all(topics.map((topic) => (Array.isArray(topic.related) ? Promise.resolve(null)
      : this.topic(topic.id, signal).catch(() => null))));
    if (signal.aborted) return;
    clear(body);
    // The vaccine first (what the entry is, in CDC's words), then the topics that explain it.
    if (vaccine) body.append(vaccineBlock(vaccine));
    topics.forEach((topic, i) => body.append(this.topicBlock(topic, pages[i])));
    if (topics.length) {
      const credits = [...new Set(topics.map((topic, i) => topic.credit ?? pages[i]?.credit).filter(Boolean))];
      body.append(sourceLines(attributionLines(topics[0].attribution || about.attribution, { publisher: 'medlineplus', credit: credits.join('; ') || null })));
    }
    body.append(h('p', { class: 'about-advice muted small' }, t('library.disclaimer.advice', 'This library explains; it does not replace advice from your doctor.')));
  }

  topicBlock(topic, page) {
    const title = String(topic.title || page?.title || '');
    const full = String(topic.summary ?? page?.summary ?? '');
    const short = aboutSummary(full);
    const summary = h('div', { class: 'about-summary' }, h('p', null, short.text));
    const block = h('article', { class: 'about-topic', 'data-topic': topic.id, 'data-match': topic.match || null },
      h('div', { class: 'about-topic-head' },
        h('h4', null, title),
        topic.match === 'name'
          ? h('span', { class: 'badge neutral', title: t('library.about.name_hint', 'The entry’s name is this topic’s name; its code did not lead here.') },
            t('library.about.matched_by_name', 'Matched by its name'))
          : null),
      summary);
    const actions = h('div', { class: 'about-actions' });
    if (short.cut) {
      const more = h('button', { type: 'button', class: 'button quiet small link-like', 'aria-expanded': 'false' }, t('library.about.read_more', 'Read more'));
      more.addEventListener('click', () => {
        const open = more.getAttribute('aria-expanded') !== 'true';
        summary.replaceChildren(...(open ? summaryNodes(full) : [h('p', null, short.text)]));
        more.setAttribute('aria-expanded', String(open));
        more.textContent = open ? t('library.about.read_less', 'Show less') : t('library.about.read_more', 'Read more');
      });
      actions.append(more);
    }
    if (this.openTopic) {
      const open = h('button', { type: 'button', class: 'button quiet small link-like', 'data-open-topic': topic.id },
        t('library.about.open', 'Open in the library'));
      open.addEventListener('click', () => this.openTopic(topic.id, open));
      actions.append(open);
    }
    block.append(actions);
    const related = (Array.isArray(topic.related) ? topic.related : page?.related || []).filter((r) => r && r.id != null).slice(0, RELATED_SHOWN);
    if (related.length && this.openTopic) {
      const list = h('ul', { class: 'related-list' });
      for (const other of related) {
        const button = h('button', { type: 'button', class: 'chip', 'data-open-topic': other.id }, String(other.title || other.id));
        button.addEventListener('click', () => this.openTopic(other.id, button));
        list.append(h('li', null, button));
      }
      block.append(h('div', { class: 'related' }, h('p', { class: 'related-label muted small' }, t('library.topic.related', 'Related topics')), list));
    }
    return block;
  }
}

/** CDC's description of a vaccine: its name and code, its groups, and CDC as the source. */
function vaccineBlock(vaccine) {
  const facts = h('dl', { class: 'facts' });
  const name = [vaccine.name, vaccine.short_name && vaccine.short_name !== vaccine.name ? `(${vaccine.short_name})` : null].filter(Boolean).join(' ');
  facts.append(h('dt', null, t('library.about.vaccine', 'Vaccine')), h('dd', null, name || '—', vaccine.code ? h('span', { class: 'muted' }, t('app.about_entry.cvx', ' · CVX {code}', { code: vaccine.code })) : null));
  const groups = (vaccine.groups || []).map((g) => (typeof g === 'string' ? g : g?.name)).filter(Boolean);
  if (groups.length) facts.append(h('dt', null, t('library.about.vaccine_groups', 'Vaccine group')), h('dd', null, groups.join(', ')));
  if (vaccine.note) facts.append(h('dt', null, t('library.about.vaccine_note', 'Note')), h('dd', null, String(vaccine.note)));
  return h('div', { class: 'about-vaccine' }, facts, sourceLines(attributionLines(vaccine.attribution, { publisher: 'cdc' })));
}

/** A summary as paragraphs, each opening question in bold: text nodes and elements, never markup. */
export function summaryNodes(summary) {
  return summaryParagraphs(summary).map((part) => h('p', null, part.lead ? [h('strong', null, part.lead), part.text ? ` ${part.text}` : ''] : part.text));
}

/** The source, credit and endorsement lines, as small text. */
export function sourceLines(lines) {
  return h('div', { class: 'attribution small' }, lines.map((line) => h('p', { class: `attribution-${line.kind}` }, line.text)));
}
