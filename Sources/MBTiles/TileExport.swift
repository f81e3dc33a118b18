import AtlasAnswers
import AtlasMessages
import CompressNIO
import Foundation
import GeoFormats
import GeoIndex
import NIOCore
import NewsAtlas
import Store

/// `newsatlas tiles`: every non-empty vector tile of zooms `minZoom...maxZoom`, gzipped, in one MBTiles 1.3
/// file (what `serve` answers at `/tiles/{name}/{z}/{x}/{y}.mvt`, written once for static hosting and for tile
/// servers such as Martin, tileserver-gl or QGIS), or in one PMTiles v3 archive when the path ends in
/// `.pmtiles` (the same tiles and metadata, for a static host or an object store read with range requests).
public enum TileExport {
  /// Where an export is: the zoom being written (of `zooms`), the tiles written so far, about what fraction of
  /// the work is done, and whether the zoom is done.
  public struct Progress: Sendable {
    public let zoom: Int
    public let zooms: ClosedRange<Int>
    public let tiles: Int
    public let fraction: Double
    public let zoomDone: Bool
  }

  public struct Summary: Sendable {
    public let tiles: Int
    public let bytes: Int
  }

  /// Why an export failed, in one sentence, said in the reader's language (`text(in:)`).
  public struct ExportError: Error, CustomStringConvertible {
    public let sentence: Sentence
    /// The points cannot be clustered (more than an index holds), rather than the file not written.
    public var isInput = false
    /// The sentence in English.
    public var description: String { sentence.description }
    public func text(in language: InterfaceLanguage) -> String { sentence.text(in: language) }
  }

