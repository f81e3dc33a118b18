extension Article {
  /// The article as every provider hands it on (NewsAPI's, GDELT's and the feeds' answers each pass through
  /// here once, where they are decoded): nil when its link is not an absolute http(s) URL (a `javascript:`
  /// or `data:` link, a NUL, a space or any control in it); an image URL of that kind dropped; every text with
  /// its control characters (C0, DEL and C1, such as U+009B, a terminal's CSI, and U+0085) made spaces and its
  /// bidirectional controls (U+202E and the others, which let a title spoof the text around it in a
  /// terminal) removed.
  public func sanitized() -> Article? {
    guard Self.isWebURL(url) else { return nil }
    return Article(
      source: Source(id: source.id.map(Self.plainText), name: Self.plainText(source.name)),
      author: author.map(Self.plainText), title: Self.plainText(title), description: description.map(Self.plainText),
      url: url, urlToImage: urlToImage.flatMap { Self.isWebURL($0) ? $0 : nil }, publishedAt: publishedAt,
      content: content.map(Self.plainText))
  }

  /// Whether `text` is an absolute http or https URL with a host, and nothing a browser or terminal would read
  /// as something else: no whitespace, no control, no bidirectional control.
  static func isWebURL(_ text: String) -> Bool {
    let lowered = text.lowercased()
    let rest: Substring
    if lowered.hasPrefix("https://") {
      rest = lowered.dropFirst(8)
    } else if lowered.hasPrefix("http://") {
      rest = lowered.dropFirst(7)
    } else {
      return false
    }
    guard let first = rest.first, first != "/", first != "?", first != "#" else { return false }
    return text.unicodeScalars.allSatisfy { $0.value > 0x20 && !isControl($0) && !isBidiControl($0) }
  }

  /// `text` with controls made spaces and bidirectional controls removed.
  static func plainText(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { isControl($0) || isBidiControl($0) }) else { return text }
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars where !isBidiControl(scalar) {
      scalars.append(isControl(scalar) ? " " : scalar)
    }
    return String(scalars)
  }

  /// C0 controls, DEL and the C1 controls (U+0080–U+009F).
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// The marks and embeddings that reorder text: ALM, LRM, RLM, LRE…RLO (U+202A–U+202E), LRI…PDI.
  static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
