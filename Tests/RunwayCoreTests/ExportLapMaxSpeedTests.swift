import Testing
@testable import RunwayCore

/// A lap the engine gives no max speed (the lap in progress of a flight in the air, a lap with
/// none noted, the one lap of a lapless flight whose max is unknown) takes the largest speed of
/// its points, the route's and the speed sensor's (`FlightRecord.assignPoints`); the route keeps
/// speeds to the mm/s, so written to the mm/s (FIT) no lap's is above the session's.
@Suite("Export: a lap's max speed")
struct ExportLapMaxSpeedTests {
    /// The largest speed of the lap's points, route and sensor (NaN when none).
    static func pointsLargest(_ r: FlightRecord, _ lap: ExportLap) -> Double {
        let speeds = lap.points.map { r.route.speedMps($0) } + lap.sensed.map { r.sensed.speedMps($0) }
        return speeds.reduce(Double.nan) { FlightRecord.larger($0, $1) }
    }

    /// Fixes at 2 to 5 m/s with a manual lap at 100 s, then 100 s of speed samples only (one of
    /// 60 m/s), the flight left in the air.
    static func sensedInTheAir(filters: Bool) throws -> FlightRecord {
        let t0 = 1_700_000_000.0
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        config.filters = filters
        var d = Driver(config)
        try d.phase(.start, t0)
        var state: UInt64 = 9
        func speed() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return 2 + Double(state >> 11) / Double(1 << 53) * 3
        }
        var lat = 52.0
        for k in 1...300 {
            let v = speed()
            lat += v / 111_250
            try d.fix(t0 + Double(k), lat, 4, speed: v, hAcc: 4)
            if k == 100 { try d.core.lap(at: t0 + Double(k), wallClock: .nan, events: &d.events) }
        }
        for k in 301...400 {
            let sample = Input.sample(.speed(mps: k == 350 ? 60 : speed(), t: t0 + Double(k)))
            try d.core.process(try ValidatedInput(sample), wallClock: .nan, events: &d.events)
        }
        return d.core.record
    }

    @Test func theLapInProgressTakesItsPointsLargestAndNoFITLapIsAboveTheSession() throws {
        var flights: [FlightRecord] = []
        for activity in [Activity.run, .ride] {
            for filters in [true, false] {
                flights.append(try ExportFixture.simulated(activity: activity, filters: filters, stop: false))
            }
        }
        flights += [try Self.sensedInTheAir(filters: true), try Self.sensedInTheAir(filters: false)]
        for r in flights {
            let laps = r.exportLaps
            try #require(laps.count == r.laps.count + 1, "a lap in progress")
            for (k, lap) in laps.enumerated() {
                let engine = k < r.laps.count ? r.laps[k].maxSpeedMps : .nan
                let expected = engine.isNaN ? Self.pointsLargest(r, lap) : engine
                #expect(lap.maxSpeedMps == expected, "lap \(k + 1): \(lap.maxSpeedMps), \(expected)")
                #expect(lap.maxSpeedMps < r.maxSpeedMps + 0.0005, "lap \(k + 1): \(lap.maxSpeedMps) m/s, the flight's \(r.maxSpeedMps)")
            }
            let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
            let session = try #require(fit.all(18).first?[15])
            let lapMaxima = fit.all(19).compactMap { $0[14] }
            #expect(lapMaxima.count == laps.count && lapMaxima.allSatisfy { $0 <= session }, "\(lapMaxima), session \(session)")
        }
    }

    /// A landed flight's lap without an engine max (a record stored without it) and a lapless
    /// flight whose max is unknown take their points' largest too.
    @Test func aLandedLapWithoutAMaxTakesItsPoints() throws {
        var r = try ExportFixture.simulated(activity: .run, filters: true, stop: true)
        try #require(r.laps.count > 2)
        r.laps[1].maxSpeedMps = .nan
        let laps = r.exportLaps
        #expect(laps.count == r.laps.count)
        let largest = Self.pointsLargest(r, laps[1])
        #expect(laps[1].maxSpeedMps == largest && largest > 0)
        #expect(laps[0].maxSpeedMps == r.laps[0].maxSpeedMps && laps[2].maxSpeedMps == r.laps[2].maxSpeedMps)
        r.laps = []
        r.maxSpeedMps = .nan
        let whole = r.exportLaps
        #expect(whole.count == 1 && whole[0].maxSpeedMps == Self.pointsLargest(r, whole[0]) && whole[0].maxSpeedMps > 0)
    }
}
