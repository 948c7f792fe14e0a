/**
 * The session's hold on the bot's default menu button (`bot dev --web-app`), the only caller of setChatMenuButton
 * for the session: read the button there is now (getChatMenuButton without chat_id: the bot's default, see
 * core.telegram.org/bots/api#getchatmenubutton), record it in the session state file before setting ours (so a
 * crash leaves a repairable record, as the webhook's does: webhook/session-webhook.ts), set a `web_app` button to
 * the app, and on exit put the recorded one back, unless someone changed the button meanwhile (then it is theirs,
 * left as it is). A later run repairs what a dead session left the same way. Emits nothing itself.
 */
import type {MenuButtonRecord, SessionState} from '../session-store/state.js'
import type {BotApi} from '../telegram/index.js'

/** The text of the menu button the session sets. */
export const MENU_BUTTON_TEXT = 'Open app'

export type MenuRestoreResult = 'restored' | 'left-foreign' | 'nothing'

type MenuButton = Record<string, unknown>

/** Ours: a web_app button to `url`. */
function isOurs(button: MenuButton | undefined, url: string): boolean {
  return button?.type === 'web_app' && (button.web_app as {url?: unknown} | undefined)?.url === url
}

/** setChatMenuButton for the bot's default button: `default` is the absence of a button (the call without menu_button). */
function setDefault(api: BotApi, button: MenuButton, options: {timeoutMs?: number; signal?: AbortSignal}) {
  return api.call('setChatMenuButton', button.type === 'default' ? {} : {menu_button: button}, options)
}

/**
 * Put back what `record` replaced, when the button is still the one it set. `restored`: put back; `left-foreign`:
 * someone changed it meanwhile.
 */
export async function restoreMenuButton(
  api: BotApi,
  record: MenuButtonRecord,
  options: {timeoutMs?: number} = {},
): Promise<MenuRestoreResult> {
  const now = await api.call<MenuButton>('getChatMenuButton', {}, options)
  if (!isOurs(now, record.url)) return 'left-foreign'
  await setDefault(api, record.previous, options)
  return 'restored'
}

export class SessionMenuButton {
  readonly #api: BotApi
  readonly #saveState: (patch: Partial<SessionState>) => void
  #record: MenuButtonRecord | undefined
  #abandoning: Promise<MenuRestoreResult | {error: unknown}> | undefined
  /** Restoring failed: the state file is kept so the next run repairs it. */
  cleanFailed = false

  constructor(api: BotApi, saveState: (patch: Partial<SessionState>) => void) {
    this.#api = api
    this.#saveState = saveState
  }

  /** The app's URL our button opens, while it may be set. */
  get url(): string | undefined {
    return this.#record?.url
  }

  /** The button that was there before ours. */
  get previous(): MenuButton | undefined {
    return this.#record?.previous
  }

  /**
   * Set the default menu button to a web_app button to `url`. The first time, the button there is now is read and
   * recorded first; later (a new public URL) only the URL changes.
   */
  async set(url: string, signal?: AbortSignal): Promise<void> {
    const previous = this.#record?.previous ??
      (await this.#api.call<MenuButton>('getChatMenuButton', {}, {signal})) ?? {type: 'default'}
    this.#record = {url, previous}
    this.#saveState({menuButton: this.#record})
    await this.#api.call(
      'setChatMenuButton',
      {menu_button: {type: 'web_app', text: MENU_BUTTON_TEXT, web_app: {url}}},
      {signal: signal?.aborted ? undefined : signal},
    )
  }

  /** A dead session's record this session takes over (its repair failed): restored on exit like our own. */
  adopt(record: MenuButtonRecord): void {
    this.#record ??= record
  }

  /** On exit: put the previous button back (unless someone changed ours); the record goes once that is done. */
  async restore(timeoutMs: number): Promise<MenuRestoreResult> {
    const record = this.#record
    if (!record) return 'nothing'
    try {
      const result = await restoreMenuButton(this.#api, record, {timeoutMs})
      this.#record = undefined
      this.#saveState({menuButton: undefined})
      return result
    } catch (error) {
      this.cleanFailed = true
      throw error
    }
  }

  /** A second signal: restore at once (once); never rejects. */
  abandon(timeoutMs: number): Promise<MenuRestoreResult | {error: unknown}> {
    this.#abandoning ??= this.restore(timeoutMs).catch((error: unknown) => ({error}))
    return this.#abandoning
  }

  /** What a second signal's restore came to; settled at once when none was asked for. */
  get abandoned(): Promise<MenuRestoreResult | {error: unknown} | undefined> {
    return this.#abandoning ?? Promise.resolve(undefined)
  }
}
