// The engine behind a C interface, for the Python package (python/newsatlas/_native.py declares every function
// here for ctypes). Conventions:
// - Arrays are the caller's, `count` items long, C-contiguous float64 (int64, int32, int16, int8 where named).
// - Functions that can refuse their input take `message`/`capacity`: on a refusal they write one sentence
//   (UTF-8, NUL-terminated, cut to fit) and return the 0-based offset of the first bad item (-1 when the
//   refusal is not about one item), else they return -2 ("done"). Nothing here traps on input from a caller:
//   every value is checked before the core sees it.
// - Opaque handles are retained Swift objects; each has its `_free`.
// - `threads` is how many cores may answer (0: all); the answers are the same whatever it is.

import AtlasAnswers
import GeoFormats
import GeoIndex
import NewsAtlas

#if canImport(Glibc)
  import Glibc
#endif

/// The return value of a call that did its work.
let done = -2

/// The version of this interface: raised whenever a function's arguments, or the layout of what it writes into
/// the caller's arrays, change. A Python package made for another version would misuse this library without
/// an error (since version 2, `nearest` writes each code as 8 bytes, two UTF-32 code units, where the package
/// before it allocated a 2-byte country offset an item: writing past the end of its array), so
/// `python/newsatlas/_native.py` refuses to load a library whose version is not its own. Version 3: `resolve`
/// takes the news countries (`world`) before `threads`.
@_cdecl("newsatlas_abi_version")
public func newsatlas_abi_version() -> Int { 3 }

/// Copies `text` into the caller's buffer, cut at a character boundary to fit with its NUL.
func write(_ text: String, to message: UnsafeMutablePointer<CChar>?, capacity: Int) {
  guard let message, capacity > 0 else { return }
  var bytes = Array(text.utf8)
  if bytes.count > capacity - 1 {
    bytes = Array(bytes.prefix(capacity - 1))
    while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }  // a cut continuation byte
    if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }  // its lead byte
  }
  for (i, byte) in bytes.enumerated() { message[i] = CChar(bitPattern: byte) }
  message[bytes.count] = 0
}

/// The offset of the first pair that is not a position on the earth, with the core's sentence, or nil (for a
/// count of 0 or less too: `check` refuses a negative count before it asks).
func firstInvalid(
  _ count: Int, _ latitudes: UnsafePointer<Double>, _ longitudes: UnsafePointer<Double>
) -> (offset: Int, reason: CoordinateError)? {
  // Eight points a step, tested without a branch a point (NaN fails every comparison): the common case is
  // every point valid; a block with a bad point is read again one point at a time.
  var start = 0
  while start + 8 <= count {
    let latitude = UnsafeRawPointer(latitudes + start).loadUnaligned(as: SIMD8<Double>.self)
    let longitude = UnsafeRawPointer(longitudes + start).loadUnaligned(as: SIMD8<Double>.self)
    let valid = (latitude .>= -90) .& (latitude .<= 90) .& (longitude .>= -180) .& (longitude .<= 180)
    if !all(valid) { break }
    start += 8
  }
  for i in start..<Swift.max(start, count) {
    let latitude = latitudes[i]
    let longitude = longitudes[i]
    // The common case in one comparison chain; the core's initialiser says why when it fails.
    if latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180 { continue }
    do {
      _ = try GeoPoint(latitude: latitude, longitude: longitude)
    } catch {
      return (i, error)
    }
  }
  return nil
}

/// Checks the count and the points; on a refusal writes "Point N: <sentence>" and returns N's offset (-1 and
/// a sentence for a negative count), else `done`.
func check(
  _ count: Int, _ latitudes: UnsafePointer<Double>, _ longitudes: UnsafePointer<Double>,
  _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
  guard count >= 0 else {
    write("The number of points must be 0 or more, not \(count).", to: message, capacity: capacity)
    return -1
  }
  guard let (offset, reason) = firstInvalid(count, latitudes, longitudes) else { return done }
  write("Point \(offset) (0-based): \(reason.description)", to: message, capacity: capacity)
  return offset
}

