/**
 * answerCallbackQuery: a query can be answered once, and only while it is young: 150 s after it was made (the
 * server's lifetime of a callback_query, facts-2 §5; scaled by timeScale). Otherwise `query is too old and response
 * timeout expired or query ID is invalid`.
 */
import type {Handler} from './core.js'
import {badRequest} from './errors.js'

export const CALLBACK_QUERY_LIFETIME_MS = 150_000

/** The open callback queries of a bot with the time each was made (a Set, as BotState uses it). */
export class OpenQueries extends Set<string> {
  private readonly madeAt = new Map<string, number>()

  override add(id: string): this {
    this.madeAt.set(id, Date.now())
    return super.add(id)
  }

  override delete(id: string): boolean {
    this.madeAt.delete(id)
    return super.delete(id)
  }

  override clear(): void {
    this.madeAt.clear()
    super.clear()
  }

  /** Epoch ms when the query was made. */
  since(id: string): number | undefined {
    return this.madeAt.get(id)
  }

  /** Forget queries older than `maxAgeMs` (they can no longer be answered). */
  prune(maxAgeMs: number): void {
    const oldest = Date.now() - maxAgeMs
    for (const [id, at] of this.madeAt) if (at < oldest) this.delete(id)
  }
}

const QUERY_INVALID = 'query is too old and response timeout expired or query ID is invalid'

export const answerCallbackQuery: Handler = (bot, params, core) => {
  const id = params.get('callback_query_id') ?? ''
  const open = bot.openCallbackQueries
  const lifetime = core.scale(CALLBACK_QUERY_LIFETIME_MS)
  const madeAt = open instanceof OpenQueries ? open.since(id) : undefined
  const expired = madeAt !== undefined && Date.now() - madeAt > lifetime
  const known = open.delete(id)
  if (open instanceof OpenQueries && open.size > 1000) open.prune(lifetime)
  if (!known || expired) throw badRequest(QUERY_INVALID)
  return {result: true}
}
