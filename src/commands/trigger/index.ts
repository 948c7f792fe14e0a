import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'

export default class Trigger extends BaseCommand<typeof Trigger> {
  static summary = 'Send the bot running under `bot dev` a synthetic update: a message, a button press, a payment…'

  static description =
    `Like \`stripe trigger\`: each TYPE of update starts from a fixture (a JSON template shipped with bot), filled by the running session with what it has seen (the last chat and user, the bot's newest message, its invoice…), changed with --set path=value or replaced with --file (message, callback and update are built from their own arguments and flags instead: no --set). \`bot trigger --list\` lists the types and their fixtures; \`bot trigger TYPE --help\` shows one.`

  static examples = [
    {description: 'The types and their fixtures', command: '<%= config.bin %> <%= command.id %> --list'},
    {description: 'As JSON, with each fixture', command: '<%= config.bin %> <%= command.id %> --list --json'},
  ]

  static flags = {
    list: Flags.boolean({description: 'list the types of update and their fixtures (also without the flag)'}),
  }

  async run() {
    const {triggerTypes} = await import('../../control/trigger-request.js')
    const types = triggerTypes(this.config.bin)
    const width = Math.max(...types.map((t) => t.usage.length))
    for (const t of types) this.log(`${t.usage.padEnd(width)}  ${t.summary}`)
    const dir = types.find((t) => t.fixture)?.fixture?.replace(/[^/]+$/, '')
    this.log('')
    this.log(`Fixtures: ${dir}`)
    this.log(
      `\`${this.config.bin} trigger TYPE --help\` shows one; for a type with a fixture, --set path=value changes a field and --file FILE.json replaces it (message, callback and update take their own flags).`,
    )
    return types
  }
}
