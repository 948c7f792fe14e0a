/** Real media bytes for the emulator tests: valid PNG, GIF, JPEG and WebP headers of a chosen size, an MP4 box tree. */
import {deflateSync} from 'node:zlib'

function crc32(data: Buffer): number {
  let crc = 0xffffffff
  for (const byte of data) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A valid greyscale PNG of `width` × `height` (any image viewer opens it). */
export function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 0 // greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80)
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0 // filter byte
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A GIF header (logical screen) of the size, with a trailer. */
export function gif(width: number, height: number): Buffer {
  const b = Buffer.alloc(14)
  b.write('GIF89a', 0, 'ascii')
  b.writeUInt16LE(width, 6)
  b.writeUInt16LE(height, 8)
  b[13] = 0x3b
  return b
}

/** A baseline JPEG's SOI + SOF0 + EOI markers with the size (enough for a header reader). */
export function jpeg(width: number, height: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
  sof.writeUInt16BE(height, 5)
  sof.writeUInt16BE(width, 7)
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])])
}

/** A lossy WebP (VP8) header of the size. */
export function webp(width: number, height: number): Buffer {
  const vp8 = Buffer.alloc(10)
  vp8[3] = 0x9d
  vp8[4] = 0x01
  vp8[5] = 0x2a
  vp8.writeUInt16LE(width & 0x3fff, 6)
  vp8.writeUInt16LE(height & 0x3fff, 8)
  const body = Buffer.concat([Buffer.from('WEBPVP8 ', 'ascii'), Buffer.from([10, 0, 0, 0]), vp8])
  const riff = Buffer.alloc(8)
  riff.write('RIFF', 0, 'ascii')
  riff.writeUInt32LE(body.length, 4)
  return Buffer.concat([riff, body])
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  const head = Buffer.alloc(8)
  head.writeUInt32BE(body.length + 8)
  head.write(type, 4, 'ascii')
  return Buffer.concat([head, body])
}

/** An MP4 (ftyp + moov with mvhd and one video track's tkhd) of the size and duration in seconds. */
export function mp4(width: number, height: number, seconds: number): Buffer {
  const mvhd = Buffer.alloc(100)
  mvhd.writeUInt32BE(1000, 12) // timescale
  mvhd.writeUInt32BE(Math.round(seconds * 1000), 16) // duration
  const tkhd = Buffer.alloc(84)
  tkhd.writeUInt32BE(width * 65536, 76)
  tkhd.writeUInt32BE(height * 65536, 80)
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'))
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd), box('trak', box('tkhd', tkhd)))])
}
