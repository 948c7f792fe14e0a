/**
 * The open callback queries of a bot: each can be answered once, while it is young (150 s: the server's lifetime
 * of a callback_query, Client.cpp process_new_callback_query_queue).
 */
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
