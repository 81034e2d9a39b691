import Testing
@testable import RunwayCore
import RunwaySim

/// Checks, on every flight it drives, what must hold whatever the input: distance never
/// decreases from one snapshot to the next; no shown speed or pace, no lap pace and no max speed
/// beyond the profile's cap (filters on: with `"filters":"off"` nothing is capped, by design,
/// and a jump in a recording shows as the speed it implies); at the end moving time ≤ elapsed
/// time, the route's points are in time order with cumulative distances that never fall, the
/// laps add up to the flight's distance and time, each went out once as its `split` (end to
/// end, in order) and every manual lap accepted is one, at its time, the max speed is at least the
/// average and the average moving speed (distance over moving time) and, filters on with every
/// fix's Doppler speed trusted, no faster than the fastest of them (issue #19); the flight's max
/// speed is the largest of its laps', and no lap's is below its own average; each lap's and the
/// flight's average and normalised power are no more than its maximum power; a lap's power
/// figures in its split are those the last snapshot at its end time showed for it
/// (`lap_avg_power_w`, `lap_max_power_w`, `lap_normalized_power_w`), also when the lap was cut
/// later.
struct InvariantCheck {
    var core: FlightComputer
    var events: [Event] = []
    var problems: [String] = []
    var lastDistance = 0.0
    /// The fastest measured speed among the inputs pushed (a fix's Doppler, a speed sample), and
    /// whether every fix carried Doppler.
    var fastestDopplerMps = 0.0, everyFixHasDoppler = true
    let name: String

    init(_ name: String, config: EngineConfig) {
        self.name = name
        core = FlightComputer(config: config)
    }

    /// The profile's cap, with the filters on (infinite with them off).
    var cap: Double { core.config.filters ? core.config.speedCapMps : .infinity }

    mutating func note(_ what: String) { if problems.count < 5 { problems.append("\(name): \(what) (t \(core.now))") } }

    /// One input, command or lap; refusals are fine (the input was bad), traps are not.
    mutating func push(_ input: ValidatedInput) {
        if core.phase == .preflight { command(.start, at: input.t) }
        if case .fix(let f) = input.input {
            if f.speed.isNaN { everyFixHasDoppler = false } else { fastestDopplerMps = max(fastestDopplerMps, f.speed) }
        }
        if case .sample(.speed(let v, _)) = input.input { fastestDopplerMps = max(fastestDopplerMps, v) }   // a sensor's measured speed
        do { try core.process(input, wallClock: .nan, events: &events) } catch {}
        afterEach()
    }

    /// Commands refused (a recording's timer lines never should be).
    var refusedCommands = 0

    mutating func command(_ c: PhaseCommand, at t: Double) {
        do { try core.command(c, at: t, wallClock: .nan, events: &events) } catch { refusedCommands += 1 }
        afterEach()
    }

    /// The times of the manual laps accepted, and the `split` events, in order.
    var acceptedLaps: [Double] = [], splits: [Lap] = []
    /// The lap in progress's power figures of the snapshots since the last split (lap, time,
    /// figures), and how many splits were compared with one (how many of them with power).
    var lapPowerShown: [(lap: Int, t: Double, figures: SIMD3<Double>)] = []
    var lapPowerCompared = 0, lapPowerComparedWithPower = 0

    mutating func lap(at t: Double) {
        do { try core.lap(at: t, wallClock: .nan, events: &events); acceptedLaps.append(t) } catch {}
        afterEach()
    }

    mutating func afterEach() {
        for e in events {
            if case .split(let l) = e.body { splits.append(l); compareLapPower(l) }
            guard case .flight(let s) = e.body else { continue }
            lapPowerShown.append((s.lap, s.t, SIMD3(s.metrics.figure("lap_avg_power_w"), s.metrics.figure("lap_max_power_w"),
                                                    s.metrics.figure("lap_normalized_power_w"))))
            if s.distanceM < lastDistance { note("distance fell from \(lastDistance) to \(s.distanceM) m") }
            lastDistance = s.distanceM
            if s.groundSpeedMps > cap * (1 + 1e-9) { note("ground speed \(s.groundSpeedMps) m/s above the cap \(cap)") }
            if s.paceMinPerKm < 1000 / (60 * cap) * (1 - 1e-9) { note("pace \(s.paceMinPerKm) min/km faster than the cap") }
            if s.movingS > s.elapsedS + 1e-6 { note("snapshot moving \(s.movingS) s > elapsed \(s.elapsedS) s") }
        }
        events.removeAll(keepingCapacity: true)
    }

