import Foundation
import NIOCore
import Synchronization

/// Encoded tiles kept between requests, up to a byte budget, oldest out first.
///
/// A tile of a loaded dataset never changes, and map clients ask for the same tiles over and over (every pan
/// back, every user of a shared map): a tile answered from here costs a dictionary lookup instead of a
/// getTile and an encoding. Empty tiles (204) are remembered too, at no byte cost. The plain and the gzipped
/// bytes of a tile are separate entries, so that an answer never depends on what an earlier client accepted;
/// a tile that every client gets as it is (empty, or too small to gzip) is kept once, under its plain key.
final class TileCache: Sendable {
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
  private struct State {
    var entries: [Key: Entry] = [:]
    /// Keys in the order they came in, from `head` on (the ones before it are gone).
    var order: [Key] = []
    var head = 0
    var bytes = 0
    var hits = 0
    var misses = 0
  }
  private let state = Mutex(State())

  init(budget: Int) { self.budget = max(0, budget) }

  /// The answer kept for `key`, counting a hit or a miss: for a client that accepts gzip, the plain entry of
  /// a tile that every client gets as it is.
  func entry(_ key: Key) -> Entry? {
    guard budget > 0 else { return nil }
    return state.withLock { state in
      var found = state.entries[key]
      if found == nil, key.gzip, let plain = state.entries[key.plain], plain.forEveryClient { found = plain }
      if found != nil { state.hits += 1 } else { state.misses += 1 }
      return found
    }
  }

  /// Keeps an answer, letting the oldest go while the bytes are over budget (an answer larger than the whole
  /// budget is not kept).
  func keep(_ entry: Entry, for key: Key) {
    let key = entry.forEveryClient ? key.plain : key
    let size = entry.body?.readableBytes ?? 0
    guard budget > 0, size <= budget else { return }
    state.withLock { state in
      guard state.entries.updateValue(entry, forKey: key) == nil else { return }  // two requests raced: one kept
      state.order.append(key)
      state.bytes += size
      while state.bytes > budget, state.head < state.order.count {
        if let gone = state.entries.removeValue(forKey: state.order[state.head]) {
          state.bytes -= gone.body?.readableBytes ?? 0
        }
        state.head += 1
      }
      if state.head > 4096 && state.head * 2 > state.order.count {
        state.order.removeFirst(state.head)
        state.head = 0
      }
    }
  }

  /// Hits, misses, tiles and bytes kept, for `/metrics`.
  var counters: (hits: Int, misses: Int, tiles: Int, bytes: Int) {
    state.withLock { ($0.hits, $0.misses, $0.entries.count, $0.bytes) }
  }
}
