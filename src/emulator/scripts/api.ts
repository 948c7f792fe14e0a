/** `runChatScript(emu, token, script)`: the chat-script runner for JavaScript tests (vitest, node:test). */
import type {ChatScript} from './format.js'
import type {ChatScriptOptions, ChatScriptResult} from './run.js'

/** What runChatScript needs: a BotApiEmulator. */
export interface ChatScriptEmulator {
  runChatScript(token: string, script: ChatScript | string, options?: ChatScriptOptions): Promise<ChatScriptResult>
}

/**
 * Play a chat script (its YAML text, or parseChatScript's result) against the emulator's bot `token`:
 *
 *   const result = await runChatScript(emu, token, readFileSync('test/start.chat.yml', 'utf8'), {file: 'test/start.chat.yml'})
 *   expect(result.failures).toEqual([])
 *
 * Resolves with the outcome (each failure with the step's file:line, what was expected, what the bot did and their
 * diff); rejects with a ChatScriptError (line, column, fix) when the script cannot be read.
 */
export function runChatScript(
  emu: ChatScriptEmulator,
  token: string,
  script: ChatScript | string,
  options: ChatScriptOptions = {},
): Promise<ChatScriptResult> {
  return emu.runChatScript(token, script, options)
}
