extension FlightRecord {
    /// The flight's start for the exports: its start time, else its first point's.
    var exportStartT: Double {
        if startT.isFinite { return startT }
        return route.count > 0 ? route.time(0) : .nan
    }

    /// The flight's end for the exports: its end (or, in flight, current) time, else its last
    /// point's; never before the start.
    var exportEndT: Double {
        var end = endT
        if !end.isFinite, route.count > 0 { end = route.time(route.count - 1) }
        let start = exportStartT
        if !end.isFinite || (start.isFinite && end < start) { end = start }
        return end
    }

    /// The laps to export, each with its points and maxima; never empty.
    ///
    /// - A landed flight: its laps (the last one is the final, partial lap).
    /// - A flight still in the air: its finished laps plus the lap in progress, made of what
    ///   the finished laps do not cover (distance, timer time, elevation; its average heart
    ///   rate is unknown). So does a landed flight whose laps do not cover it (more than 1 cm
    ///   or 1 ms left over: a final lap missing from a stored record).
    /// - No laps at all: one lap over the whole flight with the flight's totals (its power too).
    ///
    /// A lap's power, max speed, maximum heart rate and maximum cadence are the engine's
    /// (`Lap.metrics`, `Lap.maxSpeedMps`, `Lap.maxHrBpm`, `Lap.maxCadenceSpm`: over every sample
    /// of the lap); a maximum the engine has not given (any of the lap in progress, which has no
    /// average or normalized power either; one the engine noted nothing for) is its points'.
    var exportLaps: [ExportLap] {
        var laps = self.laps.map(ExportLap.init)
        let start = exportStartT, end = exportEndT
        if laps.isEmpty {
            var whole = ExportLap(index: 1, trigger: .final, startT: start, endT: end, distanceM: distanceM,
                                  timerS: elapsedS, avgHrBpm: avgHrBpm, gainM: gainM, lossM: lossM)
            whole.setPower(avg: avgPowerW, max: maxPowerW, normalized: normalizedPowerW)   // the flight's
            whole.maxHrBpm = maxHrBpm
            whole.maxCadenceSpm = maxCadenceSpm
            whole.maxSpeedMps = maxSpeedMps
            laps.append(whole)
        } else if let last = laps.last {
            let distance = distanceM - laps.reduce(0) { $0 + $1.distanceM }
            let timer = elapsedS - laps.reduce(0) { $0 + $1.timerS }
            // Laps that leave distance or time uncovered (a flight in the air, or a landed one
            // whose final lap is missing) get the remainder as one more lap.
            let uncovered = distance > 0.01 || timer > 0.001
            if uncovered || (phase != .touchdown && lastPointIsAfter(last.endT)) {
                laps.append(ExportLap(index: last.index < Int.max ? last.index + 1 : last.index, trigger: .final,
                                      startT: last.endT, endT: max(end, last.endT),
                                      distanceM: max(0, distance), timerS: max(0, timer), avgHrBpm: .nan,
                                      gainM: max(0, gainM - laps.reduce(0) { $0 + $1.gainM }),
                                      lossM: max(0, lossM - laps.reduce(0) { $0 + $1.lossM })))
            }
        }
        assignPoints(to: &laps)
        return laps
    }

    private func lastPointIsAfter(_ t: Double) -> Bool {
        route.count > 0 && route.time(route.count - 1) >= t
    }

    /// Gives each lap its points, the route's and the sensor's (their times never decrease), and
    /// the maxima over them (speed, heart rate, cadence, power) where the engine has not given
    /// the lap's.
    private func assignPoints(to laps: inout [ExportLap]) {
        var i = 0, j = 0
        for k in laps.indices {
            let last = k == laps.count - 1
            laps[k].points = Self.take(route, from: &i, before: last ? .infinity : laps[k].endT)
            laps[k].sensed = Self.take(sensed, from: &j, before: last ? .infinity : laps[k].endT)
            let hrKnown = !laps[k].maxHrBpm.isNaN, cadenceKnown = !laps[k].maxCadenceSpm.isNaN
            let speedKnown = !laps[k].maxSpeedMps.isNaN
            for (points, range) in [(route, laps[k].points), (sensed, laps[k].sensed)] {
                for p in range {
                    if !speedKnown { laps[k].maxSpeedMps = Self.larger(laps[k].maxSpeedMps, points.speedMps(p)) }
                    if !hrKnown { laps[k].maxHrBpm = Self.larger(laps[k].maxHrBpm, points.heartRate(p)) }
                    if !cadenceKnown { laps[k].maxCadenceSpm = Self.larger(laps[k].maxCadenceSpm, points.cadence(p)) }
                    if !laps[k].enginePower { laps[k].maxPowerW = Self.larger(laps[k].maxPowerW, points.power(p)) }
                }
            }
        }
    }

    /// The points of `points` from `i` on whose time is before `end` (all that are left when it
    /// is infinite); `i` moves past them.
    private static func take(_ points: Route, from i: inout Int, before end: Double) -> Range<Int> {
        let first = i
        while i < points.count, end.isInfinite || !(points.time(i) >= end) { i += 1 }
        return first..<i
    }

    /// The larger of two values, either of which may be NaN (unknown).
    static func larger(_ a: Double, _ b: Double) -> Double {
        if b.isNaN { return a }
        if a.isNaN { return b }
        return max(a, b)
    }
}
