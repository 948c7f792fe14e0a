import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {fixtureDescription, fixtureFlags, runFixture} from '../../cli/trigger-fixture.js'

export default class TriggerPhoto extends BaseCommand<typeof TriggerPhoto> {
  static summary = 'Send a photo from a user to the bot running under `bot dev`.'

  static description = fixtureDescription(
    "Delivers a message with a photo from the user: the image FILE (or a small built-in PNG) as a PhotoSize whose file_id the session's api proxy knows, so the bot's getFile and its download of the file work, online too.",
    ['photo'],
  )

  static examples = [
    {description: 'A photo from the last user the session saw', command: '<%= config.bin %> <%= command.id %> cat.jpg'},
    {
      description: 'With a caption',
      command: '<%= config.bin %> <%= command.id %> cat.jpg --set caption="look at this"',
    },
  ]

  static args = {
    file: Args.string({description: 'image file (JPEG, PNG, GIF or WebP, up to 5 MB) [default: a built-in 2×2 PNG]'}),
  }

  static flags = fixtureFlags

  async run() {
    return runFixture(this, 'photo', this.flags, this.args.file)
  }
}
