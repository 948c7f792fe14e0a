/** The `bot dev` service: run a bot behind a relay (and a tunnel), with teardown and crash repair. */
export {DevSession, runDevSession, type DevSessionOptions, type DevSummary} from './session.js'
export type {DevEvent, DevEventSink, StepId} from './events.js'
export {resolveBotCommand, DEFAULT_ENTRY_FILES, type BotCommand} from './bot/command.js'
export {
  Relay,
  describeUpdate,
  DEFAULT_HEALTH_PATH,
  SECRET_HEADER,
  type RelayOptions,
  type RelayTarget,
  type RelayUpdateEvent,
} from './relay/relay.js'
export {BotProcess, botEnv, canConnect, type BotExit, type BotMode} from './bot/process.js'
export {
  stateDir,
  readState,
  listStates,
  isPidAlive,
  writeState,
  removeState,
  statePath,
  type SessionState,
} from '../session-store/state.js'
export {watchProject, isIgnoredPath, IGNORED_DIRS} from './watch.js'
export {TunnelKeeper, probeThrough} from './delivery/tunnel/keeper.js'
