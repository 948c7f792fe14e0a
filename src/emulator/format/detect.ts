/**
 * Entities the server detects by itself in a message's text (td/telegram/MessageEntity.cpp find_entities): mention,
 * bot_command, hashtag, cashtag, url and email. Offsets are UTF-16 (JavaScript string indexes). Detected entities never
 * overlap each other.
 *
 * Simplified against td's find_entities: URLs without a protocol need a top-level domain from a short list of
 * common ones; no bank_card_number, phone_number or media timestamps; no `#tag@user` / `$TAG@user` suffixes.
 */
import {type Entity, sortEntities} from './entity.js'

const WORD = /[\p{L}\p{N}_]/u
const HASHTAG_LETTER = /[\p{L}\p{Nd}_\u200c\u00b7\u0d80-\u0dff]/u
const LETTER = /\p{L}/u
const ALNUM_ = /[A-Za-z0-9_]/

/** The code point ending just before `i` (a whole surrogate pair when there is one). */
function before(text: string, i: number): string {
  if (i <= 0) return ''
  const low = text.charCodeAt(i - 1)
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) return text.slice(i - 2, i)
  return text[i - 1]
}
const after = (text: string, i: number): string => (i < text.length ? String.fromCodePoint(text.codePointAt(i)!) : '')

function alnumRun(text: string, i: number): number {
  let end = i
  while (end < text.length && ALNUM_.test(text[end])) end++
  return end
}

function mentions(text: string, out: Entity[]): void {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (WORD.test(before(text, at))) continue
    const end = alnumRun(text, at + 1)
    const size = end - at - 1
    if (size < 2 || size > 32 || WORD.test(after(text, end))) continue
    if (size < 4 && !['gif', 'nft', 'pic', 'ufc', 'vid'].includes(text.slice(at + 1, end).toLowerCase())) continue
    out.push({type: 'mention', offset: at, length: end - at})
  }
}

function botCommands(text: string, out: Entity[]): void {
  const blocked = (c: string): boolean => WORD.test(c) || c === '/' || c === '<' || c === '>'
  for (let at = text.indexOf('/'); at >= 0; at = text.indexOf('/', at + 1)) {
    if (blocked(before(text, at))) continue
    let end = alnumRun(text, at + 1)
    if (end - at - 1 < 1 || end - at - 1 > 64) continue
    if (text[end] === '@') {
      const userEnd = alnumRun(text, end + 1)
      if (userEnd - end - 1 < 3 || userEnd - end - 1 > 32) continue
      end = userEnd
    }
    if (blocked(after(text, end))) continue
    out.push({type: 'bot_command', offset: at, length: end - at})
  }
}

function hashtags(text: string, out: Entity[]): void {
  for (let at = text.indexOf('#'); at >= 0; at = text.indexOf('#', at + 1)) {
    if (HASHTAG_LETTER.test(before(text, at))) continue
    let i = at + 1
    let count = 0
    let cut = -1
    let letter = false
    while (i < text.length) {
      const c = after(text, i)
      if (!HASHTAG_LETTER.test(c)) break
      i += c.length
      if (count === 255) cut = i
      if (count !== 256) {
        letter ||= LETTER.test(c)
        count++
      }
    }
    if (count < 1 || text[i] === '#' || !letter) continue
    out.push({type: 'hashtag', offset: at, length: (cut >= 0 ? cut : i) - at})
  }
}

function cashtags(text: string, out: Entity[]): void {
  for (let at = text.indexOf('$'); at >= 0; at = text.indexOf('$', at + 1)) {
    const prev = before(text, at)
    if (HASHTAG_LETTER.test(prev) || prev === '$') continue
    let end = at + 1
    if (text.startsWith('1INCH', end)) end += 5
    else while (end < text.length && text[end] >= 'A' && text[end] <= 'Z') end++
    if (end - at - 1 < 1 || end - at - 1 > 8) continue
    const next = after(text, end)
    if (HASHTAG_LETTER.test(next) || next === '$') continue
    out.push({type: 'cashtag', offset: at, length: end - at})
  }
}

/** Top-level domains accepted without a protocol (a short list of the common ones). */
const TLDS = new Set(
  (
    'com org net edu gov mil int info biz name pro mobi asia tel travel museum aero coop jobs ' +
    'io ai app dev me tv co cc ly gg to fm am im is it in us uk eu de fr es nl be ch at se no fi dk pl cz sk hu ro bg ' +
    'gr pt ie lt lv ee ru ua by kz uz am ge az tr il ir ae sa in cn jp kr tw hk sg my id th vn ph au nz ca mx br ar cl ' +
    'co za ng ke eg xyz online site store tech top club live shop blog cloud link news space website fun art design ' +
    'рф su'
  ).split(' '),
)

