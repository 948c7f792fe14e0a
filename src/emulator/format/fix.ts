/**
 * What td does to every formatted text after parsing (td/telegram/MessageEntity.cpp fix_formatted_text): control
 * characters become spaces, `\r` and a few invisible characters are removed, spaces and newlines are trimmed at both
 * ends (entities shifted and cut), empty entities dropped, overlapping ones resolved, detected entities merged in.
 */
import {detectEntities} from './detect.js'
import {type Entity, FormatError, PRE_TYPES, SPLITTABLE_TYPES, sortEntities} from './entity.js'

const REMOVED = /[\r\u2028-\u202e\u0333\u033f\u030a]/
const TO_SPACE = /[\x00-\x09\x0b\x0c\x0e-\x1f]/
const NEEDS_CLEANING = /[\x00-\x09\x0b-\x1f\u2028-\u202e\u0333\u033f\u030a]/

/** Replace control characters by spaces and drop the removed ones, moving entity bounds accordingly. */
function clean(text: string, entities: Entity[]): string {
  if (!NEEDS_CLEANING.test(text)) return text
  const removedBefore = new Int32Array(text.length + 1)
  let out = ''
  let removed = 0
  for (let i = 0; i < text.length; i++) {
    removedBefore[i] = removed
    const c = text[i]
    if (REMOVED.test(c)) removed++
    else out += TO_SPACE.test(c) ? ' ' : c
  }
  removedBefore[text.length] = removed
  for (const e of entities) {
    const end = e.offset + e.length
    e.offset -= removedBefore[e.offset]
    e.length = end - removedBefore[end] - e.offset
  }
  return out
}

const isBlockquote = (e: Entity): boolean => e.type === 'blockquote' || e.type === 'expandable_blockquote'

/** Keep only entities that do not overlap (or nest in) an earlier one, in sorted order. */
function nonIntersecting(entities: Entity[]): Entity[] {
  const kept: Entity[] = []
  let end = 0
  for (const e of sortEntities(entities)) {
    if (e.offset >= end) {
      kept.push(e)
      end = e.offset + e.length
    }
  }
  return kept
}

/** Index of the first element of the sorted `values` for which `below` is false (binary search). */
function lowerBound<T>(values: T[], below: (v: T) => boolean): number {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (below(values[mid])) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Queries on sorted, non-overlapping entities (their ends increase with their offsets too), each in O(log n):
 * does [from, to) overlap one, lie inside one, or cross one's bounds?
 */
class Intervals {
  constructor(private readonly sorted: Entity[]) {}

  overlaps(from: number, to: number): boolean {
    const i = lowerBound(this.sorted, (e) => e.offset < to) - 1
    return i >= 0 && this.sorted[i].offset + this.sorted[i].length > from
  }

  contains(from: number, to: number): boolean {
    const i = lowerBound(this.sorted, (e) => e.offset <= from) - 1
    return i >= 0 && to <= this.sorted[i].offset + this.sorted[i].length
  }

  /** One begins or ends strictly inside (from, to). */
  crosses(from: number, to: number): boolean {
    const s = lowerBound(this.sorted, (e) => e.offset <= from)
    if (s < this.sorted.length && this.sorted[s].offset < to) return true
    const e = lowerBound(this.sorted, (q) => q.offset + q.length <= from)
    return e < this.sorted.length && this.sorted[e].offset + this.sorted[e].length < to
  }
}

/**
 * Resolve overlaps as td's fix_entities: continuous entities (links, code, detected ones…) never overlap,
 * blockquotes never nest and are never crossed, and bold/italic/underline/strikethrough/spoiler are merged per type
 * and split at the bounds of every other entity, the parts inside code/pre dropped.
 */
function normalize(entities: Entity[]): Entity[] {
  const splittable = entities.filter((e) => SPLITTABLE_TYPES.has(e.type))
  const quotes = nonIntersecting(entities.filter(isBlockquote))
  const quoteBounds = new Intervals(quotes)
  const continuous = nonIntersecting(entities.filter((e) => !SPLITTABLE_TYPES.has(e.type) && !isBlockquote(e))).filter(
    (e) => !quoteBounds.crosses(e.offset, e.offset + e.length),
  )
  const others = [...continuous, ...quotes]
  const cuts = [...new Set(others.flatMap((e) => [e.offset, e.offset + e.length]))].sort((a, b) => a - b)
  const pre = new Intervals(continuous.filter((e) => PRE_TYPES.has(e.type)))
  const result: Entity[] = [...others]
  for (const type of SPLITTABLE_TYPES) {
    const ranges = splittable.filter((e) => e.type === type).sort((a, b) => a.offset - b.offset)
    const merged: Array<[number, number]> = []
    for (const e of ranges) {
      const last = merged.at(-1)
      if (last && e.offset <= last[1]) last[1] = Math.max(last[1], e.offset + e.length)
      else merged.push([e.offset, e.offset + e.length])
    }
    for (const [start, end] of merged) {
      let from = start
      for (let i = lowerBound(cuts, (c) => c <= start); ; i++) {
        const cut = i < cuts.length && cuts[i] < end ? cuts[i] : end
        if (!pre.contains(from, cut)) result.push({type, offset: from, length: cut - from})
        from = cut
        if (cut === end) break
      }
    }
  }
  return sortEntities(result)
}

/** The text is longer than `limit` code points (checked before detection, which it would only slow down). */
export class TooLong extends Error {}

export function codePoints(text: string): number {
  let n = text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) n--
  }
  return n
}

