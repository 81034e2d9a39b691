import Testing
@testable import RunwayCore

@Suite("Altitude gate")
struct AltitudeGateTests {
    @Test func aJunkFirstAltitudeDoesNotLockTheGateOut() {
        var g = AltitudeGate()
        let first = g.accepts(400, at: 0)         // junk, but nothing to compare with yet
        #expect(first)
        var accepted: [Double] = []
        for i in 1...30 where g.accepts(50 + Double(i) * 0.1, at: Double(i)) { accepted.append(Double(i)) }
        #expect(accepted.first.map { $0 <= 12 } == true, "re-anchored at \(accepted.first ?? -1) s")
        #expect(accepted.count >= 18)
    }

    @Test func missingAltitudesAreNeverAccepted() {
        var g = AltitudeGate()
        let missing = g.accepts(.nan, at: 0)
        let present = g.accepts(10, at: 1)
        #expect(!missing && present)
    }

    @Test func aClimbAsFastAsAnyoneClimbsIsAccepted() {
        var g = AltitudeGate()
        // 5 m/s plus the 10 m allowance: the fastest believable change.
        #expect(g.accepts(100, at: 0) == true)
        #expect(g.accepts(115, at: 1) == true)
        #expect(g.accepts(140, at: 4) == true)
        #expect(g.accepts(200, at: 5) == false)           // 60 m in a second
        #expect(!g.reanchored)
    }

    @Test func refusedAltitudesReanchorOnlyOnceEnoughOfThemAgreeForTenSeconds() {
        var g = AltitudeGate()
        #expect(g.accepts(55, at: 0) == true)
        // Three agreeing refusals within a few seconds are not enough: a settling receiver's junk.
        for t in 1...3 { #expect(g.accepts(142, at: Double(t)) == false) }
        var reanchoredAt: Double? = nil
        for t in 4...15 where g.accepts(142, at: Double(t)) {
            if reanchoredAt == nil { reanchoredAt = Double(t); #expect(g.reanchored) }
        }
        #expect(reanchoredAt == 11)                // 10 s after the first refusal
        #expect(g.accepts(143, at: 16) == true)
        #expect(!g.reanchored)
    }

    @Test func disagreeingRefusalsStartTheCandidatesOver() {
        var g = AltitudeGate()
        #expect(g.accepts(55, at: 0) == true)
        for t in 1...14 {                          // junk that jumps about never re-anchors
            #expect(g.accepts(t % 2 == 0 ? 142 : 300, at: Double(t)) == false)
        }
    }
}
