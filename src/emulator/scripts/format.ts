/**
 * Chat scripts (`*.chat.yml`): what users do to a bot and what the bot must answer, as data. parse.ts reads the YAML
 * into these types (every node with its line and column), run.ts plays them against the emulator, expect.ts matches
 * what the bot did, update.ts rewrites expectations from it. docs/testing.md is the format's reference.
 */
import {MEDIA_KINDS, type MediaKind} from '../media-kinds.js'

/** Where a node is in its file: 1-based line and column. */
export interface Position {
  line: number
  column: number
}

/** A text as a script states it: exact, or a regular expression written `/…/flags`. */
export type TextMatcher = {kind: 'exact'; text: string} | {kind: 'regex'; regex: RegExp; source: string}

/** A media kind a bot's message may carry, with the key a script names it by. */
export const MESSAGE_KINDS = [
  ...MEDIA_KINDS,
  'poll',
  'invoice',
  'location',
  'venue',
  'contact',
  'dice',
  'game',
  'paid_media',
  'checklist',
] as const
export type MessageKind = (typeof MESSAGE_KINDS)[number]

/**
 * What a `bot:` step expects of the bot's next message (or edit, or deletion). Only what it states is checked: a
 * plain text matches a message with that text whatever its buttons.
 */
export interface BotExpectation {
  /** A new message (default), an edit of one, a deletion. */
  event: 'message' | 'edit' | 'delete'
  /** The message's text or caption (for an edit: the new text; absent: not checked). */
  text?: TextMatcher
  /** The inline keyboard's labels, row by row. */
  buttons?: string[][]
  /** The reply keyboard's labels, row by row; `false`: the bot removed the keyboard. */
  keyboard?: string[][] | false
  /** What the message carries besides text: `photo: true`, or a text the kind's main field matches (a poll's question…). */
  media?: {kind: MessageKind; text?: TextMatcher}
  /** The chat of the user with this name (default: any of the script's chats). */
  to?: string
  /** The method the bot called (sendMessage, copyMessage…), when stated. */
  method?: string
}

/** A user of the script: the name the script calls them, and their profile. */
export interface ScriptUser {
  name: string
  first_name: string
  last_name?: string
  username?: string
  language_code?: string
  is_premium?: boolean
}

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel'

interface StepBase extends Position {
  /** The step's key as written (`user`, `photo`, `press_button`…). */
  key: string
  /** 0-based index in `steps`. */
  index: number
}

/** A step that acts as a user: each runs one entry of the table of user actions (actions/index.ts). */
export type ActionStep = StepBase &
  (
    | {type: 'text'; text: string; fields: Record<string, unknown>}
    | {type: 'press'; label: string}
    | {type: 'media'; kind: MediaKind; path: string; fields: Record<string, unknown>}
    | {type: 'pay'; fields: Record<string, unknown>}
    | {type: 'vote'; options: number[]}
    | {type: 'react'; reaction: unknown[]}
    | {type: 'inline'; query: string; fields: Record<string, unknown>}
    | {type: 'choose'; resultId: string}
    | {type: 'join'; fields: Record<string, unknown>}
    | {type: 'leave'}
    /** Any entry of the table by its name, with its fields (snake_case, as the control API takes them). */
    | {type: 'action'; action: string; input: Record<string, unknown>}
  )

export type ChatStep =
  | ActionStep
  | (StepBase & {type: 'as'; user: string})
  | (StepBase & {type: 'bot'; expect: BotExpectation})
  | (StepBase & {type: 'call'; method: string; params: Record<string, unknown>})
  | (StepBase & {type: 'silence'})

export interface ChatScript {
  /** The file it was read from (as given), for messages; absent for a script given as text. */
  file?: string
  /** `bot:`: the command that runs the bot (overrides what `bot dev` would run). */
  bot?: string
  chat: ChatType
  /** A group's or channel's title (default "Test Group"). */
  title?: string
  /** The users, in order: the first acts until an `as:` step. */
  users: ScriptUser[]
  steps: ChatStep[]
  /** The text it was parsed from (update.ts rewrites it). */
  source?: string
}

/** The steps that act as a user (each ends a segment: the bot's answers to it follow). */
export function isAction(step: ChatStep): step is ActionStep {
  return !['as', 'bot', 'call', 'silence'].includes(step.type)
}

/** The steps that send a file as a user: each media kind by its name, and `file:` for a document. */
export const MEDIA_STEPS: Readonly<Record<string, MediaKind>> = {
  ...Object.fromEntries(MEDIA_KINDS.map((kind) => [kind, kind])),
  file: 'document',
}

/** The step a script writes for a media kind: `file:` for a document, the kind's name for the others. */
export function mediaStep(kind: MediaKind): string {
  return kind === 'document' ? 'file' : kind
}

/** The short step names and what they do, for errors and docs. */
export const STEP_NAMES = [
  'user',
  'bot',
  'press',
  'call',
  'as',
  'silence',
  'photo',
  'file',
  ...MEDIA_KINDS.filter((kind) => kind !== 'photo'),
  'pay',
  'vote',
  'react',
  'inline',
  'choose',
  'join',
  'leave',
] as const

/** The default user when a script names none. */
export const DEFAULT_USER: ScriptUser = {name: 'ada', first_name: 'Ada'}
