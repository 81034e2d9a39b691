/// Heart-rate and cadence statistics, weighted by time: averages, maxima and time in zones.
///
/// Samples arrive at irregular times, so averaging the samples would weight a burst of them more
/// than a long steady stretch. Instead each sample's value **holds** from its time until the next
/// sample of the same kind, or until `staleAfterS` after it, whichever comes first; after that
/// the value is absent (a strap that fell silent is no heart rate). `advance(to:counting:)`
/// integrates the held values over time; only intervals advanced with `counting == true`
/// (cruise) add to the averages, the maxima and the zones.
///
/// - Heart rate: 0 bpm means no skin contact, so it is absent (it ends the previous value).
/// - Cadence: 0 steps/min is a real 0 (standing still): it is the current value and can be the
///   maximum, but time at 0 is left out of the average.
///
/// A sample also advances the statistics to its own time with the counting state of the latest
/// `advance`, so a host that feeds samples between advances loses nothing; call `advance` at
/// every phase change so the interval before it is counted (or not) as it should be.
///
/// ```swift
/// var s = SensorStats(hrMax: 190)
/// s.advance(to: 0, counting: true)
/// s.heartRate(120, at: 0)
/// s.heartRate(150, at: 4)
/// s.advance(to: 6, counting: true)
/// print(s.avgHrBpm)   // (120·4 + 150·2) / 6 = 130
/// ```
public struct SensorStats: Sendable {
    /// Lower bounds of heart-rate zones 1 to 5 as fractions of `hrMax`: zone 1 is 50–60%,
    /// zone 2 60–70%, zone 3 70–80%, zone 4 80–90%, zone 5 90% and above. Below 50% is
    /// `zoneSeconds[0]`; a bound belongs to the zone it starts.
    public static let zoneBounds: [Double] = [0.5, 0.6, 0.7, 0.8, 0.9]

    /// The maximum heart rate the zones are relative to, bpm.
    public let hrMax: Double
    /// How long a sample holds at most, seconds: an older one counts as absent.
    public let staleAfterS: Double

    /// ∫ heart rate dt over counted time, bpm·s.
    public private(set) var hrBeatsIntegral = 0.0
    /// Counted seconds with a valid heart rate.
    public private(set) var hrCoveredS = 0.0
    /// The highest heart rate held during counted time, or sampled in it, bpm; NaN before any.
    /// (A sample counts when it comes, as power's does: the last one, at the stop, holds for no
    /// time and was left out: a fenix 5 ride's 114 bpm read 111.)
    public private(set) var maxHrBpm = Double.nan
    /// Counted seconds in each heart-rate zone: `[below 50%, zone 1, zone 2, zone 3, zone 4, zone 5]`
    /// (see `zoneBounds`); they add up to `hrCoveredS`.
    public private(set) var zoneSeconds = [Double](repeating: 0, count: 6)
    /// ∫ cadence dt over counted time with a cadence above 0, (steps/min)·s.
    public private(set) var cadenceStepsIntegral = 0.0
    /// Counted seconds with a cadence above 0.
    public private(set) var cadenceCoveredS = 0.0
    /// The highest cadence held during counted time, or sampled in it, steps/min (0 if only 0);
    /// NaN before any.
    public private(set) var maxCadenceSpm = Double.nan
    /// All counted seconds, with or without samples.
    public private(set) var countedS = 0.0

    /// The maxima of the lap in progress (`endLap`).
    private var lapHr = LapPeak(), lapCadence = LapPeak()

    private var hr: Reading? = nil
    private var cadenceReading: Reading? = nil
    /// The time integrated up to; NaN before the first advance or sample.
    private var clock = Double.nan
    /// The counting state of the latest advance.
    private var counting = false

    /// Creates empty statistics.
    ///
    /// - Parameters:
    ///   - hrMax: maximum heart rate for the zones, bpm (default 190; a non-positive or
    ///     non-finite value falls back to 190).
    ///   - staleAfterS: how long a sample holds at most, seconds (default 5; a negative or
    ///     non-finite value falls back to 5).
    public init(hrMax: Double = 190, staleAfterS: Double = 5) {
        self.hrMax = hrMax.isFinite && hrMax > 0 ? hrMax : 190
        self.staleAfterS = staleAfterS.isFinite && staleAfterS >= 0 ? staleAfterS : 5
    }

    // MARK: - Inputs

    /// Adds a heart-rate sample; 0 (no skin contact), a negative or a non-finite value is absent.
    /// A sample older than the latest one is ignored.
    public mutating func heartRate(_ bpm: Double, at t: Double) {
        guard t.isFinite, !(t < (hr?.t ?? -.infinity)) else { return }
        catchUp(to: t)
        hr = Reading(t: t, value: bpm.isFinite && bpm > 0 ? bpm : .nan)
        if counting, let v = hr?.value, v.isFinite {   // (see `maxHrBpm`)
            if !(v <= maxHrBpm) { maxHrBpm = v }
            lapHr.count(v, from: t, to: t)
        }
    }

