/**
 * The layering of src/ (docs/architecture.md, "Layers"): imports point down, commands → cli → services
 * (dev, control, inspector, doctor, webhook, scaffold, offline, testing, mcp) → tunnel, session-store, telegram →
 * lib; the emulator stands apart. `npm run lint:deps` checks it (and .ci/run).
 */
const SERVICES =
  '^src/(dev|control|inspector|doctor|webhook|scaffold|offline|testing|mcp|tunnel|session-store|telegram|lib|emulator)/'

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Two folders of src/ must not import each other, directly or through others.',
      severity: 'error',
      scope: 'folder',
      from: {path: '^src/'},
      to: {circular: true},
    },
    {
      name: 'no-file-cycle',
      comment: 'No import circle between files either.',
      severity: 'error',
      from: {path: '^src/'},
      to: {circular: true},
    },
    {
      name: 'lib-is-the-ground-floor',
      comment: 'src/lib/ imports nothing else from src/.',
      severity: 'error',
      from: {path: '^src/lib/'},
      to: {path: '^src/', pathNot: '^src/lib/'},
    },
    {
      name: 'telegram-only-on-lib',
      comment: 'src/telegram/ (the Bot API client) imports only src/lib/.',
      severity: 'error',
      from: {path: '^src/telegram/'},
      to: {path: '^src/', pathNot: '^src/(telegram|lib)/'},
    },
    {
      name: 'emulator-stands-apart',
      comment: 'The emulator is an oracle for the client: it imports nothing outside itself.',
      severity: 'error',
      from: {path: '^src/emulator/'},
      to: {path: '^src/', pathNot: '^src/emulator/'},
    },
    {
      name: 'services-without-oclif',
      comment: "Services never import oclif: flags are the CLI layer's business (src/cli, src/commands, src/hooks).",
      severity: 'error',
      from: {path: SERVICES},
      to: {path: '@oclif/'},
    },
    {
      name: 'services-below-the-cli',
      comment: 'Nothing below the CLI layer imports it or the commands.',
      severity: 'error',
      from: {path: SERVICES},
      to: {path: '^src/(cli|commands|hooks)/'},
    },
    {
      name: 'trigger-loads-no-server',
      comment:
        '`bot trigger` and `bot replay` are clients: they load no server code (the control port, the inspector, the relay, the emulator).',
      severity: 'error',
      from: {path: '^src/commands/(trigger/|replay)'},
      // inspector/types.ts holds only the shapes of what a session records, emulator/scripts/result.ts a chat script's
      // outcome (types, no code).
      to: {
        path: '^src/(dev|inspector|emulator|offline|tunnel)/|^src/control/(server|actions|bot-waits|emulator-trigger|action-runner|session-queries)',
        pathNot: '^src/inspector/types[.]ts$|^src/emulator/scripts/result[.]ts$',
        reachable: true,
      },
    },
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsConfig: {fileName: 'tsconfig.json'},
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js'],
    },
    reporterOptions: {text: {highlightFocused: true}},
  },
}
