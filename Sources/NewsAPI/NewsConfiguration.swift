/// How the news client behaves, with its defaults written here once: what the settings file, the flags and the
/// help text start from.
public struct NewsConfiguration: Sendable, Equatable {
  /// Seconds an answer stays fresh in the cache, by kind.
  public struct TimeToLive: Sendable, Equatable {
    /// `top-headlines` answers: an hour.
    public var headlines: Double = 3600
    /// `everything` answers: an hour.
    public var search: Double = 3600
    /// The sources list: a week.
    public var sources: Double = 7 * 86400

    public init() {}

    /// The time to live of answers of this kind (`headlines`, `search`, `sources`); 0 for any other.
    public func seconds(forKind kind: String) -> Double {
      switch kind {
      case "headlines": return headlines
      case "search": return search
      case "sources": return sources
      default: return 0
      }
    }
  }

  /// The service's base URL.
  public var apiBase = "https://newsapi.org"
  /// Seconds each answer stays fresh.
  public var timeToLive = TimeToLive()
  /// The plan's requests per rolling 24 hours: 100, the free plan.
  public var dailyBudget = 100
  /// The plan's requests per rolling 12 hours: 50, the free plan.
  public var halfDayBudget = 50
  /// Seconds allowed for each request, its connection, its one retry and any redirect included: 30.
  public var requestTimeout: Double = 30
  /// Requests in flight at once: 32.
  public var concurrency = 32
  /// Which provider answers headlines: `auto` (a country's feeds, else NewsAPI where it has a route and a key
  /// is set, else GDELT).
  public var provider = ProviderChoice.auto
  /// GDELT's base URL: its public host (no key).
  public var gdeltBase = "https://api.gdeltproject.org"
  /// Seconds between two GDELT requests, across the processes sharing the cache: 5, as GDELT asks of clients.
  public var gdeltSpacing: Double = 5
  /// How far back GDELT looks for a country's articles (its `timespan`): a day.
  public var gdeltTimespan = "1d"
  /// The most GDELT requests one headlines call sends (packed requests, then follow-ups): 12.
  public var gdeltRequestLimit = 12
  /// The longest a request waits for its GDELT turn, in seconds: none for the command line, which shows its
  /// plan and waits; a server sets `serviceGDELTWait`, so that a burst of requests is told when to come back
  /// instead of being held past its client's patience. A turn further away fails its countries (`quota`).
  public var gdeltWaitLimit: Double? = nil
  /// The server's `gdeltWaitLimit`: 10 seconds, two turns at the default spacing.
  public static let serviceGDELTWait: Double = 10

  public init() {}

  /// The defaults.
  public static let defaults = NewsConfiguration()
}
