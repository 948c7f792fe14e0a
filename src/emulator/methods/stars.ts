/**
 * Telegram Stars from the bot's side (core.telegram.org/bots/payments-stars; Client.cpp
 * process_refund_star_payment_query): refundStarPayment (then a `refunded_payment` service message),
 * getStarTransactions and getMyStarBalance over the bot's ledger, editUserStarSubscription, and sendPaidMedia (media a
 * user unlocks for Stars).
 */
import {randomBytes} from 'node:crypto'
import type {Handler} from './core.js'
import {badRequest, errorText} from '../errors.js'
import {integerArg, required, toBool, userIdParam, jsonArg} from './args.js'
import {formatted} from './message-params.js'
import {sendNew} from './send.js'
import type {TgObject} from '../types.js'
import type {Params} from '../http/params.js'
import {tdIntField} from '../json.js'
import {isObject} from '../telegram.js'

/**
 * refundStarPayment: the Stars go back to the user, the ledger gets the outgoing transaction (same id as the
 * payment), and the user's chat a `refunded_payment` service message. An unknown charge (or another user's) is
 * CHARGE_NOT_FOUND, a second refund CHARGE_ALREADY_REFUNDED (as Client.cpp passes the server's error codes on).
 */
export const refundStarPayment: Handler = (bot, params, core) => {
  const userId = userIdParam(params)
  const chargeId = required(params, 'telegram_payment_charge_id')
  const charge = bot.payments.charges.get(chargeId)
  if (!charge || charge.userId !== userId || charge.currency !== 'XTR') throw badRequest('CHARGE_NOT_FOUND')
  if (charge.refunded) throw badRequest('CHARGE_ALREADY_REFUNDED')
  charge.refunded = true
  const chat = bot.findChat(String(userId))
  const user: TgObject = {
    id: userId,
    is_bot: false,
    first_name: chat?.first_name ?? 'Test',
    ...(chat?.username ? {username: chat.username} : {}),
  }
  const date = Math.floor(Date.now() / 1000)
  bot.payments.addTransaction({
    id: chargeId,
    date,
    receiver: {
      transaction_type: 'invoice_payment',
      type: 'user',
      user,
      ...(charge.payload !== '' ? {invoice_payload: charge.payload} : {}),
    },
    amount: charge.totalAmount,
  })
  const privateChat: TgObject = chat ?? {id: userId, first_name: user.first_name, type: 'private'}
  core.inject(bot, {
    message: {
      message_id: bot.nextMessageId(userId),
      from: user,
      chat: privateChat,
      date,
      refunded_payment: {
        currency: 'XTR',
        total_amount: charge.totalAmount,
        invoice_payload: charge.payload,
        telegram_payment_charge_id: chargeId,
      },
    },
  })
  return {result: true}
}

/** getStarTransactions: offset ≥ 0 and limit 1–100 (default 100), clamped as the server does; oldest first. */
export const getStarTransactions: Handler = (bot, params) => {
  const offset = integerArg(params, 'offset', 0, 0, 2 ** 31 - 1)
  const limit = integerArg(params, 'limit', 100, 1, 100)
  return {result: {transactions: bot.payments.transactions.slice(offset, offset + limit)}}
}

export const getMyStarBalance: Handler = (bot) => ({result: {amount: bot.payments.balance()}})

/** editUserStarSubscription: is_canceled stops (or allows again) the extension of the user's subscription. */
export const editUserStarSubscription: Handler = (bot, params) => {
  const userId = userIdParam(params)
  const chargeId = params.get('telegram_payment_charge_id') ?? ''
  const charge = bot.payments.charges.get(chargeId)
  if (!charge?.subscription || charge.userId !== userId) throw badRequest('CHARGE_NOT_FOUND')
  charge.subscription.canceledByBot = toBool(params.get('is_canceled'))
  return {result: true}
}

const PAID_MEDIA_TYPES = new Set(['photo', 'video', 'live_photo'])

