import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

@Suite("Random flights with a real receiver keep the invariants and the truth")
struct ReceiverFlightTests {
    /// `RUNWAY_RECEIVER_TRACE=<seed>`: one flight, a line for every input and command with the
    /// flight's figures after it, and its truth.
    @Test(.enabled(if: getenv("RUNWAY_RECEIVER_TRACE") != nil)) func trace() {
        let seed = getenv("RUNWAY_RECEIVER_TRACE").flatMap { UInt64(String(cString: $0)) } ?? 1
        print(ReceiverFlight.problems(seed: seed, trace: true).joined(separator: "\n"))
    }

    /// Kinds of problem found and not fixed yet, each its own known issue (on 2100 flights,
    /// `RUNWAY_RANDOM_FLIGHTS=7000`, 24 flights show one: 10 distance short, 6 moving time
    /// short, 8 distance long, 3 moving time long).
    /// Traced:
    /// - distance and moving time short: a rider who sped
    ///   up as the fixes went out and was paused inside the dropout, the share before the pause
    ///   measured at the last fix's speed (541: 98 m short; sharing the line by both fixes'
    ///   speeds traded it for 739, whose dropout crossed a turn); a slow walk (1.1 m/s, positions
    ///   only) after a resume, too short for the stillness detector to confirm before the
    ///   runner stood (245: 29 m and 26 s); a walker's set-off of 13–26 s from a stand,
    ///   positions only, that the stillness detector cannot tell from the receiver's wander
    ///   (1517, 1744).
    /// - distance and moving time long: positions-only flights near their bound (844, 521: a
    ///   set-off's lag credited, long elsewhere), not traced further; 1530, long steps of a
    ///   moving positions-only track counted past their chords (bounding them costs the
    ///   cross-country-ski recording 1.5 % against its device); 1131, a positions-only run
    ///   that stops from 4 m/s 22 s after a dropout: the filtered speed runs on 24.5 m past the
    ///   stop with 8 s of moving time (not traced further); the flight reads its truth up to
    ///   then (+0.2 m), and before, its set-off's lag, lost at a user's pause 11 s into it
    ///   (18.5 m), offset that.
    static let knownOpen = ["distance shorter than the truth allows by # m", "moving time shorter than the truth allows by # s",
                            "distance longer than the truth allows by # m",
                            "moving time longer than the truth allows by # s"]

    /// Of the default 150 flights, how many show a `knownOpen` kind: more is a regression.
    static let openFlightsAtMost = 6

    /// Random flights (3 in 10 of `RUNWAY_RANDOM_FLIGHTS`: 150 for its default 500) keep every invariant and
    /// what the truth allows, but the kinds known to be open.
    @Test func receiverFlightsKeepTheInvariantsAndTheTruth() {
        let count = UInt64(getenv("RUNWAY_RANDOM_FLIGHTS").flatMap { Int(String(cString: $0)) }.map { max(1, $0 * 3 / 10) } ?? 150)
        RandomFlightInvariantTests.expectOnlyKnownKinds(count: count, defaultCount: 150, knownOpen: Self.knownOpen,
                                                        openFlightsAtMost: Self.openFlightsAtMost, problems: { ReceiverFlight.problems(seed: $0) })
    }
}
