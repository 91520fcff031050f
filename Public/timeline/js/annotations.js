// Your note on a record entry (PUT/DELETE /patients/{pid}/entries/{eid}/annotation): a note, "not
// mine / wrong" with a reason, and for a medication its quantity, dose, directions and prescriber.
// What the timeline and the lists show of it (struck through, a note mark), and the form in the
// entry's details.

import { h } from './dom.js';
import { formatDateTime, formatTime } from './format.js';
import { LANES } from './lane-layout.js';
import { later, t } from './strings.js';

export const MEDICATION_FIELDS = [
  ['quantity', later('app.annotations.quantity', 'Quantity'), later('app.annotations.e_g_30_tablets', 'e.g. 30 tablets')],
  ['dose', later('app.annotations.dose', 'Dose'), later('app.annotations.e_g_1_tablet', 'e.g. 1 tablet')],
  ['directions', later('app.annotations.directions', 'Directions'), later('app.annotations.e_g_once_a_day', 'e.g. once a day with food')],
  ['prescriber', later('app.annotations.prescriber', 'Prescriber'), later('app.annotations.e_g_dr_lee', 'e.g. Dr. Lee')],
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
  return `${isStruck(entry) ? t('app.annotations.marked_wrong_suffix', ' (marked wrong)') : ''}${hasNote(entry) ? t('app.annotations.has_your_note_suffix', ' (has your note)') : ''}`;
}

/** The small tags after an entry's description in a list: "marked wrong", and a note mark. */
export function annotationTags(entry) {
  const tags = [];
  if (isStruck(entry)) {
    tags.push(h('span', { class: 'tag struck-tag' },
      h('span', { class: 'visually-hidden' }, '('), t('app.annotations.marked_wrong', 'marked wrong'), h('span', { class: 'visually-hidden' }, ')')));
  }
  if (hasNote(entry)) {
    tags.push(h('span', { class: 'tag note-tag', title: t('app.annotations.has_your_note', 'Has your note') },
      h('span', { 'aria-hidden': 'true' }, t('app.annotations.note', '✎ note')), h('span', { class: 'visually-hidden' }, t('app.annotations.has_your_note_2', '(has your note)'))));
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
  const reason = h('input', { id: 'annotation-reason', name: 'reason', type: 'text', autocomplete: 'off', placeholder: t('app.annotations.e_g_this_is_someone', 'e.g. this is someone else’s record') });
  const reasonField = h('div', { class: 'field reason-field' }, h('label', { for: 'annotation-reason' }, t('app.annotations.why', 'Why? '), h('span', { class: 'muted small' }, t('app.annotations.optional', '(optional)'))), reason);
  const medInputs = {};
  let medFields = null;
  if (isMedication) {
    const fields = MEDICATION_FIELDS.map(([key, label, placeholder]) => {
      medInputs[key] = h('input', { id: `annotation-med-${key}`, name: key, type: 'text', autocomplete: 'off', placeholder });
      return h('div', { class: 'field' }, h('label', { for: `annotation-med-${key}` }, label), medInputs[key]);
    });
    medFields = h('fieldset', { class: 'med-fields' }, h('legend', null, t('app.annotations.how_you_take_it', 'How you take it')),
      h('div', { class: 'field-row' }, fields[0], fields[1]), fields[2], fields[3]);
  }
  const error = h('p', { class: 'form-error', role: 'alert' });
  const status = h('p', { class: 'form-note', role: 'status' });
  const saveButton = h('button', { type: 'submit', class: 'button primary' }, t('app.annotations.save', 'Save'));
  const removeButton = h('button', { type: 'button', class: 'button danger' }, t('app.annotations.remove_note', 'Remove note'));
  const state = h('p', { id: 'annotation-help', class: 'muted small' });
  const banner = h('p', { class: 'struck-banner' });

  const form = h('form', { class: 'annotation-form stack', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'annotation-note' }, t('app.annotations.note_2', 'Note')), note),
    h('div', { class: 'check' }, struck, h('label', { for: 'annotation-struck' }, t('app.annotations.not_mine_wrong', 'Not mine / wrong '),
      h('span', { class: 'muted small' }, t('app.annotations.struck_through_on_the_timeline', '(struck through on the timeline)')))),
    reasonField,
    medFields,
    error,
    h('div', { class: 'form-foot' }, saveButton, removeButton, status));

  const section = h('section', { class: 'annotation', 'aria-labelledby': 'annotation-heading' },
    h('h3', { id: 'annotation-heading' }, t('app.annotations.your_note', 'Your note')), state, form);

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
      ? t('app.annotations.saved_only_you_see_it', 'Saved {updated_at}. Only you see it; it stays when the record is imported again.', { updated_at: formatDateTime(a.updated_at ?? a.created_at) })
      : t('app.annotations.only_you_see_this_it', 'Only you see this. It stays on this computer, and stays when the record is imported again.');
    banner.hidden = !a?.struck;
    banner.textContent = a?.struck
      ? t('app.annotations.you_marked_this_entry_as', 'You marked this entry as not yours or wrong{value}', { value: a.reason ? `: ${a.reason}` : '.' })
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
      say(isMedication ? t('app.annotations.write_a_note_mark_the', 'Write a note, mark the entry wrong or fill in how you take it first.') : t('app.annotations.write_a_note_or_mark', 'Write a note or mark the entry wrong first.'), true);
      note.focus();
      return;
    }
    busy(true);
    try {
      if (empty) {
        await removeSaved();
        say(t('app.annotations.nothing_left_to_keep_the', 'Nothing left to keep: the note is removed.'));
      } else {
        const stored = await save(body);
        entry.annotation = stored;
        showState();
        say(t('app.annotations.saved_at', 'Saved at {updated_at}.', { updated_at: formatTime(stored.updated_at ?? stored.created_at) }));
      }
      onChange();
    } catch (failure) {
      say(t('app.annotations.not_saved', 'Not saved: {message}', { message: failure.message }), true);
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
      say(t('app.annotations.removed', 'Removed.'));
      saveButton.focus();
      onChange();
    } catch (failure) {
      say(t('app.annotations.not_removed', 'Not removed: {message}', { message: failure.message }), true);
    } finally {
      busy(false);
    }
  });

  fill();
  return { section, banner };
}
