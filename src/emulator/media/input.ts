/**
 * An InputFile as the server takes it (BA get_input_file, TD FileManager): a multipart upload (by its field, or
 * `attach://<field>`), a file_id (this bot's own: another bot's, a stale or a production one is refused with
 * Telegram's texts; the type must match, except among document-like kinds), or an HTTP URL: one on loopback is
 * fetched; any other the emulator cannot fetch (it never reaches the internet), so it records the URL and makes up
 * a plausible file (docs/emulator.md).
 */
import http from 'node:http'
import {extname} from 'node:path'
import type {BotState} from '../state/bot.js'
import {ApiError, badRequest} from '../errors.js'
import {checkLink} from '../format/links.js'
import type {Params, UploadedFile} from '../http/params.js'
import {DOCUMENT_CLASS, FILE_TYPES, type FileKind, parseFileId} from '../state/file-ids.js'
import type {NewFile, StoredFile} from '../state/files.js'
import {FORMAT_MIME, type Probe, probe} from './probe.js'
import {greyPng} from './synth.js'
import {storePhoto} from './objects.js'

/** What a parameter holds: an uploaded file, a text (file_id or URL), or nothing. */
export type FileRef = {upload: UploadedFile} | {text: string} | undefined

/** BA get_input_file: `attach://x` names the upload `x`; any other text is a file_id or URL; else the field's upload. */
export function fileRef(params: Params, field: string, text = params.get(field)): FileRef {
  if (text !== undefined && text !== '') {
    if (text.startsWith('attach://')) {
      const upload = params.files.get(text.slice('attach://'.length))
      return upload ? {upload} : undefined
    }
    return {text}
  }
  const upload = params.files.get(field)
  return upload ? {upload} : undefined
}

const WRONG_ID = 'wrong file identifier/HTTP URL specified'

/** Limits for a file sent by URL (core.telegram.org/bots/api#sending-files): photos 5 MB, other files 20 MB. */
const URL_LIMIT = {photo: 5 * 1024 * 1024, other: 20 * 1024 * 1024}
const FETCH_TIMEOUT_MS = 10_000

/** The stored file a reference names, as a file of `want` (td's checks and texts). */
export async function resolveFile(bot: BotState, ref: NonNullable<FileRef>, want: FileKind): Promise<StoredFile> {
  if ('upload' in ref) return storeBytes(bot, want, ref.upload.data, ref.upload.filename, ref.upload.mimeType)
  const parsed = parseFileId(ref.text)
  switch (parsed.kind) {
    case 'url':
      return fromUrl(bot, parsed.url, want)
    case 'error':
      throw badRequest(`wrong remote file identifier specified: ${parsed.reason}`)
    case 'foreign':
      throw badRequest(WRONG_ID)
  }
  const file = parsed.botId === bot.id ? bot.files.get(ref.text) : undefined
  if (!file) throw badRequest(WRONG_ID)
  if (file.kind === want) return file
  if (DOCUMENT_CLASS.has(file.kind) && DOCUMENT_CLASS.has(want)) return retype(bot, file, want)
  throw badRequest(`can't use file of type ${FILE_TYPES[file.kind].name} as ${FILE_TYPES[want].name}`)
}

/** A document-like file used as another document-like kind (a video sent with sendDocument): a file of that kind. */
function retype(bot: BotState, file: StoredFile, want: FileKind): StoredFile {
  return bot.files.add(want, {
    ...(file.data ? {data: file.data} : {}),
    size: file.size,
    ...(file.name ? {name: file.name} : {}),
    ...(file.mime ? {mime: file.mime} : {}),
    ...(file.width !== undefined ? {width: file.width} : {}),
    ...(file.height !== undefined ? {height: file.height} : {}),
    ...(file.duration !== undefined ? {duration: file.duration} : {}),
    seed: file.uniqueId,
  })
}

/** A new file of the bot from real bytes: sizes and duration read from them; a photo gets its sizes. */
export function storeBytes(bot: BotState, kind: FileKind, data: Buffer, name?: string, mime?: string): StoredFile {
  const info = probe(data)
  const file = bot.files.add(kind, {
    data,
    ...described(kind, info, name, mime),
  })
  return kind === 'photo' ? storePhoto(bot.files, file) : file
}

/** Name and MIME type as Telegram keeps them, sizes and duration from the bytes. */
function described(kind: FileKind, info: Probe, name?: string, mime?: string): NewFile {
  const keepsName = kind !== 'photo' && kind !== 'voice' && kind !== 'video_note' && kind !== 'sticker'
  const typed = mime && mime !== 'application/octet-stream' ? mime : undefined
  const guessed = typed ?? mimeOf(name) ?? (info.format ? FORMAT_MIME[info.format] : undefined)
  return {
    ...(keepsName && name ? {name} : {}),
    ...(kind !== 'photo' && kind !== 'video_note' && kind !== 'sticker' && guessed ? {mime: guessed} : {}),
    ...(info.width !== undefined ? {width: info.width} : {}),
    ...(info.height !== undefined ? {height: info.height} : {}),
    ...(info.duration !== undefined ? {duration: info.duration} : {}),
  }
}

