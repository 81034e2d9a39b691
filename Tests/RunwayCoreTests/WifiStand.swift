#if canImport(Glibc)
import Glibc
#endif
@testable import RunwayCore
import RunwaySim

/// A phone standing indoors on Wi-Fi or cell fixes: no Doppler speed, a coarse stated accuracy
/// (`h_acc`), and a position that holds for some seconds, then hops: between the positions of a
/// few access points (`aps`, 20–40 m apart), or to a random point within the accuracy circle
/// (`uniform`). The runner never moves.
struct WifiStand: CustomStringConvertible {
    enum Pattern: CustomStringConvertible {
        /// `count` access-point positions, 20–40 m from each other, within 25 m of the true one an axis.
        case aps(Int)
        /// A point uniform within the `h_acc` circle round the true position at each hop.
        case uniform

        var description: String {
            switch self {
            case .aps(let n): "\(n) APs"
            case .uniform: "uniform"
            }
        }
    }

    var pattern: Pattern
    /// The stated accuracy, metres (each hop's varies by up to ±10 % round it).
    var hAccM: Double
    /// Seconds between fixes.
    var fixEveryS: Double
    /// Seconds between hops, drawn uniformly from this range at each hop.
    var hopS: ClosedRange<Double> = 3...10
    /// White jitter on every fix round the hop's position, metres an axis (0: the same position
    /// repeated until the next hop, as a fused provider repeats its cached fix).
    var jitterM = 0.0
    var seconds = 600.0
    var seed: UInt64
    var lat = 52.37, lon = 4.89

    var description: String {
        "\(pattern), h_acc \(hAccM), every \(fixEveryS) s, hop \(hopS), jitter \(jitterM), seed \(seed) at (\(lat), \(lon))"
    }

    /// The fixes, from `t0`.
    func fixes(from t0: Double = 1_700_000_000) -> [Fix] {
        var rng = SimRandom(seed: seed, stream: 78)
        var aps: [(e: Double, n: Double)] = []
        if case .aps(let count) = pattern {
            // Positions 20–40 m from each other (drawn until every pair is), round the true one.
            repeat {
                aps = (0..<count).map { _ in (e: (rng.uniform() - 0.5) * 50, n: (rng.uniform() - 0.5) * 50) }
            } while !aps.indices.allSatisfy { i in
                aps.indices.allSatisfy { j in
                    let d = ((aps[i].e - aps[j].e) * (aps[i].e - aps[j].e) + (aps[i].n - aps[j].n) * (aps[i].n - aps[j].n)).squareRoot()
                    return i == j || (20...40).contains(d)
                }
            }
        }
        var out: [Fix] = []
        var hopAt = 0.0, here = (e: 0.0, n: 0.0), acc = hAccM, ap = -1
        var t = 0.0
        while t <= seconds {
            if t >= hopAt {
                switch pattern {
                case .aps:
                    var next = Int(rng.below(UInt64(aps.count)))
                    if aps.count > 1 { while next == ap { next = Int(rng.below(UInt64(aps.count))) } }
                    ap = next
                    here = aps[next]
                case .uniform:
                    let r = hAccM * rng.uniform().squareRoot(), a = 2 * Double.pi * rng.uniform()
                    here = (r * sin(a), r * cos(a))
                }
                acc = hAccM * (0.9 + 0.2 * rng.uniform())
                hopAt = t + hopS.lowerBound + (hopS.upperBound - hopS.lowerBound) * rng.uniform()
            }
            var e = here.e, n = here.n
            if jitterM > 0 { e += jitterM * rng.gaussian(); n += jitterM * rng.gaussian() }
            let p = WGS84.offset(lat: lat, lon: lon, east: e, north: n)
            out.append(Fix(t: t0 + t, lat: p.lat, lon: p.lon, hAcc: acc))
            t += fixEveryS
        }
        return out
    }
}


/// Replays `fixes` through a whole flight (start at the first; no stop): the flight computer after.
func replayFixes(_ fixes: [Fix], config: EngineConfig) throws -> FlightComputer {
    var core = FlightComputer(config: config)
    var events: [Event] = []
    guard let first = fixes.first else { return core }
    try core.command(.start, at: first.t, wallClock: .nan, events: &events)
    for f in fixes {
        try core.process(.fix(f), wallClock: .nan, events: &events)
        events.removeAll(keepingCapacity: true)
    }
    return core
}
