// The person's own readings (POST /patients/{id}/readings, PUT and DELETE /readings/{id}): blood pressure,
// weight, height, blood glucose and pulse, each with an optional day and note. The form that adds one (in
// a Summary tile) or changes one (in a reading's details), how a reading reads, the list of the person's
// readings under the timeline's vital signs, and a reading's details with Edit and Delete.
// What the daemon refuses (400 bad_reading) is said with its own message; nothing is checked here but that
// the numbers are there.

import { h, clear } from './dom.js';
import { dayString, formatDate, formatDateTime, formatNumber, formatTime, prettyUnit } from './format.js';
import { later, t } from './strings.js';

/** Each kind of reading: its name, and its value(s) and units as the API takes them. */
export const KINDS = {
  blood_pressure: { name: later('app.readings.blood_pressure', 'Blood pressure'), one: later('app.readings.a_blood_pressure_reading', 'a blood pressure reading'), pressure: true, unit: 'mm[Hg]' },
  weight: { name: later('app.readings.weight', 'Weight'), one: later('app.readings.a_weight', 'a weight'), units: ['kg', 'lb'] },
  height: { name: later('app.readings.height', 'Height'), one: later('app.readings.a_height', 'a height'), units: ['cm', 'in'] },
  glucose: { name: later('app.readings.blood_glucose', 'Blood glucose'), one: later('app.readings.a_blood_glucose_reading', 'a blood glucose reading'), units: ['mg/dL', 'mmol/L'], contexts: true },
  pulse: { name: later('app.readings.pulse', 'Pulse'), one: later('app.readings.a_pulse', 'a pulse'), units: ['/min'] },
};

export const GLUCOSE_CONTEXTS = [
  ['fasting', later('app.readings.fasting', 'Fasting')],
  ['before_meal', later('app.readings.before_a_meal', 'Before a meal')],
  ['after_meal', later('app.readings.after_a_meal', 'After a meal')],
  ['random', later('app.readings.any_time_random', 'Any time (random)')],
];
// Lower-cased when shown, so that it follows the string table as the words do.
const CONTEXT_WORDS = Object.fromEntries(GLUCOSE_CONTEXTS.map(([value, word]) => [value, { toString: () => String(word).toLowerCase() }]));

export const kindName = (kind) => KINDS[kind]?.name || String(kind || t('app.readings.reading', 'Reading')).replace(/_/g, ' ');

/** A unit as a person reads it: mm[Hg] → mmHg, /min → beats a minute. */
export function unitWord(unit) {
  if (unit === '/min') return t('app.readings.beats_a_minute', 'beats a minute');
  return prettyUnit(unit);
}

/** A reading's value in words: "185/100 mmHg", "72.5 kg", "99 mg/dL, fasting". */
export function readingValue(reading) {
  if (reading.kind === 'blood_pressure') return `${formatNumber(reading.systolic)}/${formatNumber(reading.diastolic)} ${unitWord(reading.unit || 'mm[Hg]')}`;
  const value = `${formatNumber(reading.value)}${reading.unit ? ` ${unitWord(reading.unit)}` : ''}`;
  return reading.context ? `${value}, ${CONTEXT_WORDS[reading.context] || reading.context}` : value;
}

/** "Blood pressure 185/100 mmHg". */
export function describeReading(reading) {
  return `${kindName(reading.kind)} ${readingValue(reading)}`;
}

/** The small "you" tag of a self-reported value, with its words for a screen reader. */
export function youTag() {
  return h('span', { class: 'tag you-tag', title: t('app.readings.your_own_reading_self_reported', 'Your own reading (self-reported)') },
    h('span', { 'aria-hidden': 'true' }, 'you'), h('span', { class: 'visually-hidden' }, t('app.readings.your_own_reading_self_reported_2', '(your own reading, self-reported)')));
}

const numberOf = (input) => {
  const text = input.value.trim().replace(',', '.');
  return text === '' ? null : Number(text);
};

/**
 * The form of a reading. kinds: the kinds it takes (more than one: the person picks which, e.g. weight or
 * height); id: a prefix for its fields' ids; reading: the reading it changes (Edit), else a new one;
 * submit: the button's words; onSubmit(body) stores it (a promise; a rejection's message is shown);
 * onCancel: a Cancel button when given. Returns {form, focus()}.
 */
