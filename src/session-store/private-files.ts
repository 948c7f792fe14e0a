/**
 * The session's files in its state folder, handled as ssh handles `~/.ssh`: the folder must be the
 * user's own and writable by nobody else, or `bot dev` does not start; a file is opened without
 * following a symlink (O_NOFOLLOW) and without blocking on a FIFO, and read only when it is a
 * regular file the user owns; a file is replaced through a temp file with a random name, created
 * exclusively (O_EXCL) with mode 0600, then renamed over it (a rename replaces a planted symlink
 * itself, never what it points to). Another local user who could plant a symlink or a file under a
 * predictable name gets nothing followed, truncated, chmodded or trusted.
 */
import {randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs'
import {userInfo} from 'node:os'
import {basename, dirname, join, resolve} from 'node:path'

const {O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK} = constants
/** O_NOFOLLOW and O_NONBLOCK where the platform has them (not on Windows). */
const NOFOLLOW = (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0)

/** This user's id, or undefined where there is none (Windows): ownership is then not checked. */
function myUid(): number | undefined {
  return process.getuid?.()
}

function ownerName(uid: number): string {
  try {
    if (uid === myUid()) return userInfo().username
  } catch {
    // no name
  }
  return `uid ${uid}`
}

/** A problem with a state folder that `bot dev` must not use, in one line with its fix. */
export class UnsafeStateFolder extends Error {}

/**
 * Why `dir` cannot hold a session's secrets, or undefined when it can (or does not exist yet): it
 * must be a folder this user owns (through a symlink only one of this user or root), writable by no
 * group and no other user.
 */
export function stateFolderProblem(dir: string): string | undefined {
  const uid = myUid()
  if (uid === undefined) return undefined
  let link: Stats
  let target: Stats
  try {
    link = lstatSync(dir)
    target = link.isSymbolicLink() ? statSync(dir) : link
  } catch {
    return undefined // missing (created 0700 when needed), or unreadable: reported where it is used
  }
  if (!target.isDirectory()) return undefined // not a folder: reported where it is written
  const fix = `Run \`chmod 700 ${dir}\` as its owner, or set BOT_STATE_DIR to a folder of your own (\`mkdir -m 700\`).`
  if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0)
    return `The state folder ${dir} is a symlink owned by ${ownerName(link.uid)}, not by you: another user could point it anywhere. Set BOT_STATE_DIR to a folder of your own (\`mkdir -m 700\`).`
  if (target.uid !== uid)
    return `The state folder ${dir} is owned by ${ownerName(target.uid)}, not by you: whoever owns it could plant the webhook secret or redirect the session's files. Set BOT_STATE_DIR to a folder of your own (\`mkdir -m 700\`).`
  if ((target.mode & 0o022) !== 0)
    return `The state folder ${dir} is writable by ${(target.mode & 0o002) !== 0 ? 'every user' : 'its group'} (mode ${(target.mode & 0o777).toString(8).padStart(3, '0')}): another user could plant files there. ${fix}`
  return undefined
}

/** Creates the state folder (0700) when missing; throws UnsafeStateFolder when it is not safe to use. */
export function ensureStateFolder(dir: string): void {
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const problem = stateFolderProblem(dir)
  if (problem) throw new UnsafeStateFolder(problem)
  anchor(dir)
}

/**
 * The state folders opened once checked, by absolute path → their descriptor. A file of such a
 * folder is opened, created and renamed through `/proc/self/fd/N/<name>`, which resolves through
 * the folder opened at start (Node has no openat): if another user swaps the folder's path for a
 * symlink mid-session (a parent folder they can write), no write follows it anywhere else.
 */
const anchors = new Map<string, number>()
const PROC_FD = '/proc/self/fd'
const canAnchor = process.platform === 'linux' && existsSync(PROC_FD)

function anchor(dir: string): void {
  const abs = resolve(dir)
  if (!canAnchor || anchors.has(abs)) return
  try {
    const fd = openSync(abs, O_RDONLY | (constants.O_DIRECTORY ?? 0))
    const stats = fstatSync(fd)
    const uid = myUid()
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) {
      closeSync(fd)
      return
    }
    anchors.set(abs, fd)
  } catch {
    // not anchored: paths are used as they are
  }
}

