import CBoundaries
import GeoIndex
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Which country's borders hold a point: every country's polygons with a uniform grid over them.
///
/// The grid (0.25° cells) records which country holds each cell's centre, computed from the full-resolution
/// polygons when the data was made. A point in a cell no border crosses is answered from the grid alone. In a
/// cell that borders cross, the segment from the cell's centre to the point is tested against the borders in
/// that cell: each crossing of a country's border flips whether the point is in that country (the even–odd
/// rule, so holes, enclaves such as Lesotho in South Africa, and islands all work). Polygons are split at the
/// antimeridian in the data, as Natural Earth draws them.
///
/// A point outside every polygon but within `territorialSeaKilometers` (12 nautical miles) of a country's coast
/// is in that country's territorial sea.
///
/// - Complexity: building is O(n) in border points; a lookup is O(1) away from borders and O(k) near them, for
///   the k border segments in its cell.
public struct CountryBoundaries: Sendable {
  /// Where a point is.
  public enum Location: Equatable, Sendable {
    /// Inside the country's borders: its index in `codes`.
    case inside(Int)
    /// Outside every border but within 12 nautical miles of this country's coast.
    case territorialSea(Int, distanceKilometers: Double)
    /// In no country and no territorial sea.
    case nowhere

    public var countryIndex: Int? {
      switch self {
      case .inside(let i), .territorialSea(let i, _): return i
      case .nowhere: return nil
      }
    }
  }

  /// 12 nautical miles.
  public static let territorialSeaKilometers = 22.224

  /// ISO 3166-1 alpha-2 codes, lower case, and English and French names (Natural Earth's NAME and NAME_FR), by
  /// country index.
  public let codes: [String]
  public let names: [String]
  public let namesFrench: [String]

  /// The data's sections, read where they are (see `init(staticData:)`). Border points, interleaved
  /// longitude and latitude in 1e-7 degrees.
  let coordinates: LittleEndianArray<Int32>
  /// Each ring: its country index, first point and point count; edges are (i, i + 1) within a ring.
  let ringTable: [(country: Int, start: Int, count: Int)]
  let columns: Int
  let rows: Int
  let cellCountry: LittleEndianArray<UInt16>
  /// The cell index, sparse: where each row's border cells (cells that edges overlap) start in
  /// `borderColumns` and `runStarts`, their columns (ascending in a row), where each one's runs start in
  /// `runs`, and the runs: consecutive edges of one ring (first edge's start point, edge count, country).
  let rowStarts: LittleEndianArray<UInt32>
  let borderColumns: LittleEndianArray<UInt16>
  let runStarts: LittleEndianArray<UInt32>
  let runs: LittleEndianArray<UInt64>
  /// The copy `init(data:)` reads from; nil when the data is static.
  private let storage: Storage?
  /// The cells `locate` answers from the grid alone (see `QuietCells`), worked out from the cell index when
  /// `locate` has been asked often enough to repay the work (see `QuietCellsOnce`).
  let quiet: QuietCellsOnce

  /// The borders for drawing: each ring's country index and points (longitude, latitude in degrees),
  /// simplified by Douglas–Peucker (Douglas & Peucker 1973) so that no dropped point lies farther than
  /// `toleranceDegrees` from the line that replaces it; rings that shrink below a triangle are left out.
  ///
  /// - Complexity: O(n log n) on typical rings, O(n²) at worst, for n border points.
  public func rings(toleranceDegrees: Double) -> [(
    country: Int, points: [(longitude: Double, latitude: Double)]
  )] {
    var result: [(country: Int, points: [(longitude: Double, latitude: Double)])] = []
    let tolerance = toleranceDegrees * 1e7  // in stored units
    for ring in ringTable {
      var keep = [Bool](repeating: false, count: ring.count)
      keep[0] = true
      keep[ring.count - 1] = true
      var stack = [(0, ring.count - 1)]
      while let (first, last) = stack.popLast() {
        guard last > first + 1 else { continue }
        let ax = Double(coordinates[2 * (ring.start + first)])
        let ay = Double(coordinates[2 * (ring.start + first) + 1])
        let bx = Double(coordinates[2 * (ring.start + last)])
        let by = Double(coordinates[2 * (ring.start + last) + 1])
        let dx = bx - ax
        let dy = by - ay
        let length = (dx * dx + dy * dy).squareRoot()
        var farthest = -1.0
        var index = first
        for i in (first + 1)..<last {
          let px = Double(coordinates[2 * (ring.start + i)]) - ax
          let py = Double(coordinates[2 * (ring.start + i) + 1]) - ay
          // Distance to the chord (to the first point when the chord is a point: a closed ring's ends).
          let distance = length > 0 ? abs(px * dy - py * dx) / length : (px * px + py * py).squareRoot()
          if distance > farthest {
            farthest = distance
            index = i
          }
        }
        if farthest > tolerance {
          keep[index] = true
          stack.append((first, index))
          stack.append((index, last))
        }
      }
      var points: [(longitude: Double, latitude: Double)] = []
      for i in 0..<ring.count where keep[i] {
        points.append(
          (
            Double(coordinates[2 * (ring.start + i)]) / 1e7,
            Double(coordinates[2 * (ring.start + i) + 1]) / 1e7
          ))
      }
      if points.count >= 4 { result.append((ring.country, points)) }
    }
    return result
  }

