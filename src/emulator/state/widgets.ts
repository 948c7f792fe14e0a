/**
 * Widgets (Bot API 10.4, core.telegram.org/bots/widgets): the shared widgets a bot created (one public state for
 * every message showing them), and the widget queries users sent, each answerable once within 15 seconds.
 */
import type {TgObject} from '../types.js'

export interface SharedWidget {
  id: string
  html: string
  width?: number
  height?: number
  publicData?: string
  cacheTime: number
  /** Epoch ms of the last change of the public data (at most one a second). */
  editedAt: number
}

export interface WidgetQueryState {
  /** `widget_query` or `shared_widget_query`. */
  kind: string
  query: TgObject
  madeAt: number
  answer?: string
}

/** How long a widget query may be answered (answerWidgetQuery: "within 15 seconds"). */
export const WIDGET_QUERY_LIFETIME_MS = 15_000

const MAX = 10_000

export class WidgetStore {
  readonly shared = new Map<string, SharedWidget>()
  readonly queries = new Map<string, WidgetQueryState>()
  private serial = 0

  newSharedId(botId: number): string {
    this.serial += 1
    return `${botId}${String(this.serial).padStart(6, '0')}`
  }

  addShared(widget: SharedWidget): void {
    this.shared.set(widget.id, widget)
    if (this.shared.size > MAX) this.shared.delete(this.shared.keys().next().value!)
  }

  addQuery(kind: string, query: TgObject): void {
    this.queries.set(String(query.id), {kind, query, madeAt: Date.now()})
    if (this.queries.size > MAX) this.queries.delete(this.queries.keys().next().value!)
  }

  clear(): void {
    this.shared.clear()
    this.queries.clear()
  }
}