/** `path` through its folder's descriptor when that folder was anchored at start; else `path`. */
export function anchored(path: string): string {
  if (anchors.size === 0) return path
  const abs = resolve(path)
  const fd = anchors.get(dirname(abs))
  return fd === undefined ? path : `${PROC_FD}/${fd}/${basename(abs)}`
}

/** What a private file must be to be read: a regular file, this user's; with `secret`, also mode 0600. */
function trusted(stats: Stats, o: {secret?: boolean}): boolean {
  if (!stats.isFile()) return false
  const uid = myUid()
  if (uid !== undefined && stats.uid !== uid) return false
  return !o.secret || (stats.mode & 0o777) === 0o600
}

/**
 * The text of a file of the state folder, or undefined when it is missing, a symlink, not a
 * regular file, not this user's, or (`secret`) not mode 0600. At most `max` bytes (from the start).
 */
export function readPrivateFile(path: string, o: {secret?: boolean; max?: number} = {}): string | undefined {
  const opened = openPrivateFile(path, o)
  if (!opened) return undefined
  const {fd, size} = opened
  try {
    const length = Math.min(size, o.max ?? 64 * 1024 * 1024)
    const buffer = Buffer.alloc(length)
    let read = 0
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, read)
      if (n <= 0) break
      read += n
    }
    return buffer.toString('utf8', 0, read)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * Opens a state file to read without following a symlink: the fd and its size, or undefined as
 * readPrivateFile would. The caller closes it.
 */
export function openPrivateFile(path: string, o: {secret?: boolean} = {}): {fd: number; size: number} | undefined {
  let fd: number
  try {
    fd = openSync(anchored(path), O_RDONLY | NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (trusted(stats, o)) return {fd, size: stats.size}
  } catch {
    // fall through
  }
  closeSync(fd)
  return undefined
}

/** A new file with a random name in `dir`, created exclusively with mode 0600; returns its path. */
export function createTempFile(dir: string, text: string | Buffer, prefix = '.tmp'): string {
  const path = anchored(join(dir, `${prefix}-${randomBytes(8).toString('hex')}`))
  const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW, 0o600)
  try {
    fchmodSync(fd, 0o600) // whatever the umask left
    const data = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
    let written = 0
    while (written < data.length) written += writeSync(fd, data, written)
  } catch (error) {
    closeSync(fd)
    removeQuietly(path)
    throw error
  }
  closeSync(fd)
  return path
}

/** Replaces `path` (in `dir`) with `text` atomically: a private temp file renamed over it. */
export function writePrivateFile(dir: string, path: string, text: string | Buffer): void {
  const tmp = createTempFile(dir, text)
  try {
    renameSync(tmp, anchored(path))
  } catch (error) {
    removeQuietly(tmp)
    throw error
  }
}

/**
 * Appends to a file of the state folder (created 0600 when missing) without following a symlink;
 * throws when it is one, or is not a regular file of this user's.
 */
export function appendPrivateFile(path: string, text: string): void {
  const fd = openSync(anchored(path), O_WRONLY | O_APPEND | O_CREAT | NOFOLLOW, 0o600)
  try {
    if (!trusted(fstatSync(fd), {})) throw new Error(`${path} is not a file of yours`)
    const data = Buffer.from(text, 'utf8')
    let written = 0
    while (written < data.length) written += writeSync(fd, data, written)
  } finally {
    closeSync(fd)
  }
}

/** Creates `path` empty (0600) unless it exists, without following a symlink; makes it 0600 either way. */
export function touchPrivateFile(path: string): void {
  const fd = openSync(anchored(path), O_WRONLY | O_CREAT | NOFOLLOW, 0o600)
  try {
    if (!trusted(fstatSync(fd), {})) throw new Error(`${path} is not a file of yours`)
    fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(anchored(path))
  } catch {
    // already gone
  }
}
