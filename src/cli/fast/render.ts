/**
 * The pieces of oclif 4's help layout the fast path reproduces (src/cli/fast/start.ts for the root
 * help, help.ts for a command's, topic.ts for a topic's): EJS `config.bin` templates, wrap-ansi's
 * hard wrap for plain text, indent-string, HelpFormatter.renderList and the section renderer.
 */
import {styleIf} from '../../lib/color.js'

export interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  hidden?: boolean
  aliases?: string[]
  hiddenAliases?: string[]
}

/** oclif renders help text as an EJS template; only `<%= config.bin %>` is reproduced here. */
export function template(text: string, bin: string): string {
  return text.replaceAll('<%= config.bin %>', bin)
}

/** A command's line in a list: the first line of its summary, else of its description (templates rendered). */
export function summaryLine(c: ManifestCommand, bin: string): string | undefined {
  if (c.summary) return template(c.summary, bin).split('\n')[0]
  return c.description ? template(c.description, bin).split('\n')[0] : undefined
}

/** True when `text` holds only characters whose terminal width is 1 (as string-width counts them). */
export function narrow(text: string): boolean {
  return /^[\u0020-\u007E\u00A0-\u024F\u2010-\u2027]*$/.test(text)
}

/** wrap-ansi 7's algorithm with {hard: true} for text without escape sequences. */
export function wrapPlain(text: string, columns: number): string {
  return String(text)
    .normalize()
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => wrapLine(line, columns))
    .join('\n')
}

function wrapLine(line: string, columns: number): string {
  if (line.trim() === '') return ''
  const words = line.split(' ')
  const rows = ['']
  const last = () => rows.length - 1
  words.forEach((word, index) => {
    rows[last()] = rows[last()].trimStart()
    let rowLength = rows[last()].length
    if (index !== 0 && rowLength > 0) {
      rows[last()] += ' '
      rowLength++
    }
    if (word.length > columns) {
      const remaining = columns - rowLength
      const breaksThisLine = 1 + Math.floor((word.length - remaining - 1) / columns)
      const breaksNextLine = Math.floor((word.length - 1) / columns)
      if (breaksNextLine < breaksThisLine) rows.push('')
      let visible = rows[last()].length
      ;[...word].forEach((ch, i) => {
        if (visible + 1 <= columns) rows[last()] += ch
        else {
          rows.push(ch)
          visible = 0
        }
        visible++
        if (visible === columns && i < word.length - 1) {
          rows.push('')
          visible = 0
        }
      })
      if (!visible && rows[last()].length > 0 && rows.length > 1) rows[rows.length - 2] += rows.pop()
      return
    }
    if (rowLength + word.length > columns && rowLength > 0 && word.length > 0) rows.push('')
    rows[last()] += word
  })
  return rows
    .map((row) => {
      const parts = row.split(' ')
      let end = parts.length
      while (end > 0 && parts[end - 1].length === 0) end--
      return end === parts.length ? row : parts.slice(0, end).join(' ') + parts.slice(end).join('')
    })
    .join('\n')
}

/** indent-string: every line that is not blank gets `n` spaces. */
export function indent(text: string, n: number): string {
  return text.replace(/^(?!\s*$)/gm, ' '.repeat(n))
}

/**
 * oclif's HelpFormatter.renderList with spacer '\n': two columns, the right one wrapped beside the
 * widest left line, or every row on its own lines when a right side needs more than five lines.
 * Shared by the root help (here) and a command's help (./help.ts); `wrap` is the caller's.
 */
export function renderList(
  input: Array<[string, string | undefined]>,
  indentation: number,
  wrap: (text: string, spacing: number) => string,
): string {
  if (input.length === 0) return ''
  const multiline = (): string => {
    let output = ''
    for (const [left, right] of input) {
      if (!left && !right) continue
      if (left) output += wrap(left.trim(), indentation)
      if (right) output += '\n' + indent(wrap(right.trim(), indentation + 2), 4)
      output += '\n\n'
    }
    return output.trim()
  }
  const maxLength = Math.max(...input.map(([l]) => Math.max(...l.split('\n').map((s) => s.length))))
  let output = ''
  let cur = ''
  for (const [left, r] of input) {
    if (cur) output += '\n' + cur
    cur = left || ''
    if (!r) {
      cur = cur.trim()
      continue
    }
    const right = wrap(r.trim(), indentation + maxLength + 2)
    const [first, ...lines] = right.split('\n').map((s) => s.trim())
    cur += ' '.repeat(Math.max(0, maxLength - cur.length + 2)) + first
    if (lines.length === 0) continue
    if (lines.length > 4) return multiline()
    cur += '\n' + indent(lines.join('\n'), maxLength + 2)
  }
  if (cur) output += '\n' + cur
  return output.trim()
}

export class Renderer {
  constructor(
    readonly width: number,
    readonly bold: boolean,
  ) {}

  wrap(body: string, spacing = 2): string {
    return wrapPlain(body, this.width - spacing)
  }

  section(header: string, body: string): string {
    const h = styleIf(this.bold, 'bold', header)
    return `${h}\n${indent(body, 2)}`
  }

  /** oclif's HelpFormatter.renderList with spacer '\n' (the root help's lists). */
  renderList(input: Array<[string, string | undefined]>, indentation: number): string {
    return renderList(input, indentation, (text, spacing) => this.wrap(text, spacing))
  }
}