export function readingForm({ kinds, id, reading = null, submit = t('app.readings.save_reading', 'Save reading'), onSubmit, onCancel = null }) {
  const known = kinds.filter((kind) => KINDS[kind]);
  let kind = reading?.kind && known.includes(reading.kind) ? reading.kind : known[0];
  const error = h('p', { class: 'form-error', role: 'alert' });
  const note = h('p', { class: 'form-note', role: 'status' });
  const field = (name, label, input, hint) => h('div', { class: 'field' },
    h('label', { for: `${id}-${name}` }, label, hint ? h('span', { class: 'muted small' }, ` ${hint}`) : null), input);
  const number = (name, attrs = {}) => h('input', { id: `${id}-${name}`, name, type: 'number', inputmode: 'decimal', step: 'any', min: '0', autocomplete: 'off', ...attrs });

  // One block of fields per kind; only the chosen kind's block is shown (and read).
  const blocks = {};
  const inputs = {};
  for (const k of known) {
    const spec = KINDS[k];
    const own = {};
    let block;
    if (spec.pressure) {
      own.systolic = number('systolic', { step: '1', 'aria-describedby': `${id}-pressure-hint` });
      own.diastolic = number('diastolic', { step: '1', 'aria-describedby': `${id}-pressure-hint` });
      block = h('div', { class: 'reading-fields', 'data-kind': k },
        h('div', { class: 'field-row' },
          field('systolic', t('app.readings.systolic', 'Systolic'), own.systolic, t('app.readings.top_mmhg', '(top, mmHg)')),
          field('diastolic', t('app.readings.diastolic', 'Diastolic'), own.diastolic, t('app.readings.bottom_mmhg', '(bottom, mmHg)'))),
        h('p', { id: `${id}-pressure-hint`, class: 'muted small' }, t('app.readings.in_millimetres_of_mercury_as', 'In millimetres of mercury, as the monitor shows them: 128 over 82 is systolic 128, diastolic 82.')));
    } else {
      own.value = number(`${k}-value`);
      own.unit = h('select', { id: `${id}-${k}-unit`, name: `${k}-unit` }, spec.units.map((unit) => h('option', { value: unit }, unitWord(unit))));
      const row = h('div', { class: 'field-row' },
        field(`${k}-value`, spec.name, own.value),
        spec.units.length > 1 ? field(`${k}-unit`, t('app.readings.unit', 'Unit'), own.unit) : h('div', { class: 'field unit-only' }, h('span', { class: 'muted' }, unitWord(spec.units[0]))));
      block = h('div', { class: 'reading-fields', 'data-kind': k }, row);
      if (spec.contexts) {
        own.context = h('select', { id: `${id}-context`, name: 'context' },
          h('option', { value: '' }, t('app.readings.not_said', 'Not said')), GLUCOSE_CONTEXTS.map(([value, word]) => h('option', { value }, word)));
        block.append(field('context', t('app.readings.when', 'When'), own.context));
      }
    }
    blocks[k] = block;
    inputs[k] = own;
  }

  // Which kind, when the form takes more than one.
  let chooser = null;
  if (known.length > 1) {
    chooser = h('fieldset', { class: 'kind-choice' }, h('legend', null, t('app.readings.what_did_you_measure', 'What did you measure?')),
      h('div', { class: 'choices' }, known.map((k) => h('label', { class: 'choice' },
        h('input', { type: 'radio', name: `${id}-kind`, value: k, checked: k === kind }),
        h('span', null, KINDS[k].name)))));
    chooser.addEventListener('change', (event) => {
      if (event.target.name !== `${id}-kind`) return;
      kind = event.target.value;
      show();
    });
  }

  const today = dayString(new Date());
  const date = h('input', { id: `${id}-date`, name: 'date', type: 'date', max: today, 'aria-describedby': `${id}-date-hint` });
  const text = h('input', { id: `${id}-note`, name: 'note', type: 'text', maxlength: '500', autocomplete: 'off', placeholder: t('app.readings.e_g_after_a_walk', 'e.g. after a walk, left arm') });
  const button = h('button', { type: 'submit', class: 'button primary' }, submit);
  const cancel = onCancel ? h('button', { type: 'button', class: 'button', onclick: onCancel }, t('app.readings.cancel', 'Cancel')) : null;
  const form = h('form', { class: 'reading-form stack', novalidate: true },
    chooser,
    ...known.map((k) => blocks[k]),
    h('div', { class: 'field-row' },
      field('date', t('app.readings.day', 'Day'), date),
      h('p', { id: `${id}-date-hint`, class: 'muted small date-hint' }, reading ? t('app.readings.the_day_it_was_taken', 'The day it was taken.') : t('app.readings.today_unless_you_say_otherwise', 'Today unless you say otherwise.'))),
    field('note', t('app.readings.note', 'Note'), text, t('app.readings.optional', '(optional)')),
    error,
    h('div', { class: 'form-foot' }, button, cancel, note));

  function show() {
    for (const k of known) blocks[k].hidden = k !== kind;
    form.dataset.kind = kind;
  }

  function fill() {
    const original = reading ? dayString(new Date(reading.date * 1000)) : today;
    date.value = original;
    text.value = reading?.note || '';
    if (!reading) return;
    const own = inputs[reading.kind];
    if (!own) return;
    if (reading.kind === 'blood_pressure') {
      own.systolic.value = reading.systolic ?? '';
      own.diastolic.value = reading.diastolic ?? '';
    } else {
      own.value.value = reading.value ?? '';
      if ([...own.unit.options].some((o) => o.value === reading.unit)) own.unit.value = reading.unit;
      if (own.context) own.context.value = reading.context || '';
    }
  }

  /** The body to send, or null after saying what is missing. */
  function body() {
    const own = inputs[kind];
    const data = { kind };
    const need = (input, words) => {
      const value = numberOf(input);
      if (value === null || !Number.isFinite(value)) {
        error.textContent = t('app.readings.enter_as_a_number', 'Enter {words} as a number.', { words });
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return null;
      }
      input.removeAttribute('aria-invalid');
      return value;
    };
    for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
    if (kind === 'blood_pressure') {
      data.systolic = need(own.systolic, t('app.readings.the_systolic_top_pressure', 'the systolic (top) pressure'));
      if (data.systolic === null) return null;
      data.diastolic = need(own.diastolic, t('app.readings.the_diastolic_bottom_pressure', 'the diastolic (bottom) pressure'));
      if (data.diastolic === null) return null;
    } else {
      data.value = need(own.value, t('app.readings.the', 'the {value}', { value: KINDS[kind].name.toLowerCase() }));
      if (data.value === null) return null;
      data.unit = own.unit.value;
      if (own.context?.value) data.context = own.context.value;
    }
    // The day: today (or nothing chosen) is now; the day a changed reading had keeps its time; another day is that day.
    const day = date.value;
    if (reading && day === dayString(new Date(reading.date * 1000))) data.date = reading.date;
    else if (day && day !== dayString(new Date())) data.date = day;
    const words = text.value.trim();
    if (words) data.note = words;
    return data;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    note.textContent = '';
    const data = body();
    if (!data) return;
    button.disabled = true;
    note.textContent = t('app.readings.saving', 'Saving…');
    try {
      await onSubmit(data);
    } catch (failure) {
      if (failure.status === 401 || failure.status === 423) return; // back to the sign-in screen
      error.textContent = t('app.readings.not_saved', 'Not saved: {message}', { message: failure.message });
    } finally {
      button.disabled = false;
      note.textContent = '';
    }
  });

  show();
  fill();
  return {
    form,
    focus() { (form.querySelector('.reading-fields:not([hidden]) input') || date).focus(); },
  };
}