const MIME_BY_EXTENSION: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.wav': 'audio/x-wav',
  '.tgs': 'application/x-tgsticker',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
}

export const mimeOf = (name: string | undefined): string | undefined =>
  name ? MIME_BY_EXTENSION[extname(name).toLowerCase()] : undefined

/** Loopback addresses: the only hosts the emulator fetches from. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '')
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1' || h === 'localhost' || h.endsWith('.localhost')
}

/** A private, link-local or unspecified address literal (10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0/8, fc00::/7, fe80::/10, ::). */
export function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(h)
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])]
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    )
  }
  if (!h.includes(':')) return false
  return h === '::' || h === '::1' || /^f[cd][0-9a-f]{0,2}:/.test(h) || /^fe[89ab][0-9a-f]?:/.test(h)
}

async function fromUrl(bot: BotState, url: string, want: FileKind): Promise<StoredFile> {
  const checked = checkLink(url)
  if ('error' in checked) throw badRequest(`invalid file HTTP URL specified: ${checked.error}`)
  const target = new URL(checked.url)
  const name = decodeURIComponent(target.pathname.split('/').pop() ?? '') || undefined
  // Listening beyond loopback, a caller on the network must not read the host's loopback-only services
  // (or its private network) through getFile: refused as Telegram refuses a URL it cannot fetch.
  if (!bot.privateUrls && (isLoopback(target.hostname) || isPrivateAddress(target.hostname)))
    throw badRequest('failed to get HTTP URL content')
  if (!isLoopback(target.hostname)) return madeUp(bot, checked.url, want, name)
  const limit = want === 'photo' ? URL_LIMIT.photo : URL_LIMIT.other
  const {data, type} = await fetchLoopback(target, limit)
  const info = probe(data)
  if (want === 'photo' && !['png', 'jpeg', 'gif', 'webp'].includes(info.format ?? ''))
    throw badRequest('wrong type of the web page content')
  if (want === 'document' && !['gif', 'pdf', 'zip'].includes(info.format ?? ''))
    throw badRequest('wrong type of the web page content')
  const file = bot.files.add(want, {data, url: checked.url, ...described(want, info, name, type)})
  return want === 'photo' ? storePhoto(bot.files, file) : file
}

/** GET a loopback URL: the body (at most `limit` bytes) and its Content-Type; `failed to get HTTP URL content` else. */
function fetchLoopback(url: URL, limit: number): Promise<{data: Buffer; type?: string}> {
  const failed = (): ApiError => badRequest('failed to get HTTP URL content')
  return new Promise((resolve, reject) => {
    const req = http.get(url, {timeout: FETCH_TIMEOUT_MS, agent: false}, (res) => {
      const status = res.statusCode ?? 0
      if (status < 200 || status >= 300) {
        res.resume()
        reject(failed())
        return
      }
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size > limit) {
          req.destroy()
          reject(failed())
          return
        }
        chunks.push(c)
      })
      res.on('end', () => {
        const type =
          String(res.headers['content-type'] ?? '')
            .split(';')[0]
            .trim() || undefined
        resolve({data: Buffer.concat(chunks), ...(type ? {type} : {})})
      })
      res.on('error', () => reject(failed()))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', () => reject(failed()))
  })
}

/** What the emulator makes up for a URL it cannot fetch: a plausible file of the kind (docs/emulator.md). */
const MADE_UP: Record<FileKind, Omit<NewFile, 'url'>> = {
  photo: {width: 800, height: 600},
  video: {width: 1280, height: 720, duration: 10, size: 65536, mime: 'video/mp4'},
  animation: {width: 480, height: 270, duration: 3, size: 65536, mime: 'video/mp4'},
  video_note: {width: 240, height: 240, duration: 5, size: 65536},
  audio: {duration: 30, size: 65536, mime: 'audio/mpeg'},
  voice: {duration: 3, size: 16384, mime: 'audio/ogg'},
  sticker: {width: 512, height: 512, size: 16384},
  document: {size: 65536},
  thumbnail: {width: 320, height: 180, size: 8192},
  profile_photo: {width: 640, height: 640, size: 65536},
}

function madeUp(bot: BotState, url: string, want: FileKind, name?: string): StoredFile {
  if (want === 'photo') {
    const data = greyPng(800, 600)
    return storePhoto(bot.files, bot.files.add('photo', {data, width: 800, height: 600, url, seed: url, madeUp: true}))
  }
  const keepsName = want === 'document' || want === 'audio' || want === 'video' || want === 'animation'
  return bot.files.add(want, {
    ...MADE_UP[want],
    ...(keepsName && name ? {name} : {}),
    ...(want === 'document' ? {mime: mimeOf(name) ?? 'application/octet-stream'} : {}),
    url,
    seed: url,
    madeUp: true,
  })
}
