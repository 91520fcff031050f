// What the user posted (levels, medications, regimen adherence): how it reads, and the list of
// this window's posts with a delete button each.

import { h, clear } from './dom.js';
import { formatDateTime } from './format.js';

export const FREQUENCIES = { OD: 'once a day', BID: 'twice a day', TID: '3 times a day', QID: '4 times a day', Q2H: 'every 2 hours', QH: 'every hour' };
export const WHEN = { PRN: 'as needed', HS: 'at bedtime', AC: 'before meals', PC: 'after meals' };
export const ADHERENCE = { ND: 'None', UD: 'Less', AD: 'As directed', OD: 'More' };

const list = (value) => (Array.isArray(value) ? value : value == null ? [] : [value]);
const first = (value) => list(value)[0];

export function medicationName(data) {
  return first(data.description) ?? first(data.name) ?? first(data.medication) ?? 'Medication';
}

/** One line that says what a post holds. */
export function describePost(post) {
  const data = post.data || {};
  switch (post.type) {
    case 'levels': {
      const parts = ['pain', 'mood', 'energy'].filter((k) => data[k] != null).map((k) => `${k} ${first(data[k])}`);
      const others = Object.keys(data).filter((k) => !['pain', 'mood', 'energy'].includes(k)).map((k) => `${k} ${list(data[k]).join(', ')}`);
      return `Levels: ${[...parts, ...others].join(', ') || 'none'}`;
    }
    case 'medication': {
      const details = [first(data.dose), FREQUENCIES[first(data['select-choice-freq'])], WHEN[first(data['select-choice-add'])]].filter(Boolean);
      return `Medication added: ${medicationName(data)}${details.length ? ` (${details.join(', ')})` : ''}`;
    }
    case 'regimen': {
      const names = list(data.medication);
      const answers = list(data['select-choice-by']);
      const parts = answers.map((code, i) => `${names[i] ?? `medication ${i + 1}`}: ${(ADHERENCE[code] || code).toLowerCase()}`);
      return `Medications taken: ${parts.join(', ') || 'none'}`;
    }
    default:
      return `Note: ${Object.entries(data).map(([k, v]) => `${k} ${list(v).join(', ')}`).join(', ')}`;
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
      root.append(h('p', { class: 'muted' }, 'Nothing recorded in this window. What you record (levels, medications) appears here and on the timeline.'));
      return;
    }
    const ul = h('ul', { class: 'posts' });
    for (const post of [...posts].reverse()) {
      const text = describePost(post);
      const del = h('button', { type: 'button', class: 'button quiet small danger', 'aria-label': `Delete: ${text}` }, 'Delete');
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
