/** The user presses a draft's stop button (Bot API 10.3): stopped_message_generation (../user/generation.ts). */
import type {Update} from '../types.js'
import {type StopGenerationOptions, stoppedGeneration} from '../user/generation.js'
import {defineAction} from './action.js'
import {int} from './fields.js'

export const stopGeneration = defineAction({
  name: 'stop_generation',
  description: 'the user stops a draft the bot sent with can_stop: a stopped_message_generation update',
  params: {
    draft_id: int('the draft_id the bot sent', {required: true, nonZero: true}),
    chat_id: int('the private chat of the draft (default 1111)', {min: 1}),
    message_thread_id: int("the draft's topic", {min: 1}),
  },
  result: '{update_id, stopped_message_generation}',
  route: 'stopped_generations',
  read: (f): StopGenerationOptions => ({draftId: f.draft_id, chatId: f.chat_id, messageThreadId: f.message_thread_id}),
  run: ({bot, inject}, options: StopGenerationOptions): Update => inject(stoppedGeneration(bot, options)),
  json: (update) => update,
})
