#if canImport(Glibc)
  import Glibc
#endif

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
  fileprivate private(set) var features: [UInt8] = []
  private var keys: [String] = []
  private var keyBytes: [[UInt8]] = []
  fileprivate private(set) var values: ValueTable
  /// Scratch space for one feature's tags, kept between features.
  private var tags: [UInt8] = []
  /// How many features were added.
  public private(set) var count = 0

  /// - Parameter expectedValues: how many distinct property values the layer will likely hold, so that its
  ///   value table is sized once instead of rehashed as it grows (a tile's values are mostly distinct).
  ///   `extent` is a uint32 in the encoding, from 1 (`ClusterOptions.check` keeps a clustering's to 2^24).
  public init(name: String, extent: Int = 4096, expectedValues: Int = 0) {
    precondition((1...Int(UInt32.max)).contains(extent), "a tile extent is 1...UInt32.max, not \(extent)")
    self.name = name
    self.extent = extent
    values = ValueTable(capacity: expectedValues)
  }

  /// Adds a point feature at tile coordinates (x right, y down; outside 0..<extent in the buffer).
  /// - Parameter properties: in order; a repeated key keeps each occurrence, as a decoder then reads the last.
  public mutating func addPoint(x: Int, y: Int, id: UInt64?, properties: [(key: String, value: TileValue)]) {
    beginFeature()
    for (key, value) in properties { tag(key: key, value: value) }
    endPoint(x: x, y: y, id: id)
  }

  /// Starts a feature: `tag` its properties in order, then `endPoint` (the way to add one without building a
  /// property list).
  public mutating func beginFeature() { tags.removeAll(keepingCapacity: true) }

  /// One property of the feature begun.
  public mutating func tag(key: String, value: TileValue) {
    tag(keyIndex: keyIndex(key), value: value)
  }

  /// One property of the feature begun, its key given by `keyIndex` (for a caller that adds the same keys to
  /// many features).
  public mutating func tag(keyIndex: Int, value: TileValue) {
    Protobuf.varints(UInt64(keyIndex), UInt64(values.index(of: value)), to: &tags)
  }

  /// The key's position in the layer's key table, added at the end on first use.
  public mutating func keyIndex(_ key: String) -> Int {
    var key = key
    return key.withUTF8 { bytes -> Int in self.index(ofKey: bytes) }
  }

  /// One property of the feature begun, its key as UTF-8 bytes.
  public mutating func tag(key: UnsafeBufferPointer<UInt8>, value: TileValue) {
    Protobuf.varints(UInt64(index(ofKey: key)), UInt64(values.index(of: value)), to: &tags)
  }

  /// Ends the feature begun as a point at tile coordinates (x right, y down; outside 0..<extent in the buffer).
  ///
  /// The feature is sized first and written straight into the layer, its fixed parts through a cursor on the
  /// stack (an append per byte, each checking the array's capacity and uniqueness, was a fifth of a tile).
  public mutating func endPoint(x: Int, y: Int, id: UInt64?) {
    // The geometry: MoveTo, one point, zigzagged x and y.
    let moveTo: UInt64 = 1 | (1 << 3)
    let dx = Protobuf.zigzag(Int64(x))
    let dy = Protobuf.zigzag(Int64(y))
    let geometrySize = Protobuf.size(moveTo) + Protobuf.size(dx) + Protobuf.size(dy)
    var size = 2 + 1 + Protobuf.size(UInt64(geometrySize)) + geometrySize
    if let id { size += 1 + Protobuf.size(id) }
    if !tags.isEmpty { size += 1 + Protobuf.size(UInt64(tags.count)) + tags.count }
    Protobuf.write(to: &features) { out in
      out.key(2, .lengthDelimited)
      out.varint(UInt64(size))
      if let id {
        out.key(1, .varint)
        out.varint(id)
      }
      if !tags.isEmpty {
        out.key(2, .lengthDelimited)
        out.varint(UInt64(tags.count))
      }
    }
    features += tags
    Protobuf.write(to: &features) { out in
      out.key(3, .varint)
      out.varint(1)  // GeomType POINT
      out.key(4, .lengthDelimited)
      out.varint(UInt64(geometrySize))
      out.varint(moveTo)
      out.varint(dx)
      out.varint(dy)
    }
    count += 1
  }

  /// A layer has few keys: a scan of their bytes beats hashing them.
  private mutating func index(ofKey key: UnsafeBufferPointer<UInt8>) -> Int {
    for (i, stored) in keyBytes.enumerated() where stored.count == key.count {
      let same = stored.withUnsafeBufferPointer { storedBytes in
        key.isEmpty || memcmp(storedBytes.baseAddress!, key.baseAddress!, key.count) == 0
      }
      if same { return i }
    }
    keyBytes.append(Array(key))
    keys.append(String(decoding: key, as: UTF8.self))
    return keys.count - 1
  }

  /// The `Layer` message: version 2, name, features, keys, values, extent.
  public var encoded: [UInt8] {
    var layer: [UInt8] = []
    append(to: &layer)
    return layer
  }

  /// The `Layer` message, appended to `out` (each value's message sized first, so nothing is copied twice).
  func append(to layer: inout [UInt8]) {
    Protobuf.key(15, .varint, to: &layer)
    Protobuf.varint(2, to: &layer)
    Protobuf.bytes(1, Array(name.utf8), to: &layer)
    layer += features
    for key in keyBytes { Protobuf.bytes(3, key, to: &layer) }
    for value in values.values {
      switch value {
      case .string(let text):
        let size = text.utf8.count
        Protobuf.key(4, .lengthDelimited, to: &layer)
        Protobuf.varint(UInt64(1 + Protobuf.size(UInt64(size)) + size), to: &layer)
        Protobuf.key(1, .lengthDelimited, to: &layer)
        Protobuf.varint(UInt64(size), to: &layer)
        layer += text.utf8
      case .double(let number):
        Protobuf.key(4, .lengthDelimited, to: &layer)
        Protobuf.varint(9, to: &layer)
        Protobuf.key(3, .fixed64, to: &layer)
        withUnsafeBytes(of: number.bitPattern.littleEndian) { layer += $0 }
      case .int(let number):
        Protobuf.small(4, field: 4, UInt64(bitPattern: number), to: &layer)
      case .unsignedInt(let number):
        Protobuf.small(4, field: 5, number, to: &layer)
      case .signedInt(let number):
        Protobuf.small(4, field: 6, Protobuf.zigzag(number), to: &layer)
      case .bool(let flag):
        Protobuf.small(4, field: 7, flag ? 1 : 0, to: &layer)
      }
    }
    Protobuf.key(5, .varint, to: &layer)
    Protobuf.varint(UInt64(extent), to: &layer)
  }
}

