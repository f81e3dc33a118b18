import AtlasSettings
import FuzzDriver
import NewsAPI

/// The settings file: read as TOML (TOMLKit), or refused with one sentence; what is read validates again; and
/// every value of a file that reads can be changed and removed in place, and a new one added, leaving the rest
/// of the file's settings as they were (`edited` reads its own output back and compares).
func fuzzSettings(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  do {
    let file = try SettingsFile.parse(bytes, path: "fuzz.toml")
    for entry in file.entries {
      precondition(entry.line >= 1 && entry.line <= 1 + bytes.count(where: { $0 == 0x0A }))
      _ = try file.edited(entry.key, to: .string("a \"new\" value\\"))
      _ = try file.edited(entry.key, to: .integer(-3))
      _ = try file.edited(entry.key, to: nil)
    }
    _ = try file.edited("fuzz-new-key", to: .boolean(true))
  } catch {
    // A file that reads must take any edit: a refusal here is the in-place editor's failure.
    precondition(error.kind == .configuration, error.description)
    precondition(!error.description.isEmpty && !error.description.contains("\n"))
  }
  do {
    let settings = try Settings.parse(bytes, path: "fuzz.toml")
    for (key, value) in settings.values { precondition((try? key.validate(value)) == value) }
  } catch {
    precondition(!error.description.isEmpty)
  }
  return 0
}

@main enum Main {
  static func main() { runFuzzer { data, size in fuzzSettings(data, size) } }
}
