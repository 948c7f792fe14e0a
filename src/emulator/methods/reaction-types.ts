/**
 * Reactions, read as the server reads them (BA `get_reaction_types` 12085-12131): the ReactionType list of
 * setMessageReaction and of a user's reaction, and the emoji Telegram allows (DOC ReactionTypeEmoji, 10.1).
 */
import {badRequest, errorText} from '../errors.js'
import type * as Tg from '@grammyjs/types'
import {longFieldText, stringField, jsonArg} from './args.js'
import {isObject} from '../telegram.js'

/** The reaction emoji of DOC ReactionTypeEmoji (Bot API 10.1), exactly as listed (no U+FE0F variation selectors). */
export const REACTION_EMOJIS: ReadonlySet<string> = new Set([
  '\u{2764}',
  '\u{1f44d}',
  '\u{1f44e}',
  '\u{1f525}',
  '\u{1f970}',
  '\u{1f44f}',
  '\u{1f601}',
  '\u{1f914}',
  '\u{1f92f}',
  '\u{1f631}',
  '\u{1f92c}',
  '\u{1f622}',
  '\u{1f389}',
  '\u{1f929}',
  '\u{1f92e}',
  '\u{1f4a9}',
  '\u{1f64f}',
  '\u{1f44c}',
  '\u{1f54a}',
  '\u{1f921}',
  '\u{1f971}',
  '\u{1f974}',
  '\u{1f60d}',
  '\u{1f433}',
  '\u{2764}\u{200d}\u{1f525}',
  '\u{1f31a}',
  '\u{1f32d}',
  '\u{1f4af}',
  '\u{1f923}',
  '\u{26a1}',
  '\u{1f34c}',
  '\u{1f3c6}',
  '\u{1f494}',
  '\u{1f928}',
  '\u{1f610}',
  '\u{1f353}',
  '\u{1f37e}',
  '\u{1f48b}',
  '\u{1f595}',
  '\u{1f608}',
  '\u{1f634}',
  '\u{1f62d}',
  '\u{1f913}',
  '\u{1f47b}',
  '\u{1f468}\u{200d}\u{1f4bb}',
  '\u{1f440}',
  '\u{1f383}',
  '\u{1f648}',
  '\u{1f607}',
  '\u{1f628}',
  '\u{1f91d}',
  '\u{270d}',
  '\u{1f917}',
  '\u{1fae1}',
  '\u{1f385}',
  '\u{1f384}',
  '\u{2603}',
  '\u{1f485}',
  '\u{1f92a}',
  '\u{1f5ff}',
  '\u{1f192}',
  '\u{1f498}',
  '\u{1f649}',
  '\u{1f984}',
  '\u{1f618}',
  '\u{1f48a}',
  '\u{1f64a}',
  '\u{1f60e}',
  '\u{1f47e}',
  '\u{1f937}\u{200d}\u{2642}',
  '\u{1f937}',
  '\u{1f937}\u{200d}\u{2640}',
  '\u{1f621}',
])

/** A reaction a bot may set (core.telegram.org/bots/api#reactiontype): an emoji or a custom emoji. */
export type ReactionType =
  | (Pick<Tg.ReactionTypeEmoji, 'type'> & {emoji: string})
  | Pick<Tg.ReactionTypeCustomEmoji, 'type' | 'custom_emoji_id'>

/** One ReactionType as the server reads it: `emoji` or `custom_emoji`; anything else (even `paid`) is invalid. */
function reactionType(value: unknown): ReactionType {
  if (!isObject(value)) throw new Error('expected an Object')
  const o = value
  const type = stringField(o, 'type')
  if (type === 'emoji') return {type: 'emoji', emoji: stringField(o, 'emoji')}
  if (type === 'custom_emoji') return {type: 'custom_emoji', custom_emoji_id: longFieldText(o, 'custom_emoji_id')}
  throw new Error('invalid reaction type specified')
}

/** The `reaction` parameter: empty or missing is no reaction; otherwise a JSON array of ReactionType. */
export function readReactionTypes(raw: string | undefined): ReactionType[] {
  if (raw === undefined || raw === '') return []
  const value = jsonArg(raw, "can't parse reaction types JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of ReactionType')
  return value.map((item) => {
    try {
      return reactionType(item)
    } catch (err) {
      throw badRequest(`can't parse ReactionType: ${errorText(err)}`)
    }
  })
}