/// `threads` as the core takes it: nil for all, else 1...256.
func cores(_ threads: Int) -> Int? { threads <= 0 ? nil : Swift.min(threads, 256) }

/// A pointer the caller promises to a buffer of sendable numbers, for the pieces that each write their own
/// items.
struct Shared<Element>: @unchecked Sendable {
  let base: UnsafeMutablePointer<Element>
  subscript(i: Int) -> Element {
    get { base[i] }
    nonmutating set { base[i] = newValue }
  }
}

// MARK: - Countries

/// Strings handed to C: made once, never freed (they are the process's static data).
// @unchecked: C string pointers, written once in init and read-only after.
final class StaticStrings: @unchecked Sendable {
  let pointers: [UnsafeMutablePointer<CChar>]
  init(_ texts: [String]) { pointers = texts.map { strdup($0)! } }
}

/// Each news country's code, name, French name and language (4 a country, in `Country.all` order).
let countryStrings = StaticStrings(
  Country.all.flatMap { [$0.code, $0.name, $0.nameFrench, $0.language] })
/// Each country GDELT covers: code, name and French name (3 a country, in `Country.world` order).
let worldStrings = StaticStrings(Country.world.flatMap { [$0.code, $0.name, $0.nameFrench] })
/// Each border country's code and name (2 a country, in `Country.boundaries` order).
let borderStrings = StaticStrings(
  zip(Country.boundaries.codes, Country.boundaries.names).flatMap { [$0, $1] })

/// How many news countries there are (54).
@_cdecl("newsatlas_country_count")
public func newsatlas_country_count() -> Int { Country.all.count }

/// A news country's field: 0 code, 1 English name, 2 French name, 3 language; nil out of range.
@_cdecl("newsatlas_country_text")
public func newsatlas_country_text(_ country: Int, _ field: Int) -> UnsafePointer<CChar>? {
  guard Country.all.indices.contains(country), (0..<4).contains(field) else { return nil }
  return UnsafePointer(countryStrings.pointers[country * 4 + field])
}

/// A news country's marker, in degrees; false out of range.
@_cdecl("newsatlas_country_marker")
public func newsatlas_country_marker(
  _ country: Int, _ latitude: UnsafeMutablePointer<Double>, _ longitude: UnsafeMutablePointer<Double>
) -> Bool {
  guard Country.all.indices.contains(country) else { return false }
  latitude.pointee = Country.all[country].marker.latitude
  longitude.pointee = Country.all[country].marker.longitude
  return true
}

/// How many countries GDELT covers, the news countries of `newsatlas_resolve` with `world` (237).
@_cdecl("newsatlas_world_count")
public func newsatlas_world_count() -> Int { Country.world.count }

/// A country of the world's field: 0 code, 1 English name, 2 French name; nil out of range.
@_cdecl("newsatlas_world_text")
public func newsatlas_world_text(_ country: Int, _ field: Int) -> UnsafePointer<CChar>? {
  guard Country.world.indices.contains(country), (0..<3).contains(field) else { return nil }
  return UnsafePointer(worldStrings.pointers[country * 3 + field])
}

/// How many border countries (Natural Earth admin-0) the resolver knows.
@_cdecl("newsatlas_border_count")
public func newsatlas_border_count() -> Int { Country.boundaries.codes.count }

/// A border country's field: 0 code, 1 name; nil out of range.
@_cdecl("newsatlas_border_text")
public func newsatlas_border_text(_ country: Int, _ field: Int) -> UnsafePointer<CChar>? {
  guard Country.boundaries.codes.indices.contains(country), (0..<2).contains(field) else { return nil }
  return UnsafePointer(borderStrings.pointers[country * 2 + field])
}

// MARK: - The 54 countries

