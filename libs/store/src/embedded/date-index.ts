import type { DocumentId } from "../collection.js";
import { getPath } from "../paths.js";
import type { Doc } from "./documents.js";

/** A range on Dates, as epoch milliseconds: what `$gt`/`$gte` and `$lt`/`$lte` with Date bounds admit. */
export interface DateRange {
  low?: number;
  lowInclusive: boolean;
  high?: number;
  highInclusive: boolean;
}

/**
 * The Dates the documents hold at one path (the first field of an index), kept sorted, so that a
 * range on them ("created before", what retention sweeps ask) reads the documents in it instead of
 * scanning the collection. A range with Date bounds matches Dates only (MongoDB's type bracketing,
 * which mingo follows), so documents holding anything else there are rightly never found through it.
 */
export class DateIndex {
  private times: number[] = [];
  /** The document holding each time; undefined where one was removed and not compacted away yet. */
  private ids: Array<DocumentId | undefined> = [];
  private removed = 0;

  constructor(readonly path: string) {}

  add(doc: Doc): void {
    for (const time of datesAt(doc, this.path)) {
      const at = firstAfter(this.times, time);
      // Times mostly grow (a creation date, a last sighting): then this appends.
      if (at === this.times.length) {
        this.times.push(time);
        this.ids.push(doc._id);
      } else {
        this.times.splice(at, 0, time);
        this.ids.splice(at, 0, doc._id);
      }
    }
  }

  /**
   * Forgets the document's Dates. Entries are only marked, and the arrays compacted once half of
   * them are marked: a sweep deleting thousands of the oldest documents would otherwise shift the
   * whole arrays once per document.
   */
  remove(doc: Doc): void {
    for (const time of datesAt(doc, this.path)) {
      for (let at = firstAtOrAfter(this.times, time); at < this.times.length && this.times[at] === time; at++) {
        if (this.ids[at] !== doc._id) continue;
        this.ids[at] = undefined;
        this.removed++;
        break;
      }
    }
    if (this.removed > 64 && this.removed * 2 > this.times.length) this.compact();
  }

  /** The `_id`s of the documents holding a Date in the range, each once, in Date order. */
  range({ low, lowInclusive, high, highInclusive }: DateRange): DocumentId[] {
    const from = low === undefined ? 0 : lowInclusive ? firstAtOrAfter(this.times, low) : firstAfter(this.times, low);
    const to = high === undefined ? this.times.length : highInclusive ? firstAfter(this.times, high) : firstAtOrAfter(this.times, high);
    const ids = new Set<DocumentId>();
    for (let at = from; at < to; at++) if (this.ids[at] !== undefined) ids.add(this.ids[at]!);
    return [...ids];
  }

  private compact(): void {
    const kept = this.ids.flatMap((id, at) => (id === undefined ? [] : [at]));
    this.times = kept.map((at) => this.times[at]!);
    this.ids = kept.map((at) => this.ids[at]);
    this.removed = 0;
  }
}

/** The range a filter condition gives when it is made of `$gt`/`$gte`/`$lt`/`$lte` on Dates and nothing else. */
export function dateRangeOf(condition: unknown): DateRange | undefined {
  if (condition === null || typeof condition !== "object" || Array.isArray(condition) || condition instanceof Date) return undefined;
  const range: DateRange = { lowInclusive: false, highInclusive: false };
  const bounds = Object.entries(condition);
  if (bounds.length === 0) return undefined;
  for (const [operator, bound] of bounds) {
    if (!(bound instanceof Date) || Number.isNaN(bound.getTime())) return undefined;
    const time = bound.getTime();
    if (operator === "$gt" || operator === "$gte") {
      if (range.low === undefined || time > range.low || (time === range.low && operator === "$gt")) {
        range.low = time;
        range.lowInclusive = operator === "$gte";
      }
    } else if (operator === "$lt" || operator === "$lte") {
      if (range.high === undefined || time < range.high || (time === range.high && operator === "$lt")) {
        range.high = time;
        range.highInclusive = operator === "$lte";
      }
    } else return undefined;
  }
  return range;
}

/** The distinct valid Dates at `path`, as an index on it holds them: each element of an array, through arrays of subdocuments. */
function datesAt(doc: Doc, path: string): number[] {
  const value = getPath(doc, path);
  const dates = (Array.isArray(value) ? value : [value]).filter(
    (item): item is Date => item instanceof Date && !Number.isNaN(item.getTime()),
  );
  return [...new Set(dates.map((date) => date.getTime()))];
}

/** The first position holding `time` or later. */
function firstAtOrAfter(times: number[], time: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (times[middle]! < time) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first position holding a time after `time`. */
function firstAfter(times: number[], time: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (times[middle]! <= time) low = middle + 1;
    else high = middle;
  }
  return low;
}
