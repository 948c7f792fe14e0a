/** The `bot dev` service: run a bot behind a relay (and a tunnel), with teardown and crash repair. */
export {DevSession, runDevSession, type DevSessionOptions, type DevSummary} from './session.js'
export type {DevEvent, DevEventSink, StepId} from './events.js'
export {resolveBotCommand, DEFAULT_ENTRY_FILES, type BotCommand} from './command.js'
export {
  Relay,
  describeUpdate,
  DEFAULT_HEALTH_PATH,
  SECRET_HEADER,
  type RelayOptions,
  type RelayTarget,
  type RelayUpdateEvent,
} from './relay.js'
export {BotProcess, botEnv, canConnect, type BotExit, type BotMode} from './bot-process.js'
export {
  stateDir,
  readState,
  listStates,
  isPidAlive,
  writeState,
  removeState,
  statePath,
  type SessionState,
} from './state.js'
export {watchProject, isIgnoredPath, IGNORED_DIRS} from './watch.js'
export {TunnelKeeper, probeThrough} from './tunnel-keeper.js'