/// Resolves each point as `newsatlas resolve --news-countries newsapi|world` does, among NewsAPI's 54 (`world`
/// 0) or every country GDELT covers (`world` 1): the news country (offset in the country list, or in the
/// world's list), the method (0 inside, 1 territorial sea, 2 nearest), the border country holding it (offset;
/// the border count, one past the last, at sea: a table with a last entry for "no country" reads both alike)
/// and the great-circle distance to the chosen country's marker in kilometres.
@_cdecl("newsatlas_resolve")
public func newsatlas_resolve(
  _ count: Int, _ latitudes: UnsafePointer<Double>, _ longitudes: UnsafePointer<Double>, _ world: Int,
  _ threads: Int, _ countries: UnsafeMutablePointer<Int16>, _ methods: UnsafeMutablePointer<Int8>,
  _ containing: UnsafeMutablePointer<Int16>, _ distances: UnsafeMutablePointer<Double>,
  _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
  guard world == 0 || world == 1 else {
    write(
      "world must be 0 (NewsAPI's 54) or 1 (every country GDELT covers), not \(world).", to: message,
      capacity: capacity)
    return -1
  }
  let set: NewsCountrySet = world == 1 ? .world : .newsAPI
  let refused = check(count, latitudes, longitudes, message, capacity)
  if refused != done { return refused }
  let (countries, methods) = (Shared(base: countries), Shared(base: methods))
  let (containing, distances) = (Shared(base: containing), Shared(base: distances))
  let atSea = Country.boundaries.codes.count
  Parallel.forEachPiece(count: count, threads: cores(threads)) { range in
    Country.resolveOffsets(
      range, { GeoPoint(uncheckedLatitude: latitudes[$0], longitude: longitudes[$0]) }, in: set
    ) { i, found in
      countries[i] = Int16(found.country)
      switch found.method {
      case .inside: methods[i] = 0
      case .territorialSea: methods[i] = 1
      case .nearest: methods[i] = 2
      }
      containing[i] = Int16(found.border ?? atSea)
      distances[i] = found.distanceKilometers
    }
  }
  return done
}

/// The `k` news countries nearest each point as `newsatlas nearest` finds them, nearest first: codes,
/// great-circle distances (km) and initial bearings (degrees) to their markers; `k` at most 54. Each code is
/// written as numpy's `U2` holds it, two UTF-32 code units in the machine's byte order (NUL-padded), so the
/// caller's string array is the answer, with no offsets to look up after the call.
@_cdecl("newsatlas_nearest")
public func newsatlas_nearest(
  _ count: Int, _ latitudes: UnsafePointer<Double>, _ longitudes: UnsafePointer<Double>, _ k: Int,
  _ threads: Int, _ codes: UnsafeMutablePointer<UInt32>, _ distances: UnsafeMutablePointer<Double>,
  _ bearings: UnsafeMutablePointer<Double>, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
  guard (1...Country.all.count).contains(k) else {
    write(
      "k must be 1 to \(Country.all.count) (the news countries), not \(k).", to: message, capacity: capacity)
    return -1
  }
  let refused = check(count, latitudes, longitudes, message, capacity)
  if refused != done { return refused }
  let tree = Country.markerIndex
  let markers = bearingTargets
  let (codes, distances, bearings) = (Shared(base: codes), Shared(base: distances), Shared(base: bearings))
  let units = codeUnits
  /// Item `i`'s code: the country at `offset`'s two code units.
  func putCode(_ offset: Int, at i: Int) {
    codes[2 * i] = units[2 * offset]
    codes[2 * i + 1] = units[2 * offset + 1]
  }
  Parallel.forEachPiece(count: count, threads: cores(threads)) { range in
    var start = range.lowerBound
    if k == 1 {
      // Four queries a step, their distances and bearings in the lanes of vectors (the same bits as one at a
      // time); no array made.
      func point(_ i: Int) -> GeoPoint { GeoPoint(uncheckedLatitude: latitudes[i], longitude: longitudes[i]) }
      while start + 3 < range.upperBound {
        let i = start
        let a = (point(i), point(i + 1), point(i + 2), point(i + 3))
        let found = tree.nearest(to: a)!
        putCode(found.0.index, at: i)
        putCode(found.1.index, at: i + 1)
        putCode(found.2.index, at: i + 2)
        putCode(found.3.index, at: i + 3)
        (distances[i], distances[i + 1]) = (found.0.distanceKilometers, found.1.distanceKilometers)
        (distances[i + 2], distances[i + 3]) = (found.2.distanceKilometers, found.3.distanceKilometers)
        let b = GreatCircle.initialBearingDegrees(
          from: a,
          to: (markers[found.0.index], markers[found.1.index], markers[found.2.index], markers[found.3.index])
        )
        (bearings[i], bearings[i + 1], bearings[i + 2], bearings[i + 3]) = (b[0], b[1], b[2], b[3])
        start += 4
      }
    }
    for i in start..<range.upperBound {
      let query = GeoPoint(uncheckedLatitude: latitudes[i], longitude: longitudes[i])
      func put(_ neighbor: Neighbor, _ j: Int) {
        putCode(neighbor.index, at: i * k + j)
        distances[i * k + j] = neighbor.distanceKilometers
        bearings[i * k + j] = GreatCircle.initialBearingDegrees(from: query, to: markers[neighbor.index])
      }
      if k == 1 {
        put(tree.nearest(to: query)!, 0)
      } else {
        for (j, neighbor) in tree.neighbors(of: query, count: k).enumerated() { put(neighbor, j) }
      }
    }
  }
  return done
}

