import Foundation
import GeoIndex
import Testing

/// ClusterIndex against supercluster 8.0.1's own outputs (`Tests/Fixtures/supercluster/`).
@Suite struct ClusterIndexFixtureTests {
  struct ClusterFile: Decodable {
    struct Feature: Decodable {
      struct Properties: Decodable {
        let cluster: Bool?
        let cluster_id: Int?
        let point_count: Int?
        let point_count_abbreviated: Abbreviation?
        let index: Int?
      }
      struct Geometry: Decodable { let coordinates: [Double] }
      let id: Int?
      let properties: Properties
      let geometry: Geometry
    }
    let zoom: Int
    let count: Int
    let features: [Feature]
  }

  /// A number below 1000, a string from 1000 on.
  enum Abbreviation: Decodable, Equatable {
    case number(Int)
    case text(String)
    init(from decoder: Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let number = try? container.decode(Int.self) {
        self = .number(number)
      } else {
        self = .text(try container.decode(String.self))
      }
    }
    var text: String {
      switch self {
      case .number(let n): return String(n)
      case .text(let s): return s
      }
    }
  }

  static let points10k: [GeoPoint?] = (try? Fixtures.points("points-10k.json")) ?? []

  static func places() throws -> [GeoPoint?] {
    struct File: Decodable {
      struct Feature: Decodable {
        struct Geometry: Decodable { let coordinates: [Double] }
        let geometry: Geometry?
      }
      let features: [Feature]
    }
    return try Fixtures.decode(File.self, "supercluster/places.json").features.map { feature in
      try feature.geometry.map { try GeoPoint(latitude: $0.coordinates[1], longitude: $0.coordinates[0]) }
    }
  }

  @Test(arguments: ["points-10k-clusters-z0.json", "points-10k-clusters-z2.json"])
  func worldClustersMatchFeatureByFeature(_ file: String) throws {
    let expected = try Fixtures.decode(ClusterFile.self, "supercluster/\(file)")
    #expect(Self.points10k.count == 10_000)
    let index = try ClusterIndex(points: Self.points10k)
    let found = index.clusters(in: .world, zoom: Double(expected.zoom))
    #expect(found.count == expected.count)
    for (item, feature) in zip(found, expected.features) {
      switch item {
      case .cluster(let cluster):
        #expect(feature.properties.cluster == true)
        #expect(cluster.id == feature.id && cluster.id == feature.properties.cluster_id)
        #expect(cluster.pointCount == feature.properties.point_count)
        #expect(cluster.pointCountAbbreviated == feature.properties.point_count_abbreviated?.text)
        #expect(abs(cluster.center.longitude - feature.geometry.coordinates[0]) <= 1e-9)
        #expect(abs(cluster.center.latitude - feature.geometry.coordinates[1]) <= 1e-9)
      case .point(let i):
        #expect(feature.properties.cluster == nil)
        #expect(i == feature.properties.index)
      }
    }
  }

  struct Navigation: Decodable {
    struct Child: Decodable {
      let cluster_id: Int?
      let point_count: Int?
      let index: Int?
    }
    struct Entry: Decodable {
      let zoom: Int
      let cluster_id: Int
      let originIndex: Int
      let originZoom: Int
      let point_count: Int
      let coordinates: [Double]
      let expansionZoom: Int
      let children: [Child]
      let leavesDefault: [Int]
      let leavesLimit5Offset3: [Int]
      let leavesAll: [Int]
    }
    let clusters: [Entry]
  }

  @Test func clusterNavigation() throws {
    let navigation = try Fixtures.decode(Navigation.self, "supercluster/points-10k-cluster-navigation.json")
    let index = try ClusterIndex(points: Self.points10k)
    #expect(navigation.clusters.count == 15)
    for entry in navigation.clusters {
      #expect((entry.cluster_id - 10_000) >> 5 == entry.originIndex)
      #expect((entry.cluster_id - 10_000) % 32 == entry.originZoom)
      #expect(try index.expansionZoom(ofCluster: entry.cluster_id) == entry.expansionZoom)
      let children = try index.children(ofCluster: entry.cluster_id)
      #expect(children.count == entry.children.count)
      for (child, expected) in zip(children, entry.children) {
        switch child {
        case .cluster(let cluster):
          #expect(cluster.id == expected.cluster_id && cluster.pointCount == expected.point_count)
        case .point(let i):
          #expect(i == expected.index)
        }
      }
      #expect(try index.leaves(ofCluster: entry.cluster_id) == entry.leavesDefault)
      #expect(try index.leaves(ofCluster: entry.cluster_id, limit: 5, offset: 3) == entry.leavesLimit5Offset3)
      #expect(try index.leaves(ofCluster: entry.cluster_id, limit: .max) == entry.leavesAll)
      #expect(entry.leavesAll.count == entry.point_count)
    }
  }

