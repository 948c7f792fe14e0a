/**
 * What td does to every formatted text after parsing (fix_formatted_text, facts-2 §1.6): control characters become
 * spaces, `\r` and a few invisible characters are removed, spaces and newlines are trimmed at both ends (entities
 * shifted and cut), empty entities dropped, overlapping ones resolved, detected entities merged in.
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

/**
 * Resolve overlaps as td's fix_entities: continuous entities (links, code, detected ones…) never overlap,
 * blockquotes never nest and are never crossed, and bold/italic/underline/strikethrough/spoiler are merged per type
 * and split at the bounds of every other entity, the parts inside code/pre dropped.
 */
function normalize(entities: Entity[]): Entity[] {
  const splittable = entities.filter((e) => SPLITTABLE_TYPES.has(e.type))
  const quotes = nonIntersecting(entities.filter(isBlockquote))
  const crosses = (e: Entity): boolean => quotes.some((q) => (e.offset < q.offset && q.offset < e.offset + e.length) ||
    (e.offset < q.offset + q.length && q.offset + q.length < e.offset + e.length))
  const continuous = nonIntersecting(entities.filter((e) => !SPLITTABLE_TYPES.has(e.type) && !isBlockquote(e))).filter((e) => !crosses(e))
  const others = [...continuous, ...quotes]
  const cuts = [...new Set(others.flatMap((e) => [e.offset, e.offset + e.length]))].sort((a, b) => a - b)
  const pre = continuous.filter((e) => PRE_TYPES.has(e.type))
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
      for (const cut of [...cuts.filter((c) => c > start && c < end), end]) {
        if (!pre.some((p) => p.offset <= from && cut <= p.offset + p.length)) result.push({type, offset: from, length: cut - from})
        from = cut
      }
    }
  }
  return sortEntities(result)
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
export function finish(raw: string, parsed: Entity[], options: {allowEmpty: boolean}): {text: string; entities: Entity[]} {
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
  if (entities.length > 0) entities = normalize(entities)
  const firstEntity = entities.length > 0 ? entities[0].offset : text.length
  let first = 0
  while (first < firstEntity && (text[first] === ' ' || text[first] === '\n')) first++
  if (first > 0) {
    text = text.slice(first)
    for (const e of entities) e.offset -= first
  }
  const detected = detectEntities(text)
  if (detected.length > 0) {
    const blocking = entities.filter((e) => !SPLITTABLE_TYPES.has(e.type) && !isBlockquote(e))
    const quotes = entities.filter(isBlockquote)
    const free = detected.filter((d) => !blocking.some((b) => d.offset < b.offset + b.length && b.offset < d.offset + d.length) &&
      !quotes.some((q) => (d.offset < q.offset && q.offset < d.offset + d.length) ||
        (d.offset < q.offset + q.length && q.offset + q.length < d.offset + d.length)))
    if (free.length > 0) entities = normalize([...entities, ...free])
  }
  return {text, entities: capUserEntities(entities)}
}