const URL_RE =
  /(?<![\p{L}\p{N}_.\/@-])(?:(?:https?|ftp|tonsite):\/\/)?(?:(?:[\p{L}\p{N}_-]+\.)+[\p{L}\p{N}_-]+|\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?(?:[/?#][^\s<>"«»]*)?/giu
const TG_URL_RE = /\b(?:tg|ton|tonsite):\/\/[\w-]+(?:[/?#][^\s<>"«»]*)?/giu
const EMAIL_SCAN = /(?<![a-z0-9_.+-])(?:mailto:)?[a-z0-9_.+-]+@[a-z0-9_.-]+\.[a-z]{2,8}(?![a-z0-9_-])/giu
const EMAIL_RE =
  /^(?:[a-z0-9_-]{0,26}[.+]){0,10}[a-z0-9_-]{1,35}@(?:(?:[a-z0-9][a-z0-9_-]{0,28})?[a-z0-9][.]){1,6}[a-z]{2,8}$/i

/** Trailing characters td trims from a URL; a `)` only when it closes nothing. */
function trimUrl(url: string): string {
  for (;;) {
    const last = url.at(-1) ?? ''
    if (".:;,('?!`".includes(last) && url.length > 0) url = url.slice(0, -1)
    else if (last === ')' && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) url = url.slice(0, -1)
    else return url
  }
}

function urlAccepted(url: string): boolean {
  const protocol = /^([a-z]+):\/\//i.exec(url)
  const rest = protocol ? url.slice(protocol[0].length) : url
  const host = /^(?:[^@/?#]*@)?([^/?#:]*)/.exec(rest)![1].toLowerCase()
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return host.split('.').every((n) => Number(n) <= 255)
  const labels = host.split('.')
  if (labels.length < 2 || labels.some((l) => l === '')) return false
  return protocol !== null || TLDS.has(labels.at(-1)!)
}

/**
 * Each match of a global expression in `text`, by exec from the start (matchAll would first compile a copy of the
 * expression, on every call: a profile of sendMessage showed it). Not reentrant for the same expression.
 */
function* each(re: RegExp, text: string): Generator<RegExpExecArray> {
  re.lastIndex = 0
  try {
    for (let m = re.exec(text); m !== null; m = re.exec(text)) yield m
  } finally {
    re.lastIndex = 0
  }
}

function urls(text: string, out: Entity[]): void {
  if (text.includes('@')) {
    for (const m of each(EMAIL_SCAN, text)) {
      if (WORD.test(before(text, m.index))) continue
      const mailto = m[0].toLowerCase().startsWith('mailto:') ? 7 : 0
      if (EMAIL_RE.test(m[0].slice(mailto)))
        out.push({type: 'email', offset: m.index + mailto, length: m[0].length - mailto})
    }
  }
  // Each expression needs what is looked for here: `://` for the first, a dot in the host for the second.
  if (text.includes('://'))
    for (const m of each(TG_URL_RE, text)) out.push({type: 'url', offset: m.index, length: trimUrl(m[0]).length})
  if (!text.includes('.')) return
  for (const m of each(URL_RE, text)) {
    const prev = before(text, m.index)
    if (WORD.test(prev) || prev === '.' || prev === '/' || prev === '@' || text[m.index + m[0].length] === '@') continue
    const raw = trimUrl(m[0])
    if (urlAccepted(raw)) out.push({type: 'url', offset: m.index, length: raw.length})
  }
}

/** Every entity the server would detect in `text`, sorted, none overlapping another. */
export function detectEntities(text: string): Entity[] {
  const found: Entity[] = []
  if (text.includes('@')) mentions(text, found)
  if (text.includes('/')) botCommands(text, found)
  if (text.includes('#')) hashtags(text, found)
  if (text.includes('$')) cashtags(text, found)
  if (text.includes('.') || text.includes(':')) urls(text, found)
  sortEntities(found)
  const kept: Entity[] = []
  let end = 0
  for (const e of found) {
    if (e.offset >= end) {
      kept.push(e)
      end = e.offset + e.length
    }
  }
  return kept
}
