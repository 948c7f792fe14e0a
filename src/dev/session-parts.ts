/**
 * The inspector's other parts (api proxy, page server, control port, synthetic updates), loaded
 * when the session starts. Their signatures are the contract of issue 13 (see the shared notes);
 * a part missing from this build is skipped.
 */
import type {ApiCall, ControlRecord, HistoryView, SessionActions, TriggerRequest} from '../inspector/types.js'

export interface InspectorParts {
  startApiProxy?: (o: {upstream: string; secrets?: string[]; host?: string; port?: number; onCall: (call: ApiCall) => void; onUpdates?: (updates: unknown[]) => void}) => Promise<{url: string; port: number; close(): Promise<void>}>
  startInspectorServer?: (o: {history: HistoryView; actions: Pick<SessionActions, 'replay'>; key: string; host?: string; port?: number; secrets?: string[]}) => Promise<{url: string; port: number; close(): Promise<void>}>
  startControlServer?: (o: {actions: SessionActions; key: string; port?: number}) => Promise<{port: number; close(): Promise<void>}>
  writeControlRecord?: (record: ControlRecord, dir?: string) => string
  removeControlRecord?: (pid: number, dir?: string) => void
  syntheticUpdate?: (request: TriggerRequest, o: {updateId: number; now?: number}) => Record<string, unknown>
}

const load = (path: string): Promise<Record<string, unknown>> => import(path).catch(() => ({}))

let loaded: Promise<InspectorParts> | undefined

export function inspectorParts(): Promise<InspectorParts> {
  loaded ??= (async () => {
    const [proxy, server, control, record, synthetic] = await Promise.all(
      ['../inspector/api-proxy.js', '../inspector/server.js', '../inspector/control.js', '../inspector/control-record.js', '../inspector/synthetic.js'].map((p) => load(p)),
    )
    return {...proxy, ...server, ...control, ...record, ...synthetic} as InspectorParts
  })()
  return loaded
}
