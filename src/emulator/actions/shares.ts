/** A reply keyboard's request buttons: the user shares a contact, a location, users or a chat (../user/shares.ts). */
import type {Update} from '../types.js'
import {type ShareBase, type Shared, sharedMessage} from '../user/shares.js'
import {type ActionContext, defineAction} from './action.js'
import {InputError, field, int, text} from './fields.js'
import {readSender, sender} from './messages.js'

const coordinate = (description: string, limit: number) =>
  field(
    {json: {type: 'number', minimum: -limit, maximum: limit}, description, missing: (name) => `${name} is required`},
    (value, name) => {
      if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit)
        throw new InputError(`${name} must be a number from -${limit} to ${limit}`)
      return value
    },
  )

const userIds = field(
  {
    json: {type: 'array', items: {type: 'integer', minimum: 1}, minItems: 1},
    description: 'the users chosen',
    missing: () => 'user_ids is required: the ids of the users chosen, e.g. [2222]',
  },
  (value) => {
    if (!Array.isArray(value) || value.length === 0 || value.some((id) => !Number.isSafeInteger(id) || id < 1))
      throw new InputError('user_ids must be a non-empty array of user ids, e.g. [2222]')
    return value as number[]
  },
)

type ShareInput = {base: ShareBase; shared: Shared}

const run = ({bot, inject}: ActionContext, input: ShareInput): Update =>
  inject({message: sharedMessage(bot, input.base, input.shared)})
const json = (update: Update) => ({update_id: update.update_id, message: update.message})
const RESULT = '{update_id, message}: the update queued'

export const shareContact = defineAction({
  name: 'share_contact',
  description: "the user presses a request_contact button: a message with the user's own contact",
  params: {phone_number: text("the user's phone number", {required: true}), ...sender},
  result: RESULT,
  route: 'shares/contact',
  read: (f, bot): ShareInput => ({base: readSender(f, bot), shared: {kind: 'contact', phoneNumber: f.phone_number}}),
  run,
  json,
})

export const shareLocation = defineAction({
  name: 'share_location',
  description: 'the user presses a request_location button: a message with their location',
  params: {latitude: coordinate('latitude', 90), longitude: coordinate('longitude', 180), ...sender},
  result: RESULT,
  route: 'shares/location',
  read: (f, bot): ShareInput => ({
    base: readSender(f, bot),
    shared: {kind: 'location', latitude: f.latitude, longitude: f.longitude},
  }),
  run,
  json,
})

export const shareUsers = defineAction({
  name: 'share_users',
  description: 'the user picks users for a request_users button: a users_shared message',
  params: {request_id: int("the button's request_id", {required: true}), user_ids: userIds, ...sender},
  result: RESULT,
  route: 'shares/users',
  read: (f, bot): ShareInput => ({
    base: readSender(f, bot),
    shared: {kind: 'users', requestId: f.request_id, userIds: f.user_ids},
  }),
  run,
  json,
})

export const shareChat = defineAction({
  name: 'share_chat',
  description: 'the user picks a chat for a request_chat button: a chat_shared message',
  params: {
    request_id: int("the button's request_id", {required: true}),
    shared_chat_id: int('the chat chosen', {required: true, nonZero: true}),
    ...sender,
  },
  result: RESULT,
  route: 'shares/chat',
  read: (f, bot): ShareInput => ({
    base: readSender(f, bot),
    shared: {kind: 'chat', requestId: f.request_id, chatId: f.shared_chat_id},
  }),
  run,
  json,
})
