/** The sticker sets a bot created (createNewStickerSet), as getStickerSet answers them; names are case-insensitive. */
import type {TgObject} from '../types.js'

export interface StickerSetState {
  name: string
  title: string
  stickerType: 'regular' | 'mask' | 'custom_emoji'
  stickers: TgObject[]
}

/** Kept per bot; beyond it the oldest set is forgotten. */
const MAX_SETS = 10_000

export class StickerSets {
  private readonly byName = new Map<string, StickerSetState>()

  get(name: string): StickerSetState | undefined {
    return this.byName.get(name.trim().toLowerCase())
  }

  add(set: StickerSetState): void {
    this.byName.set(set.name.toLowerCase(), set)
    if (this.byName.size > MAX_SETS) this.byName.delete(this.byName.keys().next().value!)
  }

  delete(name: string): boolean {
    return this.byName.delete(name.trim().toLowerCase())
  }

  values(): IterableIterator<StickerSetState> {
    return this.byName.values()
  }

  clear(): void {
    this.byName.clear()
  }
}