  /// Why border data cannot be read.
  public struct FormatError: Error, CustomStringConvertible {
    public let description: String
  }

  /// Reads the layout that `scripts/generate_boundaries.py` writes from a copy of `data`, checked whole.
  ///
  /// - Complexity: O(n) in the data's size.
  public init(data: UnsafeRawBufferPointer) throws(FormatError) {
    let storage = Storage(copying: data)
    try self.init(bytes: storage.bytes, storage: storage)
    try checkCellIndex()
  }

  /// Reads the layout that `scripts/generate_boundaries.py` writes where it is, without copying it: the bytes
  /// must stay valid and unchanged for the life of the process (data compiled into the binary). Only the
  /// header and the rings are read now; a lookup reads the few pages it needs, so a process that resolves
  /// one place no longer works out the cell index first (27 ms of each `newsatlas resolve` did). A lookup
  /// traps on an edge that points outside the data.
  ///
  /// - Complexity: O(r) in rings.
  public init(staticData data: UnsafeRawBufferPointer) throws(FormatError) {
    try self.init(bytes: data, storage: nil)
  }

  private init(bytes data: UnsafeRawBufferPointer, storage: Storage?) throws(FormatError) {
    self.storage = storage
    var reader = LittleEndianReader(data)
    guard data.count > 40, reader.bytes(4) == Array("NABD".utf8), reader.u32() == 3 else {
      throw FormatError(description: "The border data is not NewsAtlas's version 3 (bad magic or version).")
    }
    let countryCount = Int(reader.u32())
    let ringCount = Int(reader.u32())
    let pointCount = Int(reader.u32())
    columns = Int(reader.u32())
    rows = Int(reader.u32())
    let namesLength = Int(reader.u32())
    let borderCellCount = Int(reader.u32())
    let runCount = Int(reader.u32())
    func padded(_ length: Int) -> Int { (length + 3) & ~3 }
    let cellCount = columns * rows
    let expected =
      padded(40 + 2 * countryCount + namesLength) + 12 * ringCount + 8 * pointCount + padded(2 * cellCount)
      + 4 * (rows + 1) + padded(2 * borderCellCount) + 4 * (borderCellCount + 1) + 8 * runCount
    guard countryCount < Int(UInt16.max), columns <= Int(UInt16.max), data.count == expected else {
      throw FormatError(
        description: "The border data is \(data.count) bytes where its header says \(expected).")
    }
    let codeBytes = reader.bytes(2 * countryCount)
    codes = (0..<countryCount).map { String(decoding: codeBytes[(2 * $0)..<(2 * $0 + 2)], as: UTF8.self) }
    let named = String(decoding: reader.bytes(namesLength), as: UTF8.self).split(separator: "\n")
      .map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
    names = named.map { $0.first ?? "" }
    namesFrench = named.map { $0.last ?? "" }
    reader.offset = padded(reader.offset)

    var ringEnds: [(country: Int, start: Int, count: Int)] = []
    ringEnds.reserveCapacity(ringCount)
    for _ in 0..<ringCount {
      let country = Int(reader.u16())
      _ = reader.u16()
      let first = Int(reader.u32())
      let count = Int(reader.u32())
      guard first + count <= pointCount, count >= 2, country < countryCount else {
        throw FormatError(description: "A ring of the border data points outside its points or countries.")
      }
      ringEnds.append((country, first, count))
    }
    ringTable = ringEnds
    coordinates = reader.array(count: 2 * pointCount)
    cellCountry = reader.array(count: cellCount)
    reader.offset = padded(reader.offset)
    rowStarts = reader.array(count: rows + 1)
    borderColumns = reader.array(count: borderCellCount)
    reader.offset = padded(reader.offset)
    runStarts = reader.array(count: borderCellCount + 1)
    runs = reader.array(count: runCount)
    guard rowStarts[0] == 0, Int(rowStarts[rows]) == borderCellCount, runStarts[0] == 0,
      Int(runStarts[borderCellCount]) == runCount
    else {
      throw FormatError(description: "The border data's cell index does not cover its cells and runs.")
    }
    quiet = QuietCellsOnce(cellCount: cellCount) {
      [columns, rows, rowStarts, borderColumns, cellCountry, runs, coordinates] in
      QuietGrid(
        quiet: QuietCells(columns: columns, rows: rows, rowStarts: rowStarts, borderColumns: borderColumns),
        cellCountry: cellCountry, runs: runs, coordinates: coordinates, countryCount: countryCount)
    }
  }

