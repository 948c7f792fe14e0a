/** The run every `bot trigger` command shares: who (--chat, --user), which session (--token), the lines printed. */
import type {TriggerResult} from '../control/protocol.js'
import type {TriggerRequest} from '../control/requests.js'
import {sourceOf} from './config.js'

export interface TriggerCommand {
  argv: string[]
  log(message?: string): void
}

/**
 * Runs a `bot trigger` command: --chat and --user checked (exit 2), the session picked by --token,
 * the request `build` makes delivered, its lines printed (exit 1 when the bot answered with an error).
 */
export async function runTrigger(
  cmd: TriggerCommand,
  flags: {chat?: string; user?: string; token?: string},
  build: (who: {chatId?: number; userId?: number}) => TriggerRequest | Promise<TriggerRequest>,
): Promise<TriggerResult> {
  const {parseId, sessionToken, triggerSession} = await import('../control/client.js')
  const chatId = parseId(flags.chat, '--chat', {example: '--chat 1111 or --chat -1001234567890'})
  const userId = parseId(flags.user, '--user', {positive: true, example: '--user 1111'})
  const token = sessionToken(flags.token, sourceOf('BOT_TOKEN', cmd.argv, 'token') === 'flag')
  const result = await triggerSession(await build({chatId, userId}), {token})
  for (const line of result.lines) cmd.log(line)
  if (!result.ok) process.exitCode = 1
  return result.entry
}
