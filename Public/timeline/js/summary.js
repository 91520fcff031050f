// The Summary (GET /patients/{id}/summary.json): one tile per module the daemon serves, in the order it
// gives (hReader's tiles, SelfHub's modules). Each tile has the module's name, its message and a view of
// its tile data: lists for problems, allergies, medications and vaccines, the latest values with their
// category, small charts where a trend says more than a number (blood pressure, weight, glucose) and
// sparklines for the levels of How you feel. A module that takes readings has an "Add a reading" form.
// A module the app does not know yet is shown as its message and its data as keys and values.
//
// Below the tiles, for paper only (@media print), the same data as a summary to hand to a doctor.
// Everything here comes from the record or the daemon: it goes into the page as text, never as HTML.

import { h, clear } from './dom.js';
import { sectionTitle } from './share.js';
import { formatDate, formatDateTime, formatNumber, genderWord, prettyUnit } from './format.js';
import { ChartGrid, sparkline } from './vitals-chart.js';
import { KINDS, readingForm, unitWord, youTag } from './readings.js';
import { later, t, tn } from './strings.js';

// ---- Words for the daemon's categories and ranges ----

const WORDS = {
  // Blood pressure, 2017 ACC/AHA.
  elevated: later('app.summary.elevated', 'Elevated'),
  stage_1: later('app.summary.stage_1_hypertension', 'Stage 1 hypertension'),
  stage_2: later('app.summary.stage_2_hypertension', 'Stage 2 hypertension'),
  severe: later('app.summary.severe_above_180_120', 'Severe (above 180/120)'),
  // Adult BMI and BMI-for-age.
  underweight: later('app.summary.underweight', 'Underweight'),
  healthy: later('app.summary.healthy_weight', 'Healthy weight'),
  overweight: later('app.summary.overweight', 'Overweight'),
  obesity: later('app.summary.obesity', 'Obesity'),
  // Glucose and HbA1c (ADA).
  very_low: later('app.summary.very_low', 'Very low'),
  prediabetes: later('app.summary.prediabetes_range', 'Prediabetes range'),
  diabetes: later('app.summary.diabetes_range', 'Diabetes range'),
  not_classified: later('app.summary.not_classified', 'Not classified'),
  // Cholesterol (NCEP ATP III).
  desirable: later('app.summary.desirable', 'Desirable'),
  optimal: later('app.summary.optimal', 'Optimal'),
  near_optimal: later('app.summary.near_optimal', 'Near optimal'),
  borderline_high: later('app.summary.borderline_high', 'Borderline high'),
  high: later('app.summary.high', 'High'),
  very_high: later('app.summary.very_high', 'Very high'),
  low: later('app.summary.low', 'Low'),
  normal: later('app.summary.normal', 'Normal'),
};

const TONES = {
  normal: 'ok', healthy: 'ok', desirable: 'ok', optimal: 'ok',
  elevated: 'warn', stage_1: 'warn', near_optimal: 'warn', borderline_high: 'warn', prediabetes: 'warn',
  overweight: 'warn', underweight: 'warn', low: 'warn',
  stage_2: 'error', severe: 'error', high: 'error', very_high: 'error', diabetes: 'error', obesity: 'error', very_low: 'error',
};

/** A category or range in words: "stage_2" → "Stage 2 hypertension"; one the app does not know, readable. */
export function categoryWord(value) {
  if (value == null) return '';
  const text = String(value);
  return WORDS[text] || (text.charAt(0).toUpperCase() + text.slice(1)).replace(/_/g, ' ');
}

/** A badge for a category: its words, a tone (HDL is better high), and the daemon's value in data-category. */
function categoryBadge(value, { hdl = false, glucose = false } = {}) {
  if (value == null) return null;
  let tone = TONES[value] || 'neutral';
  if (hdl) tone = value === 'high' ? 'ok' : value === 'low' ? 'error' : tone;
  if (glucose && value === 'normal') tone = 'ok';
  const words = glucose && value === 'normal' ? t('app.summary.normal_range', 'Normal range') : categoryWord(value);
  return h('span', { class: `badge ${tone} category`, 'data-category': String(value), text: words });
}

const GLUCOSE_CONTEXT_WORDS = { fasting: 'fasting', before_meal: later('app.summary.before_a_meal', 'before a meal'), after_meal: later('app.summary.after_a_meal', 'after a meal'), random: later('app.summary.any_time', 'any time') };
const LIPIDS = [['total', later('app.summary.total_cholesterol', 'Total cholesterol')], ['ldl', 'LDL'], ['hdl', 'HDL'], ['triglycerides', later('app.summary.triglycerides', 'Triglycerides')]];
const LEVELS = [['pain', later('app.summary.pain', 'Pain'), later('app.summary.0_none_10_worst', '0 none · 10 worst')], ['mood', later('app.summary.mood', 'Mood'), later('app.summary.0_very_low_10_very', '0 very low · 10 very good')], ['energy', later('app.summary.energy', 'Energy'), later('app.summary.0_exhausted_10_full_of', '0 exhausted · 10 full of energy')]];
const TRENDS = { up: ['↑', later('app.summary.going_up', 'going up')], down: ['↓', later('app.summary.going_down', 'going down')], steady: ['→', 'steady'] };

