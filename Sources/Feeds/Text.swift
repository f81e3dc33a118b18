extension String {
  /// The text with every run of white space (Unicode's, the no-break space included) made one space, and none
  /// at either end.
  func collapsingWhiteSpace() -> String {
    var result = String.UnicodeScalarView()
    var pendingSpace = false
    for scalar in unicodeScalars {
      if scalar.properties.isWhitespace {
        pendingSpace = !result.isEmpty
      } else {
        if pendingSpace { result.append(" ") }
        pendingSpace = false
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// The text without spaces, tabs and line breaks at either end.
  func trimmingSpaces() -> String {
    let scalars = unicodeScalars
    let isSpace = { (scalar: Unicode.Scalar) in scalar.properties.isWhitespace }
    guard let start = scalars.firstIndex(where: { !isSpace($0) }),
      let end = scalars.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(scalars[start...end])
  }
}
