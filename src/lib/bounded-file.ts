/**
 * Reading a file a person named on the command line, bounded: it must be a regular file (not a
 * device like /dev/zero, a FIFO or a socket, which could stream forever or block), its size is
 * checked before a byte is read, and at most `max` + 1 bytes are read even if it grows meanwhile.
 * The open never blocks (O_NONBLOCK), so a FIFO is refused at once instead of waiting for a writer.
 */
import {constants} from 'node:fs'
import {open} from 'node:fs/promises'
import {codeOf, messageOf} from './errors.js'

const {O_RDONLY, O_NONBLOCK} = constants

/** Why a file cannot be read within its bound: `kind` names what it is when it is not a regular file. */
export class BoundedFileError extends Error {
  constructor(
    readonly reason: 'not-regular' | 'too-large' | 'unreadable',
    message: string,
    readonly code?: string,
    readonly size?: number,
  ) {
    super(message)
  }
}

function kindOf(stats: import('node:fs').Stats): string {
  if (stats.isDirectory()) return 'a folder'
  if (stats.isFIFO()) return 'a FIFO (named pipe)'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  if (stats.isSocket()) return 'a socket'
  return 'not a regular file'
}

/** The bytes of `file`, a regular file of at most `max` bytes; a BoundedFileError otherwise. */
export async function readBoundedFile(file: string, max: number): Promise<Buffer> {
  let handle: import('node:fs/promises').FileHandle
  try {
    handle = await open(file, O_RDONLY | (O_NONBLOCK ?? 0))
  } catch (error) {
    const code = codeOf(error)
    throw new BoundedFileError('unreadable', `${file} cannot be read (${code ?? messageOf(error)}).`, code)
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile())
      throw new BoundedFileError(
        'not-regular',
        `${file} is ${kindOf(stats)}, not a regular file.`,
        stats.isDirectory() ? 'EISDIR' : undefined,
      )
    if (stats.size > max)
      throw new BoundedFileError('too-large', `${file} is over ${max} bytes.`, undefined, stats.size)
    const buffer = Buffer.allocUnsafe(max + 1)
    let length = 0
    while (length < buffer.length) {
      const {bytesRead} = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
    }
    if (length > max) throw new BoundedFileError('too-large', `${file} is over ${max} bytes.`, undefined, length)
    return buffer.subarray(0, length)
  } finally {
    await handle.close().catch(() => {})
  }
}
