/** Puts the loopback cloudflared stand-in (test/support/fake-cloudflared.mjs) on a PATH of its own. */
import {mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const FAKE_CLOUDFLARED = fileURLToPath(new URL('../support/fake-cloudflared.mjs', import.meta.url))

export interface FakeBin {
  /** A folder holding `cloudflared` (a symlink to the stand-in). */
  dir: string
  /** An environment whose PATH has that folder first (and node's own folder, for the shebang). */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv
  remove(): void
}

export function fakeCloudflaredBin(): FakeBin {
  const dir = mkdtempSync(path.join(tmpdir(), 'fake-cf-'))
  symlinkSync(FAKE_CLOUDFLARED, path.join(dir, 'cloudflared'))
  return {
    dir,
    env: (extra = {}) => ({
      ...process.env,
      BOT_CLOUDFLARED: '',
      PATH: [dir, path.dirname(process.execPath)].join(path.delimiter),
      ...extra,
    }),
    remove: () => rmSync(dir, {recursive: true, force: true}),
  }
}

/** True while a process with this pid exists (the session state's own check). */
export {isPidAlive as alive} from '../../src/session-store/processes.js'
