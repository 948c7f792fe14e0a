/**
 * What a bot says about itself, as its set… methods leave it for the get… methods: name, description and short
 * description per language, the menu button (the default one and per private chat), the default administrator
 * rights (groups and channels), and the access settings of the bots it manages.
 */
import type * as Tg from '@grammyjs/types'
import type {TgObject} from '../types.js'

/** A menu button (core.telegram.org/bots/api#menubutton): the commands, the default, or a Mini App's text and URL. */
export type MenuButton =
  | Pick<Tg.MenuButtonCommands | Tg.MenuButtonDefault, 'type'>
  | (Pick<Tg.MenuButtonWebApp, 'type' | 'text'> & {web_app: Pick<Tg.WebAppInfo, 'url'>})

export type ProfileText = 'name' | 'description' | 'short_description'

export class BotProfile {
  /** `${kind}:${language_code}` → text ('' language: the default). */
  private readonly texts = new Map<string, string>()
  /** Menu buttons: '' → the bot's default, else the private chat (user) id. */
  private readonly menuButtons = new Map<string, MenuButton>()
  /** Default administrator rights as set: 'groups' / 'channels'. */
  private readonly rights = new Map<'groups' | 'channels', TgObject>()
  /** Access settings of managed bots, by the managed bot's user id. */
  readonly managedAccess = new Map<number, TgObject>()

  /** The text for a language, else the default one ('' when never set). */
  text(kind: ProfileText, language: string): string {
    return this.texts.get(`${kind}:${language}`) ?? this.texts.get(`${kind}:`) ?? ''
  }

  /** Set (or, with '', remove) the text of a language. */
  setText(kind: ProfileText, language: string, value: string): void {
    if (value === '') this.texts.delete(`${kind}:${language}`)
    else this.texts.set(`${kind}:${language}`, value)
  }

  menuButton(chatId?: number): MenuButton | undefined {
    return this.menuButtons.get(chatId === undefined ? '' : String(chatId))
  }

  setMenuButton(chatId: number | undefined, button: MenuButton): void {
    this.menuButtons.set(chatId === undefined ? '' : String(chatId), button)
  }

  defaultRights(forChannels: boolean): TgObject | undefined {
    return this.rights.get(forChannels ? 'channels' : 'groups')
  }

  setDefaultRights(forChannels: boolean, rights: TgObject | undefined): void {
    if (rights) this.rights.set(forChannels ? 'channels' : 'groups', rights)
    else this.rights.delete(forChannels ? 'channels' : 'groups')
  }

  clear(): void {
    this.texts.clear()
    this.menuButtons.clear()
    this.rights.clear()
    this.managedAccess.clear()
  }
}