/** A reading of the person's own as the details dialog opens it (chart: the chart it is drawn in). */
export function readingItem(reading, chart = null) {
  return { entry: { id: reading.id, type: 'vital_sign', description: kindName(reading.kind), date: reading.date }, reading, t: reading.date, chart };
}

/** The readings of the window under Vital signs: each a row that opens its details (Edit, Delete). */
export class OwnReadingsList {
  /** onOpen(reading, row) opens its details. */
  constructor(root, { onOpen }) {
    this.root = root;
    this.onOpen = onOpen;
  }

  render(readings) {
    const root = clear(this.root);
    root.hidden = !readings.length;
    if (!readings.length) return;
    const list = h('ul', { class: 'own-readings-list' });
    for (const reading of [...readings].reverse()) {
      const row = h('button', { type: 'button', class: 'entry-row reading-row', 'data-id': reading.id, 'data-kind': reading.kind },
        h('span', { class: 'date' }, formatDateTime(reading.date)),
        h('span', { class: 'desc' }, h('span', { class: 'desc-text' }, kindName(reading.kind)), ' ', youTag(),
          reading.note ? h('span', { class: 'muted small reading-note' }, ` — ${reading.note}`) : null),
        h('span', { class: 'value' }, readingValue(reading)));
      row.addEventListener('click', () => this.onOpen(reading, row));
      list.append(h('li', null, row));
    }
    root.append(h('h3', { id: 'own-readings-heading' }, t('app.readings.your_own_readings_in_this', 'Your own readings in this window')),
      h('p', { class: 'muted small' }, t('app.readings.drawn_as_in_the_charts', 'Drawn as ◇ in the charts above. Open one to change or delete it.')), list);
  }
}

/**
 * A reading's details (in the entry details dialog): what it holds, Edit (the form, PUT) and Delete
 * (after a confirmation, DELETE). save(body) and remove() are promises; onSaved(reading) and onRemoved()
 * redraw what is behind.
 */
