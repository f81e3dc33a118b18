/// The range of each clustering option, checked where options enter (the CLI, `serve`, the index itself), so
/// that no value can reach the arithmetic of a build, a query or a tile unchecked.
extension ClusterOptions {
  /// One of supercluster's options, to name in an error.
  public enum Option: String, Sendable, CaseIterable {
    case minZoom, maxZoom, minPoints, radius, extent, nodeSize
  }

  /// The highest zoom that can be clustered (`minZoom` and `maxZoom` are 0...30).
  public static let zoomLimit = 30
  /// The zooms a query may ask about: 0 to 31 (one past the highest clustered zoom gives the raw points).
  public static let queryZooms: ClosedRange<Double> = 0...31
  /// The widest tile extent: 2^24 pixels, a whole number (a vector tile's extent is a uint32, and a pixel
  /// coordinate plus the buffer stays well inside the int32 of its geometry).
  public static let extentLimit = 16_777_216
  /// kdbush's leaf sizes.
  public static let nodeSizes = 2...65_535
  /// The most points a cluster can need (the most an index holds).
  public static let minPointsLimit = 67_108_863

  /// What `option` accepts, as a phrase (for "`--radius` is …, not 5e+21.").
  public func accepted(_ option: Option) -> String {
    switch option {
    case .minZoom: return "a whole number from 0 to \(Self.zoomLimit)"
    case .maxZoom: return "a whole number from the lowest zoom (\(minZoom)) to \(Self.zoomLimit)"
    case .minPoints: return "a whole number from 1 to \(Self.minPointsLimit)"
    case .radius: return "a number of pixels above 0 and at most the extent (\(Self.text(extent)))"
    case .extent: return "a whole number of pixels from 1 to \(Self.extentLimit)"
    case .nodeSize: return "a whole number from \(Self.nodeSizes.lowerBound) to \(Self.nodeSizes.upperBound)"
    }
  }

  /// Checks every option against its range, in the order of `Option`.
  ///
  /// - Throws: `ClusterError.outOfRange` naming the first option outside its range.
  public func check() throws(ClusterError) {
    func refuse(_ option: Option, _ value: String) -> ClusterError {
      .outOfRange(option: option, value: value, accepted: accepted(option))
    }
    guard (0...Self.zoomLimit).contains(minZoom) else { throw refuse(.minZoom, String(minZoom)) }
    guard (minZoom...Self.zoomLimit).contains(maxZoom) else { throw refuse(.maxZoom, String(maxZoom)) }
    guard (1...Self.minPointsLimit).contains(minPoints) else { throw refuse(.minPoints, String(minPoints)) }
    guard extent >= 1, extent <= Double(Self.extentLimit), extent.rounded(.down) == extent else {
      throw refuse(.extent, Self.text(extent))
    }
    guard radiusPixels > 0, radiusPixels <= extent else { throw refuse(.radius, Self.text(radiusPixels)) }
    guard Self.nodeSizes.contains(nodeSize) else { throw refuse(.nodeSize, String(nodeSize)) }
  }

  /// A value as a person would type it: whole numbers without a fraction, others as Swift prints them.
  public static func text(_ value: Double) -> String {
    value.rounded(.down) == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }
}
