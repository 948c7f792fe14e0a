/**
 * Votes over the control API: `POST /_emulator/bots/{token}/polls/{poll_id}/answers` `{user_id?, option_ids}`
 * (also `first_name`, `last_name`, `username`). Answers `{update_ids, poll}`: the `poll_answer` (non-anonymous polls)
 * and `poll` updates queued, and the poll with its new counts.
 */
import {ControlError, type Ctx, int, only, type Route, str} from './route.js'

function postAnswer({emu, bot, body, path}: Ctx): unknown {
  only(body, ['user_id', 'option_ids', 'first_name', 'last_name', 'username'])
  const ids = body.option_ids
  if (!Array.isArray(ids) || ids.some((i) => !Number.isInteger(i)))
    throw new ControlError(400, 'option_ids is required: an array of option indexes, e.g. [0] ([] retracts the vote)')
  const pollId = path.id ?? ''
  if (!bot.polls.get(pollId)) throw new ControlError(404, `there is no poll ${pollId} of this bot`)
  const {updates, poll} = emu.votePoll(bot.token, pollId, {
    optionIds: ids as number[],
    userId: int(body, 'user_id', {min: 1}),
    firstName: str(body, 'first_name'),
    lastName: str(body, 'last_name'),
    username: str(body, 'username'),
  })
  return {update_ids: updates.map((u) => u.update_id), poll}
}

export const POLL_ROUTES: Record<string, Route> = {
  'polls/:id/answers': {method: 'POST', handler: postAnswer},
}
