// The family: a picker with each person's name and age (and relationship, when one is set). Records
// of one person from several sources are linked (`person`: the head's id) and shown once. The daemon
// remembers the current person (POST /patients/current).

import { clear, h } from './dom.js';
import { age, formatDate, genderWord } from './format.js';
import { later, t, tn } from './strings.js';

/** PATCH /patients/{id} takes one of these (or null). */
export const RELATIONSHIPS = [
  ['me', later('app.patients.me', 'Me')],
  ['spouse', later('app.patients.spouse', 'Spouse')],
  ['partner', later('app.patients.partner', 'Partner')],
  ['child', later('app.patients.child', 'Child')],
  ['parent', later('app.patients.parent', 'Parent')],
  ['family', later('app.patients.family', 'Family')],
  ['other', later('app.patients.other', 'Other')],
];
const RELATIONSHIP_WORDS = { ...Object.fromEntries(RELATIONSHIPS), me: later('app.patients.you', 'You') };

export function relationshipWord(relationship) {
  if (!relationship) return null;
  return RELATIONSHIP_WORDS[relationship] || relationship;
}

export function sourceWord(source) {
  return source === 'files' ? t('app.patients.imported_files', 'imported files') : source;
}

/**
 * The people of /patients.json's list: one a person, linked records together, in the list's order.
 * Each: {id (the head's), patient (the head, entries counted over every record), members: [patient…]}.
 */
export function groupPeople(patients) {
  const groups = [];
  const byKey = new Map();
  for (const patient of patients) {
    const key = patient.person || patient.id;
    let group = byKey.get(key);
    if (!group) {
      group = { key, members: [] };
      byKey.set(key, group);
      groups.push(group);
    }
    group.members.push(patient);
  }
  return groups.map(({ key, members }) => {
    const head = members.find((m) => m.id === key) || members[0];
    const entries = members.reduce((n, m) => n + (m.entries || 0), 0);
    const sources = [...new Set(members.map((m) => m.source).filter(Boolean))];
    return { id: head.id, members, patient: { ...head, entries, sources, linked: members.length } };
  });
}

/**
 * Whole years of age: now, or at death for a person who has died (ages never count past it; unknown when
 * the record says they died but not when).
 */
export function ageOf(patient) {
  if (patient.deceased) return patient.deceased_date != null ? age(patient.birthdate, patient.deceased_date) : null;
  return age(patient.birthdate);
}

/** "died May 14, 2019, aged 82" (or "died" alone, when the record gives no date). */
export function diedWords(patient) {
  if (!patient.deceased) return null;
  const years = ageOf(patient);
  if (patient.deceased_date == null) return t('app.patients.died', 'died');
  const date = formatDate(patient.deceased_date);
  return years != null ? tn('app.patients.count.died_on_aged', years, 'died {date}, aged {n}', 'died {date}, aged {n}', { date }) : t('app.patients.died_on', 'died {date}', { date });
}

export function personLine(patient) {
  const years = ageOf(patient);
  const unnamed = patient.name || t('app.patients.unnamed', 'Unnamed');
  // In the picker, short: the year they died.
  const died = patient.deceased_date != null
    ? t('app.patients.name_died_in', '{name}, died {year}', { name: unnamed, year: new Date(patient.deceased_date * 1000).getFullYear() })
    : t('app.patients.name_died', '{name}, died', { name: unnamed });
  const living = years != null ? tn('app.patients.count.name_years', years, '{name}, {n} year', '{name}, {n} years', { name: unnamed }) : unnamed;
  const name = patient.deceased ? died : living;
  const relationship = relationshipWord(patient.relationship);
  return relationship ? `${name} · ${relationship}` : name;
}

export function personMeta(patient) {
  const years = ageOf(patient);
  const sources = patient.sources || (patient.source ? [patient.source] : []);
  return [
    relationshipWord(patient.relationship),
    genderWord(patient.gender),
    patient.deceased ? t('app.patients.died_born', '{died} (born {birthdate})', { died: diedWords(patient), birthdate: patient.birthdate != null ? formatDate(patient.birthdate) : '—' })
      : years != null ? tn('app.patients.count.years_old_born', years, '{n} year old (born {birthdate})', '{n} years old (born {birthdate})', { birthdate: formatDate(patient.birthdate) }) : null,
    patient.entries != null ? tn('app.patients.count.record_entries', patient.entries, '{n} record entry', '{n} record entries') : null,
    patient.linked > 1 ? tn('app.patients.count.linked_records', patient.linked, '{n} linked record', '{n} linked records') : null,
    sources.length ? t('app.patients.from', 'from {source_word}', { source_word: sources.map(sourceWord).join(t('app.patients.and', ' and ')) }) : null,
  ].filter(Boolean).join(' · ');
}

export class PatientPicker {
  constructor(select, { onChange }) {
    this.select = select;
    this.people = [];
    select.addEventListener('change', () => onChange(select.value));
  }

  /** people: groupPeople's list. current: any record's id of the person shown. */
  render(people, current) {
    this.people = people;
    const select = clear(this.select);
    for (const person of people) {
      select.append(h('option', { value: person.id }, personLine(person.patient)));
    }
    const chosen = this.personOf(current);
    if (chosen) select.value = chosen.id;
    select.disabled = people.length < 2;
  }

  /** Shows this person as chosen (the list already holds them). */
  choose(id) {
    const person = this.personOf(id);
    if (person) this.select.value = person.id;
  }

  /** The person one of whose records has this id. */
  personOf(id) {
    return this.people.find((p) => p.id === id || p.members.some((m) => m.id === id)) || null;
  }

  find(id) {
    return this.personOf(id)?.patient || null;
  }
}
