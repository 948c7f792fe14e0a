/**
 * Cancelling a question: Ctrl-C (@inquirer's ExitPromptError) and Esc end the command with exit
 * code 130 and one line, never a stack. `ask` runs one @inquirer prompt with Esc wired to its
 * abort signal; `isPromptCancel` recognises a cancelled prompt wherever it surfaces.
 */
import {FixableError} from '../lib/errors.js'

/** A question the user cancelled (Ctrl-C or Esc): exit 130. */
export class PromptCancelled extends FixableError {
  constructor(message = 'Cancelled.') {
    super(message, {exitCode: 130, code: 'cancelled'})
    this.name = 'PromptCancelled'
  }
}

/** @inquirer's errors for a prompt that ended without an answer (Ctrl-C, an abort signal, cancel()). */
export function isPromptCancel(error: unknown): boolean {
  const name = error instanceof Error ? error.name : undefined
  return (
    name === 'ExitPromptError' ||
    name === 'AbortPromptError' ||
    name === 'CancelPromptError' ||
    error instanceof PromptCancelled
  )
}

/**
 * Run one prompt (`context` goes to the @inquirer prompt as its second argument). Esc aborts it;
 * Ctrl-C or Esc become a PromptCancelled with `cancelled` as its message.
 */
export async function ask<T>(
  prompt: (context: {signal: AbortSignal; output?: NodeJS.WritableStream}) => Promise<T>,
  cancelled: string,
  output?: NodeJS.WritableStream,
): Promise<T> {
  const controller = new AbortController()
  // @inquirer's readline makes stdin emit 'keypress'; a lone Esc arrives as {name: 'escape'}.
  const onKey = (_text: string, key?: {name?: string}) => {
    if (key?.name === 'escape') controller.abort(new Error('escape'))
  }
  process.stdin.on('keypress', onKey)
  try {
    return await prompt({signal: controller.signal, ...(output ? {output} : {})})
  } catch (error) {
    if (isPromptCancel(error)) throw new PromptCancelled(cancelled)
    throw error
  } finally {
    process.stdin.removeListener('keypress', onKey)
  }
}
