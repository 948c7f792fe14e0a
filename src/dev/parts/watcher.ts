/** watcher: restart the bot when the project's source files change (see watch.ts for what is left out). */
import type {SessionPart} from '../part.js'
import {sessionImports} from '../imports/imports.js'
import {watchProject} from '../watch.js'

export function watcherPart(): SessionPart {
  let close: (() => Promise<void>) | undefined
  return {
    name: 'watch',
    async start(ctx) {
      const o = ctx.options
      await ctx.step(
        'watch',
        'Starting the file watcher…',
        async () => {
          const watcher = watchProject({
            cwd: o.cwd,
            debounceMs: o.debounceMs,
            patterns: o.watchIgnore,
            imports: sessionImports(ctx, o.cwd, ctx.signal),
            onChange: (files, more) => ctx.events.emit('files-changed', files, more),
            onError: (error) => ctx.emit({type: 'warn', text: `File watching failed: ${error.message}`}),
          })
          close = () => watcher.close()
          await watcher.ready
          ctx.watching = true
        },
        () =>
          `Watching ${o.cwd} for source changes (node_modules, dist, .git, virtual environments, .gitignore's entries${o.watchIgnore?.length ? `, ${o.watchIgnore.join(', ')}` : ''} ignored)`,
      )
    },
    async stop() {
      await close?.()
    },
  }
}