export function readingDetails(reading, { save, remove, onSaved, onRemoved }) {
  const section = h('div', { class: 'reading-details' });
  const status = h('p', { class: 'form-note', role: 'status' });
  const facts = h('dl', { class: 'facts' });

  function drawFacts(current) {
    clear(facts);
    const fact = (term, value) => facts.append(h('dt', null, term), h('dd', null, value));
    fact(t('app.readings.taken', 'Taken'), formatDateTime(current.date));
    fact(t('app.readings.value', 'Value'), readingValue(current));
    if (current.note) fact(t('app.readings.note', 'Note'), current.note);
    fact(t('app.readings.recorded', 'Recorded'), formatDateTime(current.created_at));
    if (current.updated_at && current.updated_at !== current.created_at) fact(t('app.readings.changed', 'Changed'), formatDateTime(current.updated_at));
  }

  const edit = h('button', { type: 'button', class: 'button', 'data-action': 'edit' }, t('app.readings.edit', 'Edit'));
  const del = h('button', { type: 'button', class: 'button danger', 'data-action': 'delete', 'aria-expanded': 'false', 'aria-controls': 'reading-confirm' }, t('app.readings.delete', 'Delete…'));
  const actions = h('div', { class: 'actions' }, edit, del);
  const confirmText = h('p', { id: 'reading-confirm-text' });
  const confirmError = h('p', { class: 'form-error', role: 'alert' });
  const confirmDelete = h('button', { type: 'button', class: 'button danger-solid', 'data-action': 'confirm-delete' }, t('app.readings.delete_this_reading', 'Delete this reading'));
  const cancelDelete = h('button', { type: 'button', class: 'button', 'data-action': 'cancel' }, t('app.readings.cancel', 'Cancel'));
  const confirm = h('div', { id: 'reading-confirm', class: 'confirm', role: 'group', 'aria-labelledby': 'reading-confirm-text', hidden: true },
    confirmText, confirmError, h('div', { class: 'actions' }, confirmDelete, cancelDelete));
  const editor = h('div', { class: 'reading-editor', hidden: true });

  let current = reading;
  drawFacts(current);

  edit.addEventListener('click', () => {
    status.textContent = '';
    confirm.hidden = true;
    del.setAttribute('aria-expanded', 'false');
    const built = readingForm({
      kinds: [current.kind], id: 'reading-edit', reading: current, submit: t('app.readings.save_changes', 'Save changes'),
      onSubmit: async (body) => {
        const stored = await save(body);
        current = stored || { ...current, ...body };
        drawFacts(current);
        closeEditor();
        status.textContent = t('app.readings.saved_at', 'Saved at {updated_at}.', { updated_at: formatTime(current.updated_at ?? Date.now() / 1000) });
        edit.focus();
        onSaved(current);
      },
      onCancel: () => { closeEditor(); edit.focus(); },
    });
    clear(editor).append(h('h3', null, t('app.readings.change_this_reading', 'Change this reading')), built.form);
    editor.hidden = false;
    actions.hidden = true;
    built.focus();
  });

  function closeEditor() {
    editor.hidden = true;
    clear(editor);
    actions.hidden = false;
  }

  del.addEventListener('click', () => {
    status.textContent = '';
    confirmError.textContent = '';
    confirmText.replaceChildren(h('strong', null, t('app.readings.delete_your_reading_of_from', 'Delete your reading of {current} from {date}?', { current: readingValue(current), date: formatDate(current.date) })),
      t('app.readings.it_goes_from_the_summary', ' It goes from the summary, the charts and the timeline. This cannot be undone.'));
    confirm.hidden = false;
    del.setAttribute('aria-expanded', 'true');
    cancelDelete.focus();
  });
  cancelDelete.addEventListener('click', () => {
    confirm.hidden = true;
    del.setAttribute('aria-expanded', 'false');
    del.focus();
  });
  confirmDelete.addEventListener('click', async () => {
    confirmDelete.disabled = true;
    cancelDelete.disabled = true;
    try {
      await remove();
      await onRemoved();
    } catch (failure) {
      if (failure.code === 'unknown_reading') { onRemoved(); return; } // gone already
      confirmError.textContent = t('app.readings.not_deleted', 'Not deleted: {message}', { message: failure.message });
    } finally {
      confirmDelete.disabled = false;
      cancelDelete.disabled = false;
    }
  });

  section.append(h('p', { class: 'note' }, t('app.readings.you_recorded_this_reading_yourself', 'You recorded this reading yourself. It is yours to change or delete; the record’s own readings are not.')),
    facts, actions, confirm, editor, status);
  return section;
}