/// Each news country's code as two UTF-32 code units (numpy's `U2`), NUL-padded, two a country in
/// `Country.all` order.
let codeUnits: [UInt32] = Country.all.flatMap { country in
  let scalars = country.code.unicodeScalars.map(\.value)
  return (0..<2).map { $0 < scalars.count ? scalars[$0] : 0 }
}

/// The 54 markers as bearing targets (their latitudes' sines and cosines kept).
let bearingTargets = Country.markers.map(BearingTarget.init)

// MARK: - The caller's points

/// A great-circle k-d tree over the caller's points.
final class PointTree {
  let tree: SphericalKDTree
  init(_ tree: SphericalKDTree) { self.tree = tree }
}

/// Builds a tree over the points (nil and a sentence when one is not a position).
@_cdecl("newsatlas_points_build")
public func newsatlas_points_build(
  _ count: Int, _ latitudes: UnsafePointer<Double>, _ longitudes: UnsafePointer<Double>, _ threads: Int,
  _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
  if check(count, latitudes, longitudes, message, capacity) != done { return nil }
  let points = (0..<count).lazy.map { GeoPoint(uncheckedLatitude: latitudes[$0], longitude: longitudes[$0]) }
  let tree = SphericalKDTree(points: points, threads: cores(threads))
  return Unmanaged.passRetained(PointTree(tree)).toOpaque()
}

@_cdecl("newsatlas_points_free")
public func newsatlas_points_free(_ handle: UnsafeMutableRawPointer?) {
  guard let handle else { return }
  Unmanaged<PointTree>.fromOpaque(handle).release()
}