/** The media parameter of sendPaidMedia (BA `get_paid_media`), with its texts. */
function paidMediaItems(params: Params): TgObject[] {
  const raw = required(params, 'media')
  const value = jsonArg(raw, "can't parse paid media JSON object")
  if (!Array.isArray(value)) throw badRequest('expected an Array of InputPaidMedia')
  return value.map((item) => {
    const fail = (message: string): Error => badRequest(`can't parse InputPaidMedia: ${message}`)
    if (!isObject(item)) throw fail('expected an Object')
    const o = item
    const media = typeof o.media === 'string' ? o.media : ''
    const attached = media.startsWith('attach://') ? params.files.get(media.slice('attach://'.length)) : undefined
    if (media === '' || (media.startsWith('attach://') && !attached)) throw fail('media not found')
    // get_input_paid_media: width and height, then the type, then a video's duration and start_timestamp, each with
    // get_optional_int_field (json.ts tdIntField: `640.0` is not a valid Number)
    const int = (name: string): number | undefined => {
      try {
        return tdIntField(o, name)
      } catch (err) {
        throw fail(errorText(err))
      }
    }
    int('width')
    int('height')
    if (!('type' in o)) throw fail('Can\'t find field "type"')
    const type = String(o.type)
    if (!PAID_MEDIA_TYPES.has(type)) throw fail(`type "${type}" is unsupported`)
    if (type === 'video') {
      int('duration')
      int('start_timestamp')
    }
    return o
  })
}

/** What a buyer unlocks, as a PaidMedia object (a photo or a video with made-up file ids). */
function paidMediaObject(input: TgObject): TgObject {
  const fileId = (): string => randomBytes(24).toString('base64url')
  const unique = (): string => randomBytes(8).toString('base64url')
  if (input.type === 'video') {
    return {
      type: 'video',
      video: {
        file_id: fileId(),
        file_unique_id: unique(),
        width: tdIntField(input, 'width') || 640,
        height: tdIntField(input, 'height') || 360,
        duration: tdIntField(input, 'duration') || 1,
      },
    }
  }
  return {
    type: 'photo',
    photo: [
      {file_id: fileId(), file_unique_id: unique(), width: 90, height: 90},
      {file_id: fileId(), file_unique_id: unique(), width: 800, height: 800},
    ],
  }
}

/**
 * sendPaidMedia: a message with `paid_media` (`star_count` and the media, as the sender sees them). The server
 * clamps star_count to 0..10^9 (BA); Telegram's 1–25000 Stars and 1–10 media are checked with texts from Telegram's
 * error list (STARS_AMOUNT_INVALID, MEDIA_INVALID) that docs/emulator.md marks as not settled.
 */
export const sendPaidMedia: Handler = (bot, params) => {
  const starCount = integerArg(params, 'star_count', 0, 0, 1_000_000_000)
  const items = paidMediaItems(params)
  const caption = formatted(bot, params, 'caption')
  const payload = params.get('payload') ?? ''
  const media = items.map(paidMediaObject)
  const message = sendNew(bot, params, () => {
    if (items.length === 0 || items.length > 10) throw badRequest('MEDIA_INVALID')
    if (starCount < 1 || starCount > 25_000) throw badRequest('STARS_AMOUNT_INVALID')
    return {paid_media: {star_count: starCount, paid_media: media}, ...caption()}
  })
  bot.payments.addPaidMedia(message.chat.id, message.message_id, {
    starCount,
    payload,
    media,
  })
  return {result: message}
}

/** The handlers of this file, by lower-cased method name (spread into the method table). */
export const STAR_METHODS: Record<string, Handler> = {
  refundstarpayment: refundStarPayment,
  getstartransactions: getStarTransactions,
  getmystarbalance: getMyStarBalance,
  edituserstarsubscription: editUserStarSubscription,
  sendpaidmedia: sendPaidMedia,
}
