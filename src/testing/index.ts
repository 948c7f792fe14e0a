/**
 * `bot test`: chat scripts (`*.chat.yml`, the emulator's scripts/) played against the project's bot, started as
 * `bot dev --offline` starts it. find.ts finds the scripts, session.ts starts the bot, run.ts plays them (and
 * rewrites them with --update), report.ts shows the outcome (lines, JUnit XML, JSON).
 */
export {findChatScripts, SCRIPT_SUFFIX} from './find.js'
export {readScripts, runChatTests, type ChatTestOptions, type ChatTestRun, type ScriptOutcome} from './run.js'
export {BotStartError, startTestBot, type OutputLine, type TestBot} from './session.js'
export {failureLines, junitXml, runJson, scriptLines, summaryLine, type Paint} from './report.js'
