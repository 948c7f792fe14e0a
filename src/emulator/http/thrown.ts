/**
 * What a `catch` or an `error` event hands over is `unknown` to the type system: these read it without a cast. The
 * emulator's own readers throw Errors whose message is the server's text, which callers prefix and pass on.
 */

/** The message of an Error; anything else thrown, as a string. */
export function thrownText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** A system error's code (`ECONNREFUSED`, `EAI_AGAIN`, `ERR_SSL_…`), or undefined when it has none. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined
  return typeof err.code === 'string' ? err.code : undefined
}
