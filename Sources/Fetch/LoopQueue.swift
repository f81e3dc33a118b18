/// Something the loop runs, known by an id that is never reused.
protocol LoopItem {
  var id: UInt64 { get }
}

/// The HTTP loop's bookkeeping apart from curl: requests waiting for a place, cancellations, the stop. Callers
/// on any thread change it (under the loop's lock); at each turn the loop thread takes what to do from it.
/// A small state machine, tested on its own (`LoopQueueTests`).
struct LoopQueue<Item: LoopItem> {
  /// Requests in line, first come first served.
  private(set) var waiting: [Item] = []
  /// Ids cancelled since the last turn.
  private(set) var cancelled: [UInt64] = []
  private(set) var stopping = false

  /// What the loop does at one turn.
  struct Turn {
    /// Requests to start now, in the order they came.
    var admitted: [Item] = []
    /// Running transfers to remove and fail as cancelled.
    var cancelledActive: [UInt64] = []
    /// Waiting requests to fail as cancelled; they never start.
    var cancelledWaiting: [Item] = []
    /// The loop is to stop (everything still here fails).
    var stopping = false
  }

  /// Puts a request in line; false when the loop is stopping, and then it must fail at once.
  mutating func submit(_ item: Item) -> Bool {
    guard !stopping else { return false }
    waiting.append(item)
    return true
  }

  /// Notes a cancellation, handled at the next turn.
  mutating func cancel(_ id: UInt64) { cancelled.append(id) }

  /// Notes the stop: no request is taken after it.
  mutating func stop() { stopping = true }

  /// The turn's work when the transfers `active` are running, at most `limit` at once: cancellations first
  /// (a waiting request cancelled never starts; an id that is neither running nor waiting has finished and is
  /// dropped), then the first waiting requests that fit in the room left.
  mutating func turn(active: Set<UInt64>, limit: Int) -> Turn {
    var turn = Turn(stopping: stopping)
    guard !stopping else { return turn }
    for id in cancelled {
      if active.contains(id) {
        turn.cancelledActive.append(id)
      } else if let i = waiting.firstIndex(where: { $0.id == id }) {
        turn.cancelledWaiting.append(waiting.remove(at: i))
      }
    }
    cancelled = []
    let room = max(0, limit - (active.count - turn.cancelledActive.count))
    turn.admitted = Array(waiting.prefix(room))
    waiting.removeFirst(turn.admitted.count)
    return turn
  }

  /// Whether the loop should turn again at once rather than wait in a poll: a cancellation is pending, or a
  /// request waits and a place is free.
  func hasWork(activeCount: Int, limit: Int) -> Bool {
    !cancelled.isEmpty || (!waiting.isEmpty && activeCount < limit)
  }

  /// Empties the line (on the stop): the requests to fail.
  mutating func drain() -> [Item] {
    defer { waiting = [] }
    return waiting
  }
}
