/**
 * Runs the user-facing test example (examples/bot-tests) as part of `npm test`: it drives the
 * sample bot (examples/echo-bot) through the emulator imported by the package's own name,
 * `bot-cli/emulator` (resolved through package.json "exports" to dist/: needs `npm run build`).
 */
import '../../examples/bot-tests/echo-bot.test.js'