/// A Mapbox Vector Tile: its layers.
public enum VectorTile {
  /// The `Tile` message holding these layers (field 3 each).
  public static func encode(_ layers: [VectorTileLayer]) -> [UInt8] {
    var tile: [UInt8] = []
    for layer in layers {
      if layers.count == 1 {  // the usual case: the layer written once, its length put in front
        var body: [UInt8] = []
        body.reserveCapacity(layer.features.count + 64 * (layer.values.values.count + 4))
        layer.append(to: &body)
        Protobuf.key(3, .lengthDelimited, to: &tile)
        Protobuf.varint(UInt64(body.count), to: &tile)
        tile += body
      } else {
        Protobuf.bytes(3, layer.encoded, to: &tile)
      }
    }
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

  /// Varints written through a pointer into space known to be large enough.
  struct Cursor {
    var at: UnsafeMutablePointer<UInt8>

    @inline(__always) mutating func varint(_ value: UInt64) {
      var value = value
      while value >= 0x80 {
        at.pointee = UInt8(truncatingIfNeeded: value) | 0x80
        at += 1
        value >>= 7
      }
      at.pointee = UInt8(value)
      at += 1
    }

    @inline(__always) mutating func key(_ field: UInt64, _ type: WireType) {
      varint(field << 3 | type.rawValue)
    }
  }

  /// Appends what `body` writes, at most 64 bytes (six varints), to `out` in one append.
  @inline(__always)
  static func write(to out: inout [UInt8], _ body: (inout Cursor) -> Void) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { scratch in
      var cursor = Cursor(at: scratch.baseAddress!)
      body(&cursor)
      out.append(
        contentsOf: UnsafeBufferPointer(
          start: scratch.baseAddress!, count: scratch.baseAddress!.distance(to: cursor.at)))
    }
  }