/** Whole years, or months under two: "57 years", "8 months". */
export function ageWords(age) {
  if (age == null || !Number.isFinite(Number(age))) return null;
  const years = Number(age);
  if (years < 2) return tn('app.summary.count.months', Math.max(0, Math.floor(years * 12)), '{n} month', '{n} months');
  return tn('app.summary.count.years', Math.floor(years), '{n} year', '{n} years');
}

const pressureText = (r) => `${formatNumber(r.systolic)}/${formatNumber(r.diastolic)}`;
const withUnit = (value, unit) => `${formatNumber(value)}${unit ? ` ${unitWord(unit)}` : ''}`;

// ---- Tiles, one renderer per module id: (tile, nothing) → {body: Node, charts: [{root, spec}]}, where
// nothing(text) is what a tile with nothing to show says ('' when the module's message says it already: never
// null, which a DOM append would print as "null") ----

/** "The lab's range: 70–99 mg/dL" and, when the value lies outside it, a High/Low flag; '' without one. */
function labRangeLine(value, field) {
  const range = value.source_range;
  if (!range) return '';
  const bounds = range.low != null && range.high != null ? `${formatNumber(range.low)}–${formatNumber(range.high)}`
    : range.high != null ? t('app.summary.below_n', 'below {n}', { n: formatNumber(range.high) }) : t('app.summary.above_n', 'above {n}', { n: formatNumber(range.low) });
  const word = range.high != null && value.value > range.high ? t('app.summary.flag_high', 'High')
    : range.low != null && value.value < range.low ? t('app.summary.flag_low', 'Low') : t('app.summary.flag_outside', 'Outside');
  const outside = value.outside_source_range ? h('span', { class: 'tag flag-tag' }, word) : null;
  return h('p', { class: 'tile-line small', 'data-field': field },
    t('app.summary.the_labs_range', 'The lab’s range: {range}', { range: `${bounds}${value.unit ? ` ${prettyUnit(value.unit)}` : ''}` }), outside);
}

/** One value in a tile: big number, unit, your tag, a category badge, and the day. */
function latestBlock({ value, unit, mine, badge, date, label }) {
  return h('div', { class: 'tile-latest', 'data-field': label },
    h('span', { class: 'tile-value' }, value),
    unit ? h('span', { class: 'tile-unit' }, unit) : null,
    mine ? youTag() : null,
    badge,
    date != null ? h('span', { class: 'tile-when' }, formatDate(date)) : null);
}

function chartBox(spec) {
  const root = h('div', { class: 'tile-chart' });
  return { root, spec: { bare: true, ...spec } };
}

const FIRST_ITEMS = 8;

/** A tile's list: the first items, and a button for the rest (a record can hold hundreds). */
function cappedList(name, items, render) {
  const list = h('ul', { class: 'tile-list', 'data-list': name });
  list.append(...items.slice(0, FIRST_ITEMS).map(render));
  if (items.length <= FIRST_ITEMS) return list;
  const more = h('button', { type: 'button', class: 'button small show-all' }, t('app.summary.show_all', 'Show all {length}', { length: items.length.toLocaleString() }));
  more.addEventListener('click', () => {
    list.append(...items.slice(FIRST_ITEMS).map(render));
    more.remove();
    // The keyboard goes on from the first item added.
    const next = list.children[FIRST_ITEMS];
    next.tabIndex = -1;
    next.focus();
  });
  return h('div', { class: 'tile-list-wrap' }, list, more);
}

function emptyLine(text) {
  return h('p', { class: 'muted tile-empty' }, text);
}

