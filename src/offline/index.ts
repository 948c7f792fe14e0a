/**
 * Offline mode: what `bot dev --offline` and `bot emulator` call.
 *
 * `bot dev --offline` needs one call (see runOfflineDev): it starts the emulator with the fixed fake
 * bot, runs the usual dev session against it (BotApi on the emulator, loopbackProvider() in webhook
 * mode, a temporary state dir), starts the terminal chat once the session is ready, stops the session
 * when the chat input ends, and stops the emulator:
 *
 *   const summary = await runOfflineDev({mode, command, cwd, watch, …dev session options,
 *     chatId, userId, input: process.stdin, output: process.stdout, logOutput: process.stderr,
 *     handleSignals: true, onEvent: (event, print) => print(text of event)})
 *   process.exitCode = summary.exitCode
 *
 * The pieces are exported too: startOfflineBackend (emulator + fake bot), startChat /
 * startOfflineChat (the terminal chat), renderCall / formatRendered (what a bot call looks like in a chat).
 */
export {
  OFFLINE_BOT_NAME,
  OFFLINE_BOT_USERNAME,
  OFFLINE_TOKEN,
  OFFLINE_USER,
  startOfflineBackend,
  type OfflineBackend,
  type OfflineBackendOptions,
  type OfflineBot,
  type OfflineUser,
} from './offline-env.js'
export {
  runOfflineDev,
  type OfflineDevEvent,
  type OfflineDevOptions,
  type OfflineDevSummary,
  type OfflinePrint,
} from './dev-offline.js'
export {
  CHAT_HELP,
  startChat,
  startOfflineChat,
  type OfflineChatOptions,
  type Chat,
  type ChatEmulator,
  type ChatEvent,
  type ChatOptions,
  type ChatSummary,
} from './chat.js'
export {
  formatRendered,
  keyboardLines,
  renderCall,
  type CallLike,
  type KeyboardView,
  type RenderedCall,
} from './render.js'
