import AtlasMessages
import HTTPTypes

/// Who may write datasets: the holder of the write token (`serve --write-token-file`, `NEWSATLAS_WRITE_TOKEN`),
/// given as `Authorization: Bearer TOKEN`. The token is compared in constant time (the time depends on the
/// length of what was sent, never on how much of it matches) and never logged, echoed or counted.
struct WriteAccess: Sendable {
  private let token: [UInt8]?
  /// The sentence of a 403 when writes are off.
  let offReason: Message

  init(token: String?, offReason: Message = .serviceWritesOff) {
    self.token = token.map { Array($0.utf8) }.flatMap { $0.isEmpty ? nil : $0 }
    self.offReason = offReason
  }

  var isOn: Bool { token != nil }

  /// Refuses a write that does not carry the token: 403 when writes are off, 401 without the header or with
  /// another token.
  func check(_ headers: HTTPFields) throws(Problem) {
    guard let token else { throw .said(Problem.forbidden, offReason) }
    guard let field = headers[.authorization] else {
      throw .said(Problem.unauthorized, .serviceNeedsWriteToken)
    }
    let bytes = Array(field.utf8)
    let scheme = Array("bearer ".utf8)
    guard bytes.count > scheme.count,
      zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 || ($0 == $1) })
    else {
      throw .said(Problem.unauthorized, .serviceNeedsWriteToken)
    }
    guard Self.equal(bytes[scheme.count...], token) else {
      throw .said(Problem.unauthorized, .serviceWrongWriteToken)
    }
  }

  /// Whether `given` is `token`, in a time that depends on `given.count` alone.
  static func equal(_ given: ArraySlice<UInt8>, _ token: [UInt8]) -> Bool {
    var difference = given.count == token.count ? 0 : 1
    for (i, byte) in given.enumerated() { difference |= Int(byte ^ token[i % token.count]) }
    return difference == 0
  }
}
