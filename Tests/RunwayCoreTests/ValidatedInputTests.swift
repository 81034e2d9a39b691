import Testing
@testable import RunwayCore

@Suite("ValidatedInput: the in-range fast path")
struct ValidatedInputTests {
    /// Each field's value drawn from its range's edges, just outside them, NaN, ±infinity and -0.
    private func edgyFix(_ rng: inout SeededRandom) -> Fix {
        func pick(_ lo: Double, _ hi: Double) -> Double {
            let values = [lo, hi, (lo + hi) / 2, lo.nextDown, hi.nextUp, -1, -0.0, .nan, .infinity, -.infinity]
            return Bool.random(using: &rng) ? (lo + hi) / 3 : values[Int.random(in: 0..<values.count, using: &rng)]
        }
        var f = Fix(t: pick(0, 1e11.nextDown), lat: pick(-90, 90), lon: pick(-180, 180), alt: pick(-1e6, 1e6),
                    speed: pick(0, 1e6), course: pick(0, 360), hAcc: pick(0, 1e9), vAcc: pick(0, 1e9))
        f.hr = pick(0, 300); f.cadence = pick(0, 400); f.power = pick(0, 5000)
        return f
    }

    private func same(_ a: Fix, _ b: Fix) -> Bool {
        let x = [a.t, a.lat, a.lon, a.alt, a.speed, a.course, a.hAcc, a.vAcc, a.hr, a.cadence, a.power]
        let y = [b.t, b.lat, b.lon, b.alt, b.speed, b.course, b.hAcc, b.vAcc, b.hr, b.cadence, b.power]
        return zip(x, y).allSatisfy { $0.bitPattern == $1.bitPattern || ($0.isNaN && $1.isNaN) }
    }

    @Test func theFastPathTakesOnlyFixesTheFullCheckReturnsUnchanged() {
        var rng = SeededRandom(seed: 20)
        var fast = 0
        for _ in 0..<20_000 {
            let f = edgyFix(&rng)
            let full: Result<Fix, RunwayError>
            do throws(RunwayError) { full = .success(try ValidatedInput.checkedFix(f)) } catch { full = .failure(error) }
            let checked: Result<Fix, RunwayError>
            do throws(RunwayError) { checked = .success(try ValidatedInput.fix(f)) } catch { checked = .failure(error) }
            if ValidatedInput.inRange(f) {
                fast += 1
                guard case .success(let g) = full else { Issue.record("in range but refused: \(f)"); continue }
                #expect(same(g, f))
            }
            switch (full, checked) {
            case (.success(let a), .success(let b)): #expect(same(a, b))
            case (.failure(let a), .failure(let b)): #expect(a.status == b.status && a.message == b.message)
            default: Issue.record("the paths disagree on \(f)")
            }
        }
        #expect(fast > 500 && fast < 19_000)   // both paths were exercised
    }

    @Test func aTimeIsInRangeFromZeroToBelow1e11AndNothingElse() {
        func accepted(_ t: Double) -> Bool {
            do throws(RunwayError) { try ValidatedInput.time(t); return true } catch { return false }
        }
        #expect([0, -0.0, 1, 1_700_000_000, 1e11.nextDown].allSatisfy(accepted))
        #expect(![-1, (0.0).nextDown, 1e11, .nan, .infinity, -.infinity].contains(where: accepted))
        do throws(RunwayError) { try ValidatedInput.time(-1); Issue.record("accepted") } catch {
            #expect(error.status == .input && error.message == "t -1.0 (1969-12-31T23:59:59Z) out of range (unix seconds, 0 <= t < 1e11: 1970-01-01 to 5138-11-16)")
        }
        // A recording's placeholder time (gpxpy's Mojstrovka.gpx: 1901-12-13) is named as the date it is.
        do throws(RunwayError) { try ValidatedInput.time(-2_147_483_647.793); Issue.record("accepted") } catch {
            #expect(error.message.hasPrefix("t -2147483647.793 (1901-12-13T20:45:52.207Z) out of range"), "\(error.message)")
        }
        do throws(RunwayError) { try ValidatedInput.time(.nan); Issue.record("accepted") } catch {
            #expect(error.message == "t nan out of range (unix seconds, 0 <= t < 1e11: 1970-01-01 to 5138-11-16)")
        }
    }
}
