/**
 * The words of `bot dev --offline` for the events the dev session shares with online mode. Offline
 * there is no Telegram, no tunnel and nothing to go back to: one start-up line replaces the relay,
 * tunnel, webhook and watch lines, the webhook's removal is not news, and the summary counts what
 * the chat sent. Pure: the events keep every field (--json stays complete), only `text` changes.
 */
import {durationText, plural, type DevSummary} from '../dev/render.js'

export interface OfflineInfo {
  apiRoot: string
  botUsername: string
  mode: 'webhook' | 'polling'
  firstName: string
  chatId: number
  /** A terminal chat with a prompt (else lines are read from a pipe or a file). */
  interactive: boolean
}

/** The one start-up line, printed once the bot is ready for the first message; the inspector's address last (nothing glued to it). */
export function offlineReadyText(
  info: OfflineInfo,
  ready: {
    command: string
    port?: number
    watching: boolean
    inspectorUrl?: string
    chatUrl?: string
    forwardTo?: string
  },
): string {
  const inspector =
    (ready.chatUrl ? ` Chat page: ${ready.chatUrl}` : '') +
    (ready.inspectorUrl ? ` Inspector: ${ready.inspectorUrl}` : '')
  const chat = info.interactive
    ? `You are ${info.firstName} (chat ${info.chatId}): type a message, :help for commands, Ctrl-D ends.`
    : `Sending each line of input as ${info.firstName} (chat ${info.chatId}).`
  if (ready.forwardTo)
    return `Offline: the updates of @${info.botUsername} on the built-in emulator (${info.apiRoot}) go to your server at ${ready.forwardTo}, webhook over loopback. ${chat}${inspector}`
  const how = info.mode === 'webhook' ? `webhook over loopback on port ${ready.port ?? '?'}` : 'long polling'
  const watch = ready.watching ? ', restarting on file changes' : ''
  return `Offline: \`${ready.command}\` runs as @${info.botUsername} on the built-in emulator (${info.apiRoot}), ${how}${watch}. ${chat}${inspector}`
}

/** Offline teardown: the emulator's webhook is removed with the emulator; no line about long polling. */
export const OFFLINE_WEBHOOK_DELETED = 'Webhook deleted in the emulator'

/** The closing line: what the chat sent and, in webhook mode, how many updates failed. */
export function offlineSummaryText(s: DevSummary, sent: number): string {
  const parts = [`${plural(sent, 'update')} sent`]
  if (s.mode === 'webhook') parts.push(plural(s.failures, 'failure'))
  if (s.failedCalls) parts.push(plural(s.failedCalls, 'failed call'))
  if (s.restarts) parts.push(plural(s.restarts, 'restart'))
  return `■ bot dev --offline ended after ${durationText(s.durationMs)}: ${parts.join(', ')}; exit code ${s.exitCode}.`
}
