// What the user posted (levels, medications, regimen adherence): how it reads, and the list of
// this window's posts with a delete button each.

import { h, clear } from './dom.js';
import { formatDateTime } from './format.js';
import { later, t } from './strings.js';

export const FREQUENCIES = { OD: later('app.posts.once_a_day', 'once a day'), BID: later('app.posts.twice_a_day', 'twice a day'), TID: later('app.posts.3_times_a_day', '3 times a day'), QID: later('app.posts.4_times_a_day', '4 times a day'), Q2H: later('app.posts.every_2_hours', 'every 2 hours'), QH: later('app.posts.every_hour', 'every hour') };
export const WHEN = { PRN: later('app.posts.as_needed', 'as needed'), HS: later('app.posts.at_bedtime', 'at bedtime'), AC: later('app.posts.before_meals', 'before meals'), PC: later('app.posts.after_meals', 'after meals') };
const LEVEL_WORDS = { pain: later('app.posts.pain', 'pain'), mood: later('app.posts.mood', 'mood'), energy: later('app.posts.energy', 'energy') };
export const ADHERENCE = { ND: later('app.posts.none', 'None'), UD: later('app.posts.less', 'Less'), AD: later('app.posts.as_directed', 'As directed'), OD: later('app.posts.more', 'More') };

const list = (value) => (Array.isArray(value) ? value : value == null ? [] : [value]);
const first = (value) => list(value)[0];

export function medicationName(data) {
  return first(data.description) ?? first(data.name) ?? first(data.medication) ?? t('app.posts.medication', 'Medication');
}

/** One line that says what a post holds. */
export function describePost(post) {
  const data = post.data || {};
  switch (post.type) {
    case 'levels': {
      const parts = ['pain', 'mood', 'energy'].filter((k) => data[k] != null).map((k) => `${LEVEL_WORDS[k]} ${first(data[k])}`);
      const others = Object.keys(data).filter((k) => !['pain', 'mood', 'energy'].includes(k)).map((k) => `${k} ${list(data[k]).join(', ')}`);
      return t('app.posts.levels', 'Levels: {value}', { value: [...parts, ...others].join(', ') || t('app.posts.none_2', 'none') });
    }
    case 'medication': {
      const details = [first(data.dose), FREQUENCIES[first(data['select-choice-freq'])], WHEN[first(data['select-choice-add'])]].filter(Boolean);
      return t('app.posts.medication_added', 'Medication added: {data}{value}', { data: medicationName(data), value: details.length ? ` (${details.join(', ')})` : '' });
    }
    case 'regimen': {
      const names = list(data.medication);
      const answers = list(data['select-choice-by']);
      const parts = answers.map((code, i) => `${names[i] ?? t('app.posts.medication_number', 'medication {number}', { number: i + 1 })}: ${(ADHERENCE[code] || code).toLowerCase()}`);
      return t('app.posts.medications_taken', 'Medications taken: {value}', { value: parts.join(', ') || t('app.posts.none_2', 'none') });
    }
    default:
      return t('app.posts.note', 'Note: {value}', { value: Object.entries(data).map(([k, v]) => `${k} ${list(v).join(', ')}`).join(', ') });
  }
}

export class PostsList {
  /** onDelete(post) returns a promise. */
  constructor(root, { onDelete }) {
    this.root = root;
    this.onDelete = onDelete;
  }

  render(posts) {
    const root = clear(this.root);
    if (!posts.length) {
      root.append(h('p', { class: 'muted' }, t('app.posts.nothing_recorded_in_this_window', 'Nothing recorded in this window. What you record (levels, medications) appears here and on the timeline.')));
      return;
    }
    const ul = h('ul', { class: 'posts' });
    for (const post of [...posts].reverse()) {
      const text = describePost(post);
      const del = h('button', { type: 'button', class: 'button quiet small danger', 'aria-label': t('app.posts.delete', 'Delete: {text}', { text }) }, t('app.posts.delete_2', 'Delete'));
      del.addEventListener('click', async () => {
        del.disabled = true;
        try { await this.onDelete(post); } catch { del.disabled = false; }
      });
      ul.append(h('li', { class: 'post', 'data-id': post.id },
        h('div', null,
          h('p', { class: 'data' }, text),
          h('p', { class: 'when' }, formatDateTime(post.created_at))),
        del));
    }
    root.append(ul);
  }
}
