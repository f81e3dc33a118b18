/// A Mapbox Vector Tile 2.1 decoder written for the tests, independent of the encoder: it reads any field in
/// any order and skips unknown ones, as the spec asks of decoders.
struct DecodedTile: Equatable {
  struct Layer: Equatable {
    var version = 1
    var name = ""
    var extent = 4096
    var features: [Feature] = []
  }
  struct Feature: Equatable {
    var id: UInt64? = nil
    var type = 0
    /// The points of a POINT geometry, in tile coordinates.
    var points: [[Int64]] = []
    var properties: [String: Value] = [:]
  }
  enum Value: Equatable {
    case string(String)
    case float(Float)
    case double(Double)
    case int(Int64)
    case uint(UInt64)
    case sint(Int64)
    case bool(Bool)
  }

  var layers: [Layer] = []

  struct Malformed: Error {}

  init(_ bytes: [UInt8]) throws {
    var reader = Reader(bytes: bytes[...])
    while let (field, wire) = try reader.key() {
      if field == 3 && wire == 2 {
        layers.append(try Self.layer(try reader.lengthDelimited()))
      } else {
        try reader.skip(wire)
      }
    }
  }

  static func layer(_ bytes: ArraySlice<UInt8>) throws -> Layer {
    var reader = Reader(bytes: bytes)
    var layer = Layer()
    var keys: [String] = []
    var values: [Value] = []
    var rawFeatures: [ArraySlice<UInt8>] = []
    while let (field, wire) = try reader.key() {
      switch (field, wire) {
      case (15, 0): layer.version = Int(try reader.varint())
      case (1, 2): layer.name = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
      case (2, 2): rawFeatures.append(try reader.lengthDelimited())
      case (3, 2): keys.append(String(decoding: try reader.lengthDelimited(), as: UTF8.self))
      case (4, 2): values.append(try value(try reader.lengthDelimited()))
      case (5, 0): layer.extent = Int(try reader.varint())
      default: try reader.skip(wire)
      }
    }
    for raw in rawFeatures {
      var reader = Reader(bytes: raw)
      var feature = Feature()
      while let (field, wire) = try reader.key() {
        switch (field, wire) {
        case (1, 0): feature.id = try reader.varint()
        case (2, 2):
          var tags = Reader(bytes: try reader.lengthDelimited())
          while !tags.atEnd {
            let key = Int(try tags.varint())
            let value = Int(try tags.varint())
            guard key < keys.count, value < values.count else { throw Malformed() }
            feature.properties[keys[key]] = values[value]
          }
        case (3, 0): feature.type = Int(try reader.varint())
        case (4, 2):
          var geometry = Reader(bytes: try reader.lengthDelimited())
          var x: Int64 = 0
          var y: Int64 = 0
          while !geometry.atEnd {
            let command = try geometry.varint()
            guard command & 7 == 1 else { throw Malformed() }  // points are MoveTo only
            for _ in 0..<(command >> 3) {
              x += unzigzag(try geometry.varint())
              y += unzigzag(try geometry.varint())
              feature.points.append([x, y])
            }
          }
        default: try reader.skip(wire)
        }
      }
      layer.features.append(feature)
    }
    return layer
  }

  static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }

  static func value(_ bytes: ArraySlice<UInt8>) throws -> Value {
    var reader = Reader(bytes: bytes)
    var result: Value? = nil
    while let (field, wire) = try reader.key() {
      switch (field, wire) {
      case (1, 2): result = .string(String(decoding: try reader.lengthDelimited(), as: UTF8.self))
      case (2, 5): result = .float(Float(bitPattern: UInt32(try reader.fixed(4))))
      case (3, 1): result = .double(Double(bitPattern: try reader.fixed(8)))
      case (4, 0): result = .int(Int64(bitPattern: try reader.varint()))
      case (5, 0): result = .uint(try reader.varint())
      case (6, 0): result = .sint(unzigzag(try reader.varint()))
      case (7, 0): result = .bool(try reader.varint() != 0)
      default: try reader.skip(wire)
      }
    }
    guard let result else { throw Malformed() }
    return result
  }

  struct Reader {
    var bytes: ArraySlice<UInt8>
    var atEnd: Bool { bytes.isEmpty }

    mutating func varint() throws -> UInt64 {
      var result: UInt64 = 0
      var shift: UInt64 = 0
      while let byte = bytes.popFirst() {
        guard shift < 64 else { throw Malformed() }
        result |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return result }
        shift += 7
      }
      throw Malformed()
    }

    mutating func key() throws -> (UInt64, UInt64)? {
      if atEnd { return nil }
      let key = try varint()
      return (key >> 3, key & 7)
    }

    mutating func lengthDelimited() throws -> ArraySlice<UInt8> {
      let count = Int(try varint())
      guard count <= bytes.count else { throw Malformed() }
      defer { bytes = bytes.dropFirst(count) }
      return bytes.prefix(count)
    }

    mutating func fixed(_ count: Int) throws -> UInt64 {
      guard count <= bytes.count else { throw Malformed() }
      var value: UInt64 = 0
      for (i, byte) in bytes.prefix(count).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
      bytes = bytes.dropFirst(count)
      return value
    }

    mutating func skip(_ wire: UInt64) throws {
      switch wire {
      case 0: _ = try varint()
      case 1: _ = try fixed(8)
      case 2: _ = try lengthDelimited()
      case 5: _ = try fixed(4)
      default: throw Malformed()
      }
    }
  }
}
