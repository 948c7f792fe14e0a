import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The repository's root. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** The built CLI (`node bin/run.js` runs dist/). */
export const BIN = join(PROJECT_ROOT, 'bin', 'run.js')
