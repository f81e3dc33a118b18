/// An absolute `http` or `https` URL, split into the parts the client checks before it sends anything.
///
/// Stricter than RFC 3986 on purpose: printable ASCII only (no space, no control character, nothing that
/// could end a request line or a header), a host of letters, digits, `-`, `.`, `_`, `~` (or a bracketed
/// IPv6 address), a port of 1 to 65535, and at most 1 MiB in all (a server may well refuse a long query:
/// that is its answer to give). What is shown to people goes through `redacted(_:)`, which drops any
/// `user:password@`.
public struct HTTPURL: Sendable, Equatable {
  /// `http` or `https`, lowercased.
  public let scheme: String
  /// The host as written, lowercased (IPv6 addresses keep their brackets).
  public let host: String
  /// The port, or nil for the scheme's own (80, 443).
  public let port: Int?
  /// Whether the URL carries `user[:password]@` before its host.
  public let hasUserInfo: Bool
  /// The path, `""` or starting with `/`.
  public let path: String
  /// The text after `?` (without it), or nil when there is no `?`.
  public let query: String?
  /// The text after `#` (without it), or nil when there is no `#`.
  public let fragment: String?

  /// Parses `text`, or nil when it is not an absolute http(s) URL with a host by the rules above.
  public init?(_ text: String) {
    guard !text.isEmpty, text.utf8.count <= 1 << 20,
      text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else { return nil }
    let lowered = text.lowercased()
    let scheme: String
    if lowered.hasPrefix("http://") {
      scheme = "http"
    } else if lowered.hasPrefix("https://") {
      scheme = "https"
    } else {
      return nil
    }
    let afterScheme = text.dropFirst(scheme.count + 3)
    let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
    var authority = afterScheme[..<authorityEnd]
    var rest = afterScheme[authorityEnd...]
    hasUserInfo = authority.contains("@")
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    var hostText = authority
    var portText: Substring? = nil
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      hostText = authority[...close]
      let inside = authority[authority.index(after: authority.startIndex)..<close]
      guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        return nil
      }
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return nil }
        portText = after.dropFirst()
      }
    } else {
      if let colon = authority.lastIndex(of: ":") {
        hostText = authority[..<colon]
        portText = authority[authority.index(after: colon)...]
      }
      // No `%`: a percent-encoded host could decode to anything, a line break included.
      let allowed = { (c: Character) in c.isLetter || c.isNumber || "-._~".contains(c) }
      guard !hostText.isEmpty, hostText.allSatisfy(allowed) else { return nil }
    }
    if let portText {
      guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isNumber),
        let port = Int(portText), (1...65535).contains(port)
      else { return nil }
      self.port = port
    } else {
      self.port = nil
    }
    self.scheme = scheme
    host = hostText.lowercased()
    if let hash = rest.firstIndex(of: "#") {
      fragment = String(rest[rest.index(after: hash)...])
      rest = rest[..<hash]
    } else {
      fragment = nil
    }
    if let mark = rest.firstIndex(of: "?") {
      query = String(rest[rest.index(after: mark)...])
      rest = rest[..<mark]
    } else {
      query = nil
    }
    path = String(rest)
  }

  /// `scheme://host:port`, the port always written: two URLs may share a key only when these are equal.
  public var origin: String { "\(scheme)://\(host):\(port ?? (scheme == "https" ? 443 : 80))" }

  /// `text` with any `user[:password]@` of its authority removed: how a URL is shown in errors, logs and
  /// cache keys. Text that is not a URL (no `://`) is returned as it is.
  public static func redacted(_ text: String) -> String {
    guard let start = authorityStart(text) else { return text }
    let authority = text[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard let at = authority.lastIndex(of: "@") else { return text }
    return String(text[..<start]) + String(text[text.index(after: at)...])
  }

  /// `host[:port]` of `text` (no scheme, no user information, no path), for messages.
  public static func hostAndPort(of text: String) -> String {
    let redacted = redacted(text)
    guard let start = authorityStart(redacted) else { return redacted }
    return String(redacted[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
  }

  /// Where the authority begins: just after the first `://`.
  private static func authorityStart(_ text: String) -> String.Index? {
    var index = text.startIndex
    while index < text.endIndex {
      if text[index...].hasPrefix("://") { return text.index(index, offsetBy: 3) }
      index = text.index(after: index)
    }
    return nil
  }
}

/// Text that came from elsewhere (a service, a header, a file), made safe to print on a terminal: C0 and C1
/// control characters and DEL become U+FFFD (tab, line feed, carriage return, vertical tab and form feed a
/// space), so an escape sequence in a title cannot reach the terminal and a line break cannot forge a line.
public func printable(_ text: String) -> String {
  guard text.unicodeScalars.contains(where: isControl) else { return text }
  var result = String.UnicodeScalarView()
  for scalar in text.unicodeScalars {
    if !isControl(scalar) {
      result.append(scalar)
    } else {
      result.append((0x09...0x0D).contains(scalar.value) ? " " : "\u{FFFD}")
    }
  }
  return String(result)
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
  scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
}

/// RFC 3986 percent-encoding of a query component: every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`).
public func queryEscaped(_ text: String) -> String {
  let hex = Array("0123456789ABCDEF".utf8)
  var bytes: [UInt8] = []
  bytes.reserveCapacity(text.utf8.count)
  for byte in text.utf8 {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      bytes.append(byte)
    default:
      bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
    }
  }
  return String(decoding: bytes, as: UTF8.self)
}
