/** Inline mode: a user types `@bot query`, then picks one of the bot's results (../user/inline.ts). */
import {type InlineQueryOptions, chooseResult, inlineQuery as inlineQueryBody} from '../user/inline.js'
import {defineAction} from './action.js'
import {InputError, field, text, who} from './fields.js'

/** The query may be empty (a user who typed only `@bot `). */
const query = field(
  {
    json: {type: 'string'},
    description: 'what the user typed after @bot (may be empty)',
    missing: () => 'query is required (a string; it may be empty)',
  },
  (value) => {
    if (typeof value !== 'string') throw new InputError('query is required (a string; it may be empty)')
    return value
  },
)

/** The offset of a next page; anything but a string is ignored, as before. */
const offset = field(
  {json: {type: 'string'}, description: "the offset of the next page (the bot's next_offset)"},
  (value) => (typeof value === 'string' ? value : undefined),
)

export const inlineQuery = defineAction({
  name: 'inline_query',
  description: 'the user types an inline query (@bot query): an inline_query update (for a bot with inline mode)',
  params: {
    query,
    user_id: who.user_id,
    offset,
    chat_type: text('where it was typed: sender, private, group, supergroup or channel'),
    first_name: who.first_name,
    last_name: text("the user's last name"),
    username: who.username,
    language_code: text("the user's language (IETF tag)"),
  },
  result: '{update_id, inline_query}: the update queued; the answer is at GET …/inline_queries/{id}',
  route: 'inline_queries',
  read: (f): InlineQueryOptions => ({
    query: f.query,
    userId: f.user_id,
    ...(f.offset !== undefined ? {offset: f.offset} : {}),
    chatType: f.chat_type,
    firstName: f.first_name,
    lastName: f.last_name,
    username: f.username,
    languageCode: f.language_code,
  }),
  run: ({bot, inject}, options: InlineQueryOptions) => inject({inline_query: inlineQueryBody(bot, options)}),
  json: (update) => ({update_id: update.update_id, inline_query: update.inline_query}),
})

export const chooseInlineResult = defineAction({
  name: 'choose_inline_result',
  description: "the user picks a result of the bot's answer to an inline query: chosen_inline_result",
  params: {
    query_id: text("the inline query's id", {required: true}),
    result_id: text("the chosen result's id", {required: true}),
  },
  result: '{update_id, chosen_inline_result}: the update queued (with inline_message_id when it has a keyboard)',
  route: 'inline_queries/:query_id/choose',
  read: (f, bot): {queryId: string; resultId: string} => {
    if (!bot.inline.queries.get(f.query_id))
      throw new InputError(`there is no inline query ${f.query_id} of this bot`, 404)
    return {queryId: f.query_id, resultId: f.result_id}
  },
  run: ({bot, inject}, {queryId, resultId}: {queryId: string; resultId: string}) =>
    inject({chosen_inline_result: chooseResult(bot, queryId, resultId)}),
  json: (update) => ({update_id: update.update_id, chosen_inline_result: update.chosen_inline_result}),
})
