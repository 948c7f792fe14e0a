/**
 * How `bot dev` shows its session on a terminal (everything but --json): start-up steps as
 * spinners ending in ✓/✗, the update log dim except failures (red), warnings with their fix,
 * errors red. Colours only where `useColor` says so (a TTY, NO_COLOR unset); without them the
 * text is the same, byte for byte.
 *
 * `bot dev --offline` shows less: one start-up line (the session's `ready` text, in offline words)
 * instead of the step, bot-start and watch lines, and no line for the emulator's webhook removal.
 */
import type {DevEvent} from '../../dev/index.js'
import {errorLine, markedLine, paint, type Spinner} from '../output.js'
import {sanitizeForTerminal} from '../../lib/terminal.js'
import type {OfflineDevEvent, OfflinePrint} from '../../offline/index.js'

/** Failing Bot API calls are logged under their update as `  ↳ sendMessage 400 …`. */
const CALL_FAILURE = '  ↳'

/** A line of the update log that reports a failure: a non-2xx answer, a refused request, a failing call. */
export function isFailureLine(event: {type: string; text: string; status?: number; repeat?: boolean}): boolean {
  if (event.type === 'rejected') return true
  if (event.type === 'update')
    return !event.repeat && (event.status === undefined || event.status < 200 || event.status >= 300)
  return event.text.startsWith(CALL_FAILURE)
}

/**
 * An update-log entry: dim, or red when it reports a failure. Each line is painted on its own, so a
 * failing call under an update that went well (`  ↳ …` and its indented explanation) is red too.
 */
export function logLine(
  event: {type: string; text: string; status?: number; repeat?: boolean},
  stream: NodeJS.WriteStream,
): string {
  const failed = isFailureLine(event)
  let inCall = false
  return event.text
    .split('\n')
    .map((line) => {
      if (line.startsWith(CALL_FAILURE)) inCall = true
      else if (!line.startsWith('    ')) inCall = false
      return paint(failed || inCall ? 'red' : 'dim', line, stream)
    })
    .join('\n')
}

function botOutput(line: string, stream: NodeJS.WriteStream): string {
  return `${paint('dim', 'bot │', stream)} ${sanitizeForTerminal(line, {keepColors: true})}`
}

function warning(event: {text: string; fix?: string}, stream: NodeJS.WriteStream): string {
  return markedLine(`! ${event.text}`, stream) + (event.fix ? `\n  ${event.fix}` : '')
}

export interface DevRendererOptions {
  redact: (text: string) => string
  /** Starts a spinner on stderr (a terminal only); without it steps print as lines. */
  spinner?: (text: string) => Spinner
  /** False once a stream is closed (the session then ends): nothing more is written there. */
  writable?: (stream: NodeJS.WriteStream) => boolean
  /** Said once at the end of the Ready line (the keys of a terminal session). */
  readySuffix?: string
}

/** The online session: stderr carries the session log, stdout the update lines and the bot's stdout. */
export class DevRenderer {
  readonly #o: DevRendererOptions
  #spinner: Spinner | undefined

  constructor(options: DevRendererOptions) {
    this.#o = options
  }

  /** Stop a spinner still running (the session ended). */
  stop(): void {
    if (this.#spinner?.isSpinning) this.#spinner.stop()
    this.#spinner = undefined
  }

  #write(stream: NodeJS.WriteStream, line: string): void {
    if (this.#o.writable && !this.#o.writable(stream)) return
    const spinning = this.#spinner?.isSpinning
    try {
      if (spinning) this.#spinner!.clear()
      stream.write(this.#o.redact(line) + '\n')
      if (spinning) this.#spinner!.render()
    } catch {
      // a closed stream: the guard ends the session
    }
  }

  render(event: DevEvent): void {
    const err = process.stderr
    const out = process.stdout
    switch (event.type) {
      case 'step': {
        if (this.#o.spinner) {
          if (event.status === 'start') {
            this.stop()
            this.#spinner = this.#o.spinner(this.#o.redact(event.text))
            return
          }
          const spinner = this.#spinner
          this.#spinner = undefined
          if (spinner && event.status !== 'skip') {
            if (event.status === 'ok') spinner.succeed(this.#o.redact(event.text))
            else spinner.fail(this.#o.redact(event.text))
            return
          }
          spinner?.stop()
        }
        if (event.status === 'ok') this.#write(err, markedLine(`✓ ${event.text}`, err))
        else if (event.status === 'fail') this.#write(err, errorLine(event.text, err))
        return
      }
      case 'bot-output': {
        const stream = event.stream === 'stdout' ? out : err
        this.#write(stream, botOutput(event.line, stream))
        return
      }
      case 'update':
      case 'rejected':
        this.#write(out, logLine(event, out))
        return
      case 'warn':
        this.#write(err, warning(event, err))
        return
      case 'ready':
        this.#write(
          err,
          `${paint('green', '●', err)} ${event.text}${this.#o.readySuffix ? ` ${paint('dim', this.#o.readySuffix, err)}` : ''}`,
        )
        return
      default:
        // A failing Bot API call belongs under its update, in the update log (stdout).
        if (event.text.startsWith(CALL_FAILURE)) this.#write(out, logLine(event, out))
        else this.#write(err, markedLine(event.text, err))
    }
  }
}

/**
 * The offline session's lines (the chat prints its own transcript). `print` keeps the chat prompt
 * intact; lines go to stderr until the chat runs.
 */
export function offlineRenderer(
  redact: (text: string) => string,
): (event: OfflineDevEvent, print: OfflinePrint) => void {
  const err = process.stderr
  let ready = false
  return (event, print) => {
    const show = (line: string) => print(redact(line))
    switch (event.type) {
      case 'chat':
      case 'offline': // said by the start-up line
        return
      case 'step':
        // Only failures: what went well is summed up by the start-up line.
        if (event.status === 'fail') show(errorLine(event.text, err))
        return
      case 'bot-start':
      case 'bot-listening':
        // The first start is part of the start-up line; a restart's are news.
        if (ready) show(markedLine(event.text, err))
        return
      case 'ready':
        ready = true
        show(event.text)
        return
      case 'teardown':
        if (!event.ok) show(markedLine(event.text, err))
        return
      case 'bot-output':
        show(botOutput(event.line, err))
        return
      case 'warn':
        show(warning(event, err))
        return
      case 'update':
      case 'rejected':
        show(logLine(event, err))
        return
      default:
        show(isFailureLine(event) ? logLine(event, err) : markedLine(event.text, err))
    }
  }
}
