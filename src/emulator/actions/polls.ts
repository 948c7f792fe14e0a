/** Voting in the bot's poll (../user/polls.ts). */
import {pollJson} from '../state/polls.js'
import type {TgObject, Update} from '../types.js'
import {type VoteOptions, vote} from '../user/polls.js'
import {defineAction} from './action.js'
import {InputError, field, isListOf, text, who} from './fields.js'

const optionIds = field(
  {
    json: {type: 'array', items: {type: 'integer', minimum: 0}},
    description: 'the chosen options (indexes); [] retracts the vote',
    missing: () => 'option_ids is required: an array of option indexes, e.g. [0] ([] retracts the vote)',
  },
  (value) => {
    if (!isListOf(value, (i): i is number => Number.isInteger(i)))
      throw new InputError('option_ids is required: an array of option indexes, e.g. [0] ([] retracts the vote)')
    return value
  },
)

export const votePoll = defineAction({
  name: 'vote_poll',
  description: "the user votes in the bot's poll: poll_answer (non-anonymous polls) and poll with its new counts",
  params: {
    poll_id: text("the poll's id", {required: true}),
    user_id: who.user_id,
    option_ids: optionIds,
    first_name: who.first_name,
    last_name: text("the user's last name"),
    username: who.username,
  },
  result: '{update_ids, poll}: the updates queued and the poll with its new counts',
  route: 'polls/:poll_id/answers',
  read: (f, bot): VoteOptions & {pollId: string} => {
    if (!bot.polls.get(f.poll_id)) throw new InputError(`there is no poll ${f.poll_id} of this bot`, 404)
    return {
      pollId: f.poll_id,
      optionIds: f.option_ids,
      userId: f.user_id,
      firstName: f.first_name,
      lastName: f.last_name,
      username: f.username,
    }
  },
  run: ({bot, inject}, {pollId, ...options}: VoteOptions & {pollId: string}): {updates: Update[]; poll: TgObject} => {
    const updates = vote(bot, pollId, options).map(inject)
    return {updates, poll: pollJson(bot.polls.get(pollId)!)}
  },
  json: ({updates, poll}) => ({update_ids: updates.map((u) => u.update_id), poll}),
})
