import AtlasAnswers
import GeoFormats
import GeoIndex
import NewsAtlas
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One set of points the service answers for, loaded once: its features, cluster index, nearest tree and the
/// facts `/v1/datasets` reports.
///
/// Read-only once built (a feature file reads its text back with `pread`, which is safe from any thread), so it
/// is shared by every request.
// @unchecked: FeatureFile, ClusterIndex, ClusterWriter and NearestTarget are not Sendable, but nothing here is
// written after init.
public final class Dataset: @unchecked Sendable {
  public let name: String
  public let file: FeatureFile
  public let index: ClusterIndex<[Double]>
  public let writer: ClusterWriter
  public let aggregations: [Aggregation]
  /// Seconds spent building the cluster index (the nearest tree is built on its first use).
  public let buildSeconds: Double
  /// Whether the index extends the one served before (`init(…extending:)`) instead of being built whole.
  let extendedIndex: Bool
  /// west, south, east, north of the points (the world when there are none).
  public let bounds: (west: Double, south: Double, east: Double, north: Double)
  /// FNV-1a (64-bit) over the points' coordinates, the options, the aggregates and the source file's size and
  /// modification time (or its bytes, for the markers), in hexadecimal: equal data, equal hash. A dataset kept
  /// by writes over HTTP hashes its kept identity and version instead (`Kept`): each change is a new version,
  /// so a new hash, without reading every point again.
  public let contentHash: String
  /// The strong validator of every tile and cluster answer: the content hash, quoted.
  public var entityTag: String { "\"\(contentHash)\"" }
  /// How many features have a Point.
  public let pointCount: Int
  /// 1 for a dataset as loaded; each change written over HTTP (`PUT`, `POST …/features`, `DELETE …/features/ID`)
  /// serves a dataset with the next version (counted per name since the server started).
  public let version: Int
  /// Where a dataset written over HTTP is kept, nil for one given at start.
  let kept: Kept?
  /// Whether it was read from (or written to) the datasets folder, not given at start: a kept base without a
  /// version has no `kept`, but is the kept dataset of its name.
  let isKeptHere: Bool
  /// The tile layer's fields and their TileJSON types: the cluster properties, the aggregates, and the input
  /// properties seen in the first thousand features.
  public let fields: [(name: String, type: String)]

  /// About how many bytes the dataset holds, for a cache's budget: its features as allocated (their text in
  /// memory, points, offsets, id hashes and numeric properties: `FeatureFile.bytesInMemory`), the cluster index
  /// as it keeps it (`ClusterIndex.keptBytes`: each zoom's items, parents and clusters once, and its k-d tree
  /// whether built yet or not, so that the trees the first queries at each zoom build are within the budget)
  /// and each cluster's aggregate (an array: 40 bytes and 8 a property). Benchmarks/README.md compares it with the resident memory
  /// a filtered dataset adds once a tile at every zoom has built its trees.
  var approximateBytes: Int {
    let aggregates = index.aggregates.count * (40 + 8 * aggregations.count)
    return file.bytesInMemory + index.keptBytes + aggregates
  }

  /// What a dataset written over HTTP keeps on disk (`DatasetWrites`): its base file's identity and version,
  /// and the bytes of the base and of the journal of changes since.
  struct Kept {
    /// The base file's identity: chosen at random when a base is written whole (a PUT, or any change written as
    /// a whole base), so that a history a crash undid goes on under another one; a compaction's base takes the
    /// served `identity`.
    let nonce: UInt64
    /// What the content hash names with the version: the base's nonce, then each journal record's hash (format
    /// 2) chained in (`DatasetJournal.chained`), so a version reached again by other records after a journal was
    /// cut back (`truncate -s`, as a damage warning suggests) has another content hash and ETag.
    let identity: UInt64
    /// The version the base file holds; the journal's changes go on from it.
    let baseVersion: Int
    let baseBytes: Int
    /// 0 when there is no journal.
    let journalBytes: Int
    /// The format of the journal replayed at start (`DatasetJournal.format` for one this server writes); one of
    /// an older format is not appended to: the next change writes a whole base.
    var journalFormat = DatasetJournal.format
    /// Whether the base's folder was synced after it was renamed into place; when not, its next change writes
    /// a whole base again rather than a journal that goes on from one a crash may undo.
    var baseSynced = true
  }

  /// The nearest tree, built on first use (a write does not pay for it).
  private let nearest = Mutex<Void>(())
  private var nearestTarget: NearestTarget? = nil
  private let isMarkers: Bool

  /// What nearest queries search: the countries for the markers, else the features (the tree built on first
  /// use, once).
  public var target: NearestTarget {
    nearest.withLock { _ in
      if let nearestTarget { return nearestTarget }
      let built: NearestTarget = isMarkers ? .countries : .features(file)
      nearestTarget = built
      return built
    }
  }

  /// A dataset read from `table` as of its change `change` (`serve --postgres`): its content hash names the
  /// table and the change, so replicas that read or followed it to one change answer with one ETag.
  public convenience init(
    name: String, file: FeatureFile, options: ClusterOptions, aggregations: [Aggregation], table: String,
    change: Int64
  ) throws(ClusterError) {
    try self.init(
      name: name, file: file, options: options, aggregations: aggregations, version: 1, kept: nil,
      followed: (table, change))
  }

  /// Builds a dataset; the 54 markers when `file` is nil (named `markers`).
  public convenience init(
    name: String, file: FeatureFile?, options: ClusterOptions, aggregations: [Aggregation], version: Int = 1
  ) throws(ClusterError) {
    try self.init(
      name: name, file: file, options: options, aggregations: aggregations, version: version, kept: nil)
  }

