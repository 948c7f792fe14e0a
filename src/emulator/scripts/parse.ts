/**
 * Read a chat script (`*.chat.yml`, format.ts) with the `yaml` package. Every error names the line and column of the
 * node at fault and says how to fix it (ChatScriptError); nothing is run while reading.
 */
import {
  LineCounter,
  type Node,
  parseDocument,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type Pair,
  type Scalar,
  type YAMLMap,
} from 'yaml'
import {ACTIONS, actionNamed} from '../actions/index.js'
import {
  type BotExpectation,
  type ChatScript,
  type ChatStep,
  type ChatType,
  DEFAULT_USER,
  MEDIA_STEPS,
  MESSAGE_KINDS,
  type Position,
  type ScriptUser,
  STEP_NAMES,
  type TextMatcher,
} from './format.js'
import {errorText} from '../errors.js'

/** A script that cannot be read: where (file:line:column), what, and the fix. */
export class ChatScriptError extends Error {
  readonly file: string | undefined
  readonly line: number
  readonly column: number
  readonly reason: string
  readonly fix: string

  constructor(reason: string, fix: string, where: Position & {file?: string}) {
    super(`${where.file ?? '<script>'}:${where.line}:${where.column}: ${reason} ${fix}`)
    this.name = 'ChatScriptError'
    this.file = where.file
    this.line = where.line
    this.column = where.column
    this.reason = reason
    this.fix = fix
  }
}

export interface ParseOptions {
  /** The file's name, for messages (and where media paths are read from: its folder). */
  file?: string
}

const CHAT_TYPES: readonly ChatType[] = ['private', 'group', 'supergroup', 'channel']
const TOP_KEYS = ['bot', 'chat', 'title', 'users', 'steps'] as const
const USER_KEYS = ['first_name', 'last_name', 'username', 'language_code', 'is_premium'] as const
/** The fields a step fills in from its user and chat: a script never names ids. */
const FILLED = ['user_id', 'chat_id', 'first_name', 'last_name', 'username', 'language_code']
const EXPECT_KEYS = [
  'text',
  'caption',
  'buttons',
  'keyboard',
  'edit',
  'delete',
  'to',
  'method',
  ...MESSAGE_KINDS,
] as const

/** A key or value of a parsed mapping: a node, or null where nothing is written (`key:`). */
const nodeOf = (value: unknown): Node | null => (isNode(value) ? value : null)

/** Parse a chat script's text. Throws a ChatScriptError (file:line:column, the reason and the fix). */
export function parseChatScript(text: string, options: ParseOptions = {}): ChatScript {
  return new Reader(text, options.file).read()
}

class Reader {
  private readonly lines = new LineCounter()
  private userNames = new Set<string>()

  constructor(
    private readonly text: string,
    private readonly file: string | undefined,
  ) {}