  /// Checks the whole cell index and grid against the data's own counts.
  private func checkCellIndex() throws(FormatError) {
    for row in 0..<rows {
      guard rowStarts[row] <= rowStarts[row + 1] else {
        throw FormatError(description: "The border data's row \(row) starts after the next one.")
      }
      var previous = -1
      for b in Int(rowStarts[row])..<Int(rowStarts[row + 1]) {
        guard Int(borderColumns[b]) > previous, Int(borderColumns[b]) < columns else {
          throw FormatError(description: "The border data's row \(row) has its cells out of order.")
        }
        previous = Int(borderColumns[b])
      }
    }
    for b in 0..<borderColumns.count where runStarts[b] > runStarts[b + 1] {
      throw FormatError(description: "The border data's cell \(b) has its runs out of order.")
    }
    for k in 0..<runs.count where run(k) == nil {
      throw FormatError(description: "The border data's run \(k) is not a stretch of one ring's edges.")
    }
    for cell in 0..<(columns * rows) where Int(cellCountry[cell]) > codes.count {
      throw FormatError(description: "The border data's grid cell \(cell) names no country.")
    }
  }

  /// The `k`-th run: its edges' start points and their country; nil when it names points past the last edge
  /// or a country the data does not have (a run is not checked to lie in one ring: the country is its own).
  @inline(__always)
  private func run(_ k: Int) -> (edges: Range<Int>, country: Int)? {
    Self.run(runs[k], pointCount: coordinates.count / 2, countryCount: codes.count)
  }

  /// A stored run's edges and country, or nil when it names points or a country that are not there.
  @inline(__always)
  static func run(_ run: UInt64, pointCount: Int, countryCount: Int) -> (edges: Range<Int>, country: Int)? {
    let first = Int(truncatingIfNeeded: run & 0xFFFF_FFFF)
    let end = first + Int(truncatingIfNeeded: (run >> 32) & 0xFFFF)
    let country = Int(truncatingIfNeeded: run >> 48)
    guard end < pointCount, country < countryCount else { return nil }
    return (first..<end, country)
  }

  /// Calls `body` with each edge (its start point) that overlaps `cell`, in point order, and its country.
  ///
  /// - Complexity: O(log b + k) for the b border cells of the cell's row and the k edges.
  @inline(__always)
  func forEachEdge(row: Int, column: Int, _ body: (_ start: Int, _ country: Int) -> Void) {
    var low = Int(rowStarts[row])
    var high = Int(rowStarts[row + 1])
    precondition(low <= high && high <= borderColumns.count, "The border data's cell index is out of order.")
    while low < high {
      let middle = (low + high) >> 1
      if Int(borderColumns[middle]) < column { low = middle + 1 } else { high = middle }
    }
    guard low < Int(rowStarts[row + 1]), Int(borderColumns[low]) == column else { return }
    let first = Int(runStarts[low])
    let end = Int(runStarts[low + 1])
    precondition(first <= end && end <= runs.count, "The border data's cell index is out of order.")
    for k in first..<end {
      guard let (edges, country) = run(k) else {
        preconditionFailure("The border data's cell index names an edge that is not a ring's.")
      }
      for i in edges { body(i, country) }
    }
  }

  /// The country whose borders (or territorial sea) hold `point`.
  ///
  /// - Complexity: O(1) in a cell no border crosses, inland or farther than the territorial sea from every
  ///   coast (most of the earth); otherwise O(k) for the k border edges in and around its cell.
  public func locate(_ point: GeoPoint) -> Location {
    let quiet = quiet.cells()
    if let quiet, let found = Self.gridAnswer(quiet.byte(cellIndex(point))) { return found }
    return walkAndSearch(point, quiet: quiet)
  }

