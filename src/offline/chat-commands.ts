/**
 * What a line typed into the offline chat means: a chat command (`:press N` / `:press LABEL`, `:p`,
 * `:photo PATH [caption]`, `:file PATH [caption]`, `:save NAME`, `:help`, `:quit`; in `bot dev --offline` also `:r`
 * and `:o`), an unknown `:word` (an error line, nothing sent), or text to send (`::text` sends
 * ":text"). Also which button `:press` picks. Pure: chat.ts does what the line says.
 */
import type {ButtonView} from './render.js'

export const CHAT_HELP = [
  'Type a message and press Enter; /commands are sent as bot commands.',
  ':press N | :press LABEL   press button N (1 = first, left to right, top to bottom) or the one labelled LABEL',
  '                          of the last keyboard the bot sent (:p for short)',
  ':photo PATH [caption]     send the image at PATH as a photo (a PNG, JPEG, GIF or WebP)',
  ':file PATH [caption]      send the file at PATH as a document ("quote" a path with spaces)',
  ':pay                      pay the newest invoice the bot sent that is not paid yet',
  ':save NAME                save the conversation so far as a chat script, test/NAME.chat.yml (bot test runs it)',
  ':help                     this help',
  ':quit                     end the chat (Ctrl-D too)',
  '::text                    send ":text" (a message that starts with a colon)',
]

/** The lines `bot dev --offline` adds to the help (its session's keys, as chat commands). */
export const SESSION_HELP = [
  ':r                        restart the bot (:restart)',
  ':o                        open the inspector in the browser (:open)',
  ':w                        open the chat page in the browser (:web)',
]

const COMMANDS = [
  'press',
  'p',
  'photo',
  'file',
  'pay',
  'save',
  'help',
  'h',
  'quit',
  'q',
  'exit',
  'r',
  'restart',
  'o',
  'open',
  'w',
  'web',
]

/** The error line for `:name` that is not a chat command. */
export function unknownCommandText(name: string): string {
  return `✗ Unknown command :${name}. Commands: :press N | :press LABEL, :photo PATH, :file PATH, :pay, :save NAME, :help, :quit. To send a message that starts with ":", begin it with "::".`
}

export type ChatLine =
  | {kind: 'empty'}
  | {kind: 'unknown'; name: string}
  /** `arg` is '' when none was given. */
  | {kind: 'press'; arg: string}
  /** `:photo PATH [caption]` / `:file PATH [caption]`; `path` is '' when none was given. */
  | {kind: 'media'; media: 'photo' | 'document'; path: string; caption?: string}
  /** `:save NAME`: the conversation so far as test/NAME.chat.yml; `name` is '' when none was given. */
  | {kind: 'save'; name: string}
  | {kind: 'help'}
  | {kind: 'quit'}
  /** `:r`: restart the bot (in `bot dev --offline`). */
  | {kind: 'restart'}
  /** `:o`: open the inspector (in `bot dev --offline`). */
  | {kind: 'open'}
  /** `:w`: open the chat page (in `bot dev --offline`). */
  | {kind: 'web'}
  /** `:pay`: pay the newest unpaid invoice. */
  | {kind: 'pay'}
  | {kind: 'text'; text: string}

/** Read one input line (a trailing CR is dropped). */
export function parseChatLine(raw: string): ChatLine {
  const line = raw.replace(/\r$/, '')
  if (line.trim() === '') return {kind: 'empty'}
  const command = /^:(\w+)\s*(.*)$/.exec(line.trim())
  if (command) {
    const [, name, arg] = command
    if (!COMMANDS.includes(name.toLowerCase())) return {kind: 'unknown', name}
    switch (name.toLowerCase()) {
      case 'press':
      case 'p':
        return {kind: 'press', arg}
      case 'photo':
      case 'file':
        return {kind: 'media', media: name.toLowerCase() === 'photo' ? 'photo' : 'document', ...pathAndCaption(arg)}
      case 'save':
        return {kind: 'save', name: arg.trim()}
      case 'help':
      case 'h':
        return {kind: 'help'}
      case 'r':
      case 'restart':
        return {kind: 'restart'}
      case 'o':
      case 'open':
        return {kind: 'open'}
      case 'w':
      case 'web':
        return {kind: 'web'}
      case 'pay':
        return {kind: 'pay'}
      default:
        return {kind: 'quit'}
    }
  }
  return {kind: 'text', text: line.startsWith('::') ? line.slice(1) : line}
}

/** `PATH rest of the line` or `"PATH with spaces" rest`: the path, and the rest as the caption. */
function pathAndCaption(arg: string): {path: string; caption?: string} {
  const quoted = /^(["'])(.*?)\1\s*(.*)$/.exec(arg)
  const [path, rest] = quoted ? [quoted[2], quoted[3]] : [arg.split(/\s+/)[0] ?? '', arg.replace(/^\S*\s*/, '')]
  return {path, ...(rest.trim() ? {caption: rest.trim()} : {})}
}

/** The button `:press ARG` means: number ARG (1-based), else the one labelled ARG (exact case first). */
export function pickButton(buttons: ButtonView[], arg: string): {button?: ButtonView; n?: number} {
  const n = /^\d+$/.test(arg) ? Number(arg) : undefined
  const button =
    n !== undefined
      ? buttons[n - 1]
      : (buttons.find((b) => b.text === arg) ?? buttons.find((b) => b.text.toLowerCase() === arg.toLowerCase()))
  return {button, n}
}
