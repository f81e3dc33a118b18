import AtlasMessages
import GeoIndex

/// A filter on features' properties, written as a MapLibre style filter expression in JSON, so that a map
/// style's own `filter` can be passed through: `["==", ["get", "category"], "sports"]`.
///
/// The operators are MapLibre's `all`, `any`, `!`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `has`, `get` and
/// `literal`, with its semantics (MapLibre GL JS's expression specification, read as prose; no code of it is
/// used):
/// - `["get", NAME]` is the property's value, `null` when the feature has none; `["has", NAME]` whether it has it.
/// - `==` and `!=` compare any two values; a number and a string are never equal (`1` is not `"1"`).
/// - `<`, `<=`, `>`, `>=` compare two numbers or two strings (by Unicode scalars); any other pair fails the
///   comparison, and so the feature, as MapLibre drops a feature whose filter fails to evaluate.
/// - `["in", NEEDLE, HAYSTACK]`: an item of an array (`["literal", ["a", "b"]]`) or a substring of a string.
/// - `all` of nothing is true, `any` of nothing false; `!` negates a boolean.
///
/// A filter is checked when it is read: an unknown operator, a wrong number of arguments, or a value where a
/// boolean is needed is refused with the reason. Its `canonical` text is the expression re-written compactly,
/// for a cache key that two spellings of one filter share.
public struct FeatureFilter: Sendable, Equatable {
  indirect enum Node: Sendable, Equatable {
    case value(JSONValue)
    case get(String)
    case has(String)
    case not(Node)
    case all([Node])
    case any([Node])
    case compare(String, Node, Node)
    case contains(Node, Node)
  }

  let root: Node
  /// The expression as compact JSON, the same for every spelling of it (spaces, number forms).
  public let canonical: String

