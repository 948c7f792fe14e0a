/**
 * The inline buttons of the bot's messages as a user finds them to press (`press_button`): by the label shown or by
 * callback_data, on a given message or on the bot's newest message that has it; offline also on an ephemeral
 * message (Bot API 10.2). A button that is not a callback button sends the bot nothing, so pressing it is refused.
 */
import {intOf} from './action-input.js'
import {ActionError} from './protocol.js'
import type {BotMessage} from './session-facts.js'
import type {JsonObject as Json} from './requests.js'
import {isJsonObject} from '../lib/json-object.js'

/** Which button a press means: by label or by data (exactly one), on message_id when given. */
export interface ButtonChoice {
  label?: string
  data?: string
  messageId?: number
}

/** Each inline button of a message: its label and callback_data (or what else it is). */
export function buttonsOf(message: Json): Array<{text: string; data?: string; kind: string}> {
  const markup = message.reply_markup
  if (!isJsonObject(markup) || !Array.isArray(markup.inline_keyboard)) return []
  const out: Array<{text: string; data?: string; kind: string}> = []
  for (const row of markup.inline_keyboard)
    if (Array.isArray(row))
      for (const b of row)
        if (isJsonObject(b) && typeof b.text === 'string')
          out.push({
            text: b.text,
            ...(typeof b.callback_data === 'string' ? {data: b.callback_data} : {}),
            kind: Object.keys(b).find((k) => k !== 'text' && k !== 'style') ?? 'text',
          })
  return out
}

/** press_button's label, data and message_id from its input; 400 unless exactly one of label and data is given. */
export function buttonChoice(input: Json): ButtonChoice {
  const {label, data} = input
  if (label !== undefined && typeof label !== 'string')
    throw new ActionError(400, 'label must be a string.', 'Pass the label as shown on the button.')
  if (data !== undefined && typeof data !== 'string')
    throw new ActionError(400, 'data must be a string.', "Pass the button's callback_data.")
  if ((label === undefined) === (data === undefined))
    throw new ActionError(
      400,
      'press_button needs exactly one of label and data.',
      'Pass {"label": "Yes"} (the text on the button) or {"data": "like:yes"} (its callback_data).',
    )
  const messageId = intOf(input.message_id, 'message_id')
  return {
    ...(label !== undefined ? {label} : {}),
    ...(data !== undefined ? {data} : {}),
    ...(messageId !== undefined ? {messageId} : {}),
  }
}

/** The message and callback_data a press means among the bot's messages in the chat (newest first). */
export function pressedButton(
  messages: BotMessage[],
  chatId: number,
  {label, data, messageId}: ButtonChoice,
): {data: string; messageId: number} {
  const candidates = messageId === undefined ? messages : messages.filter((m) => m.messageId === messageId)
  const want = (b: {text: string; data?: string}) =>
    label !== undefined
      ? b.text === label || b.text.trim().toLowerCase() === label.trim().toLowerCase()
      : b.data === data
  for (const m of candidates) {
    const button = buttonsOf(m.message).find(want)
    if (!button) continue
    if (button.data === undefined)
      throw new ActionError(
        422,
        `The button "${button.text}" of message ${m.messageId} is a ${button.kind} button, not a callback button: pressing it sends the bot nothing.`,
        'Press a button that has callback_data.',
      )
    return {data: button.data, messageId: m.messageId}
  }
  // A message the session never saw (online, its send went around the api proxy): press by data as given.
  if (messageId !== undefined && candidates.length === 0 && data !== undefined) return {data, messageId}
  const shown = messages
    .slice(0, 3)
    .flatMap((m) => buttonsOf(m.message).map((b) => `[${b.text}]`))
    .join(' ')
  throw new ActionError(
    404,
    `No message of the bot in chat ${chatId}${messageId !== undefined ? ` with id ${messageId}` : ''} has a button ${
      label !== undefined ? `labelled "${label}"` : `with callback_data "${data}"`
    }${shown ? `; the buttons of its newest messages: ${shown}` : ' (the session saw no buttons there)'}.`,
    'Read the chat (read_chat) for the buttons there, then press one of them.',
  )
}

/** The callback_data a press on an ephemeral message means: by label (or data as given), on that message. */
export function ephemeralButtonData(ephemeral: () => Json[], input: Json, chatId: number): unknown {
  const {label, data} = input
  if (label === undefined) return data
  const id = intOf(input.ephemeral_message_id, 'ephemeral_message_id')
  const message = ephemeral().find((m) => isJsonObject(m.chat) && m.chat.id === chatId && m.ephemeral_message_id === id)
  const button = message
    ? buttonsOf(message).find((b) => b.text.trim().toLowerCase() === String(label).trim().toLowerCase())
    : undefined
  if (button?.data === undefined)
    throw new ActionError(
      404,
      `No ephemeral message ${String(id)} in chat ${chatId} has a callback button labelled "${String(label)}".`,
      'Read the ephemeral messages (GET …/ephemeral_messages) for their buttons, or pass data.',
    )
  return button.data
}
