import AtlasMessages
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a PMTiles v3 archive (https://github.com/protomaps/PMTiles, spec/v3/spec.md, read as prose; no code of
/// it is used): one file holding the tiles, clustered in tile-id order (the Hilbert curve of each zoom, zooms in
/// order), the metadata as JSON, and directories that find a tile in at most two reads, so a static host or an
/// object store serves it with HTTP range requests (MapLibre's `pmtiles://` protocol, PyPI's `pmtiles` reader).
///
/// Tiles arrive in any order and are kept in a scratch file beside the archive; `finish` sorts their entries by
/// tile id, writes the header, the root directory (within the first 16 KiB, leaf directories below it when the
/// entries do not fit), the metadata and the tiles, and moves the archive to its path. Like `MBTilesWriter`, a
/// failed or interrupted export leaves nothing under the name asked for.
public final class PMTilesWriter {
  public typealias WriteError = MBTilesWriter.WriteError

  public let path: String
  private let partial: String
  private let scratch: String
  private var scratchFile: FileHandle?
  private var scratchBytes: UInt64 = 0
  /// Each tile: its id, where its bytes are in the scratch file, and how many.
  private var entries: [(id: UInt64, offset: UInt64, length: UInt32)] = []
  private var minZoom = Int.max
  private var maxZoom = Int.min

  /// Creates the scratch file beside `path` (never through a symbolic link).
  public init(path: String) throws(WriteError) {
    self.path = path
    partial = path + ".partial-\(getpid())"
    scratch = path + ".tiles-\(getpid())"
    unlink(partial)
    unlink(scratch)
    // Named for the signal handler (MBTilesWriter.removePartialFileOnSignals) before the files exist.
    MBTilesWriter.partialForSignals = strdup(partial)
    MBTilesWriter.scratchForSignals = strdup(scratch)
    let created = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard created >= 0 else { throw WriteError(.mbtilesCannotCreate, scratch, String(cString: strerror(errno))) }
    scratchFile = FileHandle(fileDescriptor: created, closeOnDealloc: true)
  }

  deinit {
    scratchFile = nil
    unlink(scratch)
    unlink(partial)  // nothing once finished (it was renamed); the partial file after a failure
    MBTilesWriter.partialForSignals = nil  // the strings are left: a handler may be reading them
    MBTilesWriter.scratchForSignals = nil
  }

  /// Keeps tile `z/x/y` (XYZ rows, as `MBTilesWriter.tile` takes them), already compressed as the archive says.
  public func tile(zoom z: Int, x: Int, y: Int, data: [UInt8]) throws(WriteError) {
    guard let scratchFile, data.count < Int(UInt32.max) else {
      throw WriteError(.mbtilesFailed, Sentence(.mbtilesStepTile, "\(z)/\(x)/\(y)"), path, Sentence(.outOfMemory))
    }
    do {
      try scratchFile.write(contentsOf: Data(data))
    } catch {
      throw WriteError(
        .mbtilesFailed, Sentence(.mbtilesStepTile, "\(z)/\(x)/\(y)"), path, Sentence(verbatim: "\(error)"))
    }
    entries.append((Self.tileID(z: z, x: x, y: y), scratchBytes, UInt32(data.count)))
    scratchBytes += UInt64(data.count)
    minZoom = min(minZoom, z)
    maxZoom = max(maxZoom, z)
  }

  /// The archive's geography and kind: bounds (west, south, east, north), a centre and its zoom, the tiles'
  /// compression (PMTiles' codes: 2 for gzip) and type (1 for MVT).
  public struct Layout {
    public var bounds: (west: Double, south: Double, east: Double, north: Double)
    public var center: (longitude: Double, latitude: Double, zoom: Int)
    public var tileCompression: UInt8 = 2
    public var tileType: UInt8 = 1
    public init(
      bounds: (west: Double, south: Double, east: Double, north: Double),
      center: (longitude: Double, latitude: Double, zoom: Int)
    ) {
      self.bounds = bounds
      self.center = center
    }
  }

  /// Writes the archive: `metadata` (a JSON object's text) and the directories compressed by `gzip` (which
  /// returns nil when it fails), then moves it to `path`.
  public func finish(metadata: [UInt8], layout: Layout, gzip: ([UInt8]) -> [UInt8]?) throws(WriteError) {
    scratchFile = nil  // closed: read back below
    entries.sort { $0.id < $1.id }
    // The tiles, in id order, each after the last: the offsets the directories give.
    var placed: [(id: UInt64, offset: UInt64, length: UInt32)] = []
    placed.reserveCapacity(entries.count)
    var offset: UInt64 = 0
    for entry in entries {
      placed.append((entry.id, offset, entry.length))
      offset += UInt64(entry.length)
    }
    let failed = { (step: Message) -> WriteError in
      WriteError(.mbtilesFailed, Sentence(step), self.path, Sentence(.outOfMemory))
    }
    guard let compressedMetadata = gzip(metadata) else { throw failed(.mbtilesStepMetadata) }
    // The root directory within the first 16 KiB (the header's 127 bytes included); else leaves of growing
    // size, the root pointing at them.
    var root: [UInt8] = []
    var leaves: [UInt8] = []
    guard let whole = gzip(Self.directory(placed.map { ($0.id, $0.offset, $0.length, 1) })) else {
      throw failed(.mbtilesStepSetUp)
    }
    if whole.count <= 16_384 - 127 {
      root = whole
    } else {
      var leafSize = 4096
      while true {
        var rootEntries: [(UInt64, UInt64, UInt32, UInt32)] = []
        leaves = []
        var start = 0
        while start < placed.count {
          let slice = placed[start..<min(start + leafSize, placed.count)]
          guard let leaf = gzip(Self.directory(slice.map { ($0.id, $0.offset, $0.length, 1) })) else {
            throw failed(.mbtilesStepSetUp)
          }
          rootEntries.append((slice.first!.id, UInt64(leaves.count), UInt32(leaf.count), 0))
          leaves += leaf
          start += leafSize
        }
        guard let candidate = gzip(Self.directory(rootEntries)) else { throw failed(.mbtilesStepSetUp) }
        if candidate.count <= 16_384 - 127 {
          root = candidate
          break
        }
        leafSize *= 2
      }
    }
    let rootOffset: UInt64 = 127
    let metadataOffset = rootOffset + UInt64(root.count)
    let leavesOffset = metadataOffset + UInt64(compressedMetadata.count)
    let tilesOffset = leavesOffset + UInt64(leaves.count)
    var header: [UInt8] = Array("PMTiles".utf8) + [3]
    for value in [
      rootOffset, UInt64(root.count), metadataOffset, UInt64(compressedMetadata.count), leavesOffset,
      UInt64(leaves.count), tilesOffset, offset, UInt64(placed.count), UInt64(placed.count), UInt64(placed.count),
    ] {
      header += Self.littleEndian(value, bytes: 8)
    }
    // Clustered; directories and metadata gzipped; the tiles' compression and type; the zooms.
    header += [1, 2, layout.tileCompression, layout.tileType]
    header += [UInt8(clamping: placed.isEmpty ? 0 : minZoom), UInt8(clamping: placed.isEmpty ? 0 : maxZoom)]
    for degrees in [layout.bounds.west, layout.bounds.south, layout.bounds.east, layout.bounds.north] {
      header += Self.littleEndian(UInt64(bitPattern: Int64(Int32((degrees * 1e7).rounded()))), bytes: 4)
    }
    header.append(UInt8(clamping: layout.center.zoom))
    for degrees in [layout.center.longitude, layout.center.latitude] {
      header += Self.littleEndian(UInt64(bitPattern: Int64(Int32((degrees * 1e7).rounded()))), bytes: 4)
    }
    precondition(header.count == 127, "the PMTiles v3 header is 127 bytes")
    try write(header + root + compressedMetadata + leaves)
  }

  /// Writes the head of the archive to the partial file, then every tile from the scratch file in id order, and
  /// moves it to `path`.
  private func write(_ head: [UInt8]) throws(WriteError) {
    let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw WriteError(.mbtilesCannotCreate, partial, String(cString: strerror(errno))) }
    let source = open(scratch, O_RDONLY | O_CLOEXEC)
    defer {
      close(fd)
      if source >= 0 { close(source) }
    }
    func fail(_ code: Int32) -> WriteError {
      WriteError(
        .mbtilesFailed, Sentence(.mbtilesStepSetUp), path, Sentence(verbatim: String(cString: strerror(code))))
    }
    guard source >= 0 else { throw fail(errno) }
    var output: [UInt8] = head
    output.reserveCapacity(1 << 20)
    func flush() -> Bool {
      let wrote = output.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      guard wrote == output.count else { return false }
      output.removeAll(keepingCapacity: true)
      return true
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    for entry in entries {
      if buffer.count < Int(entry.length) { buffer = [UInt8](repeating: 0, count: Int(entry.length)) }
      let got = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, Int(entry.length), off_t(entry.offset)) }
      guard got == Int(entry.length) else { throw fail(got < 0 ? errno : EIO) }
      output += buffer[..<Int(entry.length)]
      if output.count >= 1 << 20, !flush() { throw fail(errno) }
    }
    guard flush() else { throw fail(errno) }
    try MBTilesWriter.checkDestination(path, input: nil)
    guard rename(partial, path) == 0 else {
      throw WriteError(.mbtilesCannotMove, path, String(cString: strerror(errno)))
    }
  }

  /// A directory's bytes before compression: the count, then the ids as deltas, the run lengths, the lengths and
  /// the offsets (0 for one that follows the entry before it, else offset + 1), each a varint.
  static func directory(_ entries: [(id: UInt64, offset: UInt64, length: UInt32, runLength: UInt32)]) -> [UInt8] {
    var bytes: [UInt8] = []
    varint(UInt64(entries.count), into: &bytes)
    var last: UInt64 = 0
    for entry in entries {
      varint(entry.id - last, into: &bytes)
      last = entry.id
    }
    for entry in entries { varint(UInt64(entry.runLength), into: &bytes) }
    for entry in entries { varint(UInt64(entry.length), into: &bytes) }
    for (i, entry) in entries.enumerated() {
      if i > 0, entry.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) {
        varint(0, into: &bytes)
      } else {
        varint(entry.offset + 1, into: &bytes)
      }
    }
    return bytes
  }

  static func varint(_ value: UInt64, into bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  static func littleEndian(_ value: UInt64, bytes count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }

  /// A tile's id: the tiles of the zooms before it, then its place on its zoom's Hilbert curve.
  public static func tileID(z: Int, x: Int, y: Int) -> UInt64 {
    var id: UInt64 = 0
    for zoom in 0..<z { id += UInt64(1) << UInt64(2 * zoom) }
    let n = UInt64(1) << UInt64(z)
    var (tx, ty) = (UInt64(x), UInt64(y))
    var d: UInt64 = 0
    var s = n / 2
    while s > 0 {
      let rx: UInt64 = (tx & s) > 0 ? 1 : 0
      let ry: UInt64 = (ty & s) > 0 ? 1 : 0
      d += s * s * ((3 * rx) ^ ry)
      // Rotate the quadrant so the curve continues (Hilbert's curve, as the spec's reference computes it).
      if ry == 0 {
        if rx == 1 {
          tx = n - 1 - tx
          ty = n - 1 - ty
        }
        (tx, ty) = (ty, tx)
      }
      s /= 2
    }
    return id + d
  }
}