  /// `locate` for many points, in order: `body(i, location)` for each `i` in `range`, with `point(i)` its
  /// position. The same answers as `locate`, bit for bit; faster for scattered points, whose grid bytes are
  /// fetched a block ahead.
  ///
  /// - Complexity: as `locate` for each point.
  @inline(__always)
  public func locateEach(
    _ range: Range<Int>, _ point: (Int) -> GeoPoint, _ body: (Int, Location) -> Void
  ) {
    // A batch of `threshold` points or more repays the grid's build at once.
    guard let quiet = range.count >= QuietCellsOnce.threshold ? quiet.built() : quiet.cells() else {
      for i in range { body(i, locate(point(i))) }
      return
    }
    // Software pipelining: the cells of the next block are found and their bytes prefetched while this
    // block is answered, so the reads of scattered points overlap instead of each waiting on memory in turn.
    let block = 16
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * block) { cells in
      func prefetch(_ start: Int, into half: Int) {
        for i in start..<Swift.min(start + block, range.upperBound) {
          let cell = cellIndex(point(i))
          cells[half &+ i &- start] = cell
          quiet.prefetch(cell)
        }
      }
      var start = range.lowerBound
      var half = 0
      prefetch(start, into: half)
      while start < range.upperBound {
        let end = Swift.min(start + block, range.upperBound)
        prefetch(end, into: block - half)
        for i in start..<end {
          if let found = Self.gridAnswer(quiet.byte(cells[half &+ i &- start])) {
            body(i, found)
          } else {
            body(i, walkAndSearch(point(i), quiet: quiet))
          }
        }
        start = end
        half = block - half
      }
    }
  }

  /// What a cell's `QuietGrid` byte answers for every point of it, or nil when the point needs the walk.
  @inline(__always)
  static func gridAnswer(_ byte: UInt8) -> Location? {
    if byte < QuietGrid.atSea { return .inside(Int(byte)) }
    return byte == QuietGrid.atSea ? .nowhere : nil
  }

  /// `locate` past the grid: the walk from the cell's centre, then the territorial sea's search.
  func walkAndSearch(_ point: GeoPoint, quiet: QuietBits?) -> Location {
    if let inside = country(containing: point) { return .inside(inside) }
    if let (country, distance) = nearestCoast(
      to: point, withinKilometers: Self.territorialSeaKilometers, boxes: quiet)
    {
      return .territorialSea(country, distanceKilometers: distance)
    }
    return .nowhere
  }

  /// The country whose polygons contain `point`, by the even–odd rule; nil at sea or in no country.
  public func country(containing point: GeoPoint) -> Int? {
    let (column, row) = cell(point)
    let cell = row * columns + column
    let base = Int(cellCountry[cell]) - 1
    precondition(base < codes.count, "The border data's grid names a country it does not have.")
    // Walk from the cell's centre (whose country is known) to the point, flipping a country at each crossing.
    let px = -180 + (Double(column) + 0.5) * (360 / Double(columns))
    let py = -90 + (Double(row) + 0.5) * (180 / Double(rows))
    let qx = point.longitude
    let qy = point.latitude
    // The countries crossed, each with whether it was crossed an odd number of times: the first eight in
    // place (a walk crosses one or two), any more in a dictionary (which then allocates).
    var crossed = InlineArray<8, Int>(repeating: 0)
    var odd = InlineArray<8, Bool>(repeating: false)
    var distinct = 0
    var more: [Int: Bool] = [:]
    forEachEdge(row: row, column: column) { i, country in
      let ax = Double(coordinates[2 * i]) * 1e-7
      let ay = Double(coordinates[2 * i + 1]) * 1e-7
      let bx = Double(coordinates[2 * i + 2]) * 1e-7
      let by = Double(coordinates[2 * i + 3]) * 1e-7
      let d1 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
      let d2 = (qx - px) * (by - py) - (qy - py) * (bx - px)
      if (d1 > 0) == (d2 > 0) { return }
      let d3 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
      let d4 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
      if (d3 > 0) == (d4 > 0) { return }
      var j = 0
      while j < distinct && crossed[j] != country { j += 1 }
      if j < distinct {
        odd[j].toggle()
      } else if distinct < 8 {
        crossed[distinct] = country
        odd[distinct] = true
        distinct += 1
      } else {
        more[country, default: false].toggle()
      }
    }
    var baseIsOdd = !more.isEmpty && more[base] == true
    for j in 0..<distinct where crossed[j] == base { baseIsOdd = odd[j] }
    if base >= 0 && !baseIsOdd { return base }
    // Entered another country (or left the base one for a hole or the sea): the smallest index that is in.
    var smallest = more.isEmpty ? nil : more.filter { $0.value && $0.key != base }.keys.min()
    for j in 0..<distinct where odd[j] && crossed[j] != base && crossed[j] < (smallest ?? .max) {
      smallest = crossed[j]
    }
    return smallest
  }

  /// The country with the nearest border segment within `limit` kilometres, and the distance.
  public func nearestCoast(to point: GeoPoint, withinKilometers limit: Double) -> (Int, Double)? {
    nearestCoast(to: point, withinKilometers: limit, boxes: quiet.cells())
  }

  /// `nearestCoast(to:withinKilometers:)`, passing over each run of edges whose bounding box is farther than
  /// `limit` or than the nearest edge found so far (when `boxes` are built). Edges are still measured in the
  /// same order and the first edge at the least distance wins, so the answer is the same, ties included: a
  /// run passed over holds only edges that could not have replaced the one found so far.
  func nearestCoast(to point: GeoPoint, withinKilometers limit: Double, boxes: QuietBits?) -> (Int, Double)? {
    let kilometresPerDegree = GreatCircle.earthRadiusKilometers * Double.pi / 180
    let latitudeMargin = limit / kilometresPerDegree
    let cosLatitude = cos(point.latitude * Double.pi / 180)
    let longitudeMargin = cosLatitude > 0.01 ? latitudeMargin / cosLatitude : 360
    let columnWidth = 360 / Double(columns)
    let rowHeight = 180 / Double(rows)
    let r0 = max(0, Int(((point.latitude - latitudeMargin + 90) / rowHeight).rounded(.down)))
    let r1 = min(rows - 1, Int(((point.latitude + latitudeMargin + 90) / rowHeight).rounded(.down)))
    let span = min(columns, Int((longitudeMargin / columnWidth).rounded(.up)) + 1)
    let (column, _) = cell(point)
    // The columns column - span ... column + span, each once, in that order, wrapping at the antimeridian:
    // one or two ascending ranges.
    let start = ((column - span) % columns + columns) % columns
    let end = start + min(2 * span + 1, columns)
    var best: (country: Int, distance: Double)? = nil
    for r in r0...r1 {
      for part in 0..<2 {
        let range = part == 0 ? start..<min(end, columns) : 0..<max(0, end - columns)
        if range.isEmpty { continue }
        forEachRun(row: r, columns: range) { k, edges, country in
          if let boxes {
            // 1 mm of slack: far beyond the rounding of either distance, so a run is passed over only when
            // every edge of it is measured farther than the reach.
            let reach = best?.distance ?? limit
            let bound = Self.kilometres(
              from: point, toBox: boxes.box(k), cosLatitude: cosLatitude,
              kilometresPerDegree: kilometresPerDegree)
            if bound > reach + 1e-6 { return }
          }
          for i in edges {
            let distance = Self.kilometres(
              from: point,
              toSegment: (Double(coordinates[2 * i]) * 1e-7, Double(coordinates[2 * i + 1]) * 1e-7),
              (Double(coordinates[2 * i + 2]) * 1e-7, Double(coordinates[2 * i + 3]) * 1e-7),
              cosLatitude: cosLatitude, kilometresPerDegree: kilometresPerDegree)
            if distance <= limit && (best == nil || distance < best!.distance) {
              best = (country, distance)
            }
          }
        }
      }
    }
    return best.map { ($0.country, $0.distance) }
  }

  /// Calls `body` with each run (its offset, edges and country) of each border cell of `row` in `columns`,
  /// cell by cell in column order, each cell's runs in stored order (each run's edges in point order).
  ///
  /// - Complexity: O(log b + c + r) for the b border cells of the row, the c of them in `columns` and their r
  ///   runs (one search for the row, where a search a cell cost the territorial sea's scan most of its time).
  @inline(__always)
  func forEachRun(
    row: Int, columns: Range<Int>, _ body: (_ run: Int, _ edges: Range<Int>, _ country: Int) -> Void
  ) {
    var low = Int(rowStarts[row])
    var high = Int(rowStarts[row + 1])
    let rowEnd = high
    precondition(low <= high && high <= borderColumns.count, "The border data's cell index is out of order.")
    while low < high {
      let middle = (low + high) >> 1
      if Int(borderColumns[middle]) < columns.lowerBound { low = middle + 1 } else { high = middle }
    }
    var b = low
    while b < rowEnd, Int(borderColumns[b]) < columns.upperBound {
      let first = Int(runStarts[b])
      let end = Int(runStarts[b + 1])
      precondition(first <= end && end <= runs.count, "The border data's cell index is out of order.")
      for k in first..<end {
        guard let (edges, country) = run(k) else {
          preconditionFailure("The border data's cell index names an edge that is not a ring's.")
        }
        body(k, edges, country)
      }
      b += 1
    }
  }

  /// A lower bound of `kilometres(from:toSegment:…)` for every segment whose ends lie in `box` (west, east,
  /// south, north in 1e-7 degrees), in the same projection: the distance to the box, which each coordinate's
  /// map to the projection keeps in order (longitudes wrap at the antimeridian, so a box whose longitudes
  /// wrap differently, or that spans half the earth, is taken as reaching the point's meridian).
  static func kilometres(
    from point: GeoPoint, toBox box: SIMD4<Int32>, cosLatitude: Double, kilometresPerDegree: Double
  ) -> Double {
    let south = Double(box[2]) * 1e-7
    let north = Double(box[3]) * 1e-7
    let dy =
      point.latitude < south ? south - point.latitude : point.latitude > north ? point.latitude - north : 0
    let west = Double(box[0]) * 1e-7 - point.longitude
    let east = Double(box[1]) * 1e-7 - point.longitude
    var dx = 0.0
    if east - west < 180 {
      func wrapped(_ d: Double) -> Double { d > 180 ? d - 360 : d < -180 ? d + 360 : d }
      let (w, e) = (wrapped(west), wrapped(east))
      if e >= w { dx = w > 0 ? w : e < 0 ? -e : 0 }
    }
    let x = dx * cosLatitude * kilometresPerDegree
    let y = dy * kilometresPerDegree
    return (x * x + y * y).squareRoot()
  }

  /// Distance to a segment in a local equirectangular projection about the point: within a few tens of
  /// kilometres its error is far below the 12-mile rule's own precision.
  static func kilometres(
    from point: GeoPoint, toSegment a: (Double, Double), _ b: (Double, Double), cosLatitude: Double,
    kilometresPerDegree: Double
  ) -> Double {
    func x(_ longitude: Double) -> Double {
      var d = longitude - point.longitude
      if d > 180 { d -= 360 } else if d < -180 { d += 360 }
      return d * cosLatitude * kilometresPerDegree
    }
    let ax = x(a.0)
    let ay = (a.1 - point.latitude) * kilometresPerDegree
    let bx = x(b.0)
    let by = (b.1 - point.latitude) * kilometresPerDegree
    let dx = bx - ax
    let dy = by - ay
    let length2 = dx * dx + dy * dy
    let t = length2 > 0 ? max(0, min(1, -(ax * dx + ay * dy) / length2)) : 0
    let cx = ax + t * dx
    let cy = ay + t * dy
    return (cx * cx + cy * cy).squareRoot()
  }

  /// The grid cell holding a point: (column, row).
  @inline(__always)
  func cell(_ point: GeoPoint) -> (Int, Int) {
    // Truncation, not floor: they differ only below 0, which the clamp takes to 0 either way.
    let column = Int((point.longitude + 180) / (360 / Double(columns)))
    let row = Int((point.latitude + 90) / (180 / Double(rows)))
    return (max(0, min(columns - 1, column)), max(0, min(rows - 1, row)))
  }

  /// `cell(point)` as an offset in the grid.
  @inline(__always)
  func cellIndex(_ point: GeoPoint) -> Int {
    let (column, row) = cell(point)
    return row &* columns &+ column
  }
}