/// The `k` points nearest each query within `maxKilometers` (infinity: no limit), nearest first, equal
/// distances by lowest offset: distances (km) and offsets, with `infinity` and the tree's count where fewer
/// than `k` are found (scipy's cKDTree.query convention).
@_cdecl("newsatlas_points_query")
public func newsatlas_points_query(
  _ handle: UnsafeMutableRawPointer, _ count: Int, _ latitudes: UnsafePointer<Double>,
  _ longitudes: UnsafePointer<Double>, _ k: Int, _ maxKilometers: Double, _ threads: Int,
  _ distances: UnsafeMutablePointer<Double>, _ indices: UnsafeMutablePointer<Int64>,
  _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
  let tree = Unmanaged<PointTree>.fromOpaque(handle).takeUnretainedValue().tree
  guard k >= 1 else {
    write("k must be 1 or more, not \(k).", to: message, capacity: capacity)
    return -1
  }
  guard maxKilometers >= 0 else {
    write(
      "max_km must be a distance of 0 kilometres or more, not \(maxKilometers).", to: message,
      capacity: capacity)
    return -1
  }
  let refused = check(count, latitudes, longitudes, message, capacity)
  if refused != done { return refused }
  let (distances, indices) = (Shared(base: distances), Shared(base: indices))
  let missing = Int64(tree.count)
  Parallel.forEachPiece(count: count, threads: cores(threads)) { range in
    for i in range {
      let query = GeoPoint(uncheckedLatitude: latitudes[i], longitude: longitudes[i])
      if k == 1 && maxKilometers == .infinity, let found = tree.nearest(to: query) {
        distances[i] = found.distanceKilometers  // no array made for the common case
        indices[i] = Int64(found.index)
        continue
      }
      let found = tree.neighbors(of: query, count: k, maxDistanceKilometers: maxKilometers)
      for j in 0..<k {
        if j < found.count {
          distances[i * k + j] = found[j].distanceKilometers
          indices[i * k + j] = Int64(found[j].index)
        } else {
          distances[i * k + j] = .infinity
          indices[i * k + j] = missing
        }
      }
    }
  }
  return done
}

/// Lists of numbers made by a query whose answer length is not known in advance; read with
/// `newsatlas_result_*`, then freed.
final class ResultLists {
  /// Where each query's (or item's) entries start in the lists, and one past the last (count + 1 entries).
  var offsets: [Int64] = [0]
  var integers: [Int64] = []
  var counts: [Int64] = []
  var kinds: [Int64] = []
  var first: [Double] = []
  var second: [Double] = []
  var bytes: [UInt8] = []
}

/// Every point within `radiusKilometers` of each query (inclusive), nearest first: the result's `offsets`
/// (count + 1), `integers` (point offsets) and `first` (distances, km). Nil and a sentence on a refusal.
@_cdecl("newsatlas_points_radius")
public func newsatlas_points_radius(
  _ handle: UnsafeMutableRawPointer, _ count: Int, _ latitudes: UnsafePointer<Double>,
  _ longitudes: UnsafePointer<Double>, _ radiusKilometers: Double, _ threads: Int,
  _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
  let tree = Unmanaged<PointTree>.fromOpaque(handle).takeUnretainedValue().tree
  guard radiusKilometers >= 0 else {
    write(
      "The radius must be a distance of 0 kilometres or more, not \(radiusKilometers).", to: message,
      capacity: capacity)
    return nil
  }
  if check(count, latitudes, longitudes, message, capacity) != done { return nil }
  // Each piece answers into lists of its own; they are joined in order.
  let pieces = 64
  var parts = (0..<pieces).map { _ in ResultLists() }
  parts.withUnsafeMutableBufferPointer { parts in
    let shared = Shared(base: parts.baseAddress!)
    Parallel.forEachPiece(
      count: pieces, threads: cores(threads), minimumPerThread: count >= 16_384 ? 1 : pieces
    ) {
      range in
      for piece in range {
        let part = shared[piece]
        for i in (count * piece / pieces)..<(count * (piece + 1) / pieces) {
          let query = GeoPoint(uncheckedLatitude: latitudes[i], longitude: longitudes[i])
          for neighbor in tree.points(withinKilometers: radiusKilometers, of: query) {
            part.integers.append(Int64(neighbor.index))
            part.first.append(neighbor.distanceKilometers)
          }
          part.offsets.append(Int64(part.integers.count))
        }
      }
    }
  }
  let result = ResultLists()
  for part in parts {
    let base = Int64(result.integers.count)
    result.offsets.append(contentsOf: part.offsets.dropFirst().map { $0 + base })
    result.integers.append(contentsOf: part.integers)
    result.first.append(contentsOf: part.first)
  }
  return Unmanaged.passRetained(result).toOpaque()
}

