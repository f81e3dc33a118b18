import Foundation
import Store

/// What NewsAPI has said about `top-headlines?country=` for each country, so that a command goes straight to
/// the route that answers.
///
/// Since 2024 the service answers that route only for `us` and returns an empty page for the 53 others; that
/// is shipped as the default, so a first run probes nobody. What a run observes is kept in the cache with its
/// date; an observed "empty" is probed again once it is a week old, and `probe` asks again now.
public struct RouteKnowledge: Sendable {
  public enum Answer: String, Sendable {
    /// The route returned articles.
    case answers
    /// The route returned an empty page.
    case empty
  }

  /// How long an observed "empty" stands before the route is asked again.
  public static let reprobeAfter: TimeInterval = 7 * 86400
  /// The countries whose `country=` route is known to answer, before any observation.
  public static let shippedAnswering: Set<String> = ["us"]

  let database: (any ResponseStore)?

  public init(database: (any ResponseStore)?) { self.database = database }

  static func key(_ code: String) -> String { "route:top-headlines?country=\(code)" }

  /// What is known of the route for `code`: the last observation, else the shipped default (undated).
  public func answer(for code: String) -> (answer: Answer, observedAt: Date?) {
    if let stored = database?.lookup(Self.key(code)),
      let answer = Answer(rawValue: String(decoding: stored.body, as: UTF8.self))
    {
      return (answer, stored.storedAt)
    }
    return (Self.shippedAnswering.contains(code) ? .answers : .empty, nil)
  }

  /// Whether a run should ask `country=` for `code`: it is known to answer, or an observed "empty" is stale.
  public func asksCountryRoute(_ code: String, now: Date = Date(), probe: Bool = false) -> Bool {
    if probe { return true }
    let (answer, observedAt) = self.answer(for: code)
    if answer == .answers { return true }
    guard let observedAt else { return false }
    return now.timeIntervalSince(observedAt) >= Self.reprobeAfter
  }

  /// How old a kept observation must be before the same answer is written again over it.
  public static let rewriteAfter: TimeInterval = 86400

  /// Keeps an observation, dated now. The same answer observed within a day of the kept one is not written
  /// again: every run that reads the route's answer from the cache observes it, and a write would make each of
  /// them a cache transaction (a checkpoint and fsyncs at close). An "empty" may so be re-probed up to a day
  /// before its week is over.
  public func record(_ answer: Answer, for code: String, at date: Date = Date()) {
    let body = Array(answer.rawValue.utf8)
    if let kept = database?.lookup(Self.key(code)), kept.body == body {
      let since = date.timeIntervalSince(kept.storedAt)
      if since >= 0 && since < Self.rewriteAfter { return }
    }
    database?.store(Self.key(code), kind: "route", body: body, at: date)
  }
}
