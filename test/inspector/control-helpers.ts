/**
 * A SessionActions stand-in that records what it was asked and answers like a session would:
 * trigger builds the synthetic update and "delivers" it (an entry answered 200), replay re-delivers
 * a recorded one. `fail` makes the next call throw, `hang` makes calls never settle.
 */
import {syntheticUpdate} from '../../src/control/synthetic.js'
import type {UpdateEntry} from '../../src/inspector/types.js'
import {ActionError, type SessionActions, type TriggerRequest} from '../../src/control/protocol.js'

export class RecordingActions implements SessionActions {
  triggers: TriggerRequest[] = []
  replays: Array<{updateId: number | 'last'; edited?: Record<string, unknown>}> = []
  entries: UpdateEntry[] = []
  fail?: Error
  hang = false
  answerStatus = 200
  failedCall?: {method: string; errorCode: number; description: string}
  #nextId = 100
  #seq = 0

  #entry(update: Record<string, unknown>, source: UpdateEntry['source'], replayOf?: number): UpdateEntry {
    const type = Object.keys(update).find((k) => k !== 'update_id') ?? 'unknown'
    const body = update[type] as {text?: string; data?: string; chat?: {id: number}}
    const entry: UpdateEntry = {
      updateId: update.update_id as number,
      time: new Date().toISOString(),
      type,
      chatId: body?.chat?.id,
      preview: body?.text ?? body?.data,
      update,
      answer: {status: this.answerStatus, body: ''},
      calls: this.failedCall
        ? [
            {...this.failedCall, ok: false, ms: 1, params: {}, time: new Date().toISOString()},
            {method: 'sendChatAction', ok: true, ms: 1, params: {}, time: new Date().toISOString()},
          ]
        : [],
      seq: ++this.#seq,
      source,
      ms: 12.3,
      ...(replayOf === undefined ? {} : {replayOf}),
    }
    this.entries.unshift(entry)
    return entry
  }

  async #gate(): Promise<void> {
    if (this.hang) await new Promise(() => {})
    if (this.fail) {
      const error = this.fail
      this.fail = undefined
      throw error
    }
  }

  async trigger(request: TriggerRequest): Promise<UpdateEntry> {
    this.triggers.push(request)
    await this.#gate()
    // A fixture is filled by a real session; here it is delivered as an update naming its type.
    const update =
      request.kind === 'fixture'
        ? {update_id: this.#nextId++, [request.type.replaceAll('-', '_')]: {text: request.type}}
        : syntheticUpdate(request, {updateId: this.#nextId++})
    return this.#entry(update, 'trigger')
  }

  async replay(updateId: number | 'last', edited?: Record<string, unknown>): Promise<UpdateEntry> {
    this.replays.push({updateId, ...(edited ? {edited} : {})})
    await this.#gate()
    const original = updateId === 'last' ? this.entries[0] : this.entries.find((e) => e.updateId === updateId)
    if (!original)
      throw new ActionError(
        404,
        `Update ${updateId} is not in this session's history.`,
        'Pick one the inspector lists, or use --last.',
      )
    return this.#entry(
      {...((edited ?? original.update) as Record<string, unknown>), update_id: original.updateId},
      'replay',
      original.updateId,
    )
  }
}