/// The lengths of a result's lists: 0 offsets, 1 entries (integers, counts, kinds, first, second), 2 bytes.
@_cdecl("newsatlas_result_length")
public func newsatlas_result_length(_ handle: UnsafeMutableRawPointer, _ list: Int) -> Int {
  let result = Unmanaged<ResultLists>.fromOpaque(handle).takeUnretainedValue()
  switch list {
  case 0: return result.offsets.count
  case 2: return result.bytes.count
  default: return result.integers.count
  }
}

/// Copies a result's bytes into the caller's buffer (`newsatlas_result_length(handle, 2)` long).
@_cdecl("newsatlas_result_copy_bytes")
public func newsatlas_result_copy_bytes(
  _ handle: UnsafeMutableRawPointer, _ bytes: UnsafeMutablePointer<UInt8>
) {
  let result = Unmanaged<ResultLists>.fromOpaque(handle).takeUnretainedValue()
  result.bytes.withUnsafeBufferPointer {
    if let base = $0.baseAddress { bytes.update(from: base, count: $0.count) }
  }
}

/// Copies a result's lists into the caller's arrays (any may be nil: not wanted).
@_cdecl("newsatlas_result_copy")
public func newsatlas_result_copy(
  _ handle: UnsafeMutableRawPointer, _ offsets: UnsafeMutablePointer<Int64>?,
  _ integers: UnsafeMutablePointer<Int64>?, _ counts: UnsafeMutablePointer<Int64>?,
  _ kinds: UnsafeMutablePointer<Int64>?, _ first: UnsafeMutablePointer<Double>?,
  _ second: UnsafeMutablePointer<Double>?
) {
  let result = Unmanaged<ResultLists>.fromOpaque(handle).takeUnretainedValue()
  func copy<T>(_ list: [T], _ to: UnsafeMutablePointer<T>?) {
    guard let to, !list.isEmpty else { return }
    list.withUnsafeBufferPointer { to.update(from: $0.baseAddress!, count: $0.count) }
  }
  copy(result.offsets, offsets)
  if result.counts.count == result.integers.count { copy(result.counts, counts) }
  if result.kinds.count == result.integers.count { copy(result.kinds, kinds) }
  copy(result.integers, integers)
  if result.first.count == result.integers.count { copy(result.first, first) }
  if result.second.count == result.integers.count { copy(result.second, second) }
}

@_cdecl("newsatlas_result_free")
public func newsatlas_result_free(_ handle: UnsafeMutableRawPointer?) {
  guard let handle else { return }
  Unmanaged<ResultLists>.fromOpaque(handle).release()
}

// MARK: - Clusters

/// supercluster's index over the caller's points, with the tile writer the CLI and the service use.
final class Clusters {
  let index: ClusterIndex<[Double]>
  /// The input points, for the positions of lone points.
  let points: [GeoPoint?]
  /// `newsatlas tiles`' and `serve`'s vector tile writer, over the points as bare features.
  let writer: ClusterWriter
  init(_ index: ClusterIndex<[Double]>, file: FeatureFile) {
    self.index = index
    self.points = file.points
    self.writer = ClusterWriter(index: index, file: file, aggregations: [])
  }

  /// Items as result lists: `integers` ids (input offset or cluster id), `counts` points held, `kinds` 0 point
  /// 1 cluster, `first`/`second` latitude and longitude (a cluster's centre).
  func lists(_ items: [ClusterItem]) -> ResultLists {
    let result = ResultLists()
    for item in items {
      switch item {
      case .point(let index):
        let point = points[index]!
        result.integers.append(Int64(index))
        result.counts.append(1)
        result.kinds.append(0)
        result.first.append(point.latitude)
        result.second.append(point.longitude)
      case .cluster(let cluster):
        result.integers.append(Int64(cluster.id))
        result.counts.append(Int64(cluster.pointCount))
        result.kinds.append(1)
        result.first.append(cluster.center.latitude)
        result.second.append(cluster.center.longitude)
      }
    }
    result.offsets.append(Int64(result.integers.count))
    return result
  }
}

