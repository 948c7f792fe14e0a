/**
 * Errors a command turns into one clear line plus a fix.
 * UsageError: the user's input is wrong; exit code 2 and nothing was done.
 * FixableError: something is wrong outside the tool; exit code 1 (or the given one).
 */
export class FixableError extends Error {
  readonly fix?: string
  readonly exitCode: number
  readonly code: string

  constructor(message: string, options: {fix?: string; exitCode?: number; code?: string} = {}) {
    super(message)
    this.name = 'FixableError'
    this.fix = options.fix
    this.exitCode = options.exitCode ?? 1
    this.code = options.code ?? 'error'
  }
}

export class UsageError extends FixableError {
  constructor(message: string, fix?: string) {
    super(message, {fix, exitCode: 2, code: 'usage'})
    this.name = 'UsageError'
  }
}

/** What a caught value says: an Error's message, anything else as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A caught value's system error code (ENOENT, EADDRINUSE, ECONNREFUSED, …), where it has one. */
export function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined
  return typeof code === 'string' ? code : undefined
}

/** A caught value as an Error (thrown non-Errors become one with their text). */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}