/// Two bits a grid cell that let `CountryBoundaries.locate` answer from the grid alone: whether no border edge
/// overlaps the cell (then its centre's country, from the grid, holds every point of it: the walk from the
/// centre crosses nothing), and whether, besides, no edge overlaps any cell that `nearestCoast` searches from
/// any point of the cell (then no point of it is in a territorial sea).
///
/// The search's reach is bounded for a whole row: `nearestCoast` widens a point's latitude by the territorial
/// sea in degrees (under one row here), and its longitude by that over `cos φ`, largest at the row's edge
/// farthest from the equator (and the whole row where that cosine is 0.01 or less); one more row and column
/// each way absorb the rounding of a point's cell and of the cosine. So a cell marked far from every coast is
/// one where the search would find no edge at all: the answers are the walk's and the search's, bit for bit.
///
/// - Complexity: O(cells / 64 + b × r) to build, for the b border cells and the r rows of a search's reach
///   (about a millisecond here); 2 bits a cell (260 KB for 1440 × 720).
struct QuietCells: Sendable {
  let noBorder: [UInt64]
  let noCoastNear: [UInt64]

  init(
    columns: Int, rows: Int, rowStarts: LittleEndianArray<UInt32>, borderColumns: LittleEndianArray<UInt16>
  ) {
    let words = (columns * rows + 63) / 64
    var noBorder = [UInt64](repeating: ~0, count: words)
    var noCoastNear = [UInt64](repeating: ~0, count: words)
    func clear(_ bits: inout [UInt64], _ cell: Int) { bits[cell >> 6] &= ~(1 << UInt64(cell & 63)) }
    for row in 0..<rows {
      for b in Int(rowStarts[row])..<Int(rowStarts[row + 1]) {
        clear(&noBorder, row * columns + Int(borderColumns[b]))
      }
    }
    // nearestCoast's reach, as it computes it, bounded over a row.
    let limit = CountryBoundaries.territorialSeaKilometers
    let latitudeMargin = limit / (GreatCircle.earthRadiusKilometers * Double.pi / 180)
    let columnWidth = 360 / Double(columns)
    let rowHeight = 180 / Double(rows)
    let rowReach = Int((latitudeMargin / rowHeight).rounded(.up)) + 1
    // Per row: +1 where a border cell's reach starts, -1 past where it ends (columns wrap), then summed.
    var starts = [Int32](repeating: 0, count: columns + 1)
    for row in 0..<rows {
      let farthest = Swift.max(abs(-90 + Double(row) * rowHeight), abs(-90 + Double(row + 1) * rowHeight))
      let cosine = cos(Swift.min(90, farthest + 1e-9) * Double.pi / 180)
      let span =
        cosine > 0.010_000_1
        ? Swift.min(columns, Int((latitudeMargin / cosine / columnWidth).rounded(.up)) + 2) : columns
      for k in starts.indices { starts[k] = 0 }
      for near in Swift.max(0, row - rowReach)...Swift.min(rows - 1, row + rowReach) {
        for b in Int(rowStarts[near])..<Int(rowStarts[near + 1]) {
          // Cells within `span` of this border cell's column see it: columns c - span ... c + span.
          let column = Int(borderColumns[b])
          if 2 * span + 1 >= columns {
            starts[0] += 1
            starts[columns] -= 1
            continue
          }
          let first = column - span
          let last = column + span
          if first < 0 {
            starts[first + columns] += 1
            starts[columns] -= 1
            starts[0] += 1
            starts[last + 1] -= 1
          } else if last >= columns {
            starts[first] += 1
            starts[columns] -= 1
            starts[0] += 1
            starts[last - columns + 1] -= 1
          } else {
            starts[first] += 1
            starts[last + 1] -= 1
          }
        }
      }
      var seen: Int32 = 0
      for column in 0..<columns {
        seen += starts[column]
        if seen != 0 { clear(&noCoastNear, row * columns + column) }
      }
    }
    self.noBorder = noBorder
    self.noCoastNear = noCoastNear
  }
}

