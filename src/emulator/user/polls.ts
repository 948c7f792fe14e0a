/**
 * A user votes in a bot's poll (core.telegram.org/bots/api#pollanswer): the choice is checked as a Telegram app would
 * allow it (open poll, options in range, one option unless multiple answers are allowed, a changed vote only where
 * revoting is allowed), then the updates Telegram sends: `poll_answer` for a non-anonymous poll (the user, the options,
 * their persistent ids; empty when the vote is retracted) and the `poll` with its new counts.
 */
import type {BotState} from '../state/bot.js'
import {type PollState, pollJson} from '../state/polls.js'
import type {TgObject} from '../types.js'
import {refreshMessage} from '../methods/polls.js'
import {userOf} from './actions.js'

export interface VoteOptions {
  userId?: number
  /** The chosen options (indexes); [] retracts the vote. */
  optionIds: number[]
  firstName?: string
  lastName?: string
  username?: string
}

/** Record the vote; returns the update bodies to queue, in order. Throws an Error saying what is wrong. */
export function vote(bot: BotState, pollId: string, options: VoteOptions): TgObject[] {
  const poll = bot.polls.get(pollId)
  if (!poll) throw new Error(`there is no poll ${pollId} of this bot`)
  const ids = options.optionIds
  if (!Array.isArray(ids) || ids.some((i) => !Number.isInteger(i)))
    throw new Error('option_ids must be an array of option indexes (integers)')
  if (poll.isClosed) throw new Error('the poll is closed: Telegram apps no longer let users vote')
  for (const i of ids)
    if (i < 0 || i >= poll.options.length)
      throw new Error(`option ${i} does not exist: the poll has options 0-${poll.options.length - 1}`)
  if (new Set(ids).size !== ids.length) throw new Error('an option is chosen twice')
  if (ids.length > 1 && !poll.allowsMultipleAnswers)
    throw new Error('the poll allows one answer only (allows_multiple_answers is false)')
  const user = userOf(bot, options)
  const userId = user.id
  const before = poll.votes.get(userId)
  if (before && !poll.allowsRevoting) throw new Error('this user already voted and the poll does not allow revoting')
  if (ids.length === 0 && !before) throw new Error('this user has no vote to retract')
  apply(poll, userId, before, ids)
  refreshMessage(bot, poll)
  const bodies: TgObject[] = []
  if (!poll.isAnonymous) {
    bodies.push({
      poll_answer: {
        poll_id: poll.id,
        user,
        option_ids: ids,
        option_persistent_ids: ids.map((i) => poll.options[i].id),
      },
    })
  }
  bodies.push({poll: pollJson(poll, true)})
  return bodies
}

function apply(poll: PollState, userId: number, before: number[] | undefined, ids: number[]): void {
  for (const i of before ?? []) poll.options[i].voters -= 1
  if (ids.length === 0) {
    poll.votes.delete(userId)
    return
  }
  for (const i of ids) poll.options[i].voters += 1
  poll.votes.set(userId, [...ids])
}
