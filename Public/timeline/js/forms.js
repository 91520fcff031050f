// What the user records: levels (pain, mood, energy on 0–10 sliders), a new medication, and whether
// each current medication was taken as directed. Each form posts JSON to /timeline.json?key=….

import { h, clear } from './dom.js';
import { formatTime } from './format.js';
import { ADHERENCE, medicationName } from './posts.js';
import { CLOSED_STATUSES } from './lane-layout.js';
import { onStringsChange, t } from './strings.js';

function note(form, text, isError = false) {
  const el = form.querySelector('.form-note');
  el.textContent = text;
  el.classList.toggle('error', isError);
}

async function submitting(form, work) {
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    return await work();
  } finally {
    button.disabled = false;
  }
}

/** `post(key, data)` stores a post and returns it; `onPosted(post)` refreshes the views. */
export function setUpForms({ post, onPosted }) {
  // Levels.
  const levels = document.getElementById('levels-form');
  for (const input of levels.querySelectorAll('input[type="range"]')) {
    const output = document.getElementById(`${input.id}-out`);
    const sync = () => { output.textContent = input.value; input.setAttribute('aria-valuetext', t('app.forms.of_10', '{value} of 10', { value: input.value })); };
    input.addEventListener('input', sync);
    onStringsChange(sync); // set before any table is loaded: said again in the table's language
    sync();
  }
  levels.addEventListener('submit', async (event) => {
    event.preventDefault();
    note(levels, '');
    const data = {};
    for (const input of levels.querySelectorAll('input[type="range"]')) data[input.name] = input.value;
    try {
      const stored = await submitting(levels, () => post('levels', data));
      note(levels, t('app.forms.saved_at', 'Saved at {created_at}.', { created_at: formatTime(stored.created_at) }));
      onPosted(stored);
    } catch (error) {
      note(levels, t('app.forms.not_saved', 'Not saved: {message}', { message: error.message }), true);
    }
  });

  // A new medication.
  const med = document.getElementById('med-form');
  const medError = med.querySelector('.form-error');
  med.addEventListener('submit', async (event) => {
    event.preventDefault();
    note(med, '');
    medError.textContent = '';
    const nameInput = med.elements.description;
    const name = nameInput.value.trim();
    if (!name) {
      medError.textContent = t('app.forms.enter_the_medications_name', 'Enter the medication\'s name.');
      nameInput.setAttribute('aria-invalid', 'true');
      nameInput.focus();
      return;
    }
    nameInput.removeAttribute('aria-invalid');
    const data = { description: name };
    for (const field of ['dose', 'select-choice-freq', 'select-choice-add']) {
      const value = med.elements[field].value.trim();
      if (value) data[field] = value;
    }
    try {
      const stored = await submitting(med, () => post('medication', data));
      med.reset();
      note(med, t('app.forms.added', 'Added {name}.', { name }));
      onPosted(stored);
    } catch (error) {
      medError.textContent = t('app.forms.not_added', 'Not added: {message}', { message: error.message });
    }
  });

  // Regimen adherence.
  const regimen = document.getElementById('regimen-form');
  regimen.addEventListener('submit', async (event) => {
    event.preventDefault();
    note(regimen, '');
    const names = [];
    const answers = [];
    for (const fieldset of regimen.querySelectorAll('fieldset.regimen')) {
      const checked = fieldset.querySelector('input:checked');
      if (!checked) continue;
      names.push(fieldset.dataset.name);
      answers.push(checked.value);
    }
    if (!answers.length) {
      note(regimen, t('app.forms.choose_an_answer_for_at', 'Choose an answer for at least one medication.'), true);
      return;
    }
    try {
      const stored = await submitting(regimen, () => post('regimen', { medication: names, 'select-choice-by': answers }));
      for (const input of regimen.querySelectorAll('input:checked')) input.checked = false;
      note(regimen, t('app.forms.saved_at', 'Saved at {created_at}.', { created_at: formatTime(stored.created_at) }));
      onPosted(stored);
    } catch (error) {
      note(regimen, t('app.forms.not_saved', 'Not saved: {message}', { message: error.message }), true);
    }
  });
}

/** The medications to ask about: open ones from the record in this window, and the user's own. */
export function currentMedications(payload) {
  const seen = new Map();
  const open = (e) => e.end_date == null && !CLOSED_STATUSES.has((e.status || '').toLowerCase());
  const record = [...(payload.ongoing || []).filter((e) => e.type === 'medication'), ...(payload.medications || []).filter(open)];
  for (const entry of record) {
    if (entry.description && !seen.has(entry.description)) seen.set(entry.description, { name: entry.description, mine: false });
  }
  for (const post of payload.timeline_entries || []) {
    if (post.type !== 'medication') continue;
    const name = medicationName(post.data || {});
    if (!seen.has(name)) seen.set(name, { name, mine: true });
  }
  return [...seen.values()];
}

/** The cards that ask how the person feels and whether they took their medications: not for a person who
 *  has died (their record is read, not kept up). */
export function offerLivingForms(living) {
  for (const id of ['levels-heading', 'meds-heading']) {
    const card = document.getElementById(id)?.closest('section');
    if (card) card.hidden = !living;
  }
}

export function renderRegimen(medications) {
  const form = document.getElementById('regimen-form');
  const list = clear(document.getElementById('regimen-list'));
  const submit = form.querySelector('button[type="submit"]');
  if (!medications.length) {
    list.append(h('p', { class: 'muted' }, t('app.forms.no_current_medications_in_this', 'No current medications in this window. Add one above to keep track of it.')));
    submit.hidden = true;
    return;
  }
  submit.hidden = false;
  medications.slice(0, 30).forEach((med, index) => {
    const fieldset = h('fieldset', { class: 'regimen', 'data-name': med.name },
      h('legend', null, med.name, med.mine ? h('span', { class: 'mine' }, t('app.forms.added_by_you', 'added by you')) : null));
    const choices = h('div', { class: 'choices' });
    for (const [code, label] of Object.entries(ADHERENCE)) {
      choices.append(h('label', { class: 'choice' },
        h('input', { type: 'radio', name: `regimen-${index}`, value: code }),
        h('span', null, label)));
    }
    fieldset.append(choices);
    list.append(fieldset);
  });
}