  read(): ChatScript {
    const doc = parseDocument(this.text, {lineCounter: this.lines, prettyErrors: false, uniqueKeys: true})
    const error = doc.errors[0]
    if (error) {
      const pos = this.lines.linePos(error.pos[0])
      const reason = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
      throw this.fail(
        `this is not valid YAML: ${reason}.`,
        error.code === 'DUPLICATE_KEY'
          ? 'Each key once per mapping (a step is one `- key: value` item of `steps`).'
          : 'Check the indentation and the quotes around this point (a text with ": " or "#" needs quotes).',
        {line: pos.line, column: pos.col},
      )
    }
    const root = doc.contents
    if (!isMap(root))
      throw this.fail(
        'a chat script is a YAML mapping with `steps:`.',
        'Start with e.g. `steps:` then `  - user: /start` and `  - bot: "Hello!"`.',
        root ? this.pos(root) : {line: 1, column: 1},
      )
    const script: ChatScript = {
      chat: 'private',
      users: [],
      steps: [],
      source: this.text,
      ...(this.file ? {file: this.file} : {}),
    }
    let stepsNode: Node | undefined
    let stepsKey: Node | undefined
    for (const pair of root.items) {
      const key = this.keyOf(pair, TOP_KEYS, 'a chat script', 'bot, chat, title, users, steps')
      const value = nodeOf(pair.value)
      switch (key) {
        case 'bot':
          script.bot = this.string(value, pair, 'bot', 'the command that runs the bot, e.g. `bot: npm run dev`')
          break
        case 'chat': {
          const text = this.string(value, pair, 'chat', `one of ${CHAT_TYPES.join(', ')}`)
          const chat = CHAT_TYPES.find((type) => type === text)
          if (!chat)
            throw this.fail(
              `chat "${text}" is not a chat type.`,
              `Write one of ${CHAT_TYPES.join(', ')} (default private).`,
              this.pos(value!),
            )
          script.chat = chat
          break
        }
        case 'title':
          script.title = this.string(value, pair, 'title', "the group's title, e.g. `title: Book club`")
          break
        case 'users':
          script.users = this.users(value, pair)
          break
        case 'steps':
          stepsNode = value ?? undefined
          stepsKey = nodeOf(pair.key) ?? undefined
          break
      }
    }
    if (script.users.length === 0) script.users = [{...DEFAULT_USER}]
    this.userNames = new Set(script.users.map((u) => u.name))
    if (!stepsNode) {
      throw this.fail(
        stepsKey ? '`steps` is empty.' : 'the script has no `steps`.',
        'Add a list of steps, e.g. `steps:` then `  - user: /start` and `  - bot: "Hello!"`.',
        stepsKey ? this.pos(stepsKey) : {line: 1, column: 1},
      )
    }
    if (!isSeq(stepsNode))
      throw this.fail(
        '`steps` must be a list.',
        'Write each step as a list item: `  - user: /start`.',
        this.pos(stepsNode),
      )
    if (stepsNode.items.length === 0)
      throw this.fail('`steps` is empty.', 'Add a step, e.g. `  - user: /start`.', this.pos(stepsNode))
    stepsNode.items.forEach((item, index) => script.steps.push(this.step(nodeOf(item) ?? stepsNode, index)))
    return script
  }

  // ---------------------------------------------------------------- positions and errors

  private pos(node: Node | Pair): Position {
    const range = isPair(node) ? nodeOf(node.key)?.range : node.range
    const offset = range ? range[0] : 0
    const p = this.lines.linePos(offset)
    return {line: p.line, column: p.col}
  }

  private fail(reason: string, fix: string, where: Position): ChatScriptError {
    return new ChatScriptError(reason, fix, {...where, ...(this.file ? {file: this.file} : {})})
  }

  /** A mapping's key: a plain string among `allowed` (else the closest one is suggested). */
  private keyOf<K extends string>(pair: Pair, allowed: readonly K[], what: string, list: string): K {
    const keyNode = nodeOf(pair.key)
    const key = isScalar(keyNode) ? String(keyNode.value) : undefined
    const known = allowed.find((name) => name === key)
    if (key === undefined || known === undefined) {
      const guess = key !== undefined ? closest(key, allowed) : undefined
      throw this.fail(
        `${what} has no key ${key === undefined ? '(a complex key)' : `"${key}"`}.`,
        guess ? `Did you mean \`${guess}\`? The keys are ${list}.` : `The keys are ${list}.`,
        keyNode ? this.pos(keyNode) : this.pos(pair),
      )
    }
    return known
  }

  private string(value: Node | null, pair: Pair, name: string, want: string): string {
    if (!isScalar(value) || value.value === null || typeof value.value === 'object')
      throw this.fail(`\`${name}\` must be a text.`, `Write ${want}.`, value ? this.pos(value) : this.pos(pair))
    const text = String(value.value)
    if (text === '') throw this.fail(`\`${name}\` is empty.`, `Write ${want}.`, this.pos(value))
    return text
  }

  // ---------------------------------------------------------------- users

