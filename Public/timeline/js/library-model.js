// The pure parts of the health library's views (library.js, about-entry.js, library-banner.js): what a
// snippet's parts become, a summary cut short, the source lines a topic or a vaccine carries, and what the
// update banner says at each state of an update. No DOM here: node --test reads them (Tests/webapp).

import { formatBytes } from './format.js';
import { t } from './strings.js';

/**
 * A snippet ([{text, match}], the daemon's parts) as runs to draw: [{text, mark}], empty parts left out and
 * neighbours of the same kind joined. The text stays text: the view makes a text node or a <mark> of each.
 */
export function snippetRuns(parts) {
  const runs = [];
  for (const part of Array.isArray(parts) ? parts : []) {
    const text = part && part.text != null ? String(part.text) : '';
    if (!text) continue;
    const mark = Boolean(part.match);
    const last = runs[runs.length - 1];
    if (last && last.mark === mark) last.text += text;
    else runs.push({ text, mark });
  }
  return runs;
}

/** A snippet's runs as DOM nodes: text nodes, and <mark> elements whose text is set as text. */
export function snippetNodes(parts, doc = document) {
  return snippetRuns(parts).map((run) => {
    if (!run.mark) return doc.createTextNode(run.text);
    const mark = doc.createElement('mark');
    mark.textContent = run.text;
    return mark;
  });
}

/**
 * A summary cut short for "About this": whole sentences up to about `limit` characters (at least the
 * first, cut at a word and ended with "…" when even that is longer). {text, cut}: cut tells whether there
 * is more to show.
 */
