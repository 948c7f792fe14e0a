/**
 * The files of one bot: what it uploaded, what users sent it, what it sent by URL. Each has a file_id issued to this
 * bot, a file_unique_id shared by every bot, its real size and, once getFile asked, a relative `file_path` by kind
 * (`photos/file_0.jpg`, `documents/file_1.pdf`, td/telegram/files/FileType.cpp get_file_type_name) under which
 * /file/bot<token>/… serves its bytes. Bounded: the oldest files' bytes are let go beyond MAX_BYTES (getFile then
 * answers as for a file Telegram lost), the oldest files beyond MAX_FILES.
 */
import {extname} from 'node:path'
import {type FileKind, makeFileId, makeUniqueId} from './file-ids.js'

export interface StoredFile {
  fileId: string
  uniqueId: string
  kind: FileKind
  /** Bytes, as Telegram counts file_size. */
  size: number
  /** The content; undefined once let go (or never had: a URL the emulator could not fetch gets made-up bytes). */
  data?: Buffer
  name?: string
  mime?: string
  width?: number
  height?: number
  /** Seconds. */
  duration?: number
  /** The URL a bot sent it by, if it did. */
  url?: string
  /** Set by the first getFile. */
  path?: string
  /** A photo's sizes (file_ids, smallest first): resending any of them sends them all. */
  sizes?: string[]
  /** Sent by a URL the emulator could not fetch: its bytes are made up (zeros of `size`, or a generated image). */
  madeUp?: boolean
}

/** What a new file is made from: what StoredFile keeps of it, all optional (the size defaults to the bytes'). */
export interface NewFile
  extends Partial<
    Pick<StoredFile, 'data' | 'size' | 'name' | 'mime' | 'width' | 'height' | 'duration' | 'url' | 'madeUp'>
  > {
  /** Seed of the file_unique_id when there are no bytes (a URL), and the variant (a photo size). */
  seed?: string
  variant?: number
}

const MAX_FILES = 50_000
const MAX_BYTES = 256 * 1024 * 1024

/** td's directory per file type (td/telegram/files/FileType.cpp get_file_type_name). */
const DIRECTORIES: Record<FileKind, string> = {
  photo: 'photos',
  video: 'videos',
  document: 'documents',
  audio: 'music',
  voice: 'voice',
  animation: 'animations',
  sticker: 'stickers',
  video_note: 'video_notes',
  thumbnail: 'thumbnails',
  profile_photo: 'profile_photos',
}

/** The extension when the file's name has none (not settled by the sources: what Telegram's files are encoded as). */
const EXTENSIONS: Record<FileKind, string> = {
  photo: '.jpg',
  video: '.mp4',
  document: '',
  audio: '.mp3',
  voice: '.oga',
  animation: '.mp4',
  sticker: '.webp',
  video_note: '.mp4',
  thumbnail: '.jpg',
  profile_photo: '.jpg',
}

export class FileStore {
  private readonly byId = new Map<string, StoredFile>()
  private readonly byPath = new Map<string, StoredFile>()
  private serial = 0
  private paths = 0
  private bytes = 0
  /** How many files share each buffer (a photo's sizes share the upload): its bytes count once. */
  private readonly shares = new Map<Buffer, number>()

  constructor(private readonly botId: number) {}

  /** A new file of the bot. */
  add(kind: FileKind, file: NewFile): StoredFile {
    this.serial += 1
    const stored: StoredFile = {
      fileId: makeFileId(kind, this.botId, this.serial),
      uniqueId: makeUniqueId(kind, file.data ?? file.seed ?? `${this.botId}:${this.serial}`, file.variant),
      kind,
      size: file.size ?? file.data?.length ?? 0,
      ...(file.data ? {data: file.data} : {}),
      ...(file.name ? {name: file.name} : {}),
      ...(file.mime ? {mime: file.mime} : {}),
      ...(file.width !== undefined ? {width: file.width} : {}),
      ...(file.height !== undefined ? {height: file.height} : {}),
      ...(file.duration !== undefined ? {duration: file.duration} : {}),
      ...(file.url ? {url: file.url} : {}),
      ...(file.madeUp ? {madeUp: true} : {}),
    }
    this.byId.set(stored.fileId, stored)
    if (stored.data) this.hold(stored.data)
    this.bound()
    return stored
  }

  /** The file a file_id names, if this bot has it. */
  get(fileId: string): StoredFile | undefined {
    return this.byId.get(fileId)
  }

  /** The file's relative path, made on first use: `<kind dir>/file_<N><.ext>`. */
  pathOf(file: StoredFile): string {
    if (file.path) return file.path
    const named = file.name ? extname(file.name).toLowerCase() : ''
    const ext = /^\.[a-z0-9]{1,8}$/.test(named) && file.kind !== 'photo' ? named : EXTENSIONS[file.kind]
    file.path = `${DIRECTORIES[file.kind]}/file_${this.paths}${ext}`
    this.paths += 1
    this.byPath.set(file.path, file)
    return file.path
  }

  /** The file served at a relative path. */
  atPath(path: string): StoredFile | undefined {
    return this.byPath.get(path)
  }

  /** Whether the file's bytes can still be downloaded. */
  available(file: StoredFile): boolean {
    return file.data !== undefined || file.madeUp === true
  }

  /** The bytes of a file, if it still has them (made-up files: zeros of their size). */
  contentOf(file: StoredFile): Buffer | undefined {
    return file.data ?? (file.madeUp ? Buffer.alloc(file.size) : undefined)
  }

  clear(): void {
    this.byId.clear()
    this.byPath.clear()
    this.shares.clear()
    this.bytes = 0
  }

  private hold(data: Buffer): void {
    const count = this.shares.get(data) ?? 0
    if (count === 0) this.bytes += data.length
    this.shares.set(data, count + 1)
  }

  private release(data: Buffer): void {
    const count = (this.shares.get(data) ?? 1) - 1
    if (count > 0) this.shares.set(data, count)
    else {
      this.shares.delete(data)
      this.bytes -= data.length
    }
  }

  private bound(): void {
    for (const file of this.byId.values()) {
      if (this.bytes <= MAX_BYTES && this.byId.size <= MAX_FILES) return
      if (this.byId.size > MAX_FILES) {
        this.byId.delete(file.fileId)
        if (file.path) this.byPath.delete(file.path)
      }
      if (file.data) {
        this.release(file.data)
        file.data = undefined
      }
    }
  }
}