  /// Reads a filter from its JSON text; `FormatError.argument` says what is wrong with it.
  public init(json text: String) throws(FormatError) {
    let value: JSONValue
    do {
      value = try JSONParser.parse(Array(text.utf8))
    } catch {
      throw .argument(.filterNotJSON, error.sentence)
    }
    root = try Self.node(value, depth: 0)
    guard Self.isBoolean(root) else {
      throw .argument(.filterNotATest, #"["==", ["get", "category"], "sports"]"#)
    }
    var writer = JSONWriter()
    Self.write(root, to: &writer)
    canonical = String(decoding: writer.bytes, as: UTF8.self)
  }

  /// Whether a feature whose `properties` member is `properties` (nil or not an object: no properties) passes.
  public func matches(_ properties: JSONValue?) -> Bool {
    var steps = Int.max
    return (try? matches(properties, steps: &steps)) ?? false
  }

  /// `matches`, counting its work down from `steps`: one per expression evaluated, one per byte compared by a
  /// string comparison or a substring search, one per item of an array searched by `in`. Throws `OverBudget`
  /// instead of going below zero, so a caller can bound what one filter costs over a whole dataset.
  public func matches(_ properties: JSONValue?, steps: inout Int) throws(OverBudget) -> Bool {
    var meter = Meter(left: steps)
    defer { steps = meter.left }
    do {
      guard case .value(.bool(true)) = try Self.evaluate(root, properties, &meter) else { return false }
      return true
    } catch .overBudget {
      throw OverBudget()
    } catch {
      return false
    }
  }

  /// The filter used more steps than it was given (`matches(_:steps:)`).
  public struct OverBudget: Error {}

  // MARK: - Reading

  private static let comparisons: Set<String> = ["==", "!=", "<", "<=", ">", ">="]

  private static func node(_ value: JSONValue, depth: Int) throws(FormatError) -> Node {
    guard depth < 64 else { throw .argument(.filterTooDeep) }
    guard case .array(let items) = value else {
      if case .object = value {
        throw .argument(.filterObject, #"["literal", {…}]"#)
      }
      return .value(value)
    }
    guard case .string(let name)? = items.first else {
      throw .argument(.filterNoOperator, #"["literal", [...]]"#)
    }
    let arguments = Array(items.dropFirst())
    func count(_ expected: Int) throws(FormatError) {
      guard arguments.count == expected else {
        throw
          expected == 1
          ? FormatError.argument(.filterOneArgument, name, arguments.count)
          : FormatError.argument(.filterArguments, name, expected, arguments.count)
      }
    }
    func property() throws(FormatError) -> String {
      try count(1)
      guard case .string(let key) = arguments[0] else {
        throw .argument(.filterPropertyName, name)
      }
      return key
    }
    func tests() throws(FormatError) -> [Node] {
      var nodes: [Node] = []
      for argument in arguments {
        let node = try self.node(argument, depth: depth + 1)
        guard isBoolean(node) else { throw .argument(.filterArgumentTest, name) }
        nodes.append(node)
      }
      return nodes
    }
    switch name {
    case "literal":
      try count(1)
      return .value(arguments[0])
    case "get": return .get(try property())
    case "has": return .has(try property())
    case "all": return .all(try tests())
    case "any": return .any(try tests())
    case "!":
      try count(1)
      return .not(try tests()[0])
    case "in":
      try count(2)
      return .contains(try node(arguments[0], depth: depth + 1), try node(arguments[1], depth: depth + 1))
    case _ where comparisons.contains(name):
      try count(2)
      return .compare(
        name, try node(arguments[0], depth: depth + 1), try node(arguments[1], depth: depth + 1))
    default:
      let shown = String(name.unicodeScalars.prefix(32).map { $0.value < 0x20 ? "?" : Character($0) })
      throw .argument(.filterUnknownOperator, shown)
    }
  }

  /// Whether a node gives a boolean: a test, or a literal true or false.
  private static func isBoolean(_ node: Node) -> Bool {
    switch node {
    case .has, .not, .all, .any, .compare, .contains, .value(.bool): return true
    case .get, .value: return false
    }
  }

  // MARK: - Evaluating

  private enum Failed: Error {
    /// A comparison of mismatched types, or a test that is not a boolean: the feature fails the filter.
    case mismatch
    case overBudget
  }

  private struct Meter {
    var left: Int

    mutating func spend(_ steps: Int) throws(Failed) {
      guard left >= steps else { throw .overBudget }
      left -= steps
    }
  }

  private static func evaluate(_ node: Node, _ properties: JSONValue?, _ meter: inout Meter) throws(Failed)
    -> Node
  {
    try meter.spend(1)
    switch node {
    case .value: return node
    case .get(let key): return .value(properties?[key] ?? .null)
    case .has(let key): return .value(.bool(properties?[key] != nil))
    case .not(let inner): return .value(.bool(!(try truth(inner, properties, &meter))))
    case .all(let nodes):
      for inner in nodes where !(try truth(inner, properties, &meter)) { return .value(.bool(false)) }
      return .value(.bool(true))
    case .any(let nodes):
      for inner in nodes where try truth(inner, properties, &meter) { return .value(.bool(true)) }
      return .value(.bool(false))
    case .compare(let name, let left, let right):
      guard case .value(let a) = try evaluate(left, properties, &meter),
        case .value(let b) = try evaluate(right, properties, &meter)
      else { throw .mismatch }
      return .value(.bool(try compare(name, a, b, &meter)))
    case .contains(let needle, let haystack):
      guard case .value(let item) = try evaluate(needle, properties, &meter),
        case .value(let container) = try evaluate(haystack, properties, &meter)
      else { throw .mismatch }
      switch (item, container) {
      case (_, .array(let items)):
        try meter.spend(items.count)
        return .value(.bool(items.contains { same(item, $0) }))
      case (.string(let part), .string(let whole)):
        return .value(.bool(try contains(whole, part, &meter)))
      default: throw .mismatch
      }
    }
  }

  private static func truth(_ node: Node, _ properties: JSONValue?, _ meter: inout Meter) throws(Failed)
    -> Bool
  {
    guard case .value(.bool(let value)) = try evaluate(node, properties, &meter) else { throw .mismatch }
    return value
  }

  /// Whether `part` occurs in `whole`, as MapLibre's `in` on strings (JavaScript's `indexOf`) finds it: by code
  /// points, never by canonical equivalence (the Kelvin sign is not `K`); UTF-8 makes that a byte search. Each
  /// byte compared is a step.
  private static func contains(_ whole: String, _ part: String, _ meter: inout Meter) throws(Failed) -> Bool {
    let (h, n) = (Array(whole.utf8), Array(part.utf8))
    guard !n.isEmpty else { return true }
    guard n.count <= h.count else { return false }
    let first = n[0]
    var start = 0
    while start + n.count <= h.count {
      try meter.spend(1)
      if h[start] == first {
        var matched = 1
        while matched < n.count, h[start + matched] == n[matched] { matched += 1 }
        try meter.spend(matched)
        if matched == n.count { return true }
      }
      start += 1
    }
    return false
  }

  /// Equality as MapLibre's `==`: numbers by value (`1` equals `1.0`), everything else by type and content.
  private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    if case .number = a, case .number = b { return a.doubleValue == b.doubleValue }
    return a == b
  }

  private static func compare(_ name: String, _ a: JSONValue, _ b: JSONValue, _ meter: inout Meter)
    throws(Failed) -> Bool
  {
    if case .string(let x) = a, case .string(let y) = b { try meter.spend(min(x.utf8.count, y.utf8.count)) }
    if name == "==" { return same(a, b) }
    if name == "!=" { return !same(a, b) }
    let order: Int
    switch (a, b) {
    case (.number, .number):
      guard let x = a.doubleValue, let y = b.doubleValue else { throw .mismatch }
      order = x < y ? -1 : x > y ? 1 : 0
    case (.string(let x), .string(let y)):
      let (u, v) = (Array(x.unicodeScalars), Array(y.unicodeScalars))
      order = u.lexicographicallyPrecedes(v) ? -1 : (u == v ? 0 : 1)
    default:
      throw .mismatch
    }
    switch name {
    case "<": return order < 0
    case "<=": return order <= 0
    case ">": return order > 0
    default: return order >= 0
    }
  }

  // MARK: - Writing

  private static func write(_ node: Node, to json: inout JSONWriter) {
    func call(_ name: String, _ arguments: [Node]) {
      json.raw("[")
      json.string(name)
      for argument in arguments {
        json.raw(",")
        write(argument, to: &json)
      }
      json.raw("]")
    }
    switch node {
    case .value(let value):
      switch value {
      case .array, .object:
        json.raw("[\"literal\",")
        json.value(canonicalNumbers(value))
        json.raw("]")
      default: json.value(canonicalNumbers(value))
      }
    case .get(let key): call("get", [.value(.string(key))])
    case .has(let key): call("has", [.value(.string(key))])
    case .not(let inner): call("!", [inner])
    case .all(let nodes): call("all", nodes)
    case .any(let nodes): call("any", nodes)
    case .compare(let name, let left, let right): call(name, [left, right])
    case .contains(let needle, let haystack): call("in", [needle, haystack])
    }
  }

  /// Numbers written the shortest way that reads back to the same value (`1.0` and `1e0` as `1`).
  private static func canonicalNumbers(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number(let text):
      guard let number = Double(text), number.isFinite else { return value }
      var writer = JSONWriter()
      writer.number(number)
      return .number(String(decoding: writer.bytes, as: UTF8.self))
    case .array(let items): return .array(items.map(canonicalNumbers))
    case .object(let members): return .object(members.map { ($0.key, canonicalNumbers($0.value)) })
    default: return value
    }
  }
}

extension FeatureFile {
  /// `filtered(by:steps:)` without a bound, for a user's own file on their own machine (`clusters --filter`).
  public func filtered(by filter: FeatureFilter) -> FeatureFile {
    // Int.max steps are more than any evaluation reaches (a step is at least a byte compared), so the
    // fallback is never taken.
    (try? filtered(by: filter, steps: .max)) ?? self
  }

  /// The features that pass `filter`, in their order, as a collection of their own: clustering it is clustering
  /// the matching points alone (ids and order as supercluster gives for that subset).
  ///
  /// With `steps`, the filter's evaluation over all the features may take that many steps
  /// (`FeatureFilter.matches(_:steps:)`), and `FeatureFilter.OverBudget` is thrown as soon as it would take more:
  /// what one request asks of a server stays bounded, however long its literals.
  public func filtered(by filter: FeatureFilter, steps: Int) throws(FeatureFilter.OverBudget)
    -> FeatureFile
  {
    var kept: [(text: [UInt8], point: GeoPoint?)] = []
    var keptValues: [Double] = []
    let width = propertyNames.count
    var left = steps
    for index in 0..<count {
      let text = self.text(of: index)
      let properties = (try? JSONParser.parse(text))?["properties"]
      guard try filter.matches(properties, steps: &left) else { continue }
      kept.append((text, points[index]))
      keptValues += values[(index * width)..<((index + 1) * width)]
    }
    return .features(kept, name: naming, propertyNames: propertyNames, values: keptValues, hasIDs: hasIDs)
  }
}