    /// Adds a cadence sample, steps/min; 0 is a real 0 (standing still), a negative or non-finite
    /// value is absent. A sample older than the latest one is ignored.
    public mutating func cadence(_ spm: Double, at t: Double) {
        guard t.isFinite, !(t < (cadenceReading?.t ?? -.infinity)) else { return }
        catchUp(to: t)
        cadenceReading = Reading(t: t, value: spm.isFinite && spm >= 0 ? spm : .nan)
        if counting, let v = cadenceReading?.value, v.isFinite {
            if !(v <= maxCadenceSpm) { maxCadenceSpm = v }
            lapCadence.count(v, from: t, to: t)
        }
    }

    /// Integrates the held values up to `t`.
    ///
    /// - Parameters:
    ///   - t: the time to advance to; an earlier time than the last one changes no totals.
    ///   - counting: whether the interval up to `t` counts (cruise); it is also the state later
    ///     samples advance with until the next call.
    @inline(__always)
    public mutating func advance(to t: Double, counting: Bool) {
        guard t.isFinite else { return }
        if clock.isNaN {
            clock = t
        } else if t > clock {
            if counting { integrate(from: clock, to: t) }
            clock = t
        }
        self.counting = counting
    }

    // MARK: - Current values

    /// The heart rate at `t`, bpm: the latest sample's, or NaN when it is absent or older than
    /// `staleAfterS`.
    public func heartRate(at t: Double) -> Double { Self.current(hr, at: t, staleAfterS) }

    /// The cadence at `t`, steps/min (0 when standing): the latest sample's, or NaN when it is
    /// absent or older than `staleAfterS`.
    public func cadence(at t: Double) -> Double { Self.current(cadenceReading, at: t, staleAfterS) }

    // MARK: - Totals

    /// Time-weighted average heart rate over counted time, bpm; NaN before any.
    public var avgHrBpm: Double { hrCoveredS > 0 ? hrBeatsIntegral / hrCoveredS : .nan }

    /// Time-weighted average cadence over counted time above 0, steps/min; NaN before any.
    public var avgCadenceSpm: Double { cadenceCoveredS > 0 ? cadenceStepsIntegral / cadenceCoveredS : .nan }

    /// The zone of a heart rate: 0 below 50% of `hrMax`, then 1 to 5 (see `zoneBounds`).
    public func zone(of bpm: Double) -> Int {
        let fraction = bpm / hrMax
        var z = 0
        for bound in Self.zoneBounds where fraction >= bound { z += 1 }
        return z
    }

    /// Ends the lap at `t` (now, or before now: a lap cut after its end): the highest heart rate
    /// and cadence that counted in it (as `maxHrBpm` and `maxCadenceSpm` count, NaN when none); a
    /// value held across `t` counts in the next lap too.
    mutating func endLap(at t: Double) -> (hrBpm: Double, cadenceSpm: Double) {
        (lapHr.endLap(at: t), lapCadence.endLap(at: t))
    }

    // MARK: - Internals

    private struct Reading: Sendable {
        var t: Double
        /// NaN: absent.
        var value: Double
    }

    private static func current(_ r: Reading?, at t: Double, _ stale: Double) -> Double {
        guard let r, r.value.isFinite, t - r.t <= stale else { return .nan }
        return r.value
    }

    /// Before a new sample replaces the held one: integrate up to its time as the latest advance
    /// said, so the old value holds exactly until the new sample.
    private mutating func catchUp(to t: Double) {
        if clock.isNaN { clock = t } else if t > clock { advance(to: t, counting: counting) }
    }

    /// The part of [a, b) during which `r` holds.
    private func held(_ r: Reading?, _ a: Double, _ b: Double) -> (value: Double, from: Double, to: Double)? {
        guard let r, r.value.isFinite else { return nil }
        let from = max(a, r.t), to = min(b, r.t + staleAfterS)
        return to > from ? (r.value, from, to) : nil
    }

    @inline(__always)
    private mutating func integrate(from a: Double, to b: Double) {
        countedS += b - a
        if hr != nil || cadenceReading != nil { integrateHeld(from: a, to: b) }   // (no sensor: no call)
    }

    private mutating func integrateHeld(from a: Double, to b: Double) {
        if let (bpm, from, to) = held(hr, a, b) {
            let dt = to - from
            hrBeatsIntegral += bpm * dt
            hrCoveredS += dt
            zoneSeconds[zone(of: bpm)] += dt
            if !(bpm <= maxHrBpm) { maxHrBpm = bpm }
            lapHr.count(bpm, from: from, to: to)
        }
        if let (spm, from, to) = held(cadenceReading, a, b) {
            let dt = to - from
            if spm > 0 {
                cadenceStepsIntegral += spm * dt
                cadenceCoveredS += dt
            }
            if !(spm <= maxCadenceSpm) { maxCadenceSpm = spm }
            lapCadence.count(spm, from: from, to: to)
        }
    }
}
