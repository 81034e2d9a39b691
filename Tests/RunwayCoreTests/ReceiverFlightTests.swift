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
    /// `RUNWAY_RANDOM_FLIGHTS=7000`: 90 distance short, 41 moving time short, 11 max speed above
    /// the fastest Doppler, 6 distance long, 1 moving time long). Traced:
    /// - distance and moving time short: a pause while the fixes are out (a tunnel) loses the
    ///   dropout's cruise share before the pause: the step across a pause counts nothing of it,
    ///   where a step across a resume counts the leg's share (receiver flight 3: 88 m and 33 s);
    ///   and a runner who sets off while auto-paused, straight into a dropout, then pauses inside
    ///   it: the hold becomes the user's and the auto-resume across the dropout never comes (the
    ///   same flight: 61 m and 23 s). Flights 83, 116 (a ride without Doppler, 6 resumes, no
    ///   dropout: 3 % short) and 120 are not traced.
    /// - max speed above the fastest Doppler speed: receiver flight 335, a runner braking into a
    ///   26 s dropout (under `gap_s`: one step) and standing through it; the step's displacement
    ///   says standing (no moving time) but it counts the trapezoid of its end speeds, 36 m, so
    ///   the leg's average sets the max. Bounding every such long step by its displacement cost
    ///   the real recordings 41–198 m (2013 Forerunner −67 m: they carry real distance), and
    ///   only the stop's case would be a special case: open. Distance long, moving time long and
    ///   the other nine: not traced.
    static let knownOpen = ["distance shorter than the truth allows by # m", "moving time shorter than the truth allows by # s",
                            "max speed # above the fastest Doppler speed #", "distance longer than the truth allows by # m",
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
