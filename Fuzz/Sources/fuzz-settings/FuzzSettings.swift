import FuzzDriver
import NewsAPI

/// The settings file: read, or refused with a sentence; what is read validates again.
func fuzzSettings(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
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
