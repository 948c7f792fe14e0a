/**
 * `bot test --update`: rewrite a script's expectations from what the bot did (a run with `collect: true`), as
 * snapshots are updated. Steps that matched stay as written (a regular expression that still matches is kept);
 * a `bot:` step that did not match gets the bot's message instead; missing ones are added after the segment's last
 * `bot:` step, extra ones removed; a `call:` step gets the parameters the bot passed (or goes, when the bot made no
 * such call). Comments and formatting of everything else are kept (yaml's Document API).
 */
import {type Document, isMap, isScalar, isSeq, type Node, parseDocument, Scalar, YAMLMap, YAMLSeq} from 'yaml'
import {isObject} from '../telegram.js'
import type {ChatScript, ChatStep, TextMatcher} from './format.js'
import {parseChatScript} from './parse.js'
import {textMatches} from './expect.js'
import type {ChatScriptResult} from './run.js'

/** The script's text with its expectations rewritten from `result` (a collect run of the same text). */
export function updateChatScript(text: string, result: ChatScriptResult, parsed?: ChatScript): string {
  const script = parsed ?? parseChatScript(text, result.file ? {file: result.file} : {})
  const doc = parseDocument(text)
  const steps = doc.get('steps', true)
  if (!isSeq(steps)) return text
  // the edits, by the step index they concern: replace, remove, insert after
  const replace = new Map<number, unknown>()
  const remove = new Set<number>()
  const insertAfter = new Map<number, unknown[]>()
  const segmentSteps = segmentsOf(script.steps)
  for (const segment of result.segments) {
    const members = segmentSteps.get(segment.action) ?? []
    const bots = members.filter((s): s is Extract<ChatStep, {type: 'bot'}> => s.type === 'bot')
    segment.events.forEach((e, i) => {
      const step = bots[i]
      if (!step) {
        const anchor = bots.at(-1)?.index ?? (segment.action >= 0 ? segment.action : -1)
        const list = insertAfter.get(anchor) ?? []
        list.push(e.value)
        insertAfter.set(anchor, list)
        return
      }
      if (e.matchedBy === step.index) return
      replace.set(step.index, keepRegex(e.value, step.expect.text, e.event.event === 'edit' ? 'edit' : 'text'))
    })
    for (const step of bots.slice(segment.events.length)) remove.add(step.index)
    for (const step of members) {
      if (step.type !== 'call' || !(step.index in segment.callMatches)) continue
      const call = segment.callMatches[step.index]
      if (!call) {
        remove.add(step.index)
        continue
      }
      const fresh: Record<string, unknown> = {method: step.method}
      let changed = false
      for (const [key, wanted] of Object.entries(step.params)) {
        const actual = call.params[key]
        if (sameParam(wanted, actual)) fresh[key] = wanted
        else {
          changed = true
          if (actual !== undefined) fresh[key] = typedLike(wanted, actual)
        }
      }
      if (changed) replace.set(step.index, fresh)
    }
  }
  const items: unknown[] = []
  const before = insertAfter.get(-1)
  if (before) items.push(...before.map((v) => stepNode(doc, 'bot', v)))
  steps.items.forEach((item, index) => {
    if (!remove.has(index)) {
      const value = replace.get(index)
      if (value !== undefined) setStepValue(doc, item, value)
      items.push(item)
    }
    const added = insertAfter.get(index)
    if (added) items.push(...added.map((v) => stepNode(doc, 'bot', v)))
  })
  steps.items = items
  return doc.toString({lineWidth: 0, flowCollectionPadding: false})
}

/** The steps after each acting step (and before the first: -1), by that step's index. */
function segmentsOf(steps: ChatStep[]): Map<number, ChatStep[]> {
  const out = new Map<number, ChatStep[]>([[-1, []]])
  let current = -1
  for (const step of steps) {
    if (!['as', 'bot', 'call', 'silence'].includes(step.type)) {
      current = step.index
      out.set(current, [])
    } else out.get(current)!.push(step)
  }
  return out
}

/** A regular expression of the old step stays when it matches the new text. */
function keepRegex(value: unknown, old: TextMatcher | undefined, key: 'text' | 'edit'): unknown {
  if (old?.kind !== 'regex') return value
  if (typeof value === 'string') return textMatches(old, value) ? new Regex(old.source) : value
  if (isObject(value)) {
    const shown = value[key]
    if (typeof shown === 'string' && textMatches(old, shown)) return {...value, [key]: new Regex(old.source)}
  }
  return value
}

/** A regular expression's source, written plain (`/…/`). */
class Regex {
  constructor(readonly source: string) {}
}

function sameParam(wanted: unknown, actual: unknown): boolean {
  if (wanted === null || typeof wanted !== 'object') return actual !== undefined && String(wanted) === String(actual)
  return JSON.stringify(wanted) === JSON.stringify(typeof actual === 'string' ? safeJson(actual) : actual)
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The recorded value (scalars as text) in the type the script wrote: a number stays a number, true stays true. */
function typedLike(wanted: unknown, actual: unknown): unknown {
  if (typeof actual !== 'string') return actual
  if (typeof wanted === 'number' && actual.trim() !== '' && Number.isFinite(Number(actual))) return Number(actual)
  if (typeof wanted === 'boolean' && (actual === 'true' || actual === 'false')) return actual === 'true'
  if (wanted !== null && typeof wanted === 'object') return safeJson(actual)
  return actual
}

/** A YAML node for an expectation: texts double-quoted, regular expressions plain, mappings and lists in flow style. */
function valueNode(doc: Document, value: unknown, top = true): Node {
  if (value instanceof Regex) {
    const s = new Scalar(value.source)
    s.type = 'PLAIN'
    return s
  }
  if (typeof value === 'string') {
    const s = new Scalar(value)
    // a plain /…/ would read back as a regular expression; a top-level text is quoted as the examples write it
    if (top || /^\/.*\/[a-z]*$/s.test(value)) s.type = 'QUOTE_DOUBLE'
    return s
  }
  if (Array.isArray(value)) {
    const seq = new YAMLSeq(doc.schema)
    seq.flow = true
    for (const item of value) seq.items.push(valueNode(doc, item, false))
    return seq
  }
  if (value && typeof value === 'object') {
    const map = new YAMLMap(doc.schema)
    map.flow = true
    for (const [k, v] of Object.entries(value)) {
      const key = k === 'text' || k === 'edit' || k === 'caption'
      map.set(doc.createNode(k), valueNode(doc, v, key && typeof v === 'string'))
    }
    return map
  }
  return doc.createNode(value)
}

function stepNode(doc: Document, key: string, value: unknown): Node {
  const map = new YAMLMap(doc.schema)
  map.set(doc.createNode(key), valueNode(doc, value))
  return map
}

/** Replace a step's value, keeping the comment that followed it on its line. */
function setStepValue(doc: Document, item: unknown, value: unknown): void {
  if (!isMap(item)) return
  const pair = item.items[0]
  const old = pair.value
  const fresh = valueNode(doc, value)
  if ((isScalar(old) || isMap(old) || isSeq(old)) && old.comment) fresh.comment = old.comment
  pair.value = fresh
}