const DETECTED = new Set(['mention', 'hashtag', 'cashtag', 'bot_command', 'url', 'email'])

/** At most 100 formatting entities (custom emoji excepted) are kept, as the server does. */
function capUserEntities(entities: Entity[]): Entity[] {
  let count = 0
  return entities.filter((e) => e.type === 'custom_emoji' || DETECTED.has(e.type) || ++count <= 100)
}

/**
 * The final text and entities. Throws FormatError('Text must be non-empty') when nothing but spaces and newlines is
 * left, unless `allowEmpty` (captions), which answers an empty text.
 */
export function finish(
  raw: string,
  parsed: Entity[],
  options: {allowEmpty: boolean; limit?: number},
): {text: string; entities: Entity[]} {
  let entities = parsed.filter((e) => e.length > 0)
  let text = clean(raw, entities)
  entities = entities.filter((e) => e.length > 0)
  let last = text.length - 1
  while (last >= 0 && (text[last] === ' ' || text[last] === '\n')) last--
  if (last < 0) {
    if (options.allowEmpty) return {text: '', entities: []}
    throw new FormatError('Text must be non-empty')
  }
  if (last < text.length - 1) {
    text = text.slice(0, last + 1)
    entities = entities.filter((e) => e.offset <= last)
    for (const e of entities) e.length = Math.min(e.length, last + 1 - e.offset)
  }
  if (options.limit !== undefined && text.length > options.limit) {
    let lead = 0
    while (text[lead] === ' ' || text[lead] === '\n') lead++
    if (codePoints(text) - lead > options.limit) throw new TooLong() // however the entities fall, it stays too long
  }
  if (entities.length > 0) entities = normalize(entities)
  const firstEntity = entities.length > 0 ? entities[0].offset : text.length
  let first = 0
  while (first < firstEntity && (text[first] === ' ' || text[first] === '\n')) first++
  if (first > 0) {
    text = text.slice(first)
    for (const e of entities) e.offset -= first
  }
  if (options.limit !== undefined && text.length > options.limit && codePoints(text) > options.limit)
    throw new TooLong()
  const detected = detectEntities(text)
  if (detected.length > 0) {
    const blocking = new Intervals(entities.filter((e) => !SPLITTABLE_TYPES.has(e.type) && !isBlockquote(e)))
    const quotes = new Intervals(entities.filter(isBlockquote))
    const free = detected.filter(
      (d) => !blocking.overlaps(d.offset, d.offset + d.length) && !quotes.crosses(d.offset, d.offset + d.length),
    )
    if (free.length > 0) entities = normalize([...entities, ...free])
  }
  return {text, entities: capUserEntities(entities)}
}
