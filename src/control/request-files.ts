/**
 * The files a `bot trigger` or `bot replay` request is read from, each bounded and checked before
 * anything is sent: a JSON file or stdin (`-`) holding an Update or a fixture template, and a photo
 * (at most MAX_PHOTO_BYTES of JPEG, PNG, GIF or WebP). Bad input is a UsageError (exit 2).
 */
import {BoundedFileError, readBoundedFile} from '../lib/bounded-file.js'
import {UsageError} from '../lib/errors.js'
import type {Refusal} from '../lib/refusal.js'
import {imageInfo} from './image.js'
import {MAX_BODY_BYTES} from './protocol.js'
import {MAX_PHOTO_BYTES, readUpdateObject} from './requests.js'

/** A refusal of the user's input: exit 2, nothing sent. */
export function usage(refusal: Refusal): UsageError {
  return new UsageError(refusal.error, `${refusal.fix} Nothing was sent.`)
}

async function readStdin(max: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of process.stdin) {
    const bytes: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += bytes.length
    if (size > max)
      throw new UsageError(`The update on stdin is over ${max} bytes.`, 'Send one Update object. Nothing was sent.')
    chunks.push(bytes)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The JSON in FILE (or stdin for `-`): exit 2 for a missing file or bad JSON. */
export async function readJsonFile(file: string): Promise<unknown> {
  const name = file === '-' ? 'stdin' : file
  let text: string
  if (file === '-') text = await readStdin(MAX_BODY_BYTES)
  else {
    try {
      text = (await readBoundedFile(file, MAX_BODY_BYTES)).toString('utf8')
    } catch (error) {
      if (!(error instanceof BoundedFileError)) throw error
      if (error.reason === 'too-large')
        throw new UsageError(`${file} is over ${MAX_BODY_BYTES} bytes.`, 'Write one Update object. Nothing was sent.')
      throw new UsageError(
        error.code === 'ENOENT'
          ? `${file} does not exist.`
          : error.code === 'EISDIR'
            ? `${file} is a folder, not a file.`
            : error.message,
        'Give the path of a JSON file holding one Update, or - to read it from stdin. Nothing was sent.',
      )
    }
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(
      `${name} is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`,
      'Fix the JSON (one Update object). Nothing was sent.',
    )
  }
}

/** Reads one Update object from FILE.json (or stdin for `-`): exit 2 for a missing file, bad JSON or a non-update. */
export async function readUpdateFile(file: string): Promise<Record<string, unknown>> {
  const name = file === '-' ? 'stdin' : file
  const value = await readJsonFile(file)
  const checked = readUpdateObject(value, name)
  if ('error' in checked) throw new UsageError(checked.error, `${checked.fix} Nothing was sent.`)
  return checked.update
}

/** A photo to send: its bytes as base64 and its file name; exit 2 for a missing, large or non-image file. */
export async function readPhoto(file: string): Promise<{base64: string; name: string}> {
  let bytes: Buffer
  try {
    bytes = await readBoundedFile(file, MAX_PHOTO_BYTES)
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error
    if (error.reason === 'too-large')
      throw usage({
        error: `${file} is ${((error.size ?? MAX_PHOTO_BYTES + 1) / 1024 / 1024).toFixed(1)} MB; a photo here is at most ${MAX_PHOTO_BYTES / 1024 / 1024} MB.`,
        fix: 'Send a smaller image (Telegram recompresses photos to a few hundred KB anyway).',
      })
    throw usage({
      error: error.code === 'ENOENT' ? `${file} does not exist.` : error.message,
      fix: 'Give the path of an image file (JPEG, PNG, GIF or WebP).',
    })
  }
  if (!imageInfo(bytes))
    throw usage({
      error: `${file} is not a JPEG, PNG, GIF or WebP image.`,
      fix: 'Give an image file Telegram takes as a photo.',
    })
  return {base64: bytes.toString('base64'), name: file.split('/').at(-1) ?? file}
}
