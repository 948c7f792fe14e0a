/**
 * The answer of a catalogued method that has no handler of its own: the generic checks of its documented
 * parameters (catalog/validate.ts), then a result of its documented type (catalog/results.ts): `true`, a new
 * Message in the chat for a send… method (its content named after the method: sendVenue → `venue`), the edited
 * message for an edit…, or an object with every always-present field.
 */
import type {Handler} from './core.js'
import {methodSpec, typeSpec} from './catalog/index.js'
import {valueOf} from './catalog/results.js'
import {checkParams} from './catalog/validate.js'
import {sendNew} from './send.js'
import {now} from './message-params.js'
import {ApiError} from '../errors.js'
import type {Message} from '../telegram.js'

const snake = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '')

/** The Message field a send… method fills (sendVenue → venue: Venue), if Message has one of that name. */
function contentField(method: string): {name: string; type: string} | undefined {
  const name = snake(method.slice(4))
  const message = typeSpec('Message')
  const field = message && 'fields' in message ? message.fields.find((f) => f.name === name) : undefined
  return field ? {name, type: field.type} : undefined
}

export const generic: Handler = (bot, params, _core, ctx) => {
  const spec = methodSpec(ctx.method)
  if (!spec) throw new ApiError(404, 'Not Found: method not found')
  const checked = checkParams(bot, spec, params)
  const values: Record<string, unknown> = {...params.toRecord(), ...checked.json}
  const objects = {User: bot.from, ...(checked.chat ? {Chat: checked.chat} : {})}
  const returnsMessage = spec.returns === 'Message' || spec.returns === 'Message or Boolean'
  if (returnsMessage && checked.message) {
    const edited: Message = {...checked.message, edit_date: now()}
    bot.storeMessage(edited)
    return {result: edited}
  }
  if (spec.returns === 'Message or Boolean' && !checked.chat) return {result: true}
  if (returnsMessage && checked.chat && spec.name.startsWith('send')) {
    const content = contentField(spec.name)
    const message = sendNew(
      bot,
      params,
      () => (content ? {[content.name]: valueOf(content.type, {values, objects})} : {}),
      checked.chat,
    )
    return {result: message}
  }
  if (spec.returns === 'Boolean') return {result: true}
  return {result: valueOf(spec.returns, {values, objects})}
}