const TILES = {
  'problems-allergies'(tile) {
    const problems = tile.problems || [];
    const allergies = tile.allergies || [];
    const body = h('div', { class: 'tile-lists' });
    body.append(h('h4', null, t('app.summary.problems', 'Problems ({length})', { length: problems.length.toLocaleString() })));
    if (problems.length) {
      body.append(cappedList('problems', problems, (p) => h('li', null,
        h('span', { class: 'item-name', text: p.description || t('app.summary.not_named_in_the_record', 'Not named in the record') }),
        h('span', { class: 'item-meta muted small' }, [p.since != null ? t('app.summary.since', 'since {since}', { since: formatDate(p.since) }) : null, p.status && p.status !== 'active' ? p.status : null].filter(Boolean).join(' · ')),
        p.note ? h('span', { class: 'item-note small' }, t('app.summary.your_note', 'Your note: '), h('span', { text: p.note })) : null)));
    } else {
      body.append(emptyLine(t('app.summary.no_active_problems_in_the', 'No active problems in the record.')));
    }
    body.append(h('h4', null, t('app.summary.allergies', 'Allergies ({length})', { length: allergies.length.toLocaleString() })));
    if (allergies.length) {
      body.append(cappedList('allergies', allergies, (a) => h('li', null,
        h('span', { class: 'item-name', text: a.description || t('app.summary.an_allergy_not_named_in', 'An allergy not named in the record') }),
        h('span', { class: 'item-meta small' },
          [a.reaction ? t('app.summary.reaction', 'reaction: {reaction}', { reaction: a.reaction }) : null, a.severity ? t('app.summary.severity', 'severity: {severity}', { severity: a.severity }) : null, a.since != null ? t('app.summary.since', 'since {since}', { since: formatDate(a.since) }) : null]
            .filter(Boolean).join(' · ') || h('span', { class: 'muted' }, t('app.summary.no_reaction_or_severity_recorded', 'No reaction or severity recorded'))),
        a.note ? h('span', { class: 'item-note small' }, t('app.summary.your_note', 'Your note: '), h('span', { text: a.note })) : null)));
    } else {
      body.append(emptyLine(t('app.summary.no_allergies_in_the_record', 'No allergies in the record.')));
    }
    return { body };
  },

  medications(tile, nothing) {
    const active = tile.active || [];
    if (!active.length) return { body: nothing(t('app.summary.no_current_medications_in_the', 'No current medications in the record.')) };
    return {
      body: cappedList('medications', active, (m) => {
        const own = [m.dose ? t('app.summary.dose', 'dose {dose}', { dose: m.dose }) : null, m.directions ? m.directions : null].filter(Boolean).join(' · ');
        return h('li', null,
          h('span', { class: 'item-name' }, h('span', { text: m.description || t('app.summary.not_named_in_the_record', 'Not named in the record') }), m.self_reported ? [' ', youTag()] : null),
          h('span', { class: 'item-meta muted small' }, m.since != null ? t('app.summary.since', 'since {since}', { since: formatDate(m.since) }) : ''),
          own ? h('span', { class: 'item-own small', text: own }) : null,
          m.note ? h('span', { class: 'item-note small' }, t('app.summary.your_note', 'Your note: '), h('span', { text: m.note })) : null);
      }),
    };
  },

  'blood-pressure'(tile, nothing) {
    const body = h('div', { class: 'tile-figures' });
    const charts = [];
    const latest = tile.latest;
    if (latest) {
      body.append(latestBlock({ label: 'latest', value: pressureText(latest), unit: 'mmHg', mine: latest.self_reported, badge: categoryBadge(tile.category), date: latest.date }));
    } else {
      body.append(nothing(t('app.summary.no_blood_pressure_readings_yet', 'No blood pressure readings yet.')));
    }
    const average = tile.average;
    if (average) {
      body.append(h('p', { class: 'tile-line', 'data-field': 'average' },
        t('app.summary.average_of_the_last', 'Average of the last {count}: ', { count: average.count ?? '' }), h('strong', null, `${pressureText(average)} mmHg`), ' ', categoryBadge(average.category)));
    }
    const readings = tile.readings || [];
    if (readings.length > 1) {
      const dates = readings.map((r) => r.date);
      const mine = readings.map((r) => Boolean(r.self_reported));
      const box = chartBox({
        title: t('app.summary.blood_pressure', 'Blood pressure'), unit: 'mm[Hg]', pressure: true,
        series: [
          { name: t('app.summary.systolic', 'Systolic'), values: readings.map((r) => r.systolic), dates, mine },
          { name: t('app.summary.diastolic', 'Diastolic'), values: readings.map((r) => r.diastolic), dates, mine, second: true },
        ],
      });
      charts.push(box);
      body.append(box.root);
    }
    if (tile.guideline) body.append(h('p', { class: 'muted small tile-source' }, t('app.summary.categories_from', 'Categories from {guideline}.', { guideline: tile.guideline })));
    return { body, charts };
  },

  'weight-bmi'(tile, nothing) {
    const body = h('div', { class: 'tile-figures' });
    const charts = [];
    const latest = tile.latest;
    if (latest) {
      const row = h('div', { class: 'tile-facts' });
      if (latest.weight != null) row.append(fact(t('app.summary.weight', 'Weight'), withUnit(latest.weight, 'kg'), 'weight'));
      if (latest.height != null) row.append(fact(t('app.summary.height', 'Height'), withUnit(latest.height, 'cm'), 'height'));
      if (latest.bmi != null) row.append(fact('BMI', formatNumber(latest.bmi), 'bmi'));
      body.append(row);
      const judged = h('p', { class: 'tile-line', 'data-field': 'category' });
      if (tile.percentile != null) judged.append(t('app.summary.bmi_for_age_percentile', 'BMI-for-age percentile {percentile}', { percentile: formatNumber(tile.percentile) }), ' ');
      if (tile.category) judged.append(categoryBadge(tile.category));
      if (latest.date != null) judged.append(' ', h('span', { class: 'tile-when' }, formatDate(latest.date)));
      if (judged.childNodes.length) body.append(judged);
    } else {
      body.append(nothing(t('app.summary.no_weight_or_height_recorded', 'No weight or height recorded yet.')));
    }
    const weights = tile.weights || [];
    const lastWeight = weights[weights.length - 1];
    if (lastWeight?.self_reported) body.append(h('p', { class: 'small' }, t('app.summary.latest_weight', 'Latest weight: '), youTag()));
    if (weights.length > 1) {
      const box = chartBox({ title: t('app.summary.weight', 'Weight'), unit: 'kg', series: [{ name: t('app.summary.weight', 'Weight'), values: weights.map((w) => w.value), dates: weights.map((w) => w.date), mine: weights.map((w) => Boolean(w.self_reported)) }] });
      charts.push(box);
      body.append(box.root);
    }
    return { body, charts };
  },

  'blood-sugar'(tile, nothing) {
    const body = h('div', { class: 'tile-figures' });
    const charts = [];
    const glucose = tile.glucose;
    const hba1c = tile.hba1c;
    if (glucose) {
      body.append(h('p', { class: 'tile-label' }, t('app.summary.glucose', 'Glucose'), glucose.context ? h('span', { class: 'muted' }, ` (${GLUCOSE_CONTEXT_WORDS[glucose.context] || glucose.context})`) : null));
      // A reading the rules cannot place (no fasting or meal context) but the lab gave a range for: the lab's
      // line says where it lies; a "Not classified" badge beside its "High" would only confuse.
      const unplaced = glucose.range === 'not_classified' && glucose.source_range;
      body.append(latestBlock({ label: 'glucose', value: formatNumber(glucose.value), unit: prettyUnit(glucose.unit), mine: glucose.self_reported, badge: unplaced ? null : categoryBadge(glucose.range, { glucose: true }), date: glucose.date }));
      body.append(labRangeLine(glucose, 'glucose-lab'));
    }
    if (hba1c) {
      body.append(h('p', { class: 'tile-label' }, t('app.summary.hba1c', 'HbA1c')));
      body.append(latestBlock({ label: 'hba1c', value: formatNumber(hba1c.value), unit: prettyUnit(hba1c.unit), badge: categoryBadge(hba1c.range, { glucose: true }), date: hba1c.date }));
      body.append(labRangeLine(hba1c, 'hba1c-lab'));
    }
    if (!glucose && !hba1c) body.append(nothing(t('app.summary.no_glucose_or_hba1c_recorded', 'No glucose or HbA1c recorded yet.')));
    const readings = tile.readings || [];
    if (readings.length > 1) {
      const box = chartBox({ title: t('app.summary.glucose', 'Glucose'), unit: glucose?.unit || 'mg/dL', series: [{ name: t('app.summary.glucose', 'Glucose'), values: readings.map((r) => r.value), dates: readings.map((r) => r.date), mine: readings.map((r) => Boolean(r.self_reported)) }] });
      charts.push(box);
      body.append(box.root);
    }
    return { body, charts };
  },

  cholesterol(tile, nothing) {
    const rows = LIPIDS.filter(([key]) => tile[key]).map(([key, name]) => {
      const lipid = tile[key];
      return h('tr', { 'data-lipid': key },
        h('th', { scope: 'row' }, name),
        h('td', { class: 'num' }, withUnit(lipid.value, lipid.unit)),
        h('td', null, categoryBadge(lipid.range, { hdl: key === 'hdl' })),
        h('td', { class: 'muted small' }, formatDate(lipid.date)));
    });
    if (!rows.length) return { body: nothing(t('app.summary.no_cholesterol_results_in_the', 'No cholesterol results in the record yet.')) };
    return { body: h('table', { class: 'tile-table' }, h('tbody', null, rows)) };
  },

  immunizations(tile, nothing) {
    const vaccines = tile.vaccines || [];
    if (!vaccines.length) return { body: nothing(t('app.summary.no_immunizations_in_the_record', 'No immunizations in the record.')) };
    return {
      body: cappedList('vaccines', vaccines, (v) => h('li', null,
        h('span', { class: 'item-name', text: v.name || t('app.summary.not_named_in_the_record', 'Not named in the record') }),
        h('span', { class: 'item-meta muted small' }, [v.last_date != null ? t('app.summary.last', 'last {last_date}', { last_date: formatDate(v.last_date) }) : null, v.doses ? tn('app.summary.count.doses', v.doses, '{n} dose', '{n} doses') : null].filter(Boolean).join(' · ')))),
    };
  },

  feelings(tile, nothing) {
    const rows = LEVELS.filter(([key]) => tile[key]).map(([key, name, scale]) => {
      const level = tile[key];
      const values = (level.values || []).map((v) => v.value);
      const dates = (level.values || []).map((v) => v.date);
      const [arrow, trendWords] = TRENDS[level.trend] || ['', level.trend || ''];
      const label = t('app.summary.0_10_over_latest', '{name} (0–10) over {length}{value}: {value2}. Latest {latest}{value3}.', {
        name,
        length: tn('app.summary.count.posts', values.length, '{n} post', '{n} posts'),
        value: values.length ? t('app.summary.from_to', ' from {first} to {last}', { first: formatDate(Math.min(...dates)), last: formatDate(Math.max(...dates)) }) : '',
        value2: values.join(', '), latest: level.latest, value3: trendWords ? `, ${trendWords}` : '',
      });
      return h('div', { class: 'level-row', 'data-level': key },
        h('span', { class: 'level-name' }, name, h('span', { class: 'visually-hidden' }, ` (${scale})`)),
        sparkline(values, dates, { label, range: [0, 10] }),
        h('span', { class: 'level-latest' }, formatNumber(level.latest)),
        h('span', { class: 'level-trend muted small', title: trendWords }, h('span', { 'aria-hidden': 'true' }, arrow), ` ${trendWords}`));
    });
    if (!rows.length) return { body: nothing(t('app.summary.nothing_posted_yet_say_how', 'Nothing posted yet. Say how you feel under How do you feel? on the timeline.')) };
    return { body: h('div', { class: 'levels-tile' }, rows, h('p', { class: 'muted small tile-source' }, t('app.summary.levels_0_10_that_you', 'Levels 0–10 that you post from the timeline.'))) };
  },
};

