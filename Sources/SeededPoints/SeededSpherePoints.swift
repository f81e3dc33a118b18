import GeoIndex

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A reproducible stream of points uniform on the sphere, for tests, benchmarks and demos (its own module, so
/// that GeoIndex's API holds only the index).
///
/// It is the generator of the shared reference fixtures (`points-10k.json`, `queries-1k.json`): mulberry32
/// (Tommy Ettinger, public domain) gives 32-bit words; two words make a 53-bit double in [0, 1); two doubles make
/// `longitude = u1 · 360 − 180`, `latitude = asin(2 · u2 − 1)` in degrees. Seed 1 gives the fixtures' points and
/// seed 2 their queries (up to an ulp of `asin` between maths libraries).
public struct SeededSpherePoints: IteratorProtocol, Sequence, Sendable {
  private var state: UInt32

  public init(seed: UInt32) { state = seed }

  /// The next 32-bit output of mulberry32.
  public mutating func nextWord() -> UInt32 {
    state &+= 0x6D2B_79F5
    var t = state
    t = (t ^ (t >> 15)) &* (t | 1)
    t ^= t &+ ((t ^ (t >> 7)) &* (t | 61))
    return t ^ (t >> 14)
  }

  /// The next double in [0, 1), 53 bits from two words.
  public mutating func nextUnit() -> Double {
    let high = Double(nextWord() >> 5)
    let low = Double(nextWord() >> 6)
    return (high * 67_108_864 + low) / 9_007_199_254_740_992
  }

  public mutating func next() -> GeoPoint? {
    let u1 = nextUnit()
    let u2 = nextUnit()
    return GeoPoint(uncheckedLatitude: asin(2 * u2 - 1) * 180 / Double.pi, longitude: u1 * 360 - 180)
  }

  /// The first `count` points of the stream for `seed`.
  public static func make(count: Int, seed: UInt32) -> [GeoPoint] {
    var generator = SeededSpherePoints(seed: seed)
    return (0..<count).map { _ in generator.next()! }
  }
}
