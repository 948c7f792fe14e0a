/**
 * Saving a recorded chat script: `NAME.chat.yml` in a folder (a project's `test/`), the user's files beside it under
 * `fixtures/`. A name is checked before anything is written, an existing script is never overwritten, and a
 * fixture never replaces a different file of the same name (it gets another name; the same bytes are reused).
 */
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {basename, extname, join, posix} from 'node:path'

import {greyPng} from '../media/synth.js'
import {defaultFixture, type FixtureRequest, type RecordedTurn, type WriteOptions, writeChatScript} from './write.js'
import {systemError} from '../errors.js'

/** A script's name: letters, digits, `-` and `_` (and dots inside), at most 64; `.chat.yml` is added. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Why NAME cannot name a script, or undefined when it can. A trailing `.chat.yml` is allowed (and dropped). */
export function checkScriptName(name: string): string | undefined {
  const bare = scriptBaseName(name)
  if (bare === '') return 'give the script a name: :save NAME (letters, digits, - and _)'
  if (!NAME.test(bare) || bare.includes('..') || bare.endsWith('.'))
    return `"${name}" cannot name a script: use letters, digits, - and _ (at most 64), e.g. start or buy-flow`
  return undefined
}

/** The name without a trailing `.chat.yml` (or `.yml`). */
export function scriptBaseName(name: string): string {
  return name
    .trim()
    .replace(/\.chat\.ya?ml$/i, '')
    .replace(/\.ya?ml$/i, '')
}

/** Thrown when saving cannot go ahead; nothing was written. `message` is one line with the fix. */
export class ScriptSaveError extends Error {
  override name = 'ScriptSaveError'
}

/** The bytes of a user's file and the name it had, or undefined when they are not at hand (a stand-in is written). */
export type FileBytes = (file: FixtureRequest) => {data: Buffer; name?: string} | undefined

export interface SaveOptions extends Omit<WriteOptions, 'fixture'> {
  /** The folder the script goes to (a project's `test/`); made when missing. */
  dir: string
  name: string
  /** The user's files (the offline chat has the bytes it sent); missing ones get a stand-in. */
  fileBytes?: FileBytes
  /** A last pass over the text before it is written (the inspector blanks its session's secrets). */
  redact?: (text: string) => string
}

export interface SavedScript {
  /** The script's path. */
  path: string
  yaml: string
  steps: number
  skipped: string[]
  /** The fixture files written (paths), and those that are stand-ins for files not at hand. */
  fixtures: string[]
  standIns: string[]
}

/** A stand-in for a file whose bytes are not at hand: an image for a photo or sticker, a note for anything else. */
export function standInBytes(file: FixtureRequest): Buffer {
  if (file.step === 'photo') return greyPng(64, 64)
  return Buffer.from(`A stand-in for the ${file.step} the user sent (its bytes were not copied).\n`)
}

/** Where each fixture of a script goes: a free name under fixtures/, or an existing file with the same bytes. */
class FixturePlan {
  readonly writes = new Map<string, Buffer>()
  readonly standIns: string[] = []
  constructor(
    readonly dir: string,
    readonly fileBytes: FileBytes,
  ) {}

  name(file: FixtureRequest): string {
    const got = this.fileBytes(file)
    const real = got?.data
    let wanted = defaultFixture(got?.name ? {...file, fileName: got.name} : file)
    let data = real
    if (!data) {
      data = standInBytes(file)
      // A stand-in photo is a PNG whatever the user's was.
      if (file.step === 'photo') wanted = wanted.replace(/\.[^./]*$/, '') + '.png'
      if (file.step !== 'photo') wanted += '.txt'
    }
    const ext = extname(wanted)
    const stem = wanted.slice(0, wanted.length - ext.length)
    for (let n = 1; ; n++) {
      const rel = n === 1 ? wanted : `${stem}-${n}${ext}`
      const full = join(this.dir, ...rel.split('/'))
      const planned = this.writes.get(rel)
      if (planned) {
        if (planned.equals(data)) return rel
        continue
      }
      if (existsSync(full)) {
        if (sameBytes(full, data)) return rel
        continue
      }
      this.writes.set(rel, data)
      if (!real) this.standIns.push(rel)
      return rel
    }
  }
}

function sameBytes(path: string, data: Buffer): boolean {
  try {
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    return hash(readFileSync(path)) === hash(data)
  } catch {
    return false
  }
}

/** Write `dir/NAME.chat.yml` from the turns, and its fixtures; a ScriptSaveError (nothing written) when it cannot. */
export function saveChatScript(turns: RecordedTurn[], options: SaveOptions): SavedScript {
  const problem = checkScriptName(options.name)
  if (problem) throw new ScriptSaveError(problem)
  const name = scriptBaseName(options.name)
  const path = join(options.dir, `${name}.chat.yml`)
  if (existsSync(path))
    throw new ScriptSaveError(`${path} exists already: pick another name, or delete it first to record it again`)
  const plan = new FixturePlan(options.dir, options.fileBytes ?? (() => undefined))
  const written = writeChatScript(turns, {...options, fixture: (file) => plan.name(file)})
  if (written.steps === 0) throw new ScriptSaveError('nothing to save: no update of a user yet')
  const standIns = plan.standIns
  let yaml = options.redact ? options.redact(written.yaml) : written.yaml
  if (standIns.length > 0) {
    const note = `# ${standIns.join(', ')}: stand-in${standIns.length === 1 ? '' : 's'} for files whose bytes were not at hand.\n`
    yaml = yaml.startsWith('#') ? yaml.replace(/^((?:#.*\n)+)/, `$1${note}`) : note + yaml
  }
  const folder = (dir: string): void => {
    try {
      mkdirSync(dir, {recursive: true})
    } catch (error) {
      const err = systemError(error)
      // a file where a folder should be (mkdir says EEXIST or ENOTDIR): not something that "appeared"
      const what = err.code === 'EEXIST' || err.code === 'ENOTDIR' ? ': a file has that name' : ''
      throw new ScriptSaveError(`cannot create the folder ${err.path ?? dir}${what} (${err.code ?? err.message})`)
    }
  }
  const made: string[] = []
  try {
    folder(options.dir)
    for (const [rel, data] of plan.writes) {
      const full = join(options.dir, ...rel.split('/'))
      folder(join(full, '..'))
      writeFileSync(full, data, {flag: 'wx'})
      made.push(full)
    }
    writeFileSync(path, yaml, {flag: 'wx'})
  } catch (error) {
    // nothing half-written: the fixtures of this save go again
    for (const file of made) rmSync(file, {force: true})
    if (error instanceof ScriptSaveError) throw error
    const err = systemError(error)
    if (err.code === 'EEXIST')
      throw new ScriptSaveError(`${err.path ?? path} appeared while saving: pick another name, or delete it first`)
    throw new ScriptSaveError(`cannot write ${err.path ?? path}: ${err.code ?? err.message}`)
  }
  return {
    path,
    yaml,
    steps: written.steps,
    skipped: written.skipped,
    fixtures: [...plan.writes.keys()].map((rel) => posix.join(basename(options.dir), rel)),
    standIns,
  }
}