function fact(term, value, field) {
  return h('div', { class: 'tile-fact', 'data-field': field }, h('span', { class: 'muted small' }, term), h('span', { class: 'tile-value' }, value));
}

/** A module the app does not know yet: its data as keys and values (nested objects as nested lists). */
export function genericView(value, key = '', depth = 0) {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  if (Array.isArray(value)) {
    if (!value.length) return h('span', { class: 'muted' }, 'none');
    const shown = value.slice(0, 20);
    return h('ol', { class: 'generic-list' }, shown.map((item) => h('li', null, genericView(item, key, depth + 1))),
      value.length > shown.length ? h('li', { class: 'muted' }, t('app.summary.and_more', 'and {value} more', { value: (value.length - shown.length).toLocaleString() })) : null);
  }
  if (typeof value === 'object') {
    if (depth > 4) return h('span', { class: 'muted' }, '…');
    const dl = h('dl', { class: 'facts generic' });
    for (const [name, inner] of Object.entries(value)) {
      dl.append(h('dt', null, name.replace(/_/g, ' ')), h('dd', null, genericView(inner, name, depth + 1)));
    }
    return dl;
  }
  if (typeof value === 'number' && /(^|_)(date|since|at|time)$/.test(key) && value > 100000000) return document.createTextNode(formatDate(value));
  if (typeof value === 'number') return document.createTextNode(formatNumber(value));
  if (typeof value === 'boolean') return document.createTextNode(value ? t('app.summary.yes', 'yes') : t('app.summary.no', 'no'));
  return document.createTextNode(String(value));
}

