/**
 * The bot's command lists: one per (scope, language), as setMyCommands leaves them; and the list a user sees in a
 * chat, found the way the Bot API documents it (BotCommandScope, "Determining list of commands"): the first list
 * that is set, from the most specific scope and the user's language down to the default.
 */
import type * as Tg from '@grammyjs/types'

/** A command as setMyCommands takes it and getMyCommands answers (core.telegram.org/bots/api#botcommand). */
export type BotCommand = Pick<Tg.BotCommand, 'command' | 'description'>

/** A scope as a key: default, all_private_chats, all_group_chats, all_chat_administrators, chat:ID, chat_administrators:ID, chat_member:ID:USER. */
export type ScopeKey = string

export class CommandLists {
  private readonly lists = new Map<string, BotCommand[]>()

  private static key(scope: ScopeKey, language: string): string {
    return `${scope}|${language}`
  }

  get(scope: ScopeKey, language: string): BotCommand[] | undefined {
    return this.lists.get(CommandLists.key(scope, language))
  }

  /** Set a list; an empty one removes it (the default and wider scopes show again). */
  set(scope: ScopeKey, language: string, commands: BotCommand[]): void {
    if (commands.length === 0) this.lists.delete(CommandLists.key(scope, language))
    else this.lists.set(CommandLists.key(scope, language), commands)
  }

  /**
   * The commands a user sees in a chat (private: the user's own chat; a negative id: a group), for their language;
   * `isAdministrator`: the user administers the group.
   */
  visible(chatId: number, userId: number, language: string, isAdministrator = false): BotCommand[] {
    const order: ScopeKey[] =
      chatId > 0
        ? [`chat:${chatId}`, 'all_private_chats', 'default']
        : [
            `chat_member:${chatId}:${userId}`,
            ...(isAdministrator ? [`chat_administrators:${chatId}`] : []),
            `chat:${chatId}`,
            ...(isAdministrator ? ['all_chat_administrators'] : []),
            'all_group_chats',
            'default',
          ]
    for (const scope of order) {
      const found = (language ? this.get(scope, language) : undefined) ?? this.get(scope, '')
      if (found) return found
    }
    return []
  }

  clear(): void {
    this.lists.clear()
  }
}
