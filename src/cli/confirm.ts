import {onTerminal} from '../lib/ci.js'
import {UsageError} from '../lib/errors.js'
import {ask} from './prompt.js'

export interface ConfirmOptions {
  /** The question, e.g. "Drop 3 pending updates?" */
  question: string
  /** --yes was given: do not ask. */
  yes: boolean
  /** What the refusal says is being refused, e.g. "drop pending updates". */
  action: string
  /** The flag that skips the question. Default --yes. */
  yesFlag?: string
}

/** Whether a person can answer a question: stdin and stderr (where the prompt goes) are terminals. */
export function canPrompt(): boolean {
  return onTerminal(process.stdin, process.stderr)
}

/**
 * Ask before a destructive step. --yes skips the question; without a terminal and without
 * --yes it refuses (UsageError, exit 2) instead of guessing. The prompt is written to stderr
 * so stdout stays clean for --json. @inquirer/prompts is loaded only when a question is asked.
 */
export async function confirmOrRefuse({question, yes, action, yesFlag = '--yes'}: ConfirmOptions): Promise<boolean> {
  if (yes) return true
  if (!canPrompt())
    throw new UsageError(
      `Refusing to ${action} without ${yesFlag}: there is no terminal to ask for confirmation.`,
      `Add ${yesFlag} if you mean it.`,
    )
  const {confirm} = await import('@inquirer/prompts')
  // Ctrl-C or Esc while asking: nothing changed, exit 130.
  return ask(
    (context) => confirm({message: question, default: false}, context),
    'Cancelled: nothing changed.',
    process.stderr,
  )
}
