/**
 * file_id and file_unique_id as Telegram shapes them (td/telegram/files/FileManager.cpp), and reading a file_id back
 * the way td does (TD FileManager::from_persistent_id, tdutils base64url_decode): a value with a `.` is a URL;
 * otherwise it must be base64url, end in a known version byte, and unserialize. The emulator's ids start like
 * Telegram's (`AgAC…` for a photo, `BQAC…` for a document) and carry the bot they were issued to, so another bot's id
 * is refused as Telegram refuses it.
 */
import {createHash, randomBytes} from 'node:crypto'
import {MEDIA_KINDS, type MediaKind} from '../media-kinds.js'

export type FileKind = MediaKind | 'thumbnail' | 'profile_photo'

const FILE_KINDS: readonly FileKind[] = [...MEDIA_KINDS, 'thumbnail', 'profile_photo']

/** td's FileType: the number at the start of a file_id and the name in `can't use file of type X as Y`. */
export const FILE_TYPES: Record<FileKind, {id: number; name: string}> = {
  thumbnail: {id: 0, name: 'Thumbnail'},
  profile_photo: {id: 1, name: 'ProfilePhoto'},
  photo: {id: 2, name: 'Photo'},
  voice: {id: 3, name: 'VoiceNote'},
  video: {id: 4, name: 'Video'},
  document: {id: 5, name: 'Document'},
  sticker: {id: 8, name: 'Sticker'},
  audio: {id: 9, name: 'Audio'},
  animation: {id: 10, name: 'Animation'},
  video_note: {id: 13, name: 'VideoNote'},
}

const KIND_BY_ID = new Map(FILE_KINDS.map((kind) => [FILE_TYPES[kind].id, kind]))

/** Kinds that may stand in for each other (td's document class): a video's file_id works in sendDocument. */
export const DOCUMENT_CLASS: ReadonlySet<FileKind> = new Set(MEDIA_KINDS.filter((kind) => kind !== 'photo'))

const MAGIC = Buffer.from('EmU', 'latin1')
/** td's PERSISTENT_ID_VERSION (the last byte) and the emulator's sub-version before it. */
const VERSION = 4
const SUB_VERSION = 0x30

/** A new file_id for a file of `kind` issued to bot `botId` (serial: the file's number in the bot's store). */
export function makeFileId(kind: FileKind, botId: number, serial: number): string {
  const bytes = Buffer.alloc(40)
  bytes[0] = FILE_TYPES[kind].id
  bytes[2] = 2
  bytes[3] = 2 // the data centre, as in Telegram's ids
  MAGIC.copy(bytes, 4)
  bytes.writeBigInt64LE(BigInt(botId), 7)
  bytes.writeUInt32LE(serial >>> 0, 15)
  randomBytes(21).copy(bytes, 19)
  bytes[38] = SUB_VERSION
  bytes[39] = VERSION
  return bytes.toString('base64url')
}

/** A file_unique_id: the same for the same content (and size variant) in every bot, as Telegram's are. */
export function makeUniqueId(kind: FileKind, seed: string | Buffer, variant = 0): string {
  const hash = createHash('sha256').update(seed).update(String(variant)).digest()
  const photoLike = kind === 'photo' || kind === 'thumbnail' || kind === 'profile_photo'
  // 16 characters starting like Telegram's: AQAD… for photos, AgAD… for documents and the rest
  return Buffer.concat([Buffer.from([photoLike ? 1 : 2, 0, 3]), hash.subarray(0, 9)]).toString('base64url')
}

export type ParsedFileId =
  | {kind: 'url'; url: string}
  | {kind: 'error'; reason: string}
  /** Well-formed, but not one this emulator issued (a production id, or garbage that happens to decode). */
  | {kind: 'foreign'}
  | {kind: 'emulator'; botId: number; serial: number; type: FileKind | undefined}

/** Read a file_id as td does; the reason texts are td's (`Wrong string length`, `can't unserialize it`…). */
export function parseFileId(text: string): ParsedFileId {
  if (text.includes('.')) return {kind: 'url', url: text}
  const decoded = base64url(text)
  if (typeof decoded === 'string') return {kind: 'error', reason: decoded}
  if (decoded.length === 0) return {kind: 'error', reason: 'remote file identifier must be non-empty'}
  const last = decoded[decoded.length - 1]
  if (last !== 2 && last !== 3 && last !== 4) return {kind: 'error', reason: "can't unserialize it. Wrong last symbol"}
  if (decoded.length === 40 && decoded.subarray(4, 7).equals(MAGIC) && decoded[38] === SUB_VERSION) {
    return {
      kind: 'emulator',
      botId: Number(decoded.readBigInt64LE(7)),
      serial: decoded.readUInt32LE(15),
      type: KIND_BY_ID.get(decoded[0]),
    }
  }
  // Telegram's own ids are long (a remote location with an access hash and a file reference)
  if (decoded.length >= 20) return {kind: 'foreign'}
  return {kind: 'error', reason: "can't unserialize it"}
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** tdutils base64url_decode: the bytes, or td's error text. */
function base64url(input: string): Buffer | string {
  let text = input
  let padding = 0
  while (text.endsWith('=')) {
    text = text.slice(0, -1)
    padding += 1
  }
  if (padding >= 3) return 'Wrong string padding'
  if (padding > 0 && (text.length + padding) % 4 !== 0) return 'Wrong padding length'
  if (text.length % 4 === 1) return 'Wrong string length'
  for (const c of text) if (!ALPHABET.includes(c)) return 'Wrong character in the string'
  const rest = text.length % 4
  if (rest !== 0) {
    const value = ALPHABET.indexOf(text[text.length - 1])
    if ((rest === 2 && (value & 15) !== 0) || (rest === 3 && (value & 3) !== 0)) return 'Wrong padding in the string'
  }
  return Buffer.from(text, 'base64url')
}
