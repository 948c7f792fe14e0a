/** What the control API asks of the emulator (BotApiEmulator implements it). */
import type {RecordedCall, TgObject, Update} from '../types.js'
import type {FaultSpec} from '../state/faults.js'
import type {PaymentAttempt} from '../state/payments.js'

export interface ControlledEmulator {
  /** Run a user action of the table by name with unchecked input (BotApiEmulator.runAction): its JSON result. */
  runAction(token: string, name: string, input: unknown, path?: Record<string, string>): Promise<unknown>
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
  payments(token: string): PaymentAttempt[]
  chatMembers(token: string, chatId: number): {members: TgObject[]; inviteLinks: TgObject[]; joinRequests: TgObject[]}
  /** What the bot answered to a widget query (answerWidgetQuery's data), or undefined before it answered. */
  widgetAnswer(token: string, queryId: string): string | undefined
  /** The ephemeral messages the bot sent that are still shown. */
  ephemeralMessages(token: string): TgObject[]
}
