/**
 * Keys of a `bot dev` session in a terminal, as Vite and Shopify's `app dev` have: r restarts the bot,
 * o opens the inspector in the browser, w the chat page, c clears the screen, q quits (as Ctrl-C), h lists them. On
 * only when stdin is a terminal (the --offline chat reads stdin itself: it has `:r` and `:o`). The
 * terminal goes to raw mode meanwhile, so Ctrl-C arrives as a key: it is sent on as SIGINT (twice:
 * the session's "exit at once"). stop() gives the terminal back.
 */
import {CLEAR_SCREEN} from '../lib/color.js'

export const KEYS_HINT = 'Keys: r restart · o inspector · w chat · c clear · q quit · h help.'

export const KEYS_HELP = [
  '  r  restart the bot (updates are held meanwhile)',
  '  o  open the inspector in the browser',
  '  w  open the chat page in the browser (the bot as a Telegram client shows it)',
  '  c  clear the screen',
  '  q  quit (as Ctrl-C: the webhook is deleted, the bot stopped)',
  '  h  this list',
]

export interface DevKeysOptions {
  input: NodeJS.ReadStream
  /** Where the key list and the clearing go (stderr). */
  output: NodeJS.WritableStream
  restart: () => void
  open: () => void
  /** `w`: open the chat page. */
  openChat?: () => void
  /** A line of the session's own (the list of keys). */
  print: (line: string) => void
  /** Ctrl-C and q: default SIGINT to this process. */
  interrupt?: () => void
}

export interface DevKeys {
  stop(): void
}

/** Listen for the keys; undefined when stdin is not a terminal (nothing is changed then). */
export function startDevKeys(o: DevKeysOptions): DevKeys | undefined {
  const input = o.input
  if (!input.isTTY || typeof input.setRawMode !== 'function') return undefined
  const interrupt = o.interrupt ?? (() => process.kill(process.pid, 'SIGINT'))
  const onData = (chunk: Buffer | string) => {
    for (const key of String(chunk)) {
      switch (key) {
        case '\u0003': // Ctrl-C
        case 'q':
        case 'Q':
          interrupt()
          break
        case 'r':
        case 'R':
          o.restart()
          break
        case 'o':
        case 'O':
          o.open()
          break
        case 'w':
        case 'W':
          o.openChat?.()
          break
        case 'c':
        case 'C':
          // Clear the screen and its scrollback, cursor home.
          o.output.write(CLEAR_SCREEN)
          break
        case 'h':
        case 'H':
        case '?':
          o.print(['Keys:', ...KEYS_HELP].join('\n'))
          break
        default:
        // anything else is ignored (the terminal does not echo it in raw mode)
      }
    }
  }
  input.setRawMode(true)
  input.on('data', onData)
  input.resume()
  let stopped = false
  return {
    stop() {
      if (stopped) return
      stopped = true
      input.off('data', onData)
      try {
        input.setRawMode(false)
      } catch {
        // the terminal is gone
      }
      input.pause()
    },
  }
}