/// Builds supercluster's index over the points with its options (radius and extent in pixels, zooms, the
/// fewest points of a cluster, the k-d leaf size), checked as the CLI checks them. Nil and a sentence on a
/// refusal.
@_cdecl("newsatlas_clusters_build")
public func newsatlas_clusters_build(
  _ count: Int, _ latitudes: UnsafePointer<Double>, _ longitudes: UnsafePointer<Double>,
  _ radius: Double, _ extent: Double, _ minZoom: Int, _ maxZoom: Int, _ minPoints: Int, _ nodeSize: Int,
  _ threads: Int, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
  if check(count, latitudes, longitudes, message, capacity) != done { return nil }
  var options = ClusterOptions()
  options.radiusPixels = radius
  options.extent = extent
  options.minZoom = minZoom
  options.maxZoom = maxZoom
  options.minPoints = minPoints
  options.nodeSize = nodeSize
  let points: [GeoPoint?] = (0..<count).map {
    GeoPoint(uncheckedLatitude: latitudes[$0], longitude: longitudes[$0])
  }
  let file = FeatureFile.positions(points, name: "the points")
  do {
    let index = try Aggregation.index(of: file, options: options, aggregations: [], threads: cores(threads))
    return Unmanaged.passRetained(Clusters(index, file: file)).toOpaque()
  } catch {
    write(error.description, to: message, capacity: capacity)
    return nil
  }
}

@_cdecl("newsatlas_clusters_free")
public func newsatlas_clusters_free(_ handle: UnsafeMutableRawPointer?) {
  guard let handle else { return }
  Unmanaged<Clusters>.fromOpaque(handle).release()
}

/// The clusters and lone points in the box at `zoom`, in supercluster's order (`getClusters`), as result lists.
@_cdecl("newsatlas_clusters_in_box")
public func newsatlas_clusters_in_box(
  _ handle: UnsafeMutableRawPointer, _ west: Double, _ south: Double, _ east: Double, _ north: Double,
  _ zoom: Double, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
  let clusters = Unmanaged<Clusters>.fromOpaque(handle).takeUnretainedValue()
  guard [west, south, east, north].allSatisfy(\.isFinite) else {
    write(
      "The box \(west),\(south),\(east),\(north) needs four finite numbers: west, south, east, north in degrees.",
      to: message, capacity: capacity)
    return nil
  }
  guard ClusterOptions.queryZooms.contains(zoom) else {
    write("The zoom must be 0 to 31, not \(zoom).", to: message, capacity: capacity)
    return nil
  }
  let items = clusters.index.clusters(
    in: GeoBox(west: west, south: south, east: east, north: north), zoom: zoom)
  return Unmanaged.passRetained(clusters.lists(items)).toOpaque()
}

/// A cluster's children (`getChildren`), as result lists; nil and the core's sentence for no such cluster.
@_cdecl("newsatlas_clusters_children")
public func newsatlas_clusters_children(
  _ handle: UnsafeMutableRawPointer, _ id: Int, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
  let clusters = Unmanaged<Clusters>.fromOpaque(handle).takeUnretainedValue()
  do {
    return Unmanaged.passRetained(clusters.lists(try clusters.index.children(ofCluster: id))).toOpaque()
  } catch {
    write(error.description, to: message, capacity: capacity)
    return nil
  }
}

