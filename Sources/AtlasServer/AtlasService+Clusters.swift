import GeoFormats
import GeoIndex
import Hummingbird

extension AtlasService {
  func datasetList() -> Response {
    var writer = JSONWriter()
    writer.object { object in
      object.array("datasets", names.compactMap { datasets[$0] }) { json, dataset in
        json.object { item in
          let options = dataset.index.options
          item.string("name", dataset.name)
          item.number("pointCount", Double(dataset.pointCount))
          item.number("featureCount", Double(dataset.file.count))
          item.object("options") {
            $0.number("minZoom", Double(options.minZoom))
            $0.number("maxZoom", Double(options.maxZoom))
            $0.number("minPoints", Double(options.minPoints))
            $0.number("radius", options.radiusPixels)
            $0.number("extent", options.extent)
            $0.number("nodeSize", Double(options.nodeSize))
          }
          item.value(
            "bounds",
            .array(
              [dataset.bounds.west, dataset.bounds.south, dataset.bounds.east, dataset.bounds.north].map {
                .number(Format.number($0))
              }))
          item.number("buildMilliseconds", (dataset.buildSeconds * 1e6).rounded() / 1e3)
          item.string("contentHash", dataset.contentHash)
        }
      }
    }
    return json(writer.bytes + [0x0A])
  }

  /// The zoom and box of a clusters request, checked (and the answer's size bounded) before it is built.
  func clusterQuery(_ dataset: Dataset, _ request: Request) throws -> (zoom: Double, box: GeoBox) {
    let parameters = try allow(request, ["zoom", "bbox"])
    guard let zoom = try decimal(parameters, "zoom") else {
      throw Problem.badParameter("Give zoom, the map's zoom level (for example zoom=3).")
    }
    try parameter { () throws(FormatError) in try Coordinates.zoom(zoom) }
    var box = GeoBox.world
    if let text = parameters.get("bbox") {
      box = try parameter { () throws(FormatError) in try Coordinates.box(text, name: "bbox") }
    }
    try bounded(dataset.index.clusterCount(in: box, zoom: zoom), "this area at zoom \(Format.number(zoom))")
    return (zoom, box)
  }

  /// Refuses (422) an answer of more than `maxFeatures` features before it is built: a whole answer is held
  /// in memory until the client has read it (1M points at zoom 31: 98 MB).
  func bounded(_ count: Int, _ what: String, less: String = "ask for less with bbox=west,south,east,north")
    throws(Problem)
  {
    guard count > maxFeatures else { return }
    throw .tooManyFeatures(
      "The answer for \(what) would hold \(count) features, over this server's limit of \(maxFeatures) "
        + "(serve --max-features); \(less).")
  }

  func collection(_ dataset: Dataset, _ items: [ClusterItem], for request: Request? = nil) -> Response {
    let bytes = OutputBuffer.collecting { dataset.writer.featureCollection(items, to: $0) }
    guard let request else { return json(bytes) }
    return compressed(json(bytes), bytes, for: request)
  }
}