    /// A split's power figures against the last snapshot at its end time that showed its lap.
    mutating func compareLapPower(_ l: Lap) {
        defer { lapPowerShown.removeAll { $0.lap <= l.index } }
        guard let shown = lapPowerShown.last(where: { $0.lap == l.index && $0.t == l.endT }) else { return }
        lapPowerCompared += 1
        if !shown.figures[0].isNaN { lapPowerComparedWithPower += 1 }
        let split = SIMD3(l.metrics.figure("avg_power_w"), l.metrics.figure("max_power_w"), l.metrics.figure("normalized_power_w"))
        if (0..<3).contains(where: { shown.figures[$0].bitPattern != split[$0].bitPattern }) {
            note("lap \(l.index) to \(l.endT): the split's power \(split) is not the snapshot's at its end \(shown.figures)")
        }
    }

    /// Stops the flight and checks the record.
    mutating func finish() -> [String] {
        if core.phase == .cruise || core.phase == .holding { command(.stop, at: .nan) }
        let distance = core.distance, elapsed = core.elapsed, moving = core.movingS
        if moving > elapsed + 1e-6 { note("moving_s \(moving) > elapsed_s \(elapsed)") }
        if core.maxSpeed > cap * (1 + 1e-9) { note("max speed \(core.maxSpeed) above the cap \(cap)") }
        if elapsed > 0, distance > 0, core.maxSpeed.isFinite, core.maxSpeed < distance / elapsed * (1 - 1e-9) {
            note("max speed \(core.maxSpeed) below the average \(distance / elapsed)")
        }
        // Distance and moving time describe the same movement: no stretch counted as distance
        // (a gap's line, a step past the distance filter) leaves its time out of moving time.
        if core.config.filters, moving > 0, distance / moving > cap * (1 + 1e-9) {
            note("average moving speed \(distance / moving) above the cap \(cap) (\(distance) m in \(moving) s)")
        }
        if moving > 0, distance > 0, core.maxSpeed.isFinite, core.maxSpeed < distance / moving * (1 - 1e-9) {
            note("max speed \(core.maxSpeed) below the average moving speed \(distance / moving) (\(distance) m in \(moving) s)")
        }
        // With the filters on, a speed is an average of the Doppler speeds while they are trusted.
        if core.config.filters, everyFixHasDoppler, !core.dopplerCheck.prefersPositions, core.maxSpeed > fastestDopplerMps * (1 + 1e-9) {
            note("max speed \(core.maxSpeed) above the fastest Doppler speed \(fastestDopplerMps)")
        }
        // The route: its points in time order, their cumulative distances never falling (an
        // export's distance stream), the last none beyond the flight's.
        let route = core.recorder.route
        for i in (0..<route.count).dropFirst() {
            if route.time(i) < route.time(i - 1) { note("route point \(i) at \(route.time(i)) before the one before it") }
            if route.distanceM(i) < route.distanceM(i - 1) {
                note("route point \(i) at \(route.time(i)): distance fell from \(route.distanceM(i - 1)) to \(route.distanceM(i)) m")
            }
        }
        if route.count > 0, route.distanceM(route.count - 1) > Double(Float(distance)) * (1 + 1e-6) {
            note("the last route point's distance \(route.distanceM(route.count - 1)) m beyond the flight's \(distance) m")
        }
        let laps = core.laps.laps
        // Every lap went out once, as its split, in order and end to end; every manual lap
        // accepted is one, at the time asked.
        func line(_ l: Lap) -> String { "\(l.index) \(l.trigger) \(l.startT)–\(l.endT) \(l.distanceM) m \(l.elapsedS) s" }
        if splits.map(line) != laps.map(line) { note("split events \(splits.map(line)) are not the laps \(laps.map(line))") }
        let manual = laps.filter { $0.trigger == .manual }.map(\.endT)
        if manual != acceptedLaps { note("manual laps accepted at \(acceptedLaps), cut at \(manual)") }
        for (i, l) in laps.enumerated() {
            if l.index != i + 1 || l.endT < l.startT || (i > 0 && l.startT != laps[i - 1].endT) || !(l.elapsedS >= 0) || !(l.distanceM >= 0) {
                note("lap \(line(l)) out of order or negative (the one before: \(i > 0 ? line(laps[i - 1]) : "none"))")
            }
        }
        if !laps.isEmpty {
            let lapDistance = laps.reduce(0) { $0 + $1.distanceM }, lapTime = laps.reduce(0) { $0 + $1.elapsedS }
            if abs(lapDistance - distance) > 1e-6 * max(1, distance) { note("laps add up to \(lapDistance) m, the flight \(distance) m") }
            if abs(lapTime - elapsed) > 1e-6 * max(1, elapsed) { note("laps add up to \(lapTime) s, the flight \(elapsed) s") }
            for l in laps where l.paceMinPerKm < 1000 / (60 * cap) * (1 - 1e-9) { note("lap \(l.index) at \(l.paceMinPerKm) min/km") }
        }
        // Max speed: each lap's is of the flight's speeds, so none is above the flight's, and the
        // flight's is the largest of its laps'; none is below its lap's own average speed (no
        // faster than the cap), nor missing when the lap has one, unless that average is above
        // every lap's max so far (the flight's max by then: distance credited after it was covered).
        for l in laps where l.maxSpeedMps > core.maxSpeed { note("lap \(l.index) max speed \(l.maxSpeedMps) above the flight's \(core.maxSpeed)") }
        var fastestSoFar = -Double.infinity
        for l in laps {
            if l.maxSpeedMps > fastestSoFar { fastestSoFar = l.maxSpeedMps }
            guard l.distanceM > 0 && l.elapsedS > 0 && fastestSoFar.isFinite else { continue }   // (no speed yet: none)
            let average = min(l.distanceM / l.elapsedS, cap, fastestSoFar)
            if !(l.maxSpeedMps >= average * (1 - 1e-9)) { note("lap \(l.index) max speed \(l.maxSpeedMps) below its average \(average) (\(l.distanceM) m in \(l.elapsedS) s)") }
        }
        let lapMax = laps.reduce(Double.nan) { $1.maxSpeedMps.isNaN || $1.maxSpeedMps <= $0 ? $0 : $1.maxSpeedMps }
        if !laps.isEmpty, lapMax.bitPattern != core.maxSpeed.bitPattern { note("the laps' max speed \(lapMax) is not the flight's \(core.maxSpeed)") }
        // Heart rate and cadence likewise: each lap's maximum is of the samples the flight counted.
        for (what, ofLap, flight) in [("heart rate", \Lap.maxHrBpm, core.sensors.maxHrBpm), ("cadence", \Lap.maxCadenceSpm, core.sensors.maxCadenceSpm)] {
            let most = laps.reduce(Double.nan) { $1[keyPath: ofLap].isNaN || $1[keyPath: ofLap] <= $0 ? $0 : $1[keyPath: ofLap] }
            if !laps.isEmpty, most.bitPattern != flight.bitPattern { note("the laps' max \(what) \(most) is not the flight's \(flight)") }
        }
        // Power: each lap's figures are its own, and the flight's its own: neither the average nor
        // the normalised power above the maximum.
        for (what, figures) in laps.map({ ("lap \($0.index)", $0.metrics) }) + [("flight", core.metrics.summary())] {
            let max = figures.figure("max_power_w")
            for key in ["avg_power_w", "normalized_power_w"] {
                let w = figures.figure(key)
                if !w.isNaN, !(w <= max * (1 + 1e-9)) { note("\(what) \(key) \(w) W above its max_power_w \(max) W") }
            }
        }
        return problems
    }
}

