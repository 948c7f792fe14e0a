import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerJoinRequest extends BaseCommand<typeof TriggerJoinRequest> {
  static summary = 'Ask to join a group: send a chat_join_request to the bot running under `bot dev`.'

  static description = fixtureDescription(
    'Delivers a chat_join_request: the user asks to join the group or channel (--chat, or the last group the session saw). Offline the emulator keeps the request, so the bot can approve or decline it (approveChatJoinRequest, declineChatJoinRequest); it sends it only to a bot that administers the chat with can_invite_users, as Telegram does.',
    ['join-request'],
  )

  static examples = [
    {
      description: 'A user asks to join a supergroup',
      command: '<%= config.bin %> <%= command.id %> --chat -1001234567890',
    },
    {
      description: 'With a bio',
      command: '<%= config.bin %> <%= command.id %> --chat -1001234567890 --set bio="I love bots"',
    },
  ]

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'join-request', this.flags)
  }
}
