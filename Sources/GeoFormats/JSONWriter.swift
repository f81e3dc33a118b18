import GeoIndex

/// Appends JSON text to a byte buffer; numbers in their shortest round-trip form.
public struct JSONWriter {
  public var bytes: [UInt8] = []

  public init() {}

  public mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

  /// A JSON string: the text's UTF-8 copied in runs, with `"`, `\` and control characters escaped.
  public mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var start = 0
      for (offset, byte) in utf8.enumerated()
      where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<offset]))
        escape(byte)
        start = offset + 1
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func escape(_ byte: UInt8) {
    switch byte {
    case UInt8(ascii: "\""): raw("\\\"")
    case UInt8(ascii: "\\"): raw("\\\\")
    case 0x0A: raw("\\n")
    case 0x0D: raw("\\r")
    case 0x09: raw("\\t")
    default:
      let hex = Array("0123456789abcdef".utf8)
      raw("\\u00")
      bytes.append(hex[Int(byte >> 4)])
      bytes.append(hex[Int(byte & 0xF)])
    }
  }

  public mutating func number(_ value: Double) {
    if value.isFinite {
      // Whole numbers print without ".0" so that they read as JSON integers.
      if value == value.rounded() && abs(value) < 1e15 {
        raw(String(Int64(value)))
      } else {
        raw(value.description)
      }
    } else {
      raw("null")
    }
  }

  /// A number rounded to `decimals` places (coordinates that need no more precision than a map shows).
  public mutating func number(_ value: Double, decimals: Int) {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    number((value * scale).rounded() / scale)
  }

  /// A JSON array of `items`, each written by `each`.
  public mutating func array<T>(_ items: some Sequence<T>, _ each: (inout JSONWriter, T) -> Void) {
    bytes.append(UInt8(ascii: "["))
    var first = true
    for item in items {
      if !first { bytes.append(UInt8(ascii: ",")) }
      first = false
      each(&self, item)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  public mutating func value(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let b): raw(b ? "true" : "false")
    case .number(let text): raw(text)
    case .string(let s): string(s)
    case .array(let elements):
      bytes.append(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        if i > 0 { bytes.append(UInt8(ascii: ",")) }
        self.value(element)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (i, member) in members.enumerated() {
        if i > 0 { bytes.append(UInt8(ascii: ",")) }
        string(member.key)
        bytes.append(UInt8(ascii: ":"))
        self.value(member.value)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  /// Writes an object from key–closure pairs.
  ///
  /// The bytes move into the member writer and back (`swap`), never shared: appending while a second
  /// reference held them copied the whole answer at each object, which made a 10,000-result nearest answer
  /// take seconds (quadratic).
  public mutating func object(_ body: (inout ObjectWriter) -> Void) {
    bytes.append(UInt8(ascii: "{"))
    var writer = ObjectWriter(json: JSONWriter())
    swap(&writer.json, &self)
    body(&writer)
    swap(&writer.json, &self)
    bytes.append(UInt8(ascii: "}"))
  }

  /// Writes the members of one object.
  public struct ObjectWriter {
    public var json: JSONWriter
    var first = true

    public mutating func key(_ name: String) {
      if !first { json.bytes.append(UInt8(ascii: ",")) }
      first = false
      json.string(name)
      json.bytes.append(UInt8(ascii: ":"))
    }
    public mutating func number(_ name: String, _ value: Double) {
      key(name)
      json.number(value)
    }
    public mutating func string(_ name: String, _ value: String) {
      key(name)
      json.string(value)
    }
    public mutating func value(_ name: String, _ value: JSONValue) {
      key(name)
      json.value(value)
    }
    public mutating func object(_ name: String, _ body: (inout ObjectWriter) -> Void) {
      key(name)
      json.object(body)
    }

    /// `"geometry":{"type":"Point","coordinates":[longitude,latitude]}`, GeoJSON's order.
    public mutating func pointGeometry(_ point: GeoPoint) {
      object("geometry") { geometry in
        geometry.string("type", "Point")
        geometry.key("coordinates")
        geometry.json.raw("[")
        geometry.json.number(point.longitude)
        geometry.json.raw(",")
        geometry.json.number(point.latitude)
        geometry.json.raw("]")
      }
    }
    public mutating func array<T>(_ name: String, _ items: [T], _ each: (inout JSONWriter, T) -> Void) {
      key(name)
      json.array(items, each)
    }
  }
}