// ---- The view ----

export class SummaryView {
  /**
   * root: the Summary's section in index.html. api: addReading(patient, body). personId(): whose summary
   * it is. onReadingSaved(): loads the summary again (a promise). onChooseTiles(button) opens Choose
   * tiles; Print for a doctor calls window.print() (the print stylesheet shows the print sheet).
   */
  constructor(root, { api, personId, onReadingSaved, onChooseTiles }) {
    this.root = root;
    this.api = api;
    this.personId = personId;
    this.onReadingSaved = onReadingSaved;
    this.tiles = root.querySelector('#tiles');
    this.generated = root.querySelector('#summary-generated');
    this.sheet = root.querySelector('#print-sheet');
    this.grids = [];
    this.flash = null; // {module, text}: said in that tile once it is drawn again
    this.openForms = new Set(); // modules whose "Add a reading" is open
    root.querySelector('#choose-tiles').addEventListener('click', (event) => onChooseTiles(event.currentTarget));
    root.querySelector('#print-summary').addEventListener('click', () => window.print());
    // The sheet says the day it is printed: filled again when the browser prints (a page left open overnight).
    this.shown = null; // {data, person} drawn last
    window.addEventListener('beforeprint', () => {
      if (this.shown && !root.hidden) fillPrintSheet(this.sheet, this.shown.data, this.shown.person);
    });
  }

  reset() {
    for (const grid of this.grids) grid.disconnect();
    this.grids = [];
    clear(this.tiles);
    clear(this.sheet);
    this.generated.textContent = '';
    this.flash = null;
    this.shown = null;
    this.openForms.clear();
  }

