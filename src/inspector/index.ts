/**
 * The inspector of `bot dev`: the api proxy that records the bot's Bot API calls, the update
 * history (updates, the bot's answers, the calls made for each; JSONL log), the loopback web page
 * and JSON API, the control port and record `bot trigger` / `bot replay` use, synthetic updates.
 * A dev session wires them together in src/dev/session-inspector.ts.
 */
export * from './types.js'
export {startApiProxy, type ApiProxy, type ApiProxyOptions} from './proxy/api-proxy.js'
export {ATTACH_WINDOW_MS, HISTORY_LIMIT, UpdateHistory, type UpdateHistoryOptions} from './history/history.js'
export {startInspectorServer, type InspectorServer, type InspectorServerOptions} from './web/server.js'
export {startControlServer, KEY_HEADER, type ControlServer, type ControlServerOptions} from '../control/server.js'
export {findControlRecord, listControlRecords, removeControlRecord, writeControlRecord} from '../control/record.js'
export {syntheticUpdate, type SyntheticOptions} from '../control/synthetic.js'
export {callText, inspectorText, pollingUpdateText, sourceSuffix} from './render.js'
