// The family: a picker with each person's name and age (and relationship, when a source gives
// one). The daemon remembers the current person (POST /patients/current).

import { clear, h } from './dom.js';
import { age, formatDate, genderWord, plural } from './format.js';

export function personLine(patient) {
  const years = age(patient.birthdate);
  const name = `${patient.name || 'Unnamed'}${years != null ? `, ${years} years` : ''}`;
  return patient.relationship ? `${name} · ${patient.relationship}` : name;
}

export function personMeta(patient) {
  const years = age(patient.birthdate);
  return [
    patient.relationship,
    genderWord(patient.gender),
    years != null ? `${years} years old (born ${formatDate(patient.birthdate)})` : null,
    patient.entries != null ? plural(patient.entries, 'record entry', 'record entries') : null,
    patient.source ? `from ${patient.source === 'files' ? 'imported files' : patient.source}` : null,
  ].filter(Boolean).join(' · ');
}

export class PatientPicker {
  constructor(select, { onChange }) {
    this.select = select;
    this.patients = [];
    select.addEventListener('change', () => onChange(select.value));
  }

  render(patients, current) {
    this.patients = patients;
    const select = clear(this.select);
    for (const patient of patients) {
      select.append(h('option', { value: patient.id }, personLine(patient)));
    }
    if (current) select.value = current;
    select.disabled = patients.length < 2;
  }

  /** Shows this person as chosen (the list already holds them). */
  choose(id) {
    this.select.value = id;
  }

  find(id) {
    return this.patients.find((p) => p.id === id) || null;
  }
}
