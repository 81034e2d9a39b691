#if canImport(Glibc)
import Glibc
#endif
import Testing
import RunwaySim
@testable import RunwayCore

/// A flight whose altitudes came as altimeter samples (`{"type":"altimeter"}`), with no altitude
/// on its fixes or with GPS ones there too: the engine measures its gain on the barometer's
/// (`ElevationTracker`: GPS altitudes are ignored while a sample is at most 10 s old), and its
/// GPX, TCX and FIT exports carry those altitudes (`PointAltitudes`), say
/// `barometric` and replay to its gain. Before, the exports had no altitude at all, or the GPS
/// ones marked `gps`.
@Suite("Exports carry the altimeter's altitudes")
struct AltimeterExportTests {
    /// The GPS altitude a fix carries beside the barometer's `alt` in the flights with both: 40 m
    /// above it (the two sources' levels differ), wandering a few metres.
    static func gpsAltitude(_ alt: Double, at t: Double) -> Double { alt + 40 + 4 * sin(t / 37) }

    /// The simulated run of `flight`: a barometer's altitudes (`SimAltitudeError.barometric`) over
    /// a 60 m sine hill.
    static func run(_ trial: SimTrial) -> SimRun {
        var sim = trial.config(SimConfig())
        sim.altitudeSource = .barometric
        sim.altitudeError = .barometric
        sim.hillShape = .sine
        sim.altitudeAmplitudeM = 60
        return simulate(sim)
    }

    /// The barometer's altitude at each fix's time in `run`.
    static func barometer(_ run: SimRun) -> [Double: Double] {
        Dictionary(run.fixes.map { ($0.t, $0.alt) }, uniquingKeysWith: { a, _ in a })
    }

    static func flight(_ trial: SimTrial, gpsToo: Bool, samplesFrom: Double = 0) throws -> FlightComputer {
        try flight(run(trial), gpsToo: gpsToo, samplesFrom: samplesFrom)
    }

    /// `AltitudeSourceExportTests.hillyFlight` with the barometer's altitudes as an altimeter
    /// sample before each fix, the fix's `alt` NaN or (`gpsToo`) `gpsAltitude`; `fix_altitude` gps.
    static func flight(_ run: SimRun, gpsToo: Bool, samplesFrom: Double = 0) throws -> FlightComputer {
        var core = FlightComputer(config: EngineConfig())
        var events: [Event] = []
        let first = try #require(run.fixes.first), last = try #require(run.fixes.last)
        try core.command(.start, at: first.t, wallClock: .nan, events: &events)
        for f in run.fixes {
            if f.t - first.t >= samplesFrom {
                try core.process(.sample(.altimeter(alt: f.alt, t: f.t)), wallClock: .nan, events: &events)
            }
            let alt = gpsToo || f.t - first.t < samplesFrom ? gpsAltitude(f.alt, at: f.t) : .nan
            try core.process(.fix(Fix(t: f.t, lat: f.lat, lon: f.lon, alt: alt, speed: f.speed, course: f.course, hAcc: f.hAcc)),
                             wallClock: .nan, events: &events)
        }
        try core.command(.stop, at: last.t, wallClock: .nan, events: &events)
        return core
    }