  /** data: summary.json. person: the person as the picker has them (for the printed header), or null.
   *  printed: summary.json of every module (?modules=all), for the sheet on paper. */
  render(data, person = null, printed = data) {
    for (const grid of this.grids) grid.disconnect();
    this.grids = [];
    const modules = data.modules || [];
    this.generated.textContent = data.generated_at != null ? t('app.summary.as_of', 'As of {generated_at}', { generated_at: formatDateTime(data.generated_at) }) : '';
    const root = clear(this.tiles);
    // A person who has died: said first; the tiles show the record as it was kept, with no forms to add to it.
    this.deceased = Boolean(data.patient?.deceased);
    if (this.deceased) root.append(h('p', { class: 'note deceased-note', role: 'note' }, diedSentence(data.patient, person)));
    if (!modules.length) {
      root.append(h('div', { class: 'empty' },
        h('p', null, h('strong', null, t('app.summary.no_tiles_are_chosen_for', 'No tiles are chosen for this summary.'))),
        h('p', { class: 'muted' }, t('app.summary.choose_tiles_to_show_what', 'Choose tiles to show what matters to you: blood pressure, weight, medications and more.')),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button primary', onclick: () => this.root.querySelector('#choose-tiles').click() }, t('app.summary.choose_tiles', 'Choose tiles')))));
    }
    const charts = [];
    modules.forEach((module, index) => {
      const { tile, charts: own } = this.tile(module, index);
      root.append(tile);
      charts.push(...own);
    });
    // Charts are drawn once their tile is in the page: they take its width (all read in one layout).
    this.grids = charts.map(({ root: box }) => new ChartGrid(box));
    ChartGrid.renderAll(charts.map(({ spec }, i) => [this.grids[i], [spec], '']));
    const flash = this.flash;
    this.flash = null;
    if (flash) {
      const status = root.querySelector(`.tile[data-module="${CSS.escape(flash.module)}"] .tile-status`);
      if (status) {
        status.textContent = flash.text;
        status.focus();
      }
    }
    this.shown = { data: printed, person };
    fillPrintSheet(this.sheet, printed, person);
  }

  tile(module, index) {
    const id = `tile-${index}`;
    const tile = h('article', { class: 'tile', 'data-module': module.id || '', 'aria-labelledby': `${id}-title` });
    tile.append(h('div', { class: 'tile-head' }, h('h3', { id: `${id}-title`, text: module.name || module.id || t('app.summary.module', 'Module') })));
    if (module.message) tile.append(h('p', { class: 'tile-message', text: module.message }));
    let body;
    let charts = [];
    const renderer = TILES[module.id];
    const nothing = (text) => (module.message ? '' : emptyLine(text));
    try {
      ({ body, charts = [] } = renderer ? renderer(module.tile || {}, nothing) : { body: genericView(module.tile ?? null) });
    } catch {
      // A tile whose shape changed under the app: its data as keys and values rather than nothing.
      body = genericView(module.tile ?? null);
      charts = [];
    }
    tile.append(h('div', { class: ['tile-body', !renderer && 'generic'] }, body));
    tile.append(h('p', { class: 'tile-status form-note', role: 'status', tabindex: '-1' }));
    const kinds = this.deceased ? [] : (module.accepts || []).filter((kind) => KINDS[kind]);
    if (kinds.length) tile.append(this.addReading(module, kinds, id));
    return { tile, charts };
  }

  addReading(module, kinds, id) {
    const details = h('details', { class: 'disclosure add-reading' });
    details.open = this.openForms.has(module.id);
    details.addEventListener('toggle', () => {
      if (details.open) this.openForms.add(module.id); else this.openForms.delete(module.id);
    });
    const built = readingForm({
      kinds, id: `${id}-reading`,
      onSubmit: async (body) => {
        const stored = (await this.api.addReading(this.personId(), body))?.reading;
        this.flash = { module: module.id, text: t('app.summary.saved_your_reading', 'Saved your reading: {value} {value2}', { value: KINDS[body.kind].name.toLowerCase(), value2: stored ? describeValue(stored) : '' }).trim() + '.' };
        this.openForms.delete(module.id);
        await this.onReadingSaved();
      },
    });
    details.append(h('summary', null, t('app.summary.add_a_reading', 'Add a reading'), h('span', { class: 'visually-hidden' }, ` (${module.name || module.id})`)), built.form);
    return details;
  }
}

function describeValue(reading) {
  if (reading.kind === 'blood_pressure') return `${pressureText(reading)} mmHg`;
  return withUnit(reading.value, reading.unit);
}

// ---- On paper: a summary to hand to a doctor ----

const byId = (data, id) => (data.modules || []).find((m) => m.id === id);

/** A table on paper; each cell is classed by its column (col-since, col-dose…) for the print stylesheet. */
function table(caption, heads, rows, { className = '' } = {}) {
  const columns = heads.map((head) => `col-${head.toLowerCase().replace(/[^a-z]+/g, '-')}`);
  return h('table', { class: ['print-table', className] },
    caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
    h('thead', null, h('tr', null, heads.map((head) => h('th', { scope: 'col' }, head)))),
    h('tbody', null, rows.map((cells) => h('tr', null, cells.map((cell, i) => h('td', { class: columns[i] }, cell ?? '—'))))));
}

/** A long list's table as two tables side by side (the first half, then the second). */
function halves(caption, heads, rows, options = {}, least = 6) {
  if (rows.length < least) return table(caption, heads, rows, options);
  const half = Math.ceil(rows.length / 2);
  return h('div', { class: 'print-halves' }, table(caption, heads, rows.slice(0, half), options), table(t('app.summary.continued', '{caption} (continued)', { caption }), heads, rows.slice(half), options));
}

function section(title, ...content) {
  return h('section', { class: 'print-section' }, h('h2', null, title), ...content);
}

const self = (flag) => (flag ? t('app.summary.self_reported', ' (self-reported)') : '');

/** A name on paper with the person's own note under it. */
const named = (name, note) => (note ? h('span', null, name, h('span', { class: 'print-cell-note' }, t('app.summary.note', 'Note: {note}', { note }))) : name);

/** The printed summary: who, when printed, problems, allergies, medications, latest measurements, vaccines. */
export function fillPrintSheet(sheet, data, person) {
  const root = clear(sheet);
  const patient = data.patient || {};
  const born = patient.birthdate ?? person?.birthdate;
  const died = patient.deceased ?? person?.deceased;
  const diedOn = patient.deceased_date ?? person?.deceased_date;
  const facts = [
    born != null ? t('app.summary.born', 'Born {born}', { born: formatDate(born) }) : null,
    died ? (diedOn != null ? t('app.summary.died_on', 'Died {died}', { died: formatDate(diedOn) }) : t('app.summary.died', 'Died')) : null,
    died ? (patient.age != null ? tn('app.summary.count.aged', Math.floor(Number(patient.age)), 'aged {n}', 'aged {n}') : null) : ageWords(patient.age),
    genderWord(patient.gender ?? person?.gender),
  ].filter(Boolean).join(' · ');
  root.append(h('header', { class: 'print-head' },
    h('p', { class: 'print-kind' }, t('app.summary.health_summary', 'Health summary')),
    h('h1', { text: patient.name || t('app.summary.unnamed', 'Unnamed') }),
    facts ? h('p', { class: 'print-facts', text: facts }) : null,
    died ? h('p', { class: 'print-deceased', text: diedSentence(patient, person) }) : null,
    h('p', { class: 'print-meta' }, t('app.summary.printed_from_the_persons_own', 'Printed {now} from the person’s own health record (hreaderd), as of {generated_at}.', { now: formatDate(Date.now() / 1000), generated_at: formatDateTime(data.generated_at ?? Date.now() / 1000) }))));

  // The sections in the order and with the names of the documents for a doctor (Share: js/share.js).
  const problems = byId(data, 'problems-allergies')?.tile;
  if (problems) {
    const list = problems.problems || [];
    root.append(section(sectionTitle('problems'), list.length
      ? halves(sectionTitle('problems'), [t('app.summary.problem', 'Problem'), t('app.summary.since_2', 'Since')], list.map((p) => [named(p.description || t('app.summary.not_named', 'Not named'), p.note), p.since != null ? formatDate(p.since) : '—']))
      : h('p', null, t('app.summary.no_active_problems_in_the', 'No active problems in the record.'))));
    const allergies = problems.allergies || [];
    root.append(section(sectionTitle('allergies'), allergies.length
      ? table(sectionTitle('allergies'), [t('app.summary.allergy', 'Allergy'), t('app.summary.reaction_2', 'Reaction'), t('app.summary.severity_2', 'Severity'), t('app.summary.since_2', 'Since')], allergies.map((a) => [named(a.description || t('app.summary.not_named_in_the_record', 'Not named in the record'), a.note), a.reaction || '—', a.severity || '—', a.since != null ? formatDate(a.since) : '—']))
      : h('p', null, t('app.summary.no_allergies_recorded_in_this', 'No allergies recorded in this record (not the same as no known allergies: ask).'))));
  }

  const medications = byId(data, 'medications')?.tile;
  if (medications) {
    const list = medications.active || [];
    root.append(section(sectionTitle('medications'), list.length
      ? table(sectionTitle('medications'), [t('app.summary.medication', 'Medication'), t('app.summary.since_2', 'Since'), t('app.summary.dose_2', 'Dose'), t('app.summary.directions', 'Directions')], list.map((m) => [
        named(`${m.description || t('app.summary.not_named', 'Not named')}${m.self_reported ? t('app.summary.added_by_the_person', ' (added by the person)') : ''}`, m.note), m.since != null ? formatDate(m.since) : '—', m.dose || '—', m.directions || '—']))
      : h('p', null, t('app.summary.no_current_medications_in_the', 'No current medications in the record.'))));
  }

  const vaccines = byId(data, 'immunizations')?.tile?.vaccines;
  if (vaccines) {
    root.append(section(t('app.summary.immunizations_last_dose_of_each', 'Immunizations (last dose of each vaccine)'), vaccines.length
      ? halves(t('app.summary.immunizations', 'Immunizations'), [t('app.summary.vaccine', 'Vaccine'), t('app.summary.last_dose', 'Last dose'), t('app.summary.doses', 'Doses')], vaccines.map((v) => [v.name || t('app.summary.not_named', 'Not named'), v.last_date != null ? formatDate(v.last_date) : '—', v.doses != null ? String(v.doses) : '—']), {}, 4)
      : h('p', null, t('app.summary.no_immunizations_in_the_record', 'No immunizations in the record.'))));
  }

  const results = resultRows(data);
  if (results.length) {
    root.append(section(sectionTitle('results'), table(sectionTitle('results'), [t('app.summary.measurement', 'Measurement'), t('app.summary.value', 'Value'), t('app.summary.date', 'Date'), t('app.summary.interpretation', 'Interpretation')], results, { className: 'measurements' })));
  }
  const rows = vitalRows(data);
  if (rows.length) {
    const measured = section(sectionTitle('vital-signs'), table(sectionTitle('vital-signs'), [t('app.summary.measurement', 'Measurement'), t('app.summary.value', 'Value'), t('app.summary.date', 'Date'), t('app.summary.interpretation', 'Interpretation')], rows, { className: 'measurements' }));
    const pressure = byId(data, 'blood-pressure')?.tile;
    const recent = (pressure?.readings || []).slice(-8);
    if (recent.length > 1) {
      measured.append(h('p', { class: 'print-note' }, h('strong', null, t('app.summary.recent_blood_pressure_readings', 'Recent blood pressure readings: ')),
        recent.map((r) => t('app.summary.reading_on', '{reading} on {date}', { reading: pressureText(r), date: formatDate(r.date) }) + self(r.self_reported)).join('; '), '.'));
    }
    measured.append(h('p', { class: 'print-note muted' }, t('app.summary.values_marked_self_reported_were', 'Values marked “self-reported” were measured by the person at home; the others come from clinics’ records. '),
      t('app.summary.interpretations_blood_pressure_by_the', 'Interpretations: blood pressure by the 2017 ACC/AHA guideline, BMI by the CDC, glucose and HbA1c by the ADA Standards of Care, cholesterol by NCEP ATP III.')));
    root.append(measured);
  }

  // Modules the app has no layout for: their message, so that nothing shown on screen is lost on paper.
  const others = (data.modules || []).filter((m) => !TILES[m.id] && m.message);
  if (others.length) {
    root.append(section(t('app.summary.other', 'Other'), h('ul', null, others.map((m) => h('li', null, h('strong', null, `${m.name || m.id}: `), m.message)))));
  }
}

/** "Ruth Elder died on May 14, 2019, aged 86. This summary shows the record as it was kept." */
function diedSentence(patient, person) {
  const name = patient.name || person?.name || t('app.summary.this_person', 'This person');
  const when = patient.deceased_date ?? person?.deceased_date;
  const years = patient.age != null ? Math.floor(Number(patient.age)) : null;
  const died = when == null ? t('app.summary.person_died', '{name} died.', { name })
    : years == null ? t('app.summary.person_died_on', '{name} died on {date}.', { name, date: formatDate(when) })
      : tn('app.summary.count.person_died_on_aged', years, '{name} died on {date}, aged {n}.', '{name} died on {date}, aged {n}.', { name, date: formatDate(when) });
  return `${died} ${t('app.summary.record_as_it_was_kept', 'This summary shows the record as it was kept.')}`;
}

/** Vital signs on paper: blood pressure, weight, height, BMI. */
function vitalRows(data) {
  const rows = [];
  const pressure = byId(data, 'blood-pressure')?.tile;
  if (pressure?.latest) {
    const latest = pressure.latest;
    rows.push([t('app.summary.blood_pressure', 'Blood pressure'), `${pressureText(latest)} mmHg${self(latest.self_reported)}`, formatDate(latest.date), categoryWord(pressure.category)]);
    if (pressure.average) {
      rows.push([t('app.summary.blood_pressure_average_of_last', 'Blood pressure, average of last {count}', { count: pressure.average.count }), `${pressureText(pressure.average)} mmHg`, '', categoryWord(pressure.average.category)]);
    }
  }
  const weight = byId(data, 'weight-bmi')?.tile;
  if (weight?.latest) {
    const latest = weight.latest;
    const weights = weight.weights || [];
    const mine = weights.length && weights[weights.length - 1].self_reported;
    if (latest.weight != null) rows.push([t('app.summary.weight', 'Weight'), `${formatNumber(latest.weight)} kg${self(mine)}`, formatDate(latest.date), '']);
    if (latest.height != null) rows.push([t('app.summary.height', 'Height'), `${formatNumber(latest.height)} cm`, formatDate(latest.date), '']);
    if (latest.bmi != null) {
      const judged = [weight.percentile != null ? t('app.summary.bmi_for_age_percentile', 'BMI-for-age percentile {percentile}', { percentile: formatNumber(weight.percentile) }) : null, categoryWord(weight.category)].filter(Boolean).join(': ');
      rows.push(['BMI', `${formatNumber(latest.bmi)} kg/m²`, formatDate(latest.date), judged]);
    }
  }
  return rows;
}

/** Results on paper: glucose, HbA1c, cholesterol. */
function resultRows(data) {
  const rows = [];
  const sugar = byId(data, 'blood-sugar')?.tile;
  if (sugar?.glucose) {
    const g = sugar.glucose;
    rows.push([g.context ? t('app.summary.glucose_context', 'Glucose, {context}', { context: GLUCOSE_CONTEXT_WORDS[g.context] || g.context }) : t('app.summary.glucose', 'Glucose'), `${withUnit(g.value, g.unit)}${self(g.self_reported)}`, formatDate(g.date), g.range === 'normal' ? t('app.summary.normal_range', 'Normal range') : categoryWord(g.range)]);
  }
  if (sugar?.hba1c) rows.push([t('app.summary.hba1c', 'HbA1c'), withUnit(sugar.hba1c.value, sugar.hba1c.unit), formatDate(sugar.hba1c.date), categoryWord(sugar.hba1c.range)]);
  const lipids = byId(data, 'cholesterol')?.tile;
  for (const [key, name] of LIPIDS) {
    const lipid = lipids?.[key];
    if (lipid) rows.push([name, withUnit(lipid.value, lipid.unit), formatDate(lipid.date), categoryWord(lipid.range)]);
  }
  return rows;
}