  @Test(arguments: [("places-tile-z0-0-0.json", 2), ("places-tile-z0-0-0-minpoints5.json", 5)])
  func tileZeroOfPlaces(file: String, minPoints: Int) throws {
    var options = ClusterOptions()
    options.minPoints = minPoints
    let places = try Self.places()
    let index = try ClusterIndex(points: places, options: options)
    let data = try Fixtures.data("supercluster/\(file)")
    let expected = try #require(
      (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["features"] as? [[String: Any]])
    let names = try Self.placeNames()
    let tile = try #require(index.tile(zoom: 0, x: 0, y: 0))
    #expect(tile.count == expected.count)
    for (feature, want) in zip(tile, expected) {
      let geometry = try #require((want["geometry"] as? [[Int]])?.first)
      #expect([feature.x, feature.y] == geometry)
      let tags = try #require(want["tags"] as? [String: Any])
      switch feature.item {
      case .cluster(let cluster):
        #expect(want["id"] as? Int == cluster.id)
        #expect(tags["cluster_id"] as? Int == cluster.id)
        #expect(tags["point_count"] as? Int == cluster.pointCount)
      case .point(let i):
        #expect(tags["cluster"] == nil)
        #expect(tags["name"] as? String == names[i].name)
        #expect(want["id"] as? Int == names[i].id)  // a point's tile id is its feature's own id, if any
      }
    }
    let points = tile.map {
      if case .cluster(let c) = $0.item { return c.pointCount }
      return 1
    }.reduce(0, +)
    if minPoints == 2 { #expect(points == 196) }
  }

  static func placeNames() throws -> [(name: String?, id: Int?)] {
    struct File: Decodable {
      struct Feature: Decodable {
        struct Properties: Decodable { let name: String? }
        let id: Int?
        let properties: Properties
      }
      let features: [Feature]
    }
    return try Fixtures.decode(File.self, "supercluster/places.json").features.map {
      ($0.properties.name, $0.id)
    }
  }

  /// supercluster's upstream bbox tests on places.json at zoom 1.
  @Test(arguments: [
    (GeoBox.world, 61),
    (GeoBox(west: 129.426390, south: -103.720017, east: -445.930843, north: 114.518236), 26),
    (GeoBox(west: 458.220043, south: -84.239039, east: -117.137190, north: 120.206585), 25),
  ])
  func oddBoxesWrapAndClamp(box: GeoBox, count: Int) throws {
    let index = try ClusterIndex(points: Self.places())
    #expect(index.clusters(in: box, zoom: 1).count == count)
    // The count a server checks before building an answer is the answer's, at every zoom.
    for zoom in [0.0, 1, 5.5, 17, 31] {
      #expect(
        index.clusterCount(in: box, zoom: zoom) == index.clusters(in: box, zoom: zoom).count, "zoom \(zoom)")
    }
  }

  @Test func firstPlacesClusterIdIsSupercluster() throws {
    let index = try ClusterIndex(points: Self.places())
    let ids = index.clusters(in: .world, zoom: 0).compactMap { item -> Int? in
      if case .cluster(let c) = item { return c.id }
      return nil
    }
    #expect(ids.contains(164))
    // A point left alone at zoom 0 is the input feature, by index; Null Island (index 162) never appears.
    let everything = index.clusters(in: .world, zoom: 17)
    #expect(everything.count == 162)
    #expect(!everything.contains(.point(index: 162)))
  }

  @Test func upstreamExpansionZoomExample() throws {
    var options = ClusterOptions()
    options.radiusPixels = 60
    options.extent = 256
    options.maxZoom = 4
    let index = try ClusterIndex(points: Self.places(), options: options)
    #expect(try index.expansionZoom(ofCluster: 2504) == 5)
  }
}
