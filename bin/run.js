#!/usr/bin/env node
// `bot --version`, the root help, a command's and a topic's help are answered from package.json and the oclif manifest
// without loading oclif (src/cli/fast/start.ts prints the same bytes as oclif, or declines).
// Everything else runs through oclif, from the compiled dist/ only (never TypeScript
// sources, whatever NODE_ENV says).
const argv = process.argv.slice(2)
let done = false
const help = (a) => a === '--help' || a === '-h'
if (
  argv[0] === '--version' ||
  argv.length === 0 ||
  (argv.length <= 4 && help(argv.at(-1)) && argv.slice(0, -1).every((a) => !a.startsWith('-')))
) {
  try {
    const commandHelp = argv.length >= 2 && help(argv.at(-1))
    const [{fastStart}, {fileURLToPath}, fastHelp, fastTopic] = await Promise.all([
      import('../dist/cli/fast/start.js'),
      import('node:url'),
      commandHelp ? import('../dist/cli/fast/help.js') : undefined,
      commandHelp && argv.length === 2 ? import('../dist/cli/fast/topic.js') : undefined,
    ])
    done = fastStart(argv, fileURLToPath(new URL('..', import.meta.url)), fastHelp?.commandHelp, fastTopic?.topicHelp)
  } catch {
    done = false
  }
}

if (!done) {
  // Node 22.1+ can cache compiled modules on disk; Node 20 has no such API.
  const {default: module} = await import('node:module')
  if (typeof module.enableCompileCache === 'function') module.enableCompileCache()
  // Nothing this process writes may carry the bot token, whoever writes it (oclif included).
  // .env is loaded first (as every command does) so a token that lives only there is known too.
  // (Without a build there is no dist/ and no command to run: oclif then says so itself.)
  const lib = await Promise.all([
    import('../dist/cli/secrets.js'),
    import('../dist/cli/config.js'),
    import('../dist/lib/proxy.js'),
  ]).catch(() => undefined)
  if (lib) {
    lib[1].loadDotenv()
    lib[0].installOutputRedaction(argv)
    await lib[2].installProxy() // HTTPS_PROXY/HTTP_PROXY/NO_PROXY (from the environment or .env) for every fetch
  }
  const {execute, settings} = await import('@oclif/core')
  settings.enableAutoTranspile = false
  await execute({dir: import.meta.url})
}
