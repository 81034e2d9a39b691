import Testing
@testable import RunwayCore
import RunwaySim

#if canImport(Glibc)
import Glibc
#endif

/// A phone standing indoors on Wi-Fi or cell fixes (`WifiStand`): coarse `h_acc`, no Doppler,
/// a position that hops between a few access points or within its accuracy circle.
@Suite("Standing indoors on Wi-Fi fixes")
struct WifiStandingTests {
    static func configs() -> [(String, EngineConfig)] {
        var out: [(String, EngineConfig)] = []
        for activity in Activity.allCases {
            for autoPause in [false, true] {
                var c = EngineConfig(activity: activity)
                c.autoPause.enabled = autoPause
                c.requiredAccuracyM = 100   // (h_acc 65 passes the gate)
                out.append(("\(activity) ap \(autoPause ? "on " : "off")", c))
            }
        }
        return out
    }

    static func stands(seeds: [UInt64]) -> [WifiStand] {
        var out: [WifiStand] = []
        for seed in seeds {
            for pattern in [WifiStand.Pattern.aps(2), .aps(3), .aps(4), .uniform] {
                for hAcc in [20.0, 40, 65] {
                    for every in [1.0, 5] {
                        out.append(WifiStand(pattern: pattern, hAccM: hAcc, fixEveryS: every, seed: seed))
                    }
                }
            }
        }
        return out
    }

    /// Seeds looked at while choosing the mechanism (`figures`), and seeds held back from it.
    static let tuningSeeds: [UInt64] = [1, 2, 3, 4, 5]
    static let heldBackSeeds: [UInt64] = [7_801, 7_802, 7_803, 7_804, 7_805, 7_806]

    /// Ten minutes standing indoors on Wi-Fi fixes, every profile with auto-pause on and off, on
    /// the held-back seeds at places away from the tuning one, and with hops whose timing and
    /// jitter were not tuned on (every 2–15 s; 1.5 m jitter an axis on each fix): under 5 m and
    /// 10 s of moving time each. Before the decision asked whether the fixes moved beyond their
    /// stated accuracy, the tuning seeds read up to 1 152 m and 565 s (the filtered speed of
    /// fixes hopping 20–80 m every few seconds, metres a second, read as a walker's; an
    /// auto-resume on it started the flight moving).
    @Test(arguments: [false, true])
    func standingIndoorsOnWifiFixesAddsUnderFiveMetres(heldBackHops: Bool) throws {
        let places: [(Double, Double)] = [(1.29, 103.85), (-33.92, 18.42), (64.15, -21.94), (-16.50, 179.99), (40.71, -74.01), (52.37, 4.89)]
        var stands = Self.stands(seeds: Self.heldBackSeeds)
        for i in stands.indices {
            (stands[i].lat, stands[i].lon) = places[Int(stands[i].seed % UInt64(places.count))]
            if heldBackHops {
                stands[i].hopS = 2...15
                stands[i].jitterM = 1.5
            }
        }
        for (name, config) in Self.configs() {
            for stand in stands {
                let core = try replayFixes(stand.fixes(), config: config)
                #expect(core.distance < 5 && core.movingS < 10, "\(name), \(stand): \(core.distance) m, \(core.movingS) s moving")
            }
        }
    }

    /// A slow walk (1.2 m/s) whose fixes say `h_acc` 40 m (or 20 and 40 by turns, 30 s each: an
    /// urban phone's GPS, its error the simulator's receiver) still measures its distance within
    /// the positions-only bound (1.5 %), with auto-pause on and off, on the tuning and held-back
    /// trials: fixes that move on beyond their accuracy are movement, however coarse it is said
    /// to be. Measured −0.63 % … +0.41 % (before: −0.48 % … +0.40 %; the most lost, 0.65 %, with
    /// auto-pause on, whose resume waits for the fixes to move 3 σ).
    @Test(arguments: [false, true])
    func aSlowWalkWithCoarseAccuracyStillCountsItsDistance(autoPause: Bool) throws {
        for trial in SimTrials.tuning + SimTrials.heldBack {
            var c = trial.config(SimConfig(motion: .walk))
            c.paceMinPerKm = 1000 / 1.2 / 60
            c.includeSpeed = false
            c.includeCourse = false
            let run = simulate(c)
            for varying in [false, true] {
                var config = EngineConfig(activity: .walk)
                config.autoPause.enabled = autoPause
                let fixes = run.fixes.enumerated().map { i, f in
                    Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, hAcc: varying ? (i / 30 % 2 == 0 ? 20 : 40) : 40)
                }
                var core = try replayFixes(fixes, config: config)
                var events: [Event] = []
                try core.command(.stop, at: fixes.last?.t ?? 0, wallClock: .nan, events: &events)
                let e = relativeError(core.distance, run.truthDistanceM)
                if getenv("RUNWAY_WIFI_FIGURES") != nil { print("walk-figure \(trial.seed) varying \(varying) ap \(autoPause): \(e * 100)%") }
                #expect(abs(e) < 0.015, "\(trial), h_acc \(varying ? "20 and 40" : "40"), auto-pause \(autoPause): \(e * 100)% (\(core.distance) m of \(run.truthDistanceM))")
            }
        }
    }

    /// Figures (RUNWAY_WIFI_FIGURES=1): distance and moving time of each stand, the worst per
    /// configuration and pattern.
    @Test func figures() throws {
        guard getenv("RUNWAY_WIFI_FIGURES") != nil else { return }
        let seeds = Self.tuningSeeds
        for (name, config) in Self.configs() {
            var worst: [String: (d: Double, s: Double, what: String)] = [:]
            var total = (d: 0.0, s: 0.0, n: 0.0)
            for stand in Self.stands(seeds: seeds) {
                let core = try replayFixes(stand.fixes(), config: config)
                let key = "\(stand.pattern) h\(Int(stand.hAccM)) e\(Int(stand.fixEveryS))"
                let w = worst[key] ?? (0, 0, "")
                if core.distance > w.d || core.movingS > w.s {
                    worst[key] = (max(w.d, core.distance), max(w.s, core.movingS), "seed \(stand.seed)")
                }
                total.d += core.distance; total.s += core.movingS; total.n += 1
            }
            print("== \(name): mean \(total.d / total.n) m \(total.s / total.n) s")
            for (k, v) in worst.sorted(by: { $0.key < $1.key }) {
                print("  \(name) \(k): worst \((v.d * 10).rounded() / 10) m \(v.s.rounded()) s")
            }
        }
    }
}