  /// Builds the index (keeping only the zooms written), then writes each zoom's tiles: the candidates of
  /// `ClusterIndex.tileCandidates`, encoded and gzipped on every core in batches, written in order.
  /// `progress` hears where the export is after each batch, and once more as each zoom is done.
  public static func export(
    _ file: FeatureFile, layer: String, options: ClusterOptions, aggregations: [Aggregation], to path: String,
    progress: (Progress) -> Void = { _ in }
  ) throws(ExportError) -> Summary {
    var options = options
    let zooms = options.minZoom...options.maxZoom
    options.retainedZooms = zooms
    let index: ClusterIndex<[Double]>
    do {
      index = try Aggregation.index(of: file, options: options, aggregations: aggregations)
    } catch {
      // The front ends check the options first: what is left is more points than an index holds.
      throw ExportError(sentence: error.sentence(naming: \.rawValue, options: options), isInput: true)
    }
    let writer = ClusterWriter(index: index, file: file, aggregations: aggregations)
    let output: Archive
    do {
      output =
        path.lowercased().hasSuffix(".pmtiles")
        ? .pmtiles(try PMTilesWriter(path: path)) : .mbtiles(try MBTilesWriter(path: path))
    } catch { throw ExportError(sentence: error.sentence) }
    var tiles = 0
    var bytes = 0
    let lanes = Swift.max(1, ProcessInfo.processInfo.activeProcessorCount)
    let compressors = (0..<lanes).map { _ in CompressionAlgorithm.gzip().compressor }
    do {
      for compressor in compressors { try compressor.startStream() }
    } catch {
      throw ExportError(sentence: Sentence(.tilesGzipCannotStart, String(describing: error)))
    }
    // The work of a zoom is about its clusters and points (each in a tile or a few): the fraction done weighs
    // each zoom by them, known from the index before any tile is.
    let weights = zooms.map { Double(Swift.max(1, index.itemCount(atZoom: Double($0)))) }
    let total = weights.reduce(0, +)
    var before = 0.0
    for (k, z) in zooms.enumerated() {
      let n = 1 << z
      let candidates = index.tileCandidates(zoom: z)
      var start = 0
      while start < candidates.count {
        let batch = Array(candidates[start..<Swift.min(start + 4096, candidates.count)])
        start += batch.count
        let encoded = Lanes(count: lanes, size: batch.count)
        let shared = ReadOnly(writer: writer, index: index, compressors: compressors)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
          let (writer, index, compressors) = (shared.writer, shared.index, shared.compressors)
          var i = lane
          while i < batch.count {
            let key = batch[i]
            if let tile = writer.vectorTile(
              index.tile(zoom: z, x: key / n, y: key % n), layerName: layer)
            {
              encoded.set(i, gzip(tile, with: compressors[lane]))
            }
            i += lanes
          }
        }
        for (i, data) in encoded.results.enumerated() {
          guard let data else { continue }
          guard !data.isEmpty else {
            throw ExportError(sentence: Sentence(.tilesGzipFailed, "\(z)/\(batch[i] / n)/\(batch[i] % n)"))
          }
          do {
            try output.tile(zoom: z, x: batch[i] / n, y: batch[i] % n, data: data)
          } catch { throw ExportError(sentence: error.sentence) }
          tiles += 1
          bytes += data.count
        }
        let within = weights[k] * Double(start) / Double(candidates.count)
        progress(
          Progress(zoom: z, zooms: zooms, tiles: tiles, fraction: (before + within) / total, zoomDone: false))
      }
      before += weights[k]
      progress(Progress(zoom: z, zooms: zooms, tiles: tiles, fraction: before / total, zoomDone: true))
    }
    let pairs = metadata(file, layer: layer, options: options, aggregations: aggregations)
    do {
      switch output {
      case .mbtiles(let output):
        for (name, value) in pairs { try output.metadata(name, value) }
        try output.finish()
      case .pmtiles(let output):
        let (json, layout) = pmtilesMetadata(pairs, zoom: options.minZoom)
        try output.finish(metadata: json, layout: layout) { bytes in
          let compressed = gzip(bytes, with: compressors[0])
          return compressed.isEmpty ? nil : compressed
        }
      }
    } catch {
      throw ExportError(sentence: error.sentence)
    }
    return Summary(tiles: tiles, bytes: bytes)
  }

  /// Where the tiles go: an MBTiles file or a PMTiles archive.
  enum Archive {
    case mbtiles(MBTilesWriter)
    case pmtiles(PMTilesWriter)

    func tile(zoom z: Int, x: Int, y: Int, data: [UInt8]) throws(MBTilesWriter.WriteError) {
      switch self {
      case .mbtiles(let writer): try writer.tile(zoom: z, x: x, y: y, data: data)
      case .pmtiles(let writer): try writer.tile(zoom: z, x: x, y: y, data: data)
      }
    }
  }

  /// The MBTiles metadata as PMTiles keeps it: one JSON object (MBTiles' `json` member's `vector_layers`
  /// spliced in as an array), and the bounds and centre its header holds in numbers.
  static func pmtilesMetadata(_ pairs: [(String, String)], zoom: Int) -> ([UInt8], PMTilesWriter.Layout) {
    var object = JSONWriter()
    var layers = "[]"
    var bounds = [-180.0, -85.051129, 180.0, 85.051129]
    var center = [0.0, 0.0]
    object.raw("{")
    var first = true
    for (name, value) in pairs {
      switch name {
      case "json":
        if let parsed = try? JSONParser.parse(Array(value.utf8)), let list = parsed["vector_layers"] {
          var writer = JSONWriter()
          writer.value(list)
          layers = String(decoding: writer.bytes, as: UTF8.self)
        }
        continue
      case "bounds": bounds = value.split(separator: ",").compactMap { Double($0) }
      case "center": center = value.split(separator: ",").prefix(2).compactMap { Double($0) }
      default: break
      }
      if !first { object.raw(",") }
      first = false
      object.string(name)
      object.raw(":")
      object.string(value)
    }
    object.raw(#","vector_layers":"# + layers + "}")
    if bounds.count != 4 { bounds = [-180, -85.051129, 180, 85.051129] }
    if center.count != 2 { center = [0, 0] }
    let layout = PMTilesWriter.Layout(
      bounds: (bounds[0], bounds[1], bounds[2], bounds[3]), center: (center[0], center[1], zoom))
    return (object.bytes, layout)
  }

  /// What the lanes share: the index and writer only read (a file read back with `pread`), and each lane
  /// its own compressor.
  struct ReadOnly: @unchecked Sendable {
    let writer: ClusterWriter
    let index: ClusterIndex<[Double]>
    let compressors: [NIOCompressor]
  }

  /// One batch's gzipped tiles, by position, filled from several threads: each writes only its own slots of
  /// fixed storage (an array would be a shared value whose copy-on-write check races).
  final class Lanes: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<[UInt8]?>
    private let size: Int
    init(count: Int, size: Int) {
      self.size = size
      slots = .allocate(capacity: size)
      slots.initialize(repeating: nil, count: size)
    }
    deinit {
      slots.deinitialize(count: size)
      slots.deallocate()
    }
    func set(_ i: Int, _ value: [UInt8]) { slots[i] = value }
    var results: [[UInt8]?] { Array(UnsafeBufferPointer(start: slots, count: size)) }
  }

  /// The tile gzipped as one member (empty on failure), reusing the lane's compressor.
  static func gzip(_ bytes: [UInt8], with compressor: NIOCompressor) -> [UInt8] {
    var input = ByteBuffer(bytes: bytes)
    var output = ByteBuffer()
    output.reserveCapacity(compressor.maxSize(from: input))
    do {
      try compressor.streamDeflate(from: &input, to: &output, flush: .finish)
      try compressor.resetStream()
    } catch {
      return []
    }
    return Array(output.readableBytesView)
  }

  /// The spec's metadata: name, format, bounds, center, zooms, and `json` with the layer's fields.
  static func metadata(
    _ file: FeatureFile, layer: String, options: ClusterOptions, aggregations: [Aggregation]
  )
    -> [(String, String)]
  {
    var west = 180.0
    var south = 85.051129
    var east = -180.0
    var north = -85.051129
    for point in file.points {
      guard let point else { continue }
      west = Swift.min(west, point.longitude)
      east = Swift.max(east, point.longitude)
      south = Swift.min(south, Swift.max(point.latitude, -85.051129))
      north = Swift.max(north, Swift.min(point.latitude, 85.051129))
    }
    if west > east { (west, south, east, north) = (-180, -85.051129, 180, 85.051129) }
    var fields = JSONWriter()
    fields.object { object in
      for field in VectorLayer.fields(of: file, aggregations: aggregations) {
        object.string(field.name, field.type)
      }
    }
    let json =
      #"{"vector_layers":[{"id":"\#(layer)","description":"","minzoom":\#(options.minZoom),"#
      + #""maxzoom":\#(options.maxZoom),"fields":"# + String(decoding: fields.bytes, as: UTF8.self) + "}]}"
    return [
      ("name", layer), ("format", "pbf"), ("type", "overlay"), ("version", "1"),
      ("description", "Clusters of \(layer) made by NewsAtlas (supercluster's getTile), gzipped MVT 2.1."),
      ("minzoom", String(options.minZoom)), ("maxzoom", String(options.maxZoom)),
      ("bounds", numbers([west, south, east, north])),
      ("center", numbers([(west + east) / 2, (south + north) / 2]) + ",\(options.minZoom)"),
      ("json", json),
    ]
  }

  /// Numbers as JSON writes them, joined by commas (the metadata's bounds and center).
  static func numbers(_ values: [Double]) -> String {
    var writer = JSONWriter()
    for (i, value) in values.enumerated() {
      if i > 0 { writer.bytes.append(UInt8(ascii: ",")) }
      writer.number(value)
    }
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
