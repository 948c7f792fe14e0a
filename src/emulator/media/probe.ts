/**
 * What the real bytes of a file say about it, read from their headers only (no decoding): the size of a PNG, JPEG,
 * GIF or WebP image; the size and duration of an MP4/MOV video (mvhd, tkhd) or a GIF animation (its frame delays);
 * the duration of an Ogg (Opus/Vorbis) or MP3 recording; the size of a Lottie sticker (.tgs). Anything unreadable
 * gives nothing, and the caller falls back to the parameters the bot sent.
 */
import {gunzipSync} from 'node:zlib'
import {isObject} from '../telegram.js'

export interface Probe {
  /** What the bytes are, by their magic numbers. */
  format?: 'png' | 'jpeg' | 'gif' | 'webp' | 'mp4' | 'webm' | 'ogg' | 'mp3' | 'tgs' | 'pdf' | 'zip'
  width?: number
  height?: number
  /** Seconds, as read (the caller rounds). */
  duration?: number
}

/** The MIME type of a probed format. */
export const FORMAT_MIME: Record<NonNullable<Probe['format']>, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  ogg: 'audio/ogg',
  mp3: 'audio/mpeg',
  tgs: 'application/x-tgsticker',
  pdf: 'application/pdf',
  zip: 'application/zip',
}

export function probe(data: Buffer): Probe {
  try {
    return probeUnsafe(data)
  } catch {
    return {} // a truncated or odd header is just unreadable
  }
}

const startsWith = (data: Buffer, bytes: number[], at = 0): boolean => bytes.every((b, i) => data[at + i] === b)

function probeUnsafe(data: Buffer): Probe {
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47]) && data.length >= 24)
    return {format: 'png', width: data.readUInt32BE(16), height: data.readUInt32BE(20)}
  if (startsWith(data, [0xff, 0xd8])) return {format: 'jpeg', ...jpegSize(data)}
  if (data.toString('latin1', 0, 4) === 'GIF8' && data.length >= 10)
    return {format: 'gif', width: data.readUInt16LE(6), height: data.readUInt16LE(8), ...gifDuration(data)}
  if (data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP')
    return {format: 'webp', ...webpSize(data)}
  if (data.toString('latin1', 4, 8) === 'ftyp') return {format: 'mp4', ...mp4Info(data)}
  if (startsWith(data, [0x1a, 0x45, 0xdf, 0xa3])) return {format: 'webm'}
  if (data.toString('latin1', 0, 4) === 'OggS') return {format: 'ogg', ...oggDuration(data)}
  if (data.toString('latin1', 0, 3) === 'ID3' || (data[0] === 0xff && (data[1] & 0xe0) === 0xe0))
    return {format: 'mp3', ...mp3Duration(data)}
  if (data.toString('latin1', 0, 5) === '%PDF-') return {format: 'pdf'}
  if (startsWith(data, [0x50, 0x4b, 0x03, 0x04])) return {format: 'zip'}
  if (startsWith(data, [0x1f, 0x8b])) return tgsInfo(data)
  return {}
}

function jpegSize(data: Buffer): Pick<Probe, 'width' | 'height'> {
  let i = 2
  while (i + 9 < data.length) {
    if (data[i] !== 0xff) return {}
    const marker = data[i + 1]
    if (marker === 0xd9 || marker === 0xda) return {}
    const length = data.readUInt16BE(i + 2)
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return {height: data.readUInt16BE(i + 5), width: data.readUInt16BE(i + 7)}
    i += 2 + length
  }
  return {}
}

function webpSize(data: Buffer): Pick<Probe, 'width' | 'height'> {
  const chunk = data.toString('latin1', 12, 16)
  if (chunk === 'VP8 ' && data.length >= 30)
    return {width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff}
  if (chunk === 'VP8L' && data.length >= 25) {
    const bits = data.readUInt32LE(21)
    return {width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1}
  }
  if (chunk === 'VP8X' && data.length >= 30)
    return {width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1}
  return {}
}

