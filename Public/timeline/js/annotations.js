// Your note on a record entry (PUT/DELETE /patients/{pid}/entries/{eid}/annotation): a note, "not
// mine / wrong" with a reason, and for a medication its quantity, dose, directions and prescriber.
// What the timeline and the lists show of it (struck through, a note mark), and the form in the
// entry's details.

import { h } from './dom.js';
import { formatDateTime, formatTime } from './format.js';
import { LANES } from './lane-layout.js';

export const MEDICATION_FIELDS = [
  ['quantity', 'Quantity', 'e.g. 30 tablets'],
  ['dose', 'Dose', 'e.g. 1 tablet'],
  ['directions', 'Directions', 'e.g. once a day with food'],
  ['prescriber', 'Prescriber', 'e.g. Dr. Lee'],
];

export const isStruck = (entry) => Boolean(entry?.annotation?.struck);

/** Whether the entry carries something written by the person: a note or medication details. */
export function hasNote(entry) {
  const a = entry?.annotation;
  if (!a) return false;
  return Boolean(a.note) || Boolean(a.medication && Object.values(a.medication).some(Boolean));
}

/** What a mark's accessible name adds: " (marked wrong)", " (has your note)". */
export function labelSuffix(entry) {
  return `${isStruck(entry) ? ' (marked wrong)' : ''}${hasNote(entry) ? ' (has your note)' : ''}`;
}

/** The small tags after an entry's description in a list: "marked wrong", and a note mark. */
export function annotationTags(entry) {
  const tags = [];
  if (isStruck(entry)) {
    tags.push(h('span', { class: 'tag struck-tag' },
      h('span', { class: 'visually-hidden' }, '('), 'marked wrong', h('span', { class: 'visually-hidden' }, ')')));
  }
  if (hasNote(entry)) {
    tags.push(h('span', { class: 'tag note-tag', title: 'Has your note' },
      h('span', { 'aria-hidden': 'true' }, '✎ note'), h('span', { class: 'visually-hidden' }, '(has your note)')));
  }
  return tags.length ? [' ', ...tags] : [];
}

/** The payload without the entries marked wrong, and how many were left out. */
export function withoutStruck(payload) {
  let hidden = 0;
  const copy = { ...payload };
  for (const key of [...LANES.map((lane) => lane.key), 'ongoing']) {
    const entries = payload[key];
    if (!Array.isArray(entries)) continue;
    const kept = entries.filter((entry) => !isStruck(entry));
    hidden += entries.length - kept.length;
    copy[key] = kept;
  }
  return { payload: copy, hidden };
}

const trimmed = (value) => {
  const text = value.trim();
  return text ? text : null;
};

/**
 * The "Your note" section of an entry's details. save(annotation) PUTs and returns the stored
 * annotation; remove() DELETEs; onChange() redraws the timeline behind the dialog.
 */