@Suite("Invariants on every flight: recordings, simulator scenarios, the fuzz corpus (issue #19)")
struct InvariantTests {
    static func fixInput(_ f: SimFix) -> ValidatedInput? {
        try? ValidatedInput(.fix(Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc)))
    }

    /// A simulated run through the engine, with commands at given fix indices.
    static func check(_ name: String, _ run: SimRun, config: EngineConfig = EngineConfig(), skip: Range<Int>? = nil,
                      pauseAt: Int? = nil, resumeAt: Int? = nil, lapAt: Int? = nil) -> [String] {
        var c = InvariantCheck(name, config: config)
        for (i, f) in run.fixes.enumerated() {
            if let skip, skip.contains(i) { continue }
            if i == pauseAt { c.command(.pause, at: f.t) }
            if i == resumeAt { c.command(.resume, at: f.t) }
            if i == lapAt { c.lap(at: f.t) }
            if let input = fixInput(f) { c.push(input) }
        }
        return c.finish()
    }

    static func scenarios(_ trial: SimTrial) -> [String] {
        var problems: [String] = []
        let plain = simulate(trial.config())
        var positions = trial.config(); positions.includeSpeed = false; positions.includeCourse = false
        var stops = trial.config(); stops.stops = [SimStop(atDistanceM: 1500, durationS: 120), SimStop(atDistanceM: 4000, durationS: 40)]
        var ride = trial.config(); ride.paceMinPerKm = 2; ride.laps = 3; ride.stops = stops.stops
        var autoPause = EngineConfig(); autoPause.autoPause.enabled = true
        var off = EngineConfig(); off.filters = false
        var laps = EngineConfig(); laps.autoLapM = 400
        problems += check("\(trial) plain", plain)
        problems += check("\(trial) positions only", simulate(positions))
        problems += check("\(trial) stops, auto-pause", simulate(stops), config: autoPause)
        problems += check("\(trial) stops, positions only, auto-pause", simulate({ var c = stops; c.includeSpeed = false; c.includeCourse = false; return c }()), config: autoPause)
        problems += check("\(trial) a 60 s gap", plain, skip: 400..<460)
        problems += check("\(trial) a manual pause and laps", plain, config: laps, pauseAt: 500, resumeAt: 620, lapAt: 800)
        problems += check("\(trial) filters off", simulate(stops), config: off, skip: 300..<340, pauseAt: 700, resumeAt: 760, lapAt: 900)
        problems += check("\(trial) a manual pause without fixes while holding", plain, skip: 501..<620, pauseAt: 500, resumeAt: 620)
        problems += check("\(trial) filters off, a manual pause without fixes while holding", plain, config: off, skip: 501..<620, pauseAt: 500, resumeAt: 620)
        problems += check("\(trial) ride, stops, gap", simulate(ride), config: EngineConfig(activity: .ride), skip: 1000..<1100, lapAt: 1500)
        problems += check("\(trial) spikes", simulate(trial.config(with: { $0.spikes = [SimSpike(atIndex: 0, kind: .offsetM(400)), SimSpike(atIndex: 200, kind: .nullIsland), SimSpike(atIndex: 600, kind: .offsetM(300))] })))
        return problems
    }

    /// A walk with auto-pause on that slows through the filter's standing threshold and the
    /// auto-pause threshold again and again: steps slower than a walker wait for the standing
    /// decision and are credited later, and an auto-pause backdated over them takes their moving
    /// time back as any step's (before, credited steps kept it: 279 s moving in 220.5 s). Cycles
    /// of 4 s at 1.2 m/s, 5 s at 0.75 and 4 s at 0.45; and walks at 1.3 m/s with five stops, each
    /// after 8 s of dawdling at 0.65 m/s, standing 30 s with a noisy Doppler of 0.32 m/s.
    @Test func aWalkThatDawdlesWithAutoPauseKeepsItsMovingTimeWithinElapsed() throws {
        var config = EngineConfig(activity: .walk)
        config.autoPause.enabled = true
        var speeds: [[Double]] = []
        speeds.append(Array(repeating: 1.2, count: 30) + (0..<20).flatMap { _ in Array(repeating: 1.2, count: 4) + Array(repeating: 0.75, count: 5) + Array(repeating: 0.45, count: 4) } + Array(repeating: 1.2, count: 10))
        for seed in UInt64(1)...3 {
            var rng = SimRandom(seed: seed)
            var v: [Double] = Array(repeating: 1.3, count: 30)
            for _ in 0..<5 {
                v += (0..<8).map { _ in 0.65 + 0.05 * rng.gaussian() }
                v += (0..<30).map { _ in abs(0.32 + 0.15 * rng.gaussian()) }
                v += Array(repeating: 1.3, count: 60)
            }
            speeds.append(v)
        }
        for (n, v) in speeds.enumerated() {
            var c = InvariantCheck("dawdling walk \(n)", config: config)
            var north = 0.0
            for (k, speed) in v.enumerated() {
                north += speed > 0.4 ? speed : 0   // (the standing Doppler is noise)
                let fix = Fix(t: 1_700_000_000 + Double(k), lat: 52 + north / 111_250, lon: 4, speed: speed, course: 0, hAcc: 3)
                c.push(try ValidatedInput(.fix(fix)))
            }
            let problems = c.finish()
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// Short and sparse flights: 2–5 fixes 1–30 s apart, with and without Doppler speed, a run,
    /// a walk and a ride (also with auto-pause, and with the filters off), then stopped. A flight starts standing, so on one
    /// this short much or all of its distance arrives as a credit (held steps confirmed as
    /// movement, at the latest by the stop), after the last ground speed the pace window measured
    /// or with none measured at all; and a step longer than the window is one it never measures.
    /// Before, two fixes 10 s apart at 3.3 m/s gave a max speed of 0 against an average of 3.3,
    /// three without Doppler 1.75. A grid of steady flights, then flights at random: each step
    /// 1–30 s, its speed ±30% of the activity's, the positions with noise. (A ride's steps stay
    /// under the gate's 200 m jump, which makes a step a gap.)
    @Test func shortAndSparseFlightsKeepTheInvariants() throws {
        var problems: [String] = []
        var rng = SimRandom(seed: 19)
        let t0 = 1_700_000_000.0
        // The latitude `north` metres north of the start along the meridian (the engine's own
        // geodesic), so that a steady flight's positions move at its Doppler speed.
        func latitude(north: Double) -> Double {
            var lat = 52 + degreesNorth(north)
            for _ in 0..<4 where north > 0 {
                lat += (lat - 52) * (north / Geodesy.distance(lat1: 52, lon1: 4, lat2: lat, lon2: 4) - 1)
            }
            return lat
        }
        for activity in [Activity.run, .walk, .ride] {
            let mps = activity == .ride ? 6 : activity == .walk ? 1.3 : 3.3
            var autoPause = EngineConfig(activity: activity); autoPause.autoPause.enabled = true
            var off = EngineConfig(activity: activity); off.filters = false
            for (label, config) in [("", EngineConfig(activity: activity)), (", auto-pause", autoPause), (", filters off", off)] {
                for doppler in [true, false] {
                    func flight(_ name: String, _ steps: [(dt: Double, mps: Double)], noiseM: Double) throws {
                        var c = InvariantCheck("\(activity)\(label), \(doppler ? "Doppler" : "positions only"), \(name)", config: config)
                        var t = t0, north = 0.0
                        for (k, s) in ([(dt: 0.0, mps: steps[0].mps)] + steps).enumerated() {
                            t += s.dt
                            north += s.dt * s.mps
                            let dx = k == 0 ? 0 : noiseM * rng.gaussian(), dy = k == 0 ? 0 : noiseM * rng.gaussian()
                            let fix = Fix(t: t, lat: latitude(north: north + dy), lon: 4 + degreesEast(dx),
                                          speed: doppler ? s.mps : .nan, course: doppler ? 0 : .nan, hAcc: 5)
                            c.push(try ValidatedInput(.fix(fix)))
                        }
                        problems += c.finish()
                    }
                    for n in 2...5 {
                        for dt in [1.0, 2, 3, 5, 8, 10, 15, 20, 30, 45, 120, 300] {   // (the last three: gaps)
                            try flight("\(n) fixes \(dt) s apart", Array(repeating: (dt: dt, mps: mps), count: n - 1), noiseM: 0)
                        }
                    }
                    for k in 0..<40 {
                        let steps = (0..<(1 + Int(rng.below(4)))).map { _ in
                            let v = mps * (0.7 + 0.6 * rng.uniform())
                            return (dt: 1 + (min(30, 190 / v) - 1) * rng.uniform(), mps: v)
                        }
                        try flight("random flight \(k): \(steps.map { "\($0.dt.rounded()) s at \(($0.mps * 10).rounded() / 10)" })", steps, noiseM: 1.5)
                    }
                }
            }
        }
        // Not the max speed's: a stop that credits the held steps credits the route points kept
        // before its time only, so the last fix's point, of the stop's own second, keeps the
        // distance it had (0 when the whole flight was held).
        #expect(problems.isEmpty, "\(problems.count) problems:\n\(problems.prefix(40).joined(separator: "\n"))")
    }

    @Test func everySimulatorScenarioKeepsTheInvariants() {
        for trial in SimTrials.tuning + SimTrials.heldBack {
            let problems = Self.scenarios(trial)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func everyRecordingKeepsTheInvariants() throws {
        guard let dir = SharedTracks.folder else { return }
        let files = ["actparser__garmin-edge-820-bike.fit", "actparser__garmin-fenix-5-bike.fit", "actparser__garmin-fenix-5-run.fit",
                     "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit", "fitparse__2013-02-06-12-11-14.fit",
                     "fitparse__2015-10-13-08-43-15.fit", "fitparse__activity-small-fenix2-run.fit", "fitparse__garmin-fenix-5-walk.fit",
                     "fitparse__sample-activity.fit", "gpxpy__Mojstrovka.gpx", "gpxpy__cerknicko-jezero.gpx",
                     "tcxreader__cross-country-skiing_activity_1.tcx", "togeojson__Friday-Evening-Run.gpx",
                     "togeojson__apple_watch_route.gpx", "togeojson__tour_hr.tcx"]
        var read = 0
        for file in files {
            guard let bytes = SharedTracks.read(dir + "/" + file),
                  let format = ImportFormat(rawValue: String(file.split(separator: ".").last ?? "")) else { continue }
            guard let recording = try? bytes.withUnsafeBytes({ b throws(RunwayError) in try Importer.recording(b, as: format) }) else { continue }
            read += 1
            let own = recording.report.activity ?? .run
            for (label, config) in [("its sport", EngineConfig(activity: own)), ("run", EngineConfig()),
                                    ("auto-pause", { var c = EngineConfig(activity: own); c.autoPause.enabled = true; return c }()),
                                    ("filters off", { var c = EngineConfig(activity: own); c.filters = false; return c }()),
                                    ("200 m laps", { var c = EngineConfig(activity: own); c.autoLapM = 200; return c }())] {
                // Replayed from its inputs alone, and with its device's timer (pause and resume
                // lines) and laps (lap lines) when it has them.
                for withTimer in recording.timer.isEmpty && recording.laps.isEmpty ? [false] : [false, true] {
                    var c = InvariantCheck("\(file) (\(label)\(withTimer ? ", its timer and laps" : ""))", config: config)
                    recording.forEachLine { line in
                        switch line {
                        case .input(let input): if let v = try? ValidatedInput(input) { c.push(v) }
                        case .command(let command, let t): if withTimer { c.command(command, at: t) }
                        case .lap(let t, _): if withTimer { c.lap(at: t) }
                        }
                    }
                    #expect(c.refusedCommands == 0, "\(file) (\(label)): \(c.refusedCommands) timer lines refused")
                    #expect(c.acceptedLaps.count == (withTimer ? recording.laps.count : 0), "\(file) (\(label)): \(recording.laps.count - c.acceptedLaps.count) lap lines refused")
                    let problems = c.finish()
                    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
                }
            }
        }
        #expect(read >= 10)
    }

    @Test func theFuzzCorpusInputsKeepTheInvariants() throws {
        // The JSON inputs of the fuzz corpus (one object a file), pushed in turn into one flight,
        // then each after a short clean run.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        let dir = parts.joined(separator: "/") + "/fuzz/seeds/push_json/"
        let names = ["altimeter.json", "bad_accuracy.json", "cadence.json", "fix_full.json", "fix_nulls.json", "hr.json", "huge.json", "ill_typed.json", "placeholder_time.json", "unicode.json", "zero_fix.json"]
        var lines: [[UInt8]] = []
        for n in names { if let b = SharedTracks.read(dir + n) { lines += b.split(separator: 0x0A).map(Array.init) } }
        #expect(lines.count >= 6)
        for activity in Activity.allCases {
            var c = InvariantCheck("fuzz corpus (\(activity))", config: EngineConfig(activity: activity))
            for i in 0..<30 { if let v = try? ValidatedInput(.fix(Fix(t: 1_700_000_000 + Double(i), lat: 52 + degreesNorth(3 * Double(i)), lon: 4))) { c.push(v) } }
            for line in lines {
                let decoded: ValidatedInput? = line.withUnsafeBytes { buf in try? InputDecoder.decode(buf) }
                if let v = decoded { c.push(v) }
            }
            let problems = c.finish()
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }
}