/// What `locate` reads for most points, made from `QuietCells`, the grid and the cell index: one byte a cell
/// (1 MB for 1440 × 720, half the grid's two bytes and in one read where the grid and the two bits were two,
/// each a likely cache miss for scattered points), and each run's bounding box, for the territorial sea's search
/// to pass over runs that cannot hold an edge near enough.
///
/// A cell's byte is its country's index (below `QuietGrid.atSea`) when no border edge overlaps it and its
/// centre is in that country, `atSea` when no edge overlaps it, its centre is in no country and no edge lies
/// within the territorial sea's search from any point of it, and `walk` otherwise (or for a country index too
/// large for a byte): the answers `locate` gave from the grid and the two bits, bit for bit.
struct QuietGrid: Sendable {
  /// The byte of a cell at sea far from every coast.
  static let atSea: UInt8 = 254
  /// The byte of a cell whose points need the walk (and maybe the search).
  static let walk: UInt8 = 255

  let bytes: [UInt8]
  /// Per run: west, east, south, north of its edges' points, in 1e-7 degrees.
  let runBoxes: [Int32]

  init(
    quiet: QuietCells, cellCountry: LittleEndianArray<UInt16>, runs: LittleEndianArray<UInt64>,
    coordinates: LittleEndianArray<Int32>, countryCount: Int
  ) {
    let cells = cellCountry.count
    var bytes = [UInt8](repeating: Self.walk, count: cells)
    for cell in 0..<cells where quiet.noBorder[cell >> 6] & (1 << UInt64(cell & 63)) != 0 {
      let base = Int(cellCountry[cell]) - 1
      if base >= 0 {
        // A country past the data's own (read in place, unchecked) is left to the walk, which traps on it.
        if base < Swift.min(Int(Self.atSea), countryCount) { bytes[cell] = UInt8(base) }
      } else if quiet.noCoastNear[cell >> 6] & (1 << UInt64(cell & 63)) != 0 {
        bytes[cell] = Self.atSea
      }
    }
    var boxes = [Int32](repeating: 0, count: 4 * runs.count)
    for k in 0..<runs.count {
      // Runs were checked (or are trapped on) in `forEachEdge`; an unreadable one gets the whole earth.
      guard
        let (edges, _) = CountryBoundaries.run(
          runs[k], pointCount: coordinates.count / 2, countryCount: countryCount)
      else {
        (boxes[4 * k], boxes[4 * k + 1], boxes[4 * k + 2], boxes[4 * k + 3]) = (.min, .max, .min, .max)
        continue
      }
      var (west, east) = (Int32.max, Int32.min)
      var (south, north) = (Int32.max, Int32.min)
      for i in edges.lowerBound...edges.upperBound {  // the edges' start points and the last one's end
        let x = coordinates[2 * i]
        let y = coordinates[2 * i + 1]
        west = Swift.min(west, x)
        east = Swift.max(east, x)
        south = Swift.min(south, y)
        north = Swift.max(north, y)
      }
      (boxes[4 * k], boxes[4 * k + 1], boxes[4 * k + 2], boxes[4 * k + 3]) = (west, east, south, north)
    }
    self.bytes = bytes
    runBoxes = boxes
  }
}