export function annotationSection(entry, { save, remove, onChange }) {
  const isMedication = entry.type === 'medication';
  const saved = () => entry.annotation || null;

  const note = h('textarea', { id: 'annotation-note', name: 'note', rows: '3', 'aria-describedby': 'annotation-help' });
  const struck = h('input', { id: 'annotation-struck', name: 'struck', type: 'checkbox' });
  const reason = h('input', { id: 'annotation-reason', name: 'reason', type: 'text', autocomplete: 'off', placeholder: 'e.g. this is someone else’s record' });
  const reasonField = h('div', { class: 'field reason-field' }, h('label', { for: 'annotation-reason' }, 'Why? ', h('span', { class: 'muted small' }, '(optional)')), reason);
  const medInputs = {};
  let medFields = null;
  if (isMedication) {
    const fields = MEDICATION_FIELDS.map(([key, label, placeholder]) => {
      medInputs[key] = h('input', { id: `annotation-med-${key}`, name: key, type: 'text', autocomplete: 'off', placeholder });
      return h('div', { class: 'field' }, h('label', { for: `annotation-med-${key}` }, label), medInputs[key]);
    });
    medFields = h('fieldset', { class: 'med-fields' }, h('legend', null, 'How you take it'),
      h('div', { class: 'field-row' }, fields[0], fields[1]), fields[2], fields[3]);
  }
  const error = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'form-note', role: 'status' });
  const saveButton = h('button', { type: 'submit', class: 'button primary' }, 'Save');
  const removeButton = h('button', { type: 'button', class: 'button danger' }, 'Remove note');
  const state = h('p', { id: 'annotation-help', class: 'muted small' });
  const banner = h('p', { class: 'struck-banner' });

  const form = h('form', { class: 'annotation-form stack', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'annotation-note' }, 'Note'), note),
    h('div', { class: 'check' }, struck, h('label', { for: 'annotation-struck' }, 'Not mine / wrong ',
      h('span', { class: 'muted small' }, '(struck through on the timeline)'))),
    reasonField,
    medFields,
    error,
    h('div', { class: 'form-foot' }, saveButton, removeButton, status));

  const section = h('section', { class: 'annotation', 'aria-labelledby': 'annotation-heading' },
    h('h3', { id: 'annotation-heading' }, 'Your note'), state, form);

  function fill() {
    const a = saved();
    note.value = a?.note || '';
    struck.checked = Boolean(a?.struck);
    reason.value = a?.reason || '';
    for (const [key] of MEDICATION_FIELDS) if (medInputs[key]) medInputs[key].value = a?.medication?.[key] || '';
    showState();
  }

  function showState() {
    const a = saved();
    reasonField.hidden = !struck.checked;
    removeButton.hidden = !a;
    state.textContent = a
      ? `Saved ${formatDateTime(a.updated_at ?? a.created_at)}. Only you see it; it stays when the record is imported again.`
      : 'Only you see this. It stays on this computer, and stays when the record is imported again.';
    banner.hidden = !a?.struck;
    banner.textContent = a?.struck
      ? `You marked this entry as not yours or wrong${a.reason ? `: ${a.reason}` : '.'}`
      : '';
  }

  function busy(on) {
    saveButton.disabled = on;
    removeButton.disabled = on;
  }

  function say(text, isError = false) {
    error.textContent = isError ? text : '';
    status.textContent = isError ? '' : text;
  }

  struck.addEventListener('change', () => {
    reasonField.hidden = !struck.checked;
    if (struck.checked) reason.focus();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say('');
    const body = { note: trimmed(note.value), struck: struck.checked, reason: struck.checked ? trimmed(reason.value) : null, medication: null };
    if (isMedication) {
      const medication = Object.fromEntries(MEDICATION_FIELDS.map(([key]) => [key, trimmed(medInputs[key].value)]));
      if (Object.values(medication).some(Boolean)) body.medication = medication;
    }
    const empty = !body.note && !body.struck && !body.medication;
    if (empty && !saved()) {
      say(isMedication ? 'Write a note, mark the entry wrong or fill in how you take it first.' : 'Write a note or mark the entry wrong first.', true);
      note.focus();
      return;
    }
    busy(true);
    try {
      if (empty) {
        await removeSaved();
        say('Nothing left to keep: the note is removed.');
      } else {
        const stored = await save(body);
        entry.annotation = stored;
        showState();
        say(`Saved at ${formatTime(stored.updated_at ?? stored.created_at)}.`);
      }
      onChange();
    } catch (failure) {
      say(`Not saved: ${failure.message}`, true);
    } finally {
      busy(false);
    }
  });

  async function removeSaved() {
    try {
      await remove();
    } catch (failure) {
      if (failure.code !== 'no_annotation') throw failure;
    }
    delete entry.annotation;
    fill();
  }

  removeButton.addEventListener('click', async () => {
    say('');
    busy(true);
    try {
      await removeSaved();
      say('Removed.');
      saveButton.focus();
      onChange();
    } catch (failure) {
      say(`Not removed: ${failure.message}`, true);
    } finally {
      busy(false);
    }
  });

  fill();
  return { section, banner };
}
