import Foundation
import NIOCore

/// Encoded tiles kept between requests, up to a byte budget, oldest out first.
///
/// A tile of a loaded dataset never changes, and map clients ask for the same tiles over and over (every pan
/// back, every user of a shared map): a tile answered from here costs a dictionary lookup instead of a
/// getTile and an encoding. Empty tiles (204) are remembered too, at no byte cost. The plain and the gzipped
/// bytes of a tile are separate entries, so that an answer never depends on what an earlier client accepted;
/// a tile that every client gets as it is (empty, or too small to gzip) is kept once, under its plain key.
final class TileCache: @unchecked Sendable {
  /// One tile's answer, as the request asked for it.
  struct Key: Hashable {
    let dataset: String
    let z: Int
    let x: Int
    let y: Int
    /// `.mvt` rather than `.geojson`.
    let vector: Bool
    /// The client accepts gzip.
    let gzip: Bool

    /// The same tile for a client that does not accept gzip.
    var plain: Key { Key(dataset: dataset, z: z, x: x, y: y, vector: vector, gzip: false) }
  }

  /// A tile's body (nil for an empty tile) and whether it is gzipped.
  struct Entry {
    let body: ByteBuffer?
    let gzipped: Bool
    /// The answer to a client whether or not it accepts gzip (an empty tile, or one too small to gzip).
    var forEveryClient = false
  }

  /// The most body bytes kept; 0 keeps nothing.
  let budget: Int
  private let lock = NSLock()
  private var entries: [Key: Entry] = [:]
  /// Keys in the order they came in, from `head` on (the ones before it are gone).
  private var order: [Key] = []
  private var head = 0
  private var bytes = 0
  private(set) var hits = 0
  private(set) var misses = 0

  init(budget: Int) { self.budget = max(0, budget) }

  /// The answer kept for `key`, counting a hit or a miss: for a client that accepts gzip, the plain entry of
  /// a tile that every client gets as it is.
  func entry(_ key: Key) -> Entry? {
    guard budget > 0 else { return nil }
    lock.lock()
    defer { lock.unlock() }
    var found = entries[key]
    if found == nil, key.gzip, let plain = entries[key.plain], plain.forEveryClient { found = plain }
    if found != nil { hits += 1 } else { misses += 1 }
    return found
  }

  /// Keeps an answer, letting the oldest go while the bytes are over budget (an answer larger than the whole
  /// budget is not kept).
  func keep(_ entry: Entry, for key: Key) {
    let key = entry.forEveryClient ? key.plain : key
    let size = entry.body?.readableBytes ?? 0
    guard budget > 0, size <= budget else { return }
    lock.lock()
    defer { lock.unlock() }
    guard entries.updateValue(entry, forKey: key) == nil else { return }  // two requests raced: one kept
    order.append(key)
    bytes += size
    while bytes > budget, head < order.count {
      if let gone = entries.removeValue(forKey: order[head]) { bytes -= gone.body?.readableBytes ?? 0 }
      head += 1
    }
    if head > 4096 && head * 2 > order.count {
      order.removeFirst(head)
      head = 0
    }
  }

  /// Hits, misses, tiles and bytes kept, for `/metrics`.
  var counters: (hits: Int, misses: Int, tiles: Int, bytes: Int) {
    lock.lock()
    defer { lock.unlock() }
    return (hits, misses, entries.count, bytes)
  }
}
