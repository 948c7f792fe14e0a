/**
 * What a user action is (one entry of the table in index.ts): its name, a one-line description, its parameters
 * (fields.ts) in the order they are checked, how the checked fields become the implementation's options, what it
 * does (an implementation in ../user/), what it returns and how that is shown as JSON (the control API, MCP).
 */
import * as v from 'valibot'
import type {BotState} from '../state/bot.js'
import type {PaymentHost} from '../user/payments.js'
import type {TgObject, Update} from '../types.js'
import {type Field, type FieldValues, InputError, type JsonSchema, type Source} from './fields.js'
import {isObject} from '../telegram.js'

/** What an action may ask of the emulator while it runs. */
export interface ActionContext {
  bot: BotState
  /** Queue an update for the bot (BotApiEmulator.injectUpdate): update_id 0 when its allowed_updates drop it. */
  inject(body: TgObject): Update
  /** What the payment flow needs (timers cleared by stop(), the 10-second window scaled). */
  payments(injectPaid?: (body: TgObject) => Update): PaymentHost
  /** Scale a Bot API time window by the emulator's timeScale (0: unscaled). */
  window(ms: number): number
}

/**
 * `Output` is what run returns: the result, or a Promise of it for an action that settles later (pay_invoice).
 * `Params` are its fields, whose checked values `read` gets typed (FieldValues).
 */
export interface Action<Input = any, Output = any, Params extends Record<string, Field> = Record<string, Field>> {
  /** snake_case, as MCP tools and chat-script steps name it: `send_message`, `press_button`… */
  name: string
  /** One line: what the user does and what the bot receives. */
  description: string
  /** The fields, in the order they are checked (the first failure is the error). */
  params: Params
  /** One line: what it returns. */
  result: string
  /**
   * The control API route, the path after `/_emulator/bots/{token}/` (always POST): `:name` segments are params
   * read from the path (`chats/:chat_id/boosts`).
   */
  route?: string
  /** The checked fields (snake_case, as sent) → the implementation's options; may check the bot's state. */
  read(fields: FieldValues<Params>, bot: BotState): Input
  run(ctx: ActionContext, input: Input): Output
  /** The result as JSON (the control API's answer). */
  json(result: Awaited<Output>): unknown
}

/** Declare one action (the identity, typed). */
export function defineAction<Input, Output, Params extends Record<string, Field>>(
  action: Action<Input, Output, Params>,
): Action<Input, Output, Params> {
  return action
}

/** The route's `:name` segments: those params come from the path. */
export function pathParams(action: Action): string[] {
  return (action.route ?? '').split('/').flatMap((s) => (s.startsWith(':') ? [s.slice(1)] : []))
}

/**
 * Check raw input against the action's params and turn it into its options. `path` holds a route's path segments
 * (their errors say "in the path"). Throws an InputError in our words: an unknown field, a missing or bad one.
 */
export function checkInput(action: Action, raw: unknown, bot: BotState, path: Record<string, string> = {}): unknown {
  if (raw === undefined || raw === null) raw = {}
  if (!isObject(raw)) throw new InputError('the input must be a JSON object')
  const input = raw
  const fromPath = pathParams(action).filter((name) => name in path)
  const allowed = Object.keys(action.params).filter((name) => !fromPath.includes(name))
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) throw new InputError(`unknown field "${key}"; the fields are ${allowed.join(', ')}`)
  }
  const fields: Record<string, unknown> = {}
  for (const [name, param] of Object.entries(action.params)) {
    const source: Source = fromPath.includes(name) ? 'path' : 'input'
    const value = source === 'path' ? path[name] : input[name]
    const checked = v.safeParse(param.schema(name, source), value)
    if (!checked.success) throw new InputError(checked.issues[0].message)
    if (checked.output !== undefined) fields[name] = checked.output
  }
  return action.read(fields, bot)
}

/** The action as a caller lists it: its parameters as one JSON Schema object. */
export interface ActionInfo {
  name: string
  description: string
  params: JsonSchema
  result: string
  /** `POST /_emulator/bots/{token}/…` where the control API has a route for it. */
  route?: string
}

export function describeAction(action: Action): ActionInfo {
  const properties: Record<string, JsonSchema> = {}
  for (const [name, param] of Object.entries(action.params))
    properties[name] = {...param.json, description: param.description}
  const required = Object.entries(action.params)
    .filter(([, param]) => param.required)
    .map(([name]) => name)
  return {
    name: action.name,
    description: action.description,
    params: {type: 'object', properties, ...(required.length > 0 ? {required} : {}), additionalProperties: false},
    result: action.result,
    ...(action.route ? {route: `POST /_emulator/bots/{token}/${action.route.replace(/:(\w+)/g, '{$1}')}`} : {}),
  }
}
