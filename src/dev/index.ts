/** The `bot dev` service: run a bot behind a relay (and a tunnel), with teardown and crash repair. */
export {DevSession, type DevSessionOptions, type DevSummary} from './session.js'
export type {DevEvent, DevEventSink, StepId} from './events.js'
export {resolveBotCommand, DEFAULT_ENTRY_FILES, type BotCommand} from './bot/command.js'