/** The sum of a GIF's frame delays (graphic control extensions), walking its blocks. */
function gifDuration(data: Buffer): Pick<Probe, 'duration'> {
  let i = 13
  if (data[10] & 0x80) i += 3 * 2 ** ((data[10] & 7) + 1)
  let hundredths = 0
  const skipSubBlocks = (at: number): number => {
    let j = at
    while (j < data.length && data[j] !== 0) j += data[j] + 1
    return j + 1
  }
  while (i < data.length) {
    const block = data[i]
    if (block === 0x3b) break
    if (block === 0x21) {
      if (data[i + 1] === 0xf9 && i + 6 < data.length) hundredths += data.readUInt16LE(i + 4)
      i = skipSubBlocks(i + 2)
    } else if (block === 0x2c) {
      let j = i + 10
      if (data[i + 9] & 0x80) j += 3 * 2 ** ((data[i + 9] & 7) + 1)
      i = skipSubBlocks(j + 1)
    } else break
  }
  return hundredths > 0 ? {duration: hundredths / 100} : {}
}

/** An ISO BMFF file's duration (moov/mvhd) and the size of its first track with one (moov/trak/tkhd). */
function mp4Info(data: Buffer): Pick<Probe, 'width' | 'height' | 'duration'> {
  const out: Pick<Probe, 'width' | 'height' | 'duration'> = {}
  const walk = (start: number, end: number, depth: number): void => {
    let i = start
    while (i + 8 <= end && depth < 6) {
      let size = data.readUInt32BE(i)
      const type = data.toString('latin1', i + 4, i + 8)
      let header = 8
      if (size === 1 && i + 16 <= end) {
        size = Number(data.readBigUInt64BE(i + 8))
        header = 16
      } else if (size === 0) size = end - i
      if (size < header || i + size > end) return
      const body = i + header
      if (type === 'moov' || type === 'trak' || type === 'mdia') walk(body, i + size, depth + 1)
      else if (type === 'mvhd') {
        const version = data[body]
        const scale = data.readUInt32BE(body + (version === 1 ? 20 : 12))
        const length = version === 1 ? Number(data.readBigUInt64BE(body + 24)) : data.readUInt32BE(body + 16)
        if (scale > 0) out.duration = length / scale
      } else if (type === 'tkhd' && out.width === undefined) {
        const at = body + (data[body] === 1 ? 88 : 76)
        const width = Math.round(data.readUInt32BE(at) / 65536)
        const height = Math.round(data.readUInt32BE(at + 4) / 65536)
        if (width > 0 && height > 0) Object.assign(out, {width, height})
      }
      i += size
    }
  }
  walk(0, data.length, 0)
  return out
}

/** The last Ogg page's granule position over the stream's sample rate (48000 for Opus, the Vorbis header's rate). */
function oggDuration(data: Buffer): Pick<Probe, 'duration'> {
  let rate = 48000
  const vorbis = data.indexOf('\x01vorbis', 0, 'latin1')
  if (vorbis >= 0 && vorbis + 16 <= data.length) rate = data.readUInt32LE(vorbis + 12)
  const last = data.lastIndexOf('OggS', data.length - 1, 'latin1')
  if (last < 0 || last + 14 > data.length || rate <= 0) return {}
  const granule = Number(data.readBigUInt64LE(last + 6))
  return granule > 0 ? {duration: granule / rate} : {}
}

const MP3_RATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]

/** An MPEG-1 Layer III file's duration from its first frame's bit rate (constant bit rate assumed). */
function mp3Duration(data: Buffer): Pick<Probe, 'duration'> {
  let i = 0
  if (data.toString('latin1', 0, 3) === 'ID3' && data.length >= 10)
    i = 10 + ((data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9])
  for (; i + 4 <= data.length && i < 1 << 16; i++) {
    if (data[i] !== 0xff || (data[i + 1] & 0xe0) !== 0xe0) continue
    const kbps = MP3_RATES[data[i + 2] >> 4]
    if (!kbps) continue
    return {duration: ((data.length - i) * 8) / (kbps * 1000)}
  }
  return {}
}

/** A .tgs sticker: gzip-compressed Lottie JSON with `w`, `h` and the frame range over the frame rate. */
function tgsInfo(data: Buffer): Probe {
  const json: unknown = JSON.parse(gunzipSync(data, {maxOutputLength: 4 << 20}).toString('utf8'))
  if (!isObject(json)) return {}
  const {w, h, fr, ip, op} = json
  if (typeof w !== 'number' || typeof h !== 'number') return {}
  const start = typeof ip === 'number' ? ip : 0
  const duration = typeof fr === 'number' && fr > 0 && typeof op === 'number' ? (op - start) / fr : undefined
  return {format: 'tgs', width: w, height: h, ...(duration !== undefined ? {duration} : {})}
}