  /// Two varints, appended at once.
  @inline(__always)
  static func varints(_ first: UInt64, _ second: UInt64, to out: inout [UInt8]) {
    write(to: &out) { cursor in
      cursor.varint(first)
      cursor.varint(second)
    }
  }

  static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  /// A length-delimited `outer` field holding one varint `field`: a `Value` message of an integer or a bool.
  static func small(_ outer: UInt64, field: UInt64, _ value: UInt64, to out: inout [UInt8]) {
    key(outer, .lengthDelimited, to: &out)
    varint(UInt64(1 + size(value)), to: &out)
    key(field, .varint, to: &out)
    varint(value, to: &out)
  }

  /// The bytes `varint` writes for `value`.
  @inline(__always) static func size(_ value: UInt64) -> Int {
    (64 - (value | 1).leadingZeroBitCount + 6) / 7
  }

  static func bytes(_ field: UInt64, _ payload: [UInt8], to out: inout [UInt8]) {
    key(field, .lengthDelimited, to: &out)
    varint(UInt64(payload.count), to: &out)
    out += payload
  }
}

/// The layer's values, each stored once in first-use order, found again through an open-addressing table with
/// a cheap hash (a tile's values are mostly distinct numbers; Swift's seeded SipHash cost more than the rest
/// of the encoding). Equality is `TileValue`'s: `0.0` and `-0.0` are one value, as vt-pbf's `number:0` is.
struct ValueTable {
  private(set) var values: [TileValue] = []
  private var slots: [Int32]

  /// A table with room for about `capacity` values before it grows (at least 32).
  init(capacity: Int = 0) {
    var size = 64
    while size < 2 * capacity { size *= 2 }
    slots = [Int32](repeating: -1, count: size)
    values.reserveCapacity(size / 2)
  }

  mutating func index(of value: TileValue) -> Int {
    var mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: Self.hash(value)) & mask
    while true {
      let found = Int(slots[slot])
      if found < 0 { break }
      if values[found] == value { return found }
      slot = (slot + 1) & mask
    }
    values.append(value)
    if values.count * 2 > slots.count {
      slots = [Int32](repeating: -1, count: slots.count * 2)
      mask = slots.count - 1
      for (i, stored) in values.enumerated() {
        var at = Int(truncatingIfNeeded: Self.hash(stored)) & mask
        while slots[at] >= 0 { at = (at + 1) & mask }
        slots[at] = Int32(i)
      }
    } else {
      slots[slot] = Int32(values.count - 1)
    }
    return values.count - 1
  }

  /// A 64-bit mix (splitmix64's finaliser) of the value's bits; strings by FNV-1a over their UTF-8.
  static func hash(_ value: TileValue) -> UInt64 {
    var bits: UInt64
    switch value {
    case .string(let text):
      bits = 0xcbf2_9ce4_8422_2325
      for byte in text.utf8 { bits = (bits ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    case .double(let number): bits = (number == 0 ? 0 : number).bitPattern ^ 1
    case .int(let number): bits = UInt64(bitPattern: number) ^ 2
    case .unsignedInt(let number): bits = number ^ 3
    case .signedInt(let number): bits = UInt64(bitPattern: number) ^ 4
    case .bool(let flag): bits = flag ? 5 : 6
    }
    bits = (bits ^ (bits >> 30)) &* 0xbf58_476d_1ce4_e5b9
    bits = (bits ^ (bits >> 27)) &* 0x94d0_49bb_1331_11eb
    return bits ^ (bits >> 31)
  }
}
