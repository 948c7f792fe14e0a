import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerMember extends BaseCommand<typeof TriggerMember> {
  static summary =
    'A user joins or leaves a group, or blocks or unblocks the bot: a chat_member or my_chat_member update.'

  static description = fixtureDescription(
    "joined and left: a chat_member update in a group (--chat, or the last group the session saw); Telegram sends it only to administrators that ask for chat_member in allowed_updates, and offline the emulator also sends the join or departure as a service message (new_chat_members, left_chat_member). blocked and unblocked: a my_chat_member update in the private chat (offline the emulator then refuses the bot's messages to a user who blocked it, with 403).",
    ['member-joined', 'member-left', 'member-blocked', 'member-unblocked'],
  )

  static examples = [
    {
      description: 'A user joins a supergroup',
      command: '<%= config.bin %> <%= command.id %> joined --chat -1001234567890',
    },
    {description: 'The last user blocks the bot', command: '<%= config.bin %> <%= command.id %> blocked'},
  ]

  static args = {
    change: Args.string({
      description: 'what the user does',
      options: ['joined', 'left', 'blocked', 'unblocked'],
      required: true,
    }),
  }

  static flags = fixtureFlags

  async run() {
    const type = `member-${this.args.change}` as 'member-joined' | 'member-left' | 'member-blocked' | 'member-unblocked'
    return runFixture(this, type, this.flags)
  }
}