/// `QuietGrid`, built once `locate` has been called `QuietCellsOnce.threshold` times: building it takes a few
/// milliseconds, which one `resolve` (a few `locate`s, each a few microseconds without it) would pay at every
/// start; a batch repays it within its first thousand points. `locate`'s answers are the same with or without
/// it, bit for bit (`QuietCellsTests`).
///
/// Once built, `cells()` is one acquiring load of a pointer, and readers on several cores share the bytes
/// without writing anything (no reference count is touched).
/// (`@unchecked`: the pointer's bytes are written once, under `building`, before the releasing store that
/// publishes them, and never again; they are freed with the object.)
final class QuietCellsOnce: @unchecked Sendable {
  /// The calls of `cells()` answered nil before the cells are built.
  static let threshold = 512
  private let calls = Atomic<Int>(0)
  /// The grid's bytes, padded to 16, then the run boxes, once built.
  private let bits = Atomic<UnsafeMutableRawPointer?>(nil)
  private let building = Mutex<Void>(())
  private let cellCount: Int
  private let build: @Sendable () -> QuietGrid

  init(cellCount: Int, build: @escaping @Sendable () -> QuietGrid) {
    self.cellCount = cellCount
    self.build = build
  }

  deinit { bits.load(ordering: .acquiring)?.deallocate() }

