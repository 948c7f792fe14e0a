/** A reply keyboard's request buttons: the user shares a contact, a location, users or a chat (../user/shares.ts). */
import type {Update} from '../types.js'
import {type ShareBase, type Shared, sharedMessage} from '../user/shares.js'
import {type ActionContext, defineAction} from './action.js'
import {type Field, type FieldValues, InputError, field, idList, int, text} from './fields.js'
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

const userIds = idList('the users chosen', {
  missing: 'user_ids is required: the ids of the users chosen, e.g. [2222]',
  bad: 'user_ids must be a non-empty array of user ids, e.g. [2222]',
})

type ShareInput = {base: ShareBase; shared: Shared}

const run = ({bot, inject}: ActionContext, input: ShareInput): Update =>
  inject({message: sharedMessage(bot, input.base, input.shared)})
const json = (update: Update) => ({update_id: update.update_id, message: update.message})

/** A share: its own params then the sender's, routed at `shares/{route}`; `shared` reads what the user shares. */
function shareAction<Params extends Record<string, Field>>(spec: {
  name: string
  description: string
  route: string
  params: Params
  shared: (f: FieldValues<Params>) => Shared
}) {
  return defineAction({
    name: spec.name,
    description: spec.description,
    params: {...spec.params, ...sender},
    result: '{update_id, message}: the update queued',
    route: `shares/${spec.route}`,
    read: (f, bot): ShareInput => ({base: readSender(f, bot), shared: spec.shared(f)}),
    run,
    json,
  })
}

export const shareContact = shareAction({
  name: 'share_contact',
  description: "the user presses a request_contact button: a message with the user's own contact",
  route: 'contact',
  params: {phone_number: text("the user's phone number", {required: true})},
  shared: (f) => ({kind: 'contact', phoneNumber: f.phone_number}),
})

export const shareLocation = shareAction({
  name: 'share_location',
  description: 'the user presses a request_location button: a message with their location',
  route: 'location',
  params: {latitude: coordinate('latitude', 90), longitude: coordinate('longitude', 180)},
  shared: (f) => ({kind: 'location', latitude: f.latitude, longitude: f.longitude}),
})

export const shareUsers = shareAction({
  name: 'share_users',
  description: 'the user picks users for a request_users button: a users_shared message',
  route: 'users',
  params: {request_id: int("the button's request_id", {required: true}), user_ids: userIds},
  shared: (f) => ({kind: 'users', requestId: f.request_id, userIds: f.user_ids}),
})

export const shareChat = shareAction({
  name: 'share_chat',
  description: 'the user picks a chat for a request_chat button: a chat_shared message',
  route: 'chat',
  params: {
    request_id: int("the button's request_id", {required: true}),
    shared_chat_id: int('the chat chosen', {required: true, nonZero: true}),
  },
  shared: (f) => ({kind: 'chat', requestId: f.request_id, chatId: f.shared_chat_id}),
})