export function shortSummary(summary, limit = 280) {
  const text = String(summary || '').replace(/\s+/g, ' ').trim();
  if (text.length <= limit) return { text, cut: false };
  // Sentence ends: ". " "? " "! " followed by a capital letter or a digit.
  let end = 0;
  const sentence = /[.!?](?=\s+["“(]?[A-Z0-9])/g;
  for (let match = sentence.exec(text); match; match = sentence.exec(text)) {
    const at = match.index + 1;
    if (at > limit) break;
    end = at;
  }
  if (end >= limit / 3) return { text: text.slice(0, end), cut: true };
  const space = text.lastIndexOf(' ', limit);
  const cutAt = space > limit / 2 ? space : limit;
  return { text: `${text.slice(0, cutAt).replace(/[\s,;:.]+$/, '')}…`, cut: true };
}

// A question that opens a part of a MedlinePlus summary ("What is asthma?", "Who is at risk for …?").
const QUESTION = String.raw`(?:What|Who|How|Why|When|Where|Which|Can|Is|Are|Do|Does|Should|Will)\b[^.!?]{0,160}\?`;
const QUESTION_START = new RegExp(String.raw`(?<=[.!?:])\s+(?=` + QUESTION + ')');
const LEAD = new RegExp('^(' + QUESTION + String.raw`)\s*([\s\S]*)$`);

/**
 * A summary (flat text, as the pack holds it) as paragraphs: a new one at each question that opens a part of
 * it, the question as its lead. [{lead, text}]; lead '' for a paragraph that does not open with one.
 */
export function summaryParagraphs(summary) {
  const text = String(summary || '').replace(/\s+/g, ' ').trim();
  if (!text) return [];
  return text.split(QUESTION_START).map((part) => {
    const match = LEAD.exec(part);
    return match ? { lead: match[1], text: match[2] } : { lead: '', text: part };
  });
}

/**
 * What "About this" shows before Read more: the first paragraph's words (its question left out, the topic's
 * title says as much), cut short. {text, cut}: cut tells whether there is more.
 */
export function aboutSummary(summary, limit = 280) {
  const paragraphs = summaryParagraphs(summary);
  if (!paragraphs.length) return { text: '', cut: false };
  const first = paragraphs[0].text || paragraphs[0].lead;
  const short = shortSummary(first, limit);
  return { text: short.text, cut: short.cut || paragraphs.length > 1 || Boolean(paragraphs[0].lead && paragraphs[0].text) };
}

/** Whose content an attribution is: 'cdc' or 'medlineplus' (the default: topics are MedlinePlus's). */
export function publisherOf(attribution, fallback = 'medlineplus') {
  const named = String(attribution?.publisher || '').toLowerCase();
  if (named === 'cdc' || named === 'medlineplus') return named;
  const source = String(attribution?.source || '');
  if (/\bCDC\b/.test(source)) return 'cdc';
  if (/MedlinePlus/i.test(source)) return 'medlineplus';
  return fallback;
}

/**
 * The lines to show under library content: the source ("Source: MedlinePlus, National Library of
 * Medicine" or "Source: CDC"), the topic's credit when it has one, and that the publisher does not endorse
 * hreaderd. From the string table, the daemon's own English lines as the fallback.
 * Returns [{kind: 'source'|'credit'|'endorsement', text}].
 */
export function attributionLines(attribution, { publisher, credit } = {}) {
  const who = publisher || publisherOf(attribution);
  const lines = [];
  const sourceFallback = who === 'cdc' ? 'Source: CDC' : 'Source: MedlinePlus, National Library of Medicine';
  lines.push({ kind: 'source', text: t(`library.source.${who}`, sourceFallback) });
  const creditText = credit ?? attribution?.credit;
  if (creditText) lines.push({ kind: 'credit', text: t('library.source.credit', 'Credit: {credit}', { credit: creditText }) });
  const endorsementFallback = attribution?.endorsement || attribution?.disclaimer || (who === 'cdc'
    ? "Use of CDC's vaccine codes does not imply endorsement of hreaderd by CDC."
    : 'MedlinePlus and the National Library of Medicine do not endorse hreaderd.');
  lines.push({ kind: 'endorsement', text: t(`library.disclaimer.${who}`, endorsementFallback) });
  return lines;
}

/** A pack's size for a person: "2.1 MB" (the app's one way of writing sizes). */
export function packSize(bytes) {
  return Number.isFinite(bytes) && bytes >= 0 ? formatBytes(bytes) : '';
}

/** Whole percent of done/total (0-100), or null when the total is not known. */
export function percent(done, total) {
  if (!Number.isFinite(total) || total <= 0 || !Number.isFinite(done)) return null;
  return Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}

/** Whether the daemon is working on an update now (the app polls while it is). */
export function updateRunning(library) {
  const state = library?.update?.state;
  return state === 'downloading' || state === 'verifying';
}

/**
 * What the update banner shows for GET /library.json, or null for nothing. `started`: this page asked for
 * the update (its end is then said, "Updated to X" or why it failed, until dismissed).
 * {state, text, progress: {value, max} | null, action: 'update' | 'retry' | null}.
 */
export function bannerModel(library, { started = false } = {}) {
  if (!library) return null;
  const update = library.update || { state: 'idle' };
  const available = library.available;
  switch (update.state) {
    case 'downloading': {
      const total = Number.isFinite(update.total) && update.total > 0 ? update.total : available?.bytes;
      const done = Number.isFinite(update.done) ? update.done : 0;
      const pc = percent(done, total);
      const text = pc === null
        ? t('library.update.downloading_unknown', 'Downloading the library update…')
        : `${t('library.update.downloading', 'Downloading the library update: {percent}%', { percent: pc })} (${t('library.update.progress', '{done} of {total}', { done: packSize(done), total: packSize(total) })})`;
      return { state: 'downloading', text, progress: pc === null ? { value: null, max: 1 } : { value: done, max: total }, action: null };
    }
    case 'verifying':
      return { state: 'verifying', text: t('library.update.verifying', 'Checking the library update…'), progress: { value: null, max: 1 }, action: null };
    case 'failed':
      if (!started && !available) return null;
      return {
        state: 'failed',
        // The daemon's reason often ends as the table's text does ("The installed pack stays."): said once.
        text: t('library.update.failed', 'The library update failed: {reason} The library you have stays as it was.', {
          reason: sentence(update.error).replace(/(?<=[.!?])\s*The installed pack stays\.$/, ''),
        }),
        progress: null,
        action: available ? 'retry' : null,
      };
    case 'installed':
      if (!started) return null;
      return {
        state: 'installed',
        text: t('library.update.installed', 'The library was updated to version {version}.', { version: library.installed?.version || '' }),
        progress: null,
        action: null,
      };
    default:
      if (!available) return null;
      return {
        state: 'available',
        text: t('library.update.offer', 'A new health library (version {version}, {size}) is available.', { version: available.version, size: packSize(available.bytes) }),
        progress: null,
        action: 'update',
      };
  }
}

/** An error from the daemon as a sentence: its message (or its code in words), ending with a full stop. */
export function sentence(error) {
  let text = typeof error === 'string' ? error : error?.message || error?.code || '';
  text = String(text).trim();
  if (!text) text = t('library.update.unknown_error', 'no reason was given');
  if (!/[.!?]$/.test(text)) text += '.';
  return text;
}

/** The words of a search, as the daemon's snippet would match them, for nothing else than trimming. */
export function cleanQuery(text) {
  return String(text || '').replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** [[group, count]] of a list of results, most topics first, then by name. */
export function groupCounts(results) {
  const counts = new Map();
  for (const result of results || []) {
    for (const group of new Set(result.groups || [])) {
      if (group) counts.set(group, (counts.get(group) || 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Only http(s) addresses become links: a pack cannot make the page run a javascript: address. */
export function isWebAddress(url) {
  try {
    const parsed = new URL(String(url));
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}
