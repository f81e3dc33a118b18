/// A parsed JSON document, keeping object key order and each number's text so that input can be echoed exactly.
public enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(String)
  case string(String)
  case array([JSONValue])
  case object([(key: String, value: JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)): return x == y
    case (.object(let x), .object(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }

  /// An object's member, nil for anything else.
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members.first { $0.key == key }?.value }
    return nil
  }

  /// A number's value, nil for anything else.
  public var doubleValue: Double? {
    if case .number(let text) = self { return Double(text) }
    return nil
  }
}
