/** What the control API asks of the emulator (BotApiEmulator implements it). */
import type {
  CallbackQueryOptions,
  RecordedCall,
  TgObject,
  Update,
  UserMediaOptions,
  UserMessageOptions,
} from '../types.js'
import type {VoteOptions} from '../user/polls.js'
import type {InlineQueryOptions} from '../user/inline.js'
import type {FaultSpec} from '../state/faults.js'
import type {PaymentAttempt} from '../state/payments.js'
import type {PayOptions} from '../user/payments.js'
import type {ReactionOptions} from '../user/reactions.js'
import type {JoinRequestOptions, MemberChange} from '../user/members.js'
import type {BusinessMessageOptions, ConnectOptions} from '../user/business.js'
import type {BoostOptions} from '../user/boosts.js'
import type {GuestOptions} from '../user/guests.js'
import type {SharedWidgetQueryOptions, WidgetQueryOptions} from '../user/widgets.js'
import type {SubscriptionOptions} from '../user/subscriptions.js'
import type {StopGenerationOptions} from '../user/generation.js'

export interface ControlledEmulator {
  sendUserMessage(token: string, options: UserMessageOptions): Update
  sendCallbackQuery(token: string, options: CallbackQueryOptions): Update
  sendUserMedia(token: string, options: UserMediaOptions): Update
  votePoll(token: string, pollId: string, options: VoteOptions): {updates: Update[]; poll: TgObject}
  sendInlineQuery(token: string, options: InlineQueryOptions): Update
  injectUpdate(token: string, body: TgObject): Update
  failNext(token: string, method: string, fault: FaultSpec): void
  blockBot(token: string, chatId: number): Update
  unblockBot(token: string, chatId: number): Update
  migrateChat(token: string, chatId: number): number
  deactivateUser(token: string, userId: number): void
  pendingUpdates(token: string): Update[]
  reset(): void
  on(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
  off(event: 'call', listener: (call: RecordedCall, token: string) => void): unknown
  payInvoice(token: string, options: PayOptions): Promise<PaymentAttempt>
  payments(token: string): PaymentAttempt[]
  renewSubscription(token: string, chargeId: string): {chargeId: string; message: TgObject}
  buyPaidMedia(token: string, options: {chatId: number; messageId: number; userId?: number}): {update_id: number}
  react(token: string, options: ReactionOptions): Update & {reason?: string}
  setMemberStatus(token: string, change: MemberChange): Update[]
  requestJoin(token: string, options: JoinRequestOptions): Update & {reason?: string}
  setBotStatus(token: string, change: Omit<MemberChange, 'userId' | 'inviteLink' | 'customTitle'>): Update[]
  chatMembers(token: string, chatId: number): {members: TgObject[]; inviteLinks: TgObject[]; joinRequests: TgObject[]}
  connectBusiness(token: string, options?: ConnectOptions): {connection: TgObject; update: Update}
  editBusinessConnection(
    token: string,
    id: string,
    change: {rights?: string[]; isEnabled?: boolean},
  ): {connection: TgObject; update: Update}
  sendBusinessMessage(token: string, options: BusinessMessageOptions): Update
  editBusinessMessage(
    token: string,
    options: {connectionId: string; chatId: number; messageId: number; text: string},
  ): Update
  deleteBusinessMessages(token: string, options: {connectionId: string; chatId: number; messageIds: number[]}): Update
  boostChat(token: string, options: BoostOptions): Update[]
  removeChatBoost(token: string, options: {chatId: number; boostId: string}): Update
  sendWebAppData(token: string, options: {userId?: number; data: string; buttonText: string}): Update
  openWebApp(token: string, options?: {userId?: number; chatId?: number}): string
  summonGuest(token: string, options: GuestOptions): Update
  sendWidgetQuery(token: string, options: WidgetQueryOptions): Update
  sendSharedWidgetQuery(token: string, options: SharedWidgetQueryOptions): Update
  widgetAnswer(token: string, queryId: string): string | undefined
  updateSubscription(token: string, options: SubscriptionOptions): Update
  stopGeneration(token: string, options: StopGenerationOptions): Update
  ephemeralMessages(token: string): TgObject[]
}
