import Testing
@testable import RunwayCore

/// `ClimbCounter` against a brute-force model of the same rules: the window, its box mean and
/// its middle mean recomputed from scratch at every sample (no running sums, no forward-only
/// pointers, no compaction), on random irregular series: equal times, long gaps, missing
/// altitudes and distances, windows of one sample, a distance window shorter than the time
/// window, the window changed mid-series (a fix's vertical accuracy), restarts (a change of
/// source) and settles in the middle; each extreme's stretch is found by scanning the means
/// themselves (no stack, no running sums).
@Suite("ClimbCounter: the incremental means against a brute-force model")
struct ClimbCounterReferenceTests {
    /// SplitMix64, so a failure reproduces.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func chance(_ p: Double) -> Bool { unit() < p }
    }

    /// The counter's rules with every mean recomputed from the window's samples.
    struct Model {
        var windowS = 0.0, windowM = Double.infinity, thresholdM = 3.0
        var samples: [(t: Double, d: Double, alt: Double)] = []
        var head = 0
        var doneGain = 0.0, doneLoss = 0.0, direction = 0, lastLevel = Double.nan
        var running = Double.nan, runningLevel = Double.nan
        var low = Double.nan, high = Double.nan
        var lead = Double.nan
        var gainM = 0.0, lossM = 0.0
        /// Every box mean counted since the restart and its middle mean (index k at k - 1).
        var means: [(x: Double, level: Double, n: Int)] = []
        var upper = ModelStretch(sign: 1), lower = ModelStretch(sign: -1)

        /// A stretch by the rule, from the means themselves: the extreme; the stretch the means
        /// after `start` up to `end`.
        struct ModelStretch {
            let sign: Double
            var best = -Double.infinity, start = 0, end = 0, closed = false, bestN = 1
            init(sign: Double) { self.sign = sign }
            mutating func begin(_ i: Int, _ means: [(x: Double, level: Double, n: Int)]) {
                best = -.infinity; start = i - 1; end = i - 1; closed = false
                add(i, means, scale: 0)
            }
            mutating func add(_ i: Int, _ means: [(x: Double, level: Double, n: Int)], scale: Double) {
                let v = sign * means[i - 1].x, n = Double(means[i - 1].n)
                if v > best {
                    best = v; closed = false; end = i; bestN = means[i - 1].n
                    let margin = scale * (2 / n).squareRoot()
                    if let j = (start + 1 ... i).last(where: { sign * means[$0 - 1].x < best - margin }) { start = max(start, j) }
                } else if !closed {
                    if v < best - scale * (1 / Double(bestN) + 1 / n).squareRoot() { closed = true } else { end = i }
                }
            }
            func level(_ means: [(x: Double, level: Double, n: Int)]) -> Double {
                end > start ? means[start ..< end].reduce(0) { $0 + $1.level } / Double(end - start) : .nan
            }
        }

        /// Each sample's squared distance from the line through its neighbours (in time, within
        /// the spans), over 1 + α² + β², summed since the restart, and how many.
        var squares = 0.0, differences = 0
        /// Twice σ, σ² the mean of those; 0 before `noiseMinimum` of them.
        var scale: Double {
            guard differences >= ClimbCounter.noiseMinimum else { return 0 }
            return ClimbCounter.spreadZ * (squares / Double(differences)).squareRoot()
        }

        mutating func configure(windowS: Double, windowM: Double, thresholdM: Double) {
            self.windowS = max(0, windowS); self.windowM = max(0, windowM); self.thresholdM = max(0, thresholdM)
        }

        var window: ArraySlice<(t: Double, d: Double, alt: Double)> { samples[head...] }
        var box: Double { window.reduce(0) { $0 + $1.alt } / Double(window.count) }
        /// The samples from a tenth of the window's time span after its oldest to as much before
        /// its newest; the whole window's mean when none is there.
        var middle: Double {
            let oldest = window.first!.t, newest = window.last!.t
            let cut = (newest - oldest) * ClimbCounter.innerShare
            let inner = window.filter { $0.t >= oldest + cut && $0.t <= newest - cut }
            return inner.isEmpty ? box : inner.reduce(0) { $0 + $1.alt } / Double(inner.count)
        }

        mutating func add(alt: Double, t: Double, distanceM: Double, latest: Double) {
            guard alt.isFinite else { return }
            let d = distanceM.isFinite ? distanceM : (samples.last?.d ?? 0)
            samples.append((t, d, alt))
            if samples.count >= 3 {
                let a = samples[samples.count - 3], b = samples[samples.count - 2], c = samples[samples.count - 1]
                if c.t - a.t <= ClimbCounter.noiseSpanS, abs(c.d - a.d) <= ClimbCounter.noiseSpanM {
                    let f = c.t > a.t ? (b.t - a.t) / (c.t - a.t) : 0.5
                    let off = b.alt - (1 - f) * a.alt - f * c.alt
                    squares += off * off / (1 + (1 - f) * (1 - f) + f * f)
                    differences += 1
                }
            }
            while samples.count - head > 1, t - samples[head].t >= windowS || d - samples[head].d >= windowM { head += 1 }
            lead = latest.isFinite ? latest : .nan
            count(box, level: middle)
            publish()
        }

        mutating func settle() {
            var tail = self
            if let newest = tail.samples.last?.t {
                while tail.samples.count - tail.head > 1, newest - tail.samples[tail.head + 1].t >= tail.windowS * ClimbCounter.tailShare {
                    tail.head += 1
                    tail.count(tail.box, level: tail.middle)
                }
            }
            if tail.lead.isFinite {
                if tail.direction == 1 && tail.lead > tail.runningLevel { tail.runningLevel = tail.lead }
                if tail.direction == -1 && tail.lead < tail.runningLevel { tail.runningLevel = tail.lead }
            }
            tail.publish()
            gainM = max(gainM, tail.gainM); lossM = max(lossM, tail.lossM)
        }

        mutating func restart() {
            let (g, l) = (gainM, lossM)
            self = Model(windowS: windowS, windowM: windowM, thresholdM: thresholdM)
            doneGain = g; doneLoss = l; gainM = g; lossM = l
        }

        mutating func publish() {
            gainM = max(gainM, direction == 1 ? doneGain + max(0, runningLevel - lastLevel) : doneGain)
            lossM = max(lossM, direction == -1 ? doneLoss + max(0, lastLevel - runningLevel) : doneLoss)
        }

        mutating func count(_ x: Double, level: Double) {
            let threshold = max(thresholdM, 1e-9)
            let m = scale
            means.append((x, level, window.count))
            let i = means.count
            switch direction {
            case 1:
                if x > running { running = x }
                if running - x >= threshold {
                    doneGain += max(0, runningLevel - lastLevel)
                    lastLevel = runningLevel; running = x; direction = -1
                    lower.begin(i, means); runningLevel = lower.level(means)
                } else {
                    upper.add(i, means, scale: m); runningLevel = upper.level(means)
                }
            case -1:
                if x < running { running = x }
                if x - running >= threshold {
                    doneLoss += max(0, lastLevel - runningLevel)
                    lastLevel = runningLevel; running = x; direction = 1
                    upper.begin(i, means); runningLevel = upper.level(means)
                } else {
                    lower.add(i, means, scale: m); runningLevel = lower.level(means)
                }
            default:
                if !(x >= low) { low = x }
                if !(x <= high) { high = x }
                upper.add(i, means, scale: m); lower.add(i, means, scale: m)
                if high - low >= threshold {
                    direction = x == high ? 1 : -1
                    lastLevel = direction == 1 ? lower.level(means) : upper.level(means)
                    running = x; runningLevel = direction == 1 ? upper.level(means) : lower.level(means)
                }
            }
        }
    }

    /// The window settings a flight gives the counter: GPS at some trust, a barometer (60 m or
    /// 60 s), a window of one sample, a short one.
    static func settings(_ rng: inout SplitMix) -> (Double, Double, Double) {
        switch rng.next() % 5 {
        case 0: let trust = 0.5 + 1.5 * rng.unit(); return (300 * trust, .infinity, 6 * trust)
        case 1: return (60, 60, 1)
        case 2: return (0, .infinity, 3)
        case 3: return (5 + 20 * rng.unit(), .infinity, 0.5 + 3 * rng.unit())
        default: return (300, .infinity, 6)
        }
    }

    @Test(arguments: 0..<40)
    func theCountersMeansAreTheWindowsRecomputed(seed: Int) {
        var rng = SplitMix(state: UInt64(seed) &* 0x2545_F491_4F6C_DD1D &+ 1)
        var c = ClimbCounter(), m = Model()
        var (ws, wm, th) = Self.settings(&rng)
        c.configure(windowS: ws, windowM: wm, thresholdM: th); m.configure(windowS: ws, windowM: wm, thresholdM: th)
        var t = 1_700_000_000.0, d = 0.0, alt = 100 * rng.unit(), slope = 0.0
        var shown = (gain: 0.0, loss: 0.0)
        let n = 500 + Int(rng.next() % 2500)
        for k in 0..<n {
            // Irregular times: equal ones, 1 s, up to 5 s, now and then a gap of minutes.
            if rng.chance(0.1) {} else if rng.chance(0.02) { t += 60 + 900 * rng.unit() } else { t += rng.chance(0.5) ? 1 : 5 * rng.unit() }
            d += rng.chance(0.2) ? 0 : 8 * rng.unit()
            if rng.chance(0.01) { slope = 0.3 * (rng.unit() - 0.5) }
            alt += slope + (rng.unit() - 0.5)
            let noisy = alt + 6 * (rng.unit() - 0.5)
            let a = rng.chance(0.03) ? Double.nan : noisy
            let dist = rng.chance(0.03) ? Double.nan : d
            let latest = rng.chance(0.1) ? Double.nan : alt
            c.add(alt: a, t: t, distanceM: dist, latest: latest)
            m.add(alt: a, t: t, distanceM: dist, latest: latest)
            if rng.chance(0.003) { c.settle(); m.settle() }
            if rng.chance(0.003) {
                (ws, wm, th) = Self.settings(&rng)
                c.configure(windowS: ws, windowM: wm, thresholdM: th); m.configure(windowS: ws, windowM: wm, thresholdM: th)
            }
            if rng.chance(0.002) { c.restart(); m.restart() }
            #expect(abs(c.gainM - m.gainM) <= 1e-6 && abs(c.lossM - m.lossM) <= 1e-6,
                    "seed \(seed) sample \(k): counter \(c.gainM) \(c.lossM), model \(m.gainM) \(m.lossM)")
            #expect(c.gainM >= shown.gain && c.lossM >= shown.loss, "seed \(seed) sample \(k): went down")
            shown = (c.gainM, c.lossM)
            if abs(c.gainM - m.gainM) > 1e-6 || abs(c.lossM - m.lossM) > 1e-6 { return }
        }
        c.settle(); m.settle()
        #expect(abs(c.gainM - m.gainM) <= 1e-6 && abs(c.lossM - m.lossM) <= 1e-6,
                "seed \(seed) settled: counter \(c.gainM) \(c.lossM), model \(m.gainM) \(m.lossM)")
        #expect(c.gainM >= 0 && c.lossM >= 0)
    }
}
