import Testing

@testable import Fetch

/// The HTTP loop's state machine, without curl: what each turn starts, cancels and fails.
@Suite struct LoopQueueTests {
  struct Item: LoopItem, Equatable {
    let id: UInt64
  }

  func queue(_ ids: ClosedRange<UInt64>) -> LoopQueue<Item> {
    var queue = LoopQueue<Item>()
    for id in ids {
      let accepted = queue.submit(Item(id: id))
      #expect(accepted)
    }
    return queue
  }

  @Test func admitsInOrderUpToTheRoomLeft() {
    var queue = queue(1...5)
    let first = queue.turn(active: [], limit: 2)
    #expect(first.admitted == [Item(id: 1), Item(id: 2)] && !first.stopping)
    #expect(queue.hasWork(activeCount: 1, limit: 2) && !queue.hasWork(activeCount: 2, limit: 2))
    let full = queue.turn(active: [1, 2], limit: 2)
    #expect(full.admitted.isEmpty)  // no room
    let one = queue.turn(active: [2], limit: 2)
    #expect(one.admitted == [Item(id: 3)])  // one finished: one place
    let rest = queue.turn(active: [], limit: 8)
    #expect(rest.admitted == [Item(id: 4), Item(id: 5)])
    #expect(queue.waiting.isEmpty && !queue.hasWork(activeCount: 0, limit: 8))
  }

  @Test func aCancelledWaitingRequestNeverStarts() {
    var queue = queue(1...3)
    queue.cancel(1)
    #expect(queue.hasWork(activeCount: 3, limit: 3))  // a cancellation is work, even with no room
    let turn = queue.turn(active: [], limit: 3)
    #expect(turn.cancelledWaiting == [Item(id: 1)])
    #expect(turn.admitted == [Item(id: 2), Item(id: 3)])
  }

  @Test func aCancelledRunningTransferIsRemovedAndItsPlaceReused() {
    var queue = queue(1...3)
    _ = queue.turn(active: [], limit: 2)
    queue.cancel(2)
    queue.cancel(99)  // finished already: dropped
    let turn = queue.turn(active: [1, 2], limit: 2)
    #expect(turn.cancelledActive == [2] && turn.cancelledWaiting.isEmpty)
    #expect(turn.admitted == [Item(id: 3)])  // the cancelled one's place
    #expect(queue.cancelled.isEmpty)
  }

  @Test func afterTheStopNothingStartsAndEverythingWaitingFails() {
    var queue = queue(1...2)
    queue.stop()
    let accepted = queue.submit(Item(id: 3))
    #expect(!accepted)  // refused: it must fail at once
    let turn = queue.turn(active: [], limit: 4)
    #expect(turn.stopping && turn.admitted.isEmpty)
    let drained = queue.drain()
    #expect(drained == [Item(id: 1), Item(id: 2)])
    #expect(queue.waiting.isEmpty)
  }
}
