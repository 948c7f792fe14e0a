/** A user reacts to a message (../user/reactions.ts). */
import type {Update} from '../types.js'
import {type ReactionOptions, reactionUpdate} from '../user/reactions.js'
import {droppedReason} from '../state/updates.js'
import {defineAction} from './action.js'
import {InputError, field, int, text, who} from './fields.js'

const REACTION_HELP =
  'reaction is required: a list of ReactionType ({"type":"emoji","emoji":"👍"}) or emoji, [] to remove'

const reaction = field(
  {
    json: {type: 'array', items: {anyOf: [{type: 'string'}, {type: 'object'}]}},
    description: 'the new reactions: ReactionType objects or emoji; [] removes them',
    missing: () => REACTION_HELP,
  },
  (value) => {
    if (!Array.isArray(value)) throw new InputError(REACTION_HELP)
    // each item is checked as the user's reaction (user/reactions.ts)
    return value
  },
)

export const react = defineAction({
  name: 'react',
  description: 'the user reacts to a message: message_reaction (message_reaction_count in a channel)',
  params: {
    chat_id: int("the message's chat", {required: true, nonZero: true}),
    message_id: int('the message', {required: true, min: 1}),
    user_id: who.user_id,
    reaction,
    first_name: who.first_name,
    username: who.username,
  },
  result: '{update_id, message_reaction | message_reaction_count}, or {update_id: 0, reason} when Telegram sends none',
  route: 'chats/:chat_id/messages/:message_id/reactions',
  read: (f): ReactionOptions => ({
    chatId: f.chat_id,
    messageId: f.message_id,
    userId: f.user_id,
    firstName: f.first_name,
    username: f.username,
    reaction: f.reaction,
  }),
  run: ({bot, inject}, options: ReactionOptions): Update & {reason?: string} => {
    const made = reactionUpdate(bot, options)
    if ('skipped' in made) return {update_id: 0, reason: made.skipped}
    const update = inject(made.update)
    if (update.update_id !== 0) return update
    return {update_id: 0, reason: droppedReason(Object.keys(made.update)[0])}
  },
  json: (result) => result,
})
