/**
 * Everything a dev session reports, as plain JSON-serialisable events. Each carries a `text`
 * a person can read; `bot dev` prints it (or the whole event with --json). The service never
 * prints by itself.
 */
import type {FailedCallLine} from '../inspector/history/failed-lines.js'
import type {RelayRejectedEvent, RelayUpdateEvent} from './relay/relay.js'
import type {DevSummary} from './render.js'

export type StepId =
  | 'token'
  | 'session'
  | 'webhook-check'
  | 'relay'
  | 'tunnel'
  | 'webhook'
  | 'bot'
  | 'watch'
  | 'api-proxy'
  | 'inspector'
  | 'menu-button'

/** A Bot API call of the bot that failed (seen by the api proxy), under the update it belongs to when known. */
export type ApiCallEvent = Omit<FailedCallLine, 'type' | 'text'>

export type DevEvent =
  | {type: 'step'; step: StepId; status: 'start' | 'ok' | 'fail' | 'skip'; text: string}
  | {type: 'repaired'; pid: number; text: string}
  | {
      type: 'ready'
      mode: 'webhook' | 'polling'
      delivery: 'tunnel' | 'bridge' | 'polling'
      url?: string
      port?: number
      inspectorUrl?: string
      /** The chat page (`bot dev --offline`): the inspector's `/chat`, with its key. */
      chatUrl?: string
      /** --forward-to: the user's server that gets the updates (no bot process). */
      forwardTo?: string
      /** --web-app: where the app is served (the public URL + `/app/`; WEB_APP_URL). */
      webAppUrl?: string
      command: string
      text: string
    }
  | ({type: 'update'; text: string} & RelayUpdateEvent)
  | ({type: 'api-call'; text: string} & ApiCallEvent)
  | ({type: 'rejected'; text: string} & RelayRejectedEvent)
  | {type: 'bot-start'; pid: number; mode: 'webhook' | 'polling'; command: string; text: string}
  /** `ms`: from the bot's start; `restartMs`: after a restart, from the restart's start (the old bot's stop included when it went first). */
  | {type: 'bot-listening'; port: number; host: string; ms: number; restartMs?: number; text: string}
  | {type: 'bot-output'; stream: 'stdout' | 'stderr'; line: string; text: string}
  | {type: 'bot-exit'; code: number | null; signal: string | null; crashed: boolean; text: string}
  /**
   * `order`: 'start-first', the new bot starts on a fresh PORT beside the old one, which is stopped once the
   * new one listens; 'stop-first', the old bot stops before the new one starts (polling mode, --port, a bot
   * that ignores PORT, BOT_DEV_RESTART=stop-first).
   */
  | {type: 'restart'; files: string[]; order: 'start-first' | 'stop-first'; text: string}
  | {type: 'tunnel-down'; error?: string; text: string}
  | {type: 'tunnel-retry'; attempt: number; of: number; delayMs: number; error?: string; text: string}
  | {type: 'tunnel-reconnected'; url: string; text: string}
  | {type: 'fallback'; mode: 'bridge'; error?: string; text: string}
  /** The bot polls for updates itself: the webhook session switched to polling delivery (what it gave back). */
  | {type: 'mode-switch'; mode: 'polling'; handedOver: 'webhook' | 'bridge' | 'nothing'; text: string}
  /**
   * --web-app: the app is served at `url` (the public URL + `/app/`) from the dev server `devServer`, the menu button
   * set to it; `url` absent: this session has no public URL (the polling bridge, polling), nothing was set.
   */
  | {type: 'web-app'; devServer: string; url?: string; text: string}
  | {type: 'warn'; text: string; fix?: string}
  | {type: 'info'; text: string}
  | {type: 'teardown'; step: string; ok: boolean; text: string}
  | ({type: 'summary'; text: string} & DevSummary)

export type DevEventSink = (event: DevEvent) => void
