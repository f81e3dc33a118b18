import GeoFormats
import Testing

@Suite struct OutputBufferTests {
  @Test func deliversEverythingInOrder() {
    var received: [UInt8] = []
    do {
      let out = OutputBuffer(capacity: 16) { bytes in
        received += bytes
        return true
      }
      for i in 0..<100 {
        out.append(integer: i - 50)
        out.append(byte: 0x2C)
      }
      out.append(sixDecimals: -0.0000004)
      out.append(byte: 0x2C)
      out.append(sixDecimals: 245.7545294)
      out.append([UInt8](repeating: 0x41, count: 100_000))
    }  // the buffer flushes when it goes
    let text = String(decoding: received, as: UTF8.self)
    #expect(text.hasPrefix("-50,-49,"))
    #expect(text.contains(",49,0.000000,245.754529AAAA"))
    #expect(received.count == text.utf8.count && text.hasSuffix(String(repeating: "A", count: 100_000)))
  }

  @Test func aRefusingSinkClosesTheBuffer() {
    var calls = 0
    let out = OutputBuffer(capacity: 4) { _ in
      calls += 1
      return false
    }
    out.append("hello, world")
    #expect(out.isClosed)
    out.append("more")
    out.flush()
    #expect(calls == 1)  // nothing more is offered once the reader is gone
  }
}