/// A cluster's input points (`getLeaves`: at most `limit` after skipping `offset`), as result lists of
/// `integers`; nil and the core's sentence for no such cluster.
@_cdecl("newsatlas_clusters_leaves")
public func newsatlas_clusters_leaves(
  _ handle: UnsafeMutableRawPointer, _ id: Int, _ limit: Int, _ offset: Int,
  _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
  let clusters = Unmanaged<Clusters>.fromOpaque(handle).takeUnretainedValue()
  do {
    let leaves = try clusters.index.leaves(ofCluster: id, limit: limit, offset: offset)
    let result = ResultLists()
    result.integers = leaves.map { Int64($0) }
    result.offsets.append(Int64(leaves.count))
    return Unmanaged.passRetained(result).toOpaque()
  } catch {
    write(error.description, to: message, capacity: capacity)
    return nil
  }
}

/// The zoom at which a cluster splits (`getClusterExpansionZoom`); -1 and the core's sentence for no such
/// cluster.
@_cdecl("newsatlas_clusters_expansion_zoom")
public func newsatlas_clusters_expansion_zoom(
  _ handle: UnsafeMutableRawPointer, _ id: Int, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
  let clusters = Unmanaged<Clusters>.fromOpaque(handle).takeUnretainedValue()
  do {
    return try clusters.index.expansionZoom(ofCluster: id)
  } catch {
    write(error.description, to: message, capacity: capacity)
    return -1
  }
}

/// supercluster's `getTile` for `address` ("z/x/y", read as `newsatlas clusters --tile` and the service read
/// it) as the Mapbox Vector Tile bytes `newsatlas tiles` and `serve` write, one layer named `layer`: `tile`
/// gets a result whose `bytes` are the tile, or nil for an empty tile (which the service answers with 204).
/// -1 and a sentence for a bad address or layer name.
@_cdecl("newsatlas_clusters_tile")
public func newsatlas_clusters_tile(
  _ handle: UnsafeMutableRawPointer, _ address: UnsafePointer<CChar>, _ layer: UnsafePointer<CChar>,
  _ tile: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ message: UnsafeMutablePointer<CChar>?,
  _ capacity: Int
) -> Int {
  let clusters = Unmanaged<Clusters>.fromOpaque(handle).takeUnretainedValue()
  tile.pointee = nil
  let z: Int
  let x: Int
  let y: Int
  do {
    (z, x, y) = try Coordinates.tile(String(cString: address), name: "A tile")
  } catch {
    write(error.description, to: message, capacity: capacity)
    return -1
  }
  let name = String(cString: layer)
  guard VectorLayer.isValidName(name) else {
    write(
      "A layer name is letters, digits, '-' and '_' (64 at most), not '\(name)'.", to: message,
      capacity: capacity)
    return -1
  }
  if let bytes = clusters.writer.vectorTile(clusters.index.tile(zoom: z, x: x, y: y), layerName: name) {
    let result = ResultLists()
    result.bytes = bytes
    tile.pointee = Unmanaged.passRetained(result).toOpaque()
  }
  return done
}

// MARK: - Borders

/// Every border ring (Natural Earth 1:10m admin-0, as compiled in) simplified to `toleranceDegrees` (0: every
/// point), as result lists: `offsets` where each ring's points start, `integers` each point's country (an
/// offset in the border list), `first` longitudes and `second` latitudes in degrees. A country holds a point
/// when an odd number of its rings do (the even–odd rule `resolve` uses). For drawing and for checking `resolve`
/// with another geometry library.
@_cdecl("newsatlas_border_rings")
public func newsatlas_border_rings(_ toleranceDegrees: Double) -> UnsafeMutableRawPointer {
  let result = ResultLists()
  for ring in Country.boundaries.rings(
    toleranceDegrees: toleranceDegrees.isFinite ? max(0, toleranceDegrees) : 0)
  {
    for point in ring.points {
      result.integers.append(Int64(ring.country))
      result.first.append(point.longitude)
      result.second.append(point.latitude)
    }
    result.offsets.append(Int64(result.integers.count))
  }
  return Unmanaged.passRetained(result).toOpaque()
}