  private var boxesOffset: Int { (cellCount + 15) & ~15 }

  /// The cells, if they are built (or once this call builds them); nil for the first `threshold` calls.
  @inline(__always)
  func cells() -> QuietBits? {
    if let built = bits.load(ordering: .acquiring) { return QuietBits(base: built, boxesOffset: boxesOffset) }
    if calls.wrappingAdd(1, ordering: .relaxed).newValue <= Self.threshold { return nil }
    return built()
  }

  /// Whether the cells are built (without counting a call).
  var isBuilt: Bool { bits.load(ordering: .acquiring) != nil }

  /// The cells, built now if they are not yet.
  func built() -> QuietBits {
    building.withLock { _ in
      if let built = bits.load(ordering: .acquiring) {
        return QuietBits(base: built, boxesOffset: boxesOffset)
      }
      let grid = build()
      precondition(grid.bytes.count == cellCount, "The quiet grid does not cover the cells.")
      let built = UnsafeMutableRawPointer.allocate(
        byteCount: boxesOffset + 4 * grid.runBoxes.count, alignment: 16)
      built.initializeMemory(as: UInt8.self, repeating: QuietGrid.walk, count: boxesOffset)
      grid.bytes.withUnsafeBytes { built.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
      grid.runBoxes.withUnsafeBytes {
        if let source = $0.baseAddress { (built + boxesOffset).copyMemory(from: source, byteCount: $0.count) }
      }
      bits.store(built, ordering: .releasing)
      return QuietBits(base: built, boxesOffset: boxesOffset)
    }
  }
}

/// The built grid's bytes and run boxes, read where `QuietCellsOnce` keeps them.
struct QuietBits {
  let base: UnsafeMutableRawPointer
  let boxesOffset: Int

  /// The cell's byte: a country index, `QuietGrid.atSea` or `QuietGrid.walk`.
  @inline(__always)
  func byte(_ cell: Int) -> UInt8 { base.load(fromByteOffset: cell, as: UInt8.self) }

  /// Starts bringing the cell's byte into the cache (see `cboundaries_prefetch`).
  @inline(__always)
  func prefetch(_ cell: Int) { cboundaries_prefetch(base + cell) }

  /// Whether `locate` answers the cell's points from the grid alone.
  func isAnsweredFromTheGrid(_ cell: Int) -> Bool { byte(cell) != QuietGrid.walk }

  /// Whether the cell is at sea, crossed by no border and farther than the search reaches from every coast.
  func isFarAtSea(_ cell: Int) -> Bool { byte(cell) == QuietGrid.atSea }

  /// Run `k`'s west, east, south, north in 1e-7 degrees.
  @inline(__always)
  func box(_ k: Int) -> SIMD4<Int32> {
    (base + boxesOffset).loadUnaligned(fromByteOffset: 16 &* k, as: SIMD4<Int32>.self)
  }
}

/// Sequential little-endian reads from raw bytes (unaligned-safe).
struct LittleEndianReader {
  let data: UnsafeRawBufferPointer
  var offset = 0

  init(_ data: UnsafeRawBufferPointer) { self.data = data }

  mutating func u16() -> UInt16 {
    defer { offset += 2 }
    return UInt16(littleEndian: data.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }

  mutating func u32() -> UInt32 {
    defer { offset += 4 }
    return UInt32(littleEndian: data.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  mutating func bytes(_ count: Int) -> [UInt8] {
    defer { offset += count }
    return Array(data[offset..<(offset + count)])
  }

  /// The next `count` elements, read where they are.
  mutating func array<Element: FixedWidthInteger>(count: Int) -> LittleEndianArray<Element> {
    defer { offset += count * MemoryLayout<Element>.size }
    return LittleEndianArray(base: data.baseAddress! + offset, count: count)
  }
}

/// Little-endian integers read in place from bytes that outlive it, at any alignment.
// @unchecked: a raw pointer to read-only bytes.
struct LittleEndianArray<Element: FixedWidthInteger>: @unchecked Sendable {
  let base: UnsafeRawPointer
  let count: Int

  @inline(__always)
  subscript(i: Int) -> Element {
    precondition(i >= 0 && i < count, "Index out of range")
    return Element(
      littleEndian: base.loadUnaligned(fromByteOffset: i &* MemoryLayout<Element>.size, as: Element.self))
  }
}

/// An owned copy of border data, for `CountryBoundaries.init(data:)`.
// @unchecked: a raw buffer, written once in init and read-only after.
private final class Storage: @unchecked Sendable {
  let bytes: UnsafeRawBufferPointer

  init(copying data: UnsafeRawBufferPointer) {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 8)
    copy.copyMemory(from: data)
    bytes = UnsafeRawBufferPointer(rebasing: copy[0..<data.count])
  }

  deinit { bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }
}
