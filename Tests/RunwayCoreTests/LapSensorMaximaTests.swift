import Testing
@testable import RunwayCore

/// A lap's maximum heart rate and cadence are those of every sample the flight took in it (as the
/// flight's `max_hr_bpm` is), not only of the route's kept points; a lap cut after its end has
/// the maxima up to its end.
@Suite("A lap's heart-rate and cadence maxima are over every sample")
struct LapSensorMaximaTests {
    static let t0 = 1_700_000_000.0

    /// A run at 3 m/s with 1 km auto laps (the boundary at 333 s), fixes every second, heart rate
    /// and cadence samples four times a second between them: 140 bpm and 170 spm, but 176 bpm and
    /// 190 spm at 100.5 s only (a quarter second: at the fix after, 101 s, the strap reads 140
    /// again, so no route point carries it), and a manual lap at 220.9 s in a GPS gap (no fix from
    /// 151 s to 239 s), with 181 bpm at 210.5 s (before the lap) and 186 bpm at 230.5 s (after it,
    /// before the fix at 240 s that cuts it).
    static func flight() throws -> (laps: [Lap], record: FlightRecord) {
        var c = EngineConfig(activity: .run)
        c.autoLapM = 1000
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, t0)
        for i in 0..<400 {
            let t = t0 + Double(i)
            if i <= 150 || i >= 240 { try d.fix(t, 31.2 + degreesNorth(3 * Double(i)), 121.5, speed: 3, hAcc: 4) }
            for q in 1..<4 {
                let at = t + Double(q) / 4
                let bpm = q != 2 ? 140 : i == 100 ? 176 : i == 210 ? 181 : i == 230 ? 186 : 140
                try d.json("{\"type\":\"hr\",\"bpm\":\(bpm),\"t\":\(at)}")
                try d.json("{\"type\":\"cadence\",\"spm\":\(i == 100 && q == 2 ? 190 : 170),\"t\":\(at)}")
            }
            if i == 220 { try d.core.lap(at: t0 + 220.9, wallClock: .nan, events: &d.events) }
        }
        try d.phase(.stop, t0 + 400)
        let laps = d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }
        return (laps, d.core.record)
    }

    @Test func theSplitsHaveTheMaximaOfTheirOwnTime() throws {
        let (laps, record) = try Self.flight()
        try #require(laps.map(\.trigger) == [.manual, .auto, .final], "\(laps.map { ($0.trigger, $0.endT - Self.t0) })")
        #expect(laps.map(\.maxHrBpm) == [181, 186, 140])
        #expect(laps.map(\.maxCadenceSpm) == [190, 170, 170])
        #expect(record.laps == laps, "the record's laps are the splits")
        #expect(record.maxHrBpm == 186)
        let kept = (0..<record.route.count).filter { record.route.time($0) < laps[0].endT }.map { record.route.heartRate($0) }.filter { !$0.isNaN }
        #expect(kept.max() == 140, "no route point of the first lap carries its 176 or 181 bpm")
    }

    /// The lap JSON (a `split` event's `lap`, the summary's `laps`) has them: `max_hr_bpm` and
    /// `max_cadence_spm`, `null` when the lap had no sample (before, neither key was written).
    @Test func theLapJSONHasTheMaxima() throws {
        let (laps, _) = try Self.flight()
        for lap in laps {
            var w = JSONWriter()
            lap.write(to: &w)
            #expect(jsonNumber(w.text, "max_hr_bpm") == lap.maxHrBpm, "\(w.text)")
            #expect(jsonNumber(w.text, "max_cadence_spm") == lap.maxCadenceSpm, "\(w.text)")
            #expect(jsonNumber(w.text, "max_speed_mps") == lap.maxSpeedMps, "\(w.text)")
        }
        var none = JSONWriter()
        Lap(index: 1, trigger: .auto, startT: 0, endT: 10, distanceM: 30, elapsedS: 10, paceMinPerKm: 5.5,
            avgHrBpm: .nan, gainM: 0, lossM: 0).write(to: &none)
        #expect(none.text.contains(#""max_hr_bpm":null,"max_cadence_spm":null"#), "\(none.text)")
    }

    /// A lap's max speed is the engine's, of the speeds the flight's max is taken from (before,
    /// the lap JSON had none and the exports read it from the route's kept points): the TCX
    /// `MaximumSpeed` and FIT lap `max_speed` write it, and the flight's is the largest.
    @Test func theLapsMaxSpeedIsTheEnginesInTheJSONAndTheExports() throws {
        let (laps, record) = try Self.flight()
        #expect(laps.allSatisfy { $0.maxSpeedMps > 2.5 && $0.maxSpeedMps <= record.maxSpeedMps }, "\(laps.map(\.maxSpeedMps))")
        #expect(laps.map(\.maxSpeedMps).max() == record.maxSpeedMps)
        let xml = try parsedExport(record, .tcx)
        let tcx = xml.descendants("Lap").map { $0.first("MaximumSpeed")?.text }
        #expect(tcx.count == laps.count && zip(tcx, laps).allSatisfy { abs((Double($0 ?? "") ?? .nan) - $1.maxSpeedMps) <= 0.0005 + 1e-9 }, "\(tcx)")
        let fit = try ExportFITReader.read(Exporter.export(record, as: .fit)).all(19).map { $0[14] }
        #expect(fit.count == laps.count && zip(fit, laps).allSatisfy { abs(Double($0 ?? -9) - $1.maxSpeedMps * 1000) <= 1 }, "max_speed \(fit)")
    }

    @Test func theTCXLapsHaveTheMaximumHeartRateOfEverySample() throws {
        let (laps, record) = try Self.flight()
        let xml = try parsedExport(record, .tcx)
        let max = xml.descendants("Lap").map { $0.first("MaximumHeartRateBpm")?.first("Value")?.text }
        #expect(max == laps.map { String(Int($0.maxHrBpm)) }, "\(max)")
    }

    @Test func theFITLapsHaveTheMaximaOfEverySample() throws {
        let (laps, record) = try Self.flight()
        let fit = try ExportFITReader.read(Exporter.export(record, as: .fit))
        let fitLaps = fit.all(19)
        #expect(fitLaps.map { $0[16] } == laps.map { Int64($0.maxHrBpm) }, "max_heart_rate")
        #expect(fitLaps.map { $0[18] } == laps.map { Int64($0.maxCadenceSpm / 2) }, "max_cadence, strides a minute on foot")
    }

    /// A value held across a lap's end counts in both laps; one that came after the end only in
    /// the next; the log's forgotten half counts in the lap in progress.
    @Test func aPeakEndsALapAtItsOwnTime() {
        var p = LapPeak()
        p.count(150, from: 10, to: 10)
        p.count(150, from: 10, to: 14)
        p.count(162, from: 20, to: 20)
        #expect(p.endLap(at: 12) == 150)
        #expect(p.endLap(at: 25) == 162, "the 150 held to 14 s and the 162 at 20 s")
        #expect(p.endLap(at: 30).isNaN)
        for k in 0..<LapPeak.maxRuns + 10 { p.count(Double(100 + k % 2), from: 40 + Double(k), to: 40 + Double(k)) }
        p.count(99, from: 5000, to: 5000)
        #expect(p.endLap(at: 5000) == 101)
        #expect(p.endLap(at: .nan).isNaN)
    }

    /// Laps equal themselves without a heart rate or a cadence (NaN maxima, compared bit for bit).
    @Test func aLapWithoutSensorsEqualsItself() {
        var lap = Lap(index: 1, trigger: .auto, startT: 0, endT: 10, distanceM: 30, elapsedS: 10, paceMinPerKm: 5.5,
                      avgHrBpm: 150, gainM: 0, lossM: 0)
        lap.maxHrBpm = 160
        #expect(lap == lap)
        var other = lap
        other.maxCadenceSpm = 170
        #expect(lap != other)
    }
}