  private users(value: Node | null, pair: Pair): ScriptUser[] {
    if (!isMap(value) || value.items.length === 0)
      throw this.fail(
        '`users` must be a mapping of names to profiles.',
        'E.g. `users: {ada: {first_name: Ada}, bob: {first_name: Bob, language_code: de}}`.',
        value ? this.pos(value) : this.pos(pair),
      )
    return value.items.map((item) => {
      const keyNode = nodeOf(item.key)
      const name = isScalar(keyNode) ? String(keyNode.value) : ''
      if (!/^[A-Za-z_][\w-]*$/.test(name))
        throw this.fail(
          `"${name}" is no user name.`,
          'Name users with a word (letters, digits, _ and -), e.g. `ada:`.',
          keyNode ? this.pos(keyNode) : this.pos(item),
        )
      const profile = nodeOf(item.value)
      const user: ScriptUser = {name, first_name: name[0].toUpperCase() + name.slice(1)}
      if (profile === null || (isScalar(profile) && profile.value === null)) return user
      if (!isMap(profile))
        throw this.fail(
          `user ${name}'s profile must be a mapping.`,
          `E.g. \`${name}: {first_name: ${user.first_name}, username: ${name}}\`.`,
          this.pos(profile),
        )
      for (const field of profile.items) {
        const key = this.keyOf(field, USER_KEYS, `user ${name}'s profile`, USER_KEYS.join(', '))
        const v = nodeOf(field.value)
        if (key === 'is_premium') {
          if (!isScalar(v) || typeof v.value !== 'boolean')
            throw this.fail(
              '`is_premium` must be true or false.',
              'Write `is_premium: true`.',
              v ? this.pos(v) : this.pos(field),
            )
          user.is_premium = v.value
        } else {
          const text = this.string(v, field, key, `a text, e.g. \`${key}: ${key === 'language_code' ? 'de' : 'Ada'}\``)
          user[key] = key === 'username' ? text.replace(/^@/, '') : text
        }
      }
      return user
    })
  }

  // ---------------------------------------------------------------- steps

