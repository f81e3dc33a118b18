import AtlasAnswers
import Foundation
import GeoFormats
import GeoIndex
import TestSupport
import Testing

@testable import AtlasServer

/// A dataset changed in place (`Dataset.init(…extending:removed:)`, as a followed table's change and a write
/// over HTTP make it) lists the tile layer's fields that one built from its features lists: it keeps those of
/// before only while the first thousand features are the same.
@Suite struct DatasetFieldsTests {
  /// `count` features with property `n`; feature 3 has `rare` too, feature 1,100 (when there is one) `late`.
  static func collection(_ count: Int) -> String {
    let features = (0..<count).map { n in
      let extra = n == 3 ? #","rare":"r""# : n == 1100 ? #","late":true"# : ""
      return #"{"type":"Feature","id":\#(n),"properties":{"n":\#(n)\#(extra)},"#
        + #""geometry":{"type":"Point","coordinates":[\#(Double(n % 360) - 179.5),\#(Double(n % 170) - 84.5)]}}"#
    }
    return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
  }

  @Test(arguments: [
    (1200, [3], false), (1200, [1100], false), (1200, [], true), (1200, [3, 1100], true), (1200, [999], true),
    (10, [], true), (10, [3], false), (1001, [1000], true), (1001, [5], false),
  ])
  func aChangedDatasetListsTheFieldsOfItsFeatures(count: Int, removed: [Int], adds: Bool) throws {
    try Scratch.withFile(named: "points.geojson", contents: Self.collection(count)) { path in
      let base = try FeatureFile.load(path: path)
      let before = try Dataset(
        name: "d", file: base, options: ClusterOptions(), aggregations: [], version: 1, kept: nil)
      let journalPath = path + ".journal"
      let journal = open(journalPath, O_RDWR | O_CREAT | O_TRUNC, 0o600)
      #expect(journal >= 0)
      defer { unlink(journalPath) }
      let changed = base.journaledCopy(journal: journal)
      changed.remove(removed)
      if adds {
        let added = try FeatureFile.parse(
          Array(
            (#"{"type":"FeatureCollection","features":[{"type":"Feature","id":"new","properties":"#
              + #"{"fresh":1},"geometry":{"type":"Point","coordinates":[10,20]}}]}"#).utf8))
        let text = added.withText(of: 0) { Array($0) }
        #expect(pwrite(journal, text, text.count, 0) == text.count)
        changed.append(journaled: added, textStarts: [0])
      }
      let after = try Dataset(
        name: "d", file: changed, options: ClusterOptions(), aggregations: [], version: 2, kept: nil,
        extending: before, removed: removed)
      let expected = VectorLayer.fields(of: changed, aggregations: [])
      #expect(after.fields.map(\.name) == expected.map(\.name))
      #expect(after.fields.map(\.type) == expected.map(\.type))
    }
  }
}
