/**
 * The polls a bot sent: their settings, who voted for what, and the Poll object as the server writes it (BA
 * JsonPoll: key order, `open_period`/`close_date` only together, `correct_option_id` only with exactly one correct
 * option).
 */
import type {TgObject} from '../types.js'

export interface PollState {
  id: string
  chatId: number
  messageId: number
  question: string
  /** The question's and the options' entities, kept as the bot gave them. */
  questionEntities?: unknown[]
  options: Array<{id: string; text: string; entities?: unknown[]; voters: number}>
  isClosed: boolean
  isAnonymous: boolean
  type: 'regular' | 'quiz'
  allowsMultipleAnswers: boolean
  allowsRevoting: boolean
  membersOnly: boolean
  correctOptionIds: number[]
  explanation?: string
  explanationEntities?: TgObject[]
  openPeriod?: number
  closeDate?: number
  description?: string
  descriptionEntities?: TgObject[]
  /** user id → the options they chose */
  votes: Map<number, number[]>
  /** Cancels the timer closing the poll at its close_date. */
  cancelClose?: () => void
}

const MAX_POLLS = 10_000

export class PollStore {
  private readonly byId = new Map<string, PollState>()
  private serial = 0

  /** A new poll id: a decimal string, as the server's (an int64). */
  nextId(botId: number): string {
    this.serial += 1
    return String(
      BigInt(botId % 1_000_000) * 10_000_000_000_000n + BigInt(Date.now() % 1e9) * 10_000n + BigInt(this.serial),
    )
  }

  add(poll: PollState): void {
    this.byId.set(poll.id, poll)
    if (this.byId.size > MAX_POLLS) {
      const oldest = this.byId.values().next().value!
      oldest.cancelClose?.()
      this.byId.delete(oldest.id)
    }
  }

  get(id: string): PollState | undefined {
    return this.byId.get(id)
  }

  /** The poll of a message. */
  ofMessage(chatId: number, messageId: number): PollState | undefined {
    for (const poll of this.byId.values()) if (poll.chatId === chatId && poll.messageId === messageId) return poll
    return undefined
  }

  clear(): void {
    for (const poll of this.byId.values()) poll.cancelClose?.()
    this.byId.clear()
  }
}

/** The Poll object, in BA JsonPoll's order; `inUpdate` leaves out description and media (BA 17060). */
export function pollJson(poll: PollState, inUpdate = false): TgObject {
  const total = poll.votes.size
  const quiz = poll.type === 'quiz'
  return {
    id: poll.id,
    question: poll.question,
    ...(poll.questionEntities?.length ? {question_entities: poll.questionEntities} : {}),
    options: poll.options.map((o) => ({
      persistent_id: o.id,
      text: o.text,
      ...(o.entities?.length ? {text_entities: o.entities} : {}),
      voter_count: o.voters,
    })),
    total_voter_count: total,
    ...(poll.openPeriod && poll.closeDate ? {open_period: poll.openPeriod, close_date: poll.closeDate} : {}),
    is_closed: poll.isClosed,
    is_anonymous: poll.isAnonymous,
    allows_multiple_answers: poll.allowsMultipleAnswers,
    allows_revoting: poll.allowsRevoting,
    members_only: poll.membersOnly,
    type: poll.type,
    ...(quiz && poll.correctOptionIds.length === 1 ? {correct_option_id: poll.correctOptionIds[0]} : {}),
    ...(quiz && poll.correctOptionIds.length > 0 ? {correct_option_ids: poll.correctOptionIds} : {}),
    ...(quiz && poll.explanation
      ? {explanation: poll.explanation, explanation_entities: poll.explanationEntities ?? []}
      : {}),
    ...(!inUpdate && poll.description
      ? {
          description: poll.description,
          ...(poll.descriptionEntities?.length ? {description_entities: poll.descriptionEntities} : {}),
        }
      : {}),
  }
}