  private step(node: Node, index: number): ChatStep {
    if (!isMap(node) || node.items.length === 0)
      throw this.fail(
        'a step is a mapping with one key.',
        'Write e.g. `- user: hello`, `- bot: "Hello!"`, `- press: Yes`.',
        this.pos(node),
      )
    if (node.items.length > 1) {
      const second = node.items[1]
      throw this.fail(
        'a step has one key; this one has more.',
        'Put each on its own list item (`- user: …` then `- bot: …`); a mapping with several keys goes under the one key, e.g. `- bot: {text: Menu, buttons: [[A, B]]}`.',
        this.pos(nodeOf(second.key) ?? second),
      )
    }
    const pair = node.items[0]
    const keyNode = nodeOf(pair.key)
    const key = isScalar(keyNode) ? String(keyNode.value) : ''
    const value = nodeOf(pair.value)
    const at = this.pos(keyNode ?? node)
    const base = {key, index, ...at}
    const where = value ? this.pos(value) : at
    switch (key) {
      case 'user': {
        if (isMap(value)) {
          const fields = this.fields(value, 'send_message', 'user')
          if (typeof fields.text !== 'string' || fields.text === '')
            throw this.fail('`user` needs a `text`.', 'Write `- user: hello` or `- user: {text: hello, …}`.', where)
          const {text: _text, ...rest} = fields
          return {...base, type: 'text', text: fields.text, fields: rest}
        }
        return {
          ...base,
          type: 'text',
          text: this.scalarText(value, pair, 'user', 'the text the user sends, e.g. `- user: /start`'),
          fields: {},
        }
      }
      case 'bot':
        return {...base, type: 'bot', expect: this.expectation(value, pair)}
      case 'press':
        return {
          ...base,
          type: 'press',
          label: this.scalarText(value, pair, 'press', "a button's label, e.g. `- press: Yes`"),
        }
      case 'as': {
        const user = this.scalarText(value, pair, 'as', 'the name of a user of `users`, e.g. `- as: bob`')
        if (!this.userNames.has(user))
          throw this.fail(
            `there is no user "${user}".`,
            `Name one of ${[...this.userNames].join(', ')}, or add "${user}" to \`users\`.`,
            where,
          )
        return {...base, type: 'as', user}
      }
      case 'silence':
        if (!isScalar(value) || value.value !== true)
          throw this.fail('`silence` takes `true`.', 'Write `- silence: true` (the bot sends nothing more).', where)
        return {...base, type: 'silence'}
      case 'call': {
        if (!isMap(value))
          throw this.fail(
            '`call` must be a mapping with the method and the parameters to check.',
            'Write e.g. `- call: {method: answerCallbackQuery, text: Saved}`.',
            where,
          )
        const params = value.toJSON<Record<string, unknown>>()
        const method = params.method
        if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))
          throw this.fail(
            '`call` needs a `method`: a Bot API method name.',
            'Write e.g. `- call: {method: answerCallbackQuery, text: Saved}`.',
            where,
          )
        delete params.method
        return {...base, type: 'call', method, params}
      }
      case 'pay': {
        if (isMap(value)) return {...base, type: 'pay', fields: this.fields(value, 'pay_invoice', 'pay')}
        if (isScalar(value) && value.value === true) return {...base, type: 'pay', fields: {}}
        if (isScalar(value) && typeof value.value === 'string' && value.value !== '')
          return {...base, type: 'pay', fields: {invoice: value.value}}
        throw this.fail(
          '`pay` takes `true` (the newest invoice), an invoice link, or a mapping.',
          'Write `- pay: true`, or e.g. `- pay: {tip_amount: 100}`.',
          where,
        )
      }
      case 'vote': {
        const list = isSeq(value) ? value.items : [value]
        const options = list.map((item) => {
          const n = isScalar(item) ? item.value : undefined
          if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
            throw this.fail(
              '`vote` takes option numbers (0 is the first).',
              'Write `- vote: 1` or `- vote: [0, 2]` (`[]` takes the vote back).',
              isNode(item) ? this.pos(item) : where,
            )
          return n
        })
        return {...base, type: 'vote', options}
      }
      case 'react': {
        const reaction = isSeq(value)
          ? value.toJSON()
          : isScalar(value) && value.value !== null
            ? [value.value]
            : undefined
        if (!reaction || reaction.some((r) => typeof r !== 'string' && (typeof r !== 'object' || r === null)))
          throw this.fail(
            '`react` takes an emoji or a list.',
            'Write `- react: 👍` (`[]` takes the reactions back).',
            where,
          )
        return {...base, type: 'react', reaction}
      }
      case 'inline': {
        if (isMap(value)) {
          const fields = this.fields(value, 'inline_query', 'inline')
          const {query, ...rest} = fields
          return {...base, type: 'inline', query: typeof query === 'string' ? query : '', fields: rest}
        }
        if (isScalar(value) && (value.value === null || typeof value.value !== 'object'))
          return {...base, type: 'inline', query: value.value === null ? '' : String(value.value), fields: {}}
        throw this.fail('`inline` takes the query text.', 'Write e.g. `- inline: cats`.', where)
      }
      case 'choose':
        return {
          ...base,
          type: 'choose',
          resultId: this.scalarText(
            value,
            pair,
            'choose',
            "the id of a result of the bot's answer, e.g. `- choose: '1'`",
          ),
        }
      case 'join': {
        if (isMap(value)) return {...base, type: 'join', fields: this.fields(value, 'join_chat', 'join')}
        if (isScalar(value) && value.value === true) return {...base, type: 'join', fields: {}}
        throw this.fail(
          '`join` takes `true` or a mapping.',
          'Write `- join: true` or `- join: {invite_link: …}`.',
          where,
        )
      }
      case 'leave':
        if (!isScalar(value) || value.value !== true)
          throw this.fail('`leave` takes `true`.', 'Write `- leave: true`.', where)
        return {...base, type: 'leave'}
    }
    const kind = MEDIA_STEPS[key]
    if (kind) {
      if (isMap(value)) {
        const fields = this.fields(value, 'send_media', key, ['path'])
        const path = fields.path
        if (typeof path !== 'string' || path === '')
          throw this.fail(
            `\`${key}\` needs a \`path\`.`,
            `Write \`- ${key}: fixtures/cat.jpg\` or \`- ${key}: {path: fixtures/cat.jpg, caption: …}\`.`,
            where,
          )
        const {path: _path, ...rest} = fields
        return {...base, type: 'media', kind, path, fields: rest}
      }
      const path = this.scalarText(
        value,
        pair,
        key,
        `the file's path (from the script's folder), e.g. \`- ${key}: fixtures/cat.jpg\``,
      )
      return {...base, type: 'media', kind, path, fields: {}}
    }
    if (Object.hasOwn(ACTIONS, key)) {
      if (value === null || (isScalar(value) && (value.value === null || value.value === true)))
        return {...base, type: 'action', action: key, input: {}}
      if (!isMap(value))
        throw this.fail(
          `\`${key}\` takes a mapping of its fields.`,
          `Write e.g. \`- ${key}: {…}\` (docs/emulator.md, "The table of user actions", lists its fields).`,
          where,
        )
      return {...base, type: 'action', action: key, input: this.fields(value, key, key)}
    }
    const names = [...STEP_NAMES, ...Object.keys(ACTIONS)]
    const guess = closest(key, names)
    throw this.fail(
      `there is no step "${key}".`,
      `${guess ? `Did you mean \`${guess}\`? ` : ''}The steps are ${STEP_NAMES.join(', ')}, and each user action by its name (${Object.keys(ACTIONS).join(', ')}).`,
      at,
    )
  }

  /** A scalar as text (a number or `true` as written). */
  private scalarText(value: Node | null, pair: Pair, name: string, want: string): string {
    if (!isScalar(value) || value.value === null || typeof value.value === 'object' || String(value.value) === '')
      throw this.fail(`\`${name}\` takes a text.`, `Write ${want}.`, value ? this.pos(value) : this.pos(pair))
    return String(value.source ?? value.value)
  }

  /**
   * A mapping's fields for the action `name` (snake_case, as the control API takes them), every key checked against
   * the action's parameters; who acts and where is filled in by the runner, so those are refused.
   */
  private fields(value: YAMLMap, name: string, step: string, extra: string[] = []): Record<string, unknown> {
    const action = actionNamed(name)
    const allowed = [...extra, ...Object.keys(action.params).filter((k) => !FILLED.includes(k))]
    for (const pair of value.items) {
      const keyNode = nodeOf(pair.key)
      const key = isScalar(keyNode) ? String(keyNode.value) : ''
      if (FILLED.includes(key))
        throw this.fail(
          `\`${step}\` takes no \`${key}\`: the script's users and chat say who acts and where.`,
          'Remove it; declare users under `users:` and switch with `- as: NAME`.',
          keyNode ? this.pos(keyNode) : this.pos(pair),
        )
      this.keyOf(pair, allowed, `\`${step}\``, allowed.join(', '))
    }
    return value.toJSON<Record<string, unknown>>()
  }

  // ---------------------------------------------------------------- expectations

  private expectation(value: Node | null, pair: Pair): BotExpectation {
    const where = value ? this.pos(value) : this.pos(pair)
    if (isScalar(value) && value.value !== null && typeof value.value !== 'object')
      return {event: 'message', text: this.matcher(value)}
    if (!isMap(value) || value.items.length === 0)
      throw this.fail(
        '`bot` takes a text, a /regular expression/ or a mapping.',
        'Write e.g. `- bot: "Hello!"`, `- bot: /^Hello/`, or `- bot: {text: Menu, buttons: [[A, B]]}`.',
        where,
      )
    const out: BotExpectation = {event: 'message'}
    for (const item of value.items) {
      const key = this.keyOf(item, EXPECT_KEYS, '`bot`', EXPECT_KEYS.join(', '))
      const v = nodeOf(item.value)
      const vAt = v ? this.pos(v) : this.pos(item)
      switch (key) {
        case 'text':
        case 'caption':
          if (out.text)
            throw this.fail('`text` and `caption` say the same (the text under the media).', 'Keep one of them.', vAt)
          out.text = this.matcherOf(v, item, key)
          break
        case 'buttons':
          out.buttons = this.rows(v, item, 'buttons')
          break
        case 'keyboard':
          if (isScalar(v) && v.value === false) out.keyboard = false
          else out.keyboard = this.rows(v, item, 'keyboard')
          break
        case 'edit':
          if (out.event === 'delete')
            throw this.fail('a step expects an edit or a deletion, not both.', 'Keep one.', vAt)
          out.event = 'edit'
          if (!(isScalar(v) && v.value === true)) {
            if (out.text)
              throw this.fail('`edit` states the new text already.', 'Drop `text` or write `edit: true`.', vAt)
            out.text = this.matcherOf(v, item, 'edit')
          }
          break
        case 'delete':
          if (!isScalar(v) || v.value !== true)
            throw this.fail('`delete` takes `true`.', 'Write `- bot: {delete: true}`.', vAt)
          if (out.event === 'edit') throw this.fail('a step expects an edit or a deletion, not both.', 'Keep one.', vAt)
          out.event = 'delete'
          break
        case 'to': {
          const name = this.string(v, item, 'to', 'the name of a user of `users`')
          if (!this.userNames.has(name))
            throw this.fail(`there is no user "${name}".`, `Name one of ${[...this.userNames].join(', ')}.`, vAt)
          out.to = name
          break
        }
        case 'method':
          out.method = this.string(v, item, 'method', 'a Bot API method, e.g. `method: sendPhoto`')
          break
        default: {
          if (out.media)
            throw this.fail(
              `a message carries one of ${MESSAGE_KINDS.join(', ')}; this step names two.`,
              'Keep one (the text goes under `text`).',
              this.pos(nodeOf(item.key) ?? item),
            )
          if (isScalar(v) && v.value === true) out.media = {kind: key}
          else out.media = {kind: key, text: this.matcherOf(v, item, key)}
        }
      }
    }
    if (out.event === 'delete' && (out.text || out.buttons || out.keyboard !== undefined || out.media))
      throw this.fail('a deleted message has nothing else to check.', 'Write `- bot: {delete: true}` alone.', where)
    return out
  }

  private matcherOf(v: Node | null, pair: Pair, key: string): TextMatcher {
    if (!isScalar(v) || v.value === null || typeof v.value === 'object')
      throw this.fail(
        `\`${key}\` takes a text or a /regular expression/.`,
        `Write e.g. \`${key}: "Hello"\` or \`${key}: /^Hello/\`.`,
        v ? this.pos(v) : this.pos(pair),
      )
    return this.matcher(v)
  }

  /** A plain (unquoted) `/…/flags` is a regular expression; anything else, quoted `"/…/"` too, is exact text. */
  private matcher(node: Scalar): TextMatcher {
    const text = String(node.source ?? node.value)
    const regex = node.type === 'PLAIN' ? /^\/(.+)\/([dgimsuyv]*)$/s.exec(text) : null
    if (!regex) return {kind: 'exact', text}
    try {
      return {kind: 'regex', regex: new RegExp(regex[1], regex[2].replace('g', '')), source: text}
    } catch (err) {
      throw this.fail(
        `${text} is not a valid regular expression (${errorText(err).replace(/^Invalid regular expression: /, '')}).`,
        'Fix it, or quote it ("…") to mean that exact text.',
        this.pos(node),
      )
    }
  }

  private rows(v: Node | null, pair: Pair, key: string): string[][] {
    const want = `Write rows of labels, e.g. \`${key}: [[Yes, No], [Back]]\`.`
    if (!isSeq(v) || v.items.length === 0)
      throw this.fail(`\`${key}\` takes rows of button labels.`, want, v ? this.pos(v) : this.pos(pair))
    // a flat list is one row
    const rows = v.items.every((i) => isScalar(i)) ? [v] : v.items
    return rows.map((row) => {
      if (!isSeq(row))
        throw this.fail(`\`${key}\`: each row is a list of labels.`, want, isNode(row) ? this.pos(row) : this.pos(pair))
      return row.items.map((label) => {
        if (!isScalar(label) || label.value === null || typeof label.value === 'object')
          throw this.fail(`\`${key}\`: a label is a text.`, want, isNode(label) ? this.pos(label) : this.pos(pair))
        return String(label.source ?? label.value)
      })
    })
  }
}

/** The closest of `names` to `typed` (edit distance at most a third of its length, at least 2), for "did you mean". */
function closest(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1
  for (const name of names) {
    const d = distance(typed.toLowerCase(), name.toLowerCase())
    if (d < bestDistance) {
      best = name
      bestDistance = d
    }
  }
  return best
}

function distance(a: string, b: string): number {
  let prev = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}