    @Test(arguments: [ExportFormat.gpx, .tcx, .fit])
    func anAltimeterFlightsExportReplaysToItsGain(_ format: ExportFormat) throws {
        for gpsToo in [false, true] {
            for trial in SimTrials.tuning {
                let core = try Self.flight(trial, gpsToo: gpsToo)
                let gain = core.elevation.gainM
                #expect(gain > 100, "\(trial): \(gain) m")
                #expect(core.record.altitudeSource == .barometric)
                let back = try AltitudeSourceExportTests.analysed(Exporter.export(core.record, as: format))
                #expect(back.report.altitudeSource == .barometric, "\(format), \(trial): \(String(describing: back.report.altitudeSource))")
                let replayed = back.flight.elevation.gainM
                #expect(abs(replayed - gain) <= AltitudeSourceExportTests.routeTolerance * gain,
                        "\(format), GPS too \(gpsToo), \(trial): gain \(replayed) m from the file, the flight's \(gain) m")
            }
        }
    }

    /// The route's points carry the barometer's altitude (the latest sample's, given at the fix's
    /// time), not the fix's GPS one 40 m above it.
    @Test func theRoutesAltitudesAreTheBarometers() throws {
        let run = Self.run(SimTrials.tuning[0])
        let core = try Self.flight(run, gpsToo: true)
        let barometer = Self.barometer(run)
        let route = core.record.route
        #expect(route.count > 100)
        for i in 0..<route.count {
            let alt = route.altitude(i), t = route.time(i)
            let sample = try #require(barometer[t], "point \(i) at \(t): no fix at its time")
            #expect(abs(alt - sample) < 1, "point \(i): \(alt) m, the barometer's \(sample) m")
        }
    }

    /// Altimeter samples from 10 minutes in: the points before carry the fixes' GPS altitudes,
    /// which the exports (saying `barometric`) leave out; the points after, the barometer's.
    @Test(arguments: [ExportFormat.gpx, .tcx, .fit])
    func gpsAltitudesBeforeTheFirstSampleAreLeftOut(_ format: ExportFormat) throws {
        let run = Self.run(SimTrials.tuning[0])
        let core = try Self.flight(run, gpsToo: false, samplesFrom: 600)
        let barometer = Self.barometer(run)
        let r = core.record
        #expect(r.altitudeSource == .barometric)
        #expect(r.altitudeSourceFromT.isFinite && r.altitudeSourceFromT > r.route.time(0))
        let before = (0..<r.route.count).filter { r.route.time($0) < r.altitudeSourceFromT }
        #expect(!before.isEmpty && before.count < r.route.count)
        // The route's points: the fixes' GPS altitudes before the first sample, the barometer's
        // after; the export's altitudes only the barometer's.
        for i in 0..<r.route.count {
            let t = r.route.time(i)
            let baro = try #require(barometer[t], "point \(i) at \(t): no fix at its time")
            if t < r.altitudeSourceFromT {
                #expect(abs(r.route.altitude(i) - Self.gpsAltitude(baro, at: t)) < 1 && r.altitude(i).isNaN,
                        "point \(i): \(r.route.altitude(i)) m, GPS \(Self.gpsAltitude(baro, at: t)) m, exported \(r.altitude(i))")
            } else {
                #expect(abs(r.altitude(i) - baro) < 1, "point \(i): exported \(r.altitude(i)) m, the barometer's \(baro) m")
            }
        }
        let back = try AltitudeSourceExportTests.analysed(Exporter.export(r, as: format))
        #expect(back.report.altitudeSource == .barometric)
        #expect(back.flight.elevation.gainM > 50, "\(format): \(back.flight.elevation.gainM) m from the file")
    }

    /// A runner goes indoors (fixes stop at 99 s) with the altimeter at 1 Hz, climbing 0.5 m a
    /// second: the speed sensor's samples since the last fix are kept as points at the pause, up
    /// to 16 s after their time. Each carries the altimeter's altitude at its own time, as the
    /// route's points do, not NaN for all but the last (`PointAltitudes` kept two samples).
    @Test func aSpeedSensorsBacklogCarriesTheAltitudesOfItsTimes() throws {
        var c = EngineConfig(activity: .run)
        c.autoPause.enabled = false
        var d = Driver(c)
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        func alt(_ k: Int) -> Double { 100 + 0.5 * Double(k) }
        for k in 0...99 {
            try d.json("{\"type\":\"altimeter\",\"alt\":\(alt(k)),\"t\":\(t0 + Double(k))}")
            try d.fix(t0 + Double(k), 52 + degreesNorth(3 * Double(k)), 4, speed: 3, hAcc: 4)
        }
        for k in 100...115 {
            try d.json("{\"type\":\"altimeter\",\"alt\":\(alt(k)),\"t\":\(t0 + Double(k))}")
            try d.json("{\"type\":\"speed\",\"speed\":3,\"t\":\(t0 + Double(k))}")
        }
        try d.phase(.pause, t0 + 115)
        let sensed = d.core.record.sensed
        try #require(sensed.count >= 10, "\(sensed.count) sensed points")
        for i in 0..<sensed.count {
            let k = Int((sensed.time(i) - t0).rounded(.down))
            #expect(sensed.altitude(i) == Double(Float(alt(k))), "point at \(sensed.time(i) - t0) s: \(sensed.altitude(i)) m, \(alt(k)) m expected")
        }
    }
}