  /// The same dataset (index, version, hash) read from another file of the same features in the same order:
  /// a kept dataset after its journal is compacted into a new base file (`kept`), or a table's after its
  /// scratch file is (nil).
  init(_ dataset: Dataset, readingFrom file: FeatureFile, kept: Kept?) {
    precondition(file.count == dataset.file.count)
    name = dataset.name
    self.file = file
    index = dataset.index
    writer = ClusterWriter(index: index, file: file, aggregations: dataset.aggregations)
    aggregations = dataset.aggregations
    buildSeconds = dataset.buildSeconds
    extendedIndex = dataset.extendedIndex
    bounds = dataset.bounds
    contentHash = dataset.contentHash
    pointCount = dataset.pointCount
    version = dataset.version
    self.kept = kept
    isKeptHere = kept != nil
    fields = dataset.fields
    isMarkers = false
  }

  /// `index` without the features at `removed` and with those `file` holds after the rest, if it can be
  /// changed so (`ClusterIndex.removing`, `appending`); nil when it is to be built whole.
  private static func changed(
    _ index: ClusterIndex<[Double]>, removing removed: [Int], to file: FeatureFile, _ options: ClusterOptions
  ) throws(ClusterError) -> ClusterIndex<[Double]>? {
    let left = index.inputCount - removed.count
    guard index.options == options, left <= file.count else { return nil }
    var changed = index
    if !removed.isEmpty {
      guard let reduced = try index.removing(removed) else { return nil }
      changed = reduced
    }
    guard left < file.count else { return changed }  // nothing added (or nothing changed: the same index)
    return try changed.appending(Array(file.points[left...]))
  }

  /// Builds a dataset, kept by writes over HTTP when `kept` is given (read from the datasets folder when
  /// `keptHere`, by default when `kept` is given).
  ///
  /// `extending` is the dataset served before, when `file` holds its features but those at `removed` (its
  /// input indices, ascending: `DELETE …/features/{id}`), with others after them (`POST …/features`): its index
  /// is changed (`ClusterIndex.removing`, then `appending`: the same index as a whole build) rather than built
  /// again where that saves the build.
  init(
    name: String, file: FeatureFile?, options: ClusterOptions, aggregations: [Aggregation], version: Int,
    kept: Kept?, keptHere: Bool? = nil, extending previous: Dataset? = nil, removed: [Int] = [],
    followed: (table: String, change: Int64)? = nil
  ) throws(ClusterError) {
    self.version = version
    self.kept = kept
    isKeptHere = keptHere ?? (kept != nil)
    let markers = file == nil
    isMarkers = markers
    let file = file ?? FeatureFile.countries(propertyNames: aggregations.map(\.property))
    self.name = name
    self.file = file
    self.aggregations = aggregations
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    if let previous, let changed = try Self.changed(previous.index, removing: removed, to: file, options) {
      index = changed
      extendedIndex = true
    } else {
      index = try Aggregation.index(of: file, options: options, aggregations: aggregations)
      extendedIndex = false
    }
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &end)
    buildSeconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) * 1e-9
    writer = ClusterWriter(index: index, file: file, aggregations: aggregations)
    var west = 180.0
    var south = 90.0
    var east = -180.0
    var north = -90.0
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ value: UInt64) {
      for shift in stride(from: 0, to: 64, by: 8) {
        hash = (hash ^ ((value >> UInt64(shift)) & 0xFF)) &* 0x0000_0100_0000_01B3
      }
    }
    var pointCount = 0
    // A dataset kept here hashes its identity and version, one followed from a table the table and the change
    // it serves (replicas at one change serve the same bytes: the same ETag); any other its points.
    let identified = kept != nil || followed != nil
    for point in file.points {
      guard let point else {
        if !identified { mix(0x7FF8_0000_0000_0001) }
        continue
      }
      pointCount += 1
      west = min(west, point.longitude)
      east = max(east, point.longitude)
      south = min(south, point.latitude)
      north = max(north, point.latitude)
      if !identified {
        mix(point.latitude.bitPattern)
        mix(point.longitude.bitPattern)
      }
    }
    if let kept {
      mix(kept.identity)
      mix(UInt64(version))
    }
    if let followed {
      for byte in followed.table.utf8 { mix(UInt64(byte)) }
      mix(UInt64(bitPattern: followed.change))
    }
    for value in [
      Double(options.minZoom), Double(options.maxZoom), Double(options.minPoints), options.radiusPixels,
      options.extent, Double(options.nodeSize),
    ] {
      mix(value.bitPattern)
    }
    // The properties too (which the coordinates do not cover), through the source's fingerprint, and the
    // aggregates: each property's name and its operation (a restart that maximises what it summed serves other
    // cluster values, so another ETag).
    if !identified { mix(file.sourceFingerprint) }
    for aggregation in aggregations {
      for byte in aggregation.property.utf8 { mix(UInt64(byte)) }
      switch aggregation.operation {
      case .sum: mix(0x5355_4D)
      case .min: mix(0x4D49_4E)
      case .max: mix(0x4D41_58)
      }
    }
    bounds = west <= east ? (west, south, east, north) : (-180, -85.051129, 180, 85.051129)
    contentHash = String(hash, radix: 16)
    self.pointCount = pointCount
    // The fields come from the first thousand features: those of before when a change left those alone.
    if let previous, (removed.min() ?? .max) >= Self.fieldSample,
      previous.file.count - removed.count >= Self.fieldSample,
      previous.aggregations.map(\.property) == aggregations.map(\.property)
    {
      fields = previous.fields
    } else {
      fields = VectorLayer.fields(of: file, aggregations: aggregations)
    }
  }

  /// How many features `VectorLayer.fields(of:aggregations:)` reads.
  static var fieldSample: Int { VectorLayer.fieldSample }
}
