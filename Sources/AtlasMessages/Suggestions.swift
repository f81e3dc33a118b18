/// The words nearest one typed, for a "did you mean" (a command, a flag, a setting, a source id): by edit distance
/// (Levenshtein's, on characters, any case), ties by the word.
public enum Suggestions {
  /// Up to `count` of `known` nearest `typed`, none farther than `within` edits (nil: any distance).
  public static func nearest(to typed: String, in known: [String], count: Int = 3, within: Int? = nil) -> [String]
  {
    let limit = within ?? Int.max
    let ranked: [(word: String, edits: Int)] = known.map { ($0, distance(typed, $0)) }.filter { $0.1 <= limit }
    let sorted = ranked.sorted { $0.edits != $1.edits ? $0.edits < $1.edits : $0.word < $1.word }
    return sorted.prefix(count).map(\.word)
  }

  /// The one word of `known` that `typed` is most likely a typo of: the nearest, within a third of its length
  /// (two edits at least), when no other is as near (or as near but sharing a shorter start); nil otherwise, and
  /// for `typed` itself.
  public static func likely(_ typed: String, in known: [String]) -> String? {
    // Equally near, the one that starts as `typed` does for longer (`--cout`: `--count`, not `--out`).
    let lowered = typed.lowercased()
    func shared(_ word: String) -> Int { zip(lowered, word.lowercased()).prefix { $0.0 == $0.1 }.count }
    let ranked: [(word: String, edits: Int, shared: Int)] = known.map { ($0, distance(typed, $0), shared($0)) }
    let sorted = ranked.sorted { $0.edits != $1.edits ? $0.edits < $1.edits : $0.shared > $1.shared }
    guard let best = sorted.first, best.edits > 0, best.edits <= max(2, typed.count / 3) else { return nil }
    if sorted.count > 1, sorted[1].edits == best.edits, sorted[1].shared == best.shared { return nil }
    return best.word
  }

  /// Levenshtein's distance between `a` (its first 64 characters) and `b`, any case.
  static func distance(_ a: String, _ b: String) -> Int {
    let typed = Array(a.lowercased().prefix(64))
    let other = Array(b.lowercased())
    var previous = Array(0...other.count)
    for (i, x) in typed.enumerated() {
      var current = [i + 1] + [Int](repeating: 0, count: other.count)
      for (j, y) in other.enumerated() {
        current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
      }
      previous = current
    }
    return previous[other.count]
  }
}
