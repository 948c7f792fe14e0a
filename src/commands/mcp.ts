import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {sourceOf} from '../cli/config.js'
import {UsageError} from '../lib/errors.js'

export default class Mcp extends BaseCommand<typeof Mcp> {
  static summary = 'A Model Context Protocol server on stdio: a coding agent drives the bot and reads what it did.'

  static description =
    `Serves MCP (Model Context Protocol) on stdin/stdout for a coding agent (Claude Code, Cursor, VS Code). Its tools act as the bot's user (send_message, press_button, send_file, pay_invoice, vote_poll, inline_query, react and the other user actions), read what happened (read_chat, list_updates, get_update, list_calls with Telegram's errors explained, bot_output with the bot's stack traces) and steer the session (trigger, replay, restart_bot, inject_fault). Resources: the docs and the session's status.

It attaches to the \`bot dev\` session running for this project (found as \`bot trigger\` finds it: the session of BOT_TOKEN's bot, else the one started in this folder). With --offline it starts \`bot dev --offline\` itself in the background (the bot command after --, else the project's) and stops it when the client disconnects. Without a session and without --offline, every tool answers with how to start one.

Nothing but the protocol is written to stdout; the session's lines go to stderr. docs/mcp.md has the configuration for Claude Code, Cursor and VS Code.`

  static examples = [
    {description: 'Attach to the `bot dev` running in this project', command: '<%= config.bin %> <%= command.id %>'},
    {
      description: 'Start `bot dev --offline` in the background and serve it',
      command: '<%= config.bin %> <%= command.id %> --offline',
    },
    {
      description: 'The same with the bot command given',
      command: '<%= config.bin %> <%= command.id %> --offline -- node bot.js',
    },
    {
      description: 'Register it with Claude Code',
      command: 'claude mcp add bot -- npx bot mcp --offline',
    },
  ]

  static strict = false
  static enableJsonFlag = false

  static flags = {
    offline: Flags.boolean({
      description: 'start `bot dev --offline` in the background (stopped on exit) and serve that session',
    }),
    mode: Flags.string({
      description: 'with --offline: how the bot gets its updates (as `bot dev --mode`)',
      options: ['webhook', 'polling'],
    }),
    token: Flags.string({
      description: "bot token: picks that bot's session (never printed)",
      env: 'BOT_TOKEN',
      helpGroup: 'BOT API',
    }),
  }

  async run() {
    const [{runMcpServer}, {sessionToken}, {fileURLToPath}] = await Promise.all([
      import('../mcp/server.js'),
      import('../control/client.js'),
      import('node:url'),
    ])
    const {flags} = this
    const command = this.positional
    if (!flags.offline && (command.length > 0 || flags.mode))
      throw new UsageError(
        `${command.length > 0 ? 'A bot command' : '--mode'} only goes with --offline (bot mcp then starts \`bot dev --offline\`).`,
        `Run \`${this.config.bin} mcp --offline${command.length > 0 ? ` -- ${command.join(' ')}` : ''}\`, or start \`${this.config.bin} dev\` yourself and run \`${this.config.bin} mcp\`.`,
      )
    const token = sessionToken(flags.token, sourceOf('BOT_TOKEN', this.argv, 'token') === 'flag')
    await runMcpServer({
      cwd: process.cwd(),
      ...(token ? {token} : {}),
      ...(flags.offline
        ? {
            offline: {
              args: [...(flags.mode ? ['--mode', flags.mode] : []), ...(command.length > 0 ? ['--', ...command] : [])],
            },
          }
        : {}),
      version: this.config.version,
      docsDir: fileURLToPath(new URL('../../docs/', import.meta.url)),
      log: (line) => process.stderr.write(`${line}\n`),
    })
  }
}
