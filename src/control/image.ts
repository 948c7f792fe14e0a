/**
 * What `bot trigger photo FILE` needs to know of an image to describe it as Telegram would (a
 * PhotoSize has its width and height): its format and size, read from its header. JPEG, PNG, GIF
 * and WebP, the formats Telegram takes as photos. Pure.
 */

export interface ImageInfo {
  mime: string
  extension: string
  width: number
  height: number
}

/** A 2×2 PNG, the photo sent when no FILE is given. */
export const DEFAULT_PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM/////w8AH+4F+7C4l8kAAAAASUVORK5CYII=',
  'base64',
)

function png(b: Buffer): ImageInfo | undefined {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined
  return {mime: 'image/png', extension: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20)}
}

function gif(b: Buffer): ImageInfo | undefined {
  if (b.length < 10 || !/^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return undefined
  return {mime: 'image/gif', extension: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8)}
}

function jpeg(b: Buffer): ImageInfo | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined
  let i = 2
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined
    const marker = b[i + 1]
    if (marker === 0xff) {
      i++
      continue
    }
    const length = b.readUInt16BE(i + 2)
    // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC) carry the frame's size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return {mime: 'image/jpeg', extension: 'jpg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7)}
    if (length < 2) return undefined
    i += 2 + length
  }
  return undefined
}

function webp(b: Buffer): ImageInfo | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined
  const chunk = b.toString('latin1', 12, 16)
  const info = (width: number, height: number): ImageInfo => ({mime: 'image/webp', extension: 'webp', width, height})
  if (chunk === 'VP8 ') return info(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff)
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21)
    return info((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
  }
  if (chunk === 'VP8X') return info(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3))
  return undefined
}

/** The image's format and size, or undefined when it is none of JPEG, PNG, GIF, WebP. */
export function imageInfo(bytes: Buffer): ImageInfo | undefined {
  try {
    const found = png(bytes) ?? jpeg(bytes) ?? gif(bytes) ?? webp(bytes)
    return found && found.width > 0 && found.height > 0 ? found : undefined
  } catch {
    return undefined
  }
}
