/// A feature property's value, typed as Mapbox Vector Tile 2.1 types it.
public enum TileValue: Hashable, Sendable {
  case string(String)
  case double(Double)
  case int(Int64)
  case unsignedInt(UInt64)
  case signedInt(Int64)
  case bool(Bool)

  /// A number typed the way mapbox/vt-pbf 3.1.3 types a JavaScript number: a fraction is a double, a negative
  /// whole number a `sint`, any other whole number a `uint` (beyond 2^64, or not finite, a double).
  public static func number(_ value: Double) -> TileValue {
    guard value.isFinite, value == value.rounded(), abs(value) < 0x1p63 else { return .double(value) }
    return value < 0 ? .signedInt(Int64(value)) : .unsignedInt(UInt64(value))
  }
}

/// One layer of a Mapbox Vector Tile 2.1 (`vector_tile.proto`), written straight to protobuf bytes: varints,
/// zigzag, packed tags and geometry commands, no generated code.
///
/// Keys and values are shared by the layer's features (each stored once, in first-use order), as vt-pbf does.
public struct VectorTileLayer {
  public let name: String
  /// The tile's width and height in its own units (4096 by default; supercluster's `extent` for its tiles).
  public let extent: Int
  private var features: [UInt8] = []
  private var keys: [String] = []
  private var keyIndex: [String: Int] = [:]
  private var values: [TileValue] = []
  private var valueIndex: [TileValue: Int] = [:]
  /// How many features were added.
  public private(set) var count = 0

  public init(name: String, extent: Int = 4096) {
    self.name = name
    self.extent = extent
  }

  /// Adds a point feature at tile coordinates (x right, y down; outside 0..<extent in the buffer).
  /// - Parameter properties: in order; a repeated key keeps each occurrence, as a decoder then reads the last.
  public mutating func addPoint(x: Int, y: Int, id: UInt64?, properties: [(key: String, value: TileValue)]) {
    var feature: [UInt8] = []
    if let id {
      Protobuf.key(1, .varint, to: &feature)
      Protobuf.varint(id, to: &feature)
    }
    if !properties.isEmpty {
      var tags: [UInt8] = []
      for (key, value) in properties {
        Protobuf.varint(UInt64(index(ofKey: key)), to: &tags)
        Protobuf.varint(UInt64(index(of: value)), to: &tags)
      }
      Protobuf.bytes(2, tags, to: &feature)
    }
    Protobuf.key(3, .varint, to: &feature)
    Protobuf.varint(1, to: &feature)  // GeomType POINT
    var geometry: [UInt8] = []
    Protobuf.varint(1 | (1 << 3), to: &geometry)  // MoveTo, one point
    Protobuf.varint(Protobuf.zigzag(Int64(x)), to: &geometry)
    Protobuf.varint(Protobuf.zigzag(Int64(y)), to: &geometry)
    Protobuf.bytes(4, geometry, to: &feature)
    Protobuf.bytes(2, feature, to: &features)
    count += 1
  }

  private mutating func index(ofKey key: String) -> Int {
    if let found = keyIndex[key] { return found }
    keys.append(key)
    keyIndex[key] = keys.count - 1
    return keys.count - 1
  }

  private mutating func index(of value: TileValue) -> Int {
    if let found = valueIndex[value] { return found }
    values.append(value)
    valueIndex[value] = values.count - 1
    return values.count - 1
  }

  /// The `Layer` message: version 2, name, features, keys, values, extent.
  public var encoded: [UInt8] {
    var layer: [UInt8] = []
    Protobuf.key(15, .varint, to: &layer)
    Protobuf.varint(2, to: &layer)
    Protobuf.bytes(1, Array(name.utf8), to: &layer)
    layer += features
    for key in keys { Protobuf.bytes(3, Array(key.utf8), to: &layer) }
    for value in values {
      var message: [UInt8] = []
      switch value {
      case .string(let text): Protobuf.bytes(1, Array(text.utf8), to: &message)
      case .double(let number):
        Protobuf.key(3, .fixed64, to: &message)
        withUnsafeBytes(of: number.bitPattern.littleEndian) { message += $0 }
      case .int(let number):
        Protobuf.key(4, .varint, to: &message)
        Protobuf.varint(UInt64(bitPattern: number), to: &message)
      case .unsignedInt(let number):
        Protobuf.key(5, .varint, to: &message)
        Protobuf.varint(number, to: &message)
      case .signedInt(let number):
        Protobuf.key(6, .varint, to: &message)
        Protobuf.varint(Protobuf.zigzag(number), to: &message)
      case .bool(let flag):
        Protobuf.key(7, .varint, to: &message)
        Protobuf.varint(flag ? 1 : 0, to: &message)
      }
      Protobuf.bytes(4, message, to: &layer)
    }
    Protobuf.key(5, .varint, to: &layer)
    Protobuf.varint(UInt64(extent), to: &layer)
    return layer
  }
}

/// A Mapbox Vector Tile: its layers.
public enum VectorTile {
  /// The `Tile` message holding these layers (field 3 each).
  public static func encode(_ layers: [VectorTileLayer]) -> [UInt8] {
    var tile: [UInt8] = []
    for layer in layers { Protobuf.bytes(3, layer.encoded, to: &tile) }
    return tile
  }
}

/// The few protobuf wire-format pieces a vector tile needs.
enum Protobuf {
  enum WireType: UInt64 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
  }

  static func key(_ field: UInt64, _ type: WireType, to out: inout [UInt8]) {
    varint(field << 3 | type.rawValue, to: &out)
  }

  static func varint(_ value: UInt64, to out: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      out.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    out.append(UInt8(value))
  }

  static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  static func bytes(_ field: UInt64, _ payload: [UInt8], to out: inout [UInt8]) {
    key(field, .lengthDelimited, to: &out)
    varint(UInt64(payload.count), to: &out)
    out += payload
  }
}
