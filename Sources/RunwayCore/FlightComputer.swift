/// The deterministic heart of the engine: all run state and the rules that change it.
///
/// A plain value with mutating methods and no clock of its own: every method that needs the wall
/// clock takes it as a parameter, so the same inputs always give the same outputs and a recorded
/// run replays exactly. Each method appends the events it causes to `events`, with increasing
/// `seq`. A method that throws has changed nothing (and appended nothing).
public struct FlightComputer: Sendable {
    public let config: EngineConfig
    public private(set) var phase: FlightPhase = .preflight
    /// The sequence number of the latest event.
    public private(set) var seq: UInt64 = 0
    /// The sequence number of the latest `flight` event: the snapshot's `seq`.
    public private(set) var flightSeq: UInt64 = 0
    /// The latest time seen (an input's, a phase change's or a tick's); NaN before any.
    public private(set) var now: Double = .nan
    public private(set) var route = Route()
    public private(set) var log = LogRing(capacity: 20)

    // Times of the flight.
    var startT = Double.nan
    var endT = Double.nan
    var elapsedBefore = 0.0          // cruise seconds before the current cruise leg
    var cruiseSince = Double.nan     // start of the current cruise leg (NaN: not cruising, or time pending)
    var endReason: String? = nil

    // Live values from the latest fix.
    var lat = Double.nan, lon = Double.nan, hAcc = Double.nan, alt = Double.nan
    var speed = Double.nan, course = Double.nan
    var reducedAccuracy = false
    var sawAccuracy = false

    // Distance: measured from the last kept point.
    var anchorLat = Double.nan, anchorLon = Double.nan
    var segmentBearing = Double.nan
    public private(set) var distance = 0.0
    var fixes = 0

    // Recent (time, cumulative distance) of cruise fixes, for speed when fixes carry none.
    var window: [(t: Double, d: Double)] = []
    var windowHead = 0

    // Sensors and statistics (cruise only).
    var hr = Double.nan, cadence = Double.nan
    var hrSum = 0.0, hrCount = 0, hrMax = Double.nan
    var cadenceSum = 0.0, cadenceCount = 0
    var maxSpeed = Double.nan

    public init(config: EngineConfig = EngineConfig()) {
        self.config = config
    }

    // MARK: - Inputs

    /// Processes one fix or sample.
    ///
    /// - Parameters:
    ///   - input: a validated input; its time may be NaN only with the live clock.
    ///   - wallClock: the wall clock now, used for a missing time with the live clock.
    /// - Throws: `.input` when the time is missing (replay clock) or goes backwards.
    public mutating func process(_ input: Input, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        let t = try resolveTime(input.t, wallClock: wallClock, what: "input")
        advance(to: t)
        switch input {
        case .fix(let fix): apply(fix, at: t)
        case .sample(.heartRate(let bpm, _)): applyHeartRate(bpm)
        case .sample(.cadence(let spm, _)): applyCadence(spm)
        }
        emitFlight(&events)
    }

    mutating func apply(_ fix: Fix, at t: Double, logEvents: Bool = true) {
        fixes += 1
        lat = fix.lat; lon = fix.lon; hAcc = fix.hAcc; alt = fix.alt; course = fix.course
        if !fix.hr.isNaN { applyHeartRate(fix.hr) }
        if !fix.cadence.isNaN { applyCadence(fix.cadence) }
        let accurate = fix.hAcc.isNaN || fix.hAcc <= config.requiredAccuracyM
        if !fix.hAcc.isNaN { sawAccuracy = true }
        if !accurate && !reducedAccuracy {
            reducedAccuracy = true
            pendingLog.append((.warning, "reduced accuracy: h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(config.requiredAccuracyM)) m; fixes not counted"))
        } else if accurate && reducedAccuracy && !fix.hAcc.isNaN {
            reducedAccuracy = false
            pendingLog.append((.info, "accuracy restored: h_acc \(PFD.whole(fix.hAcc)) m"))
        }
        if phase == .cruise && accurate {
            keepIfFarEnough(fix, at: t)
            pushWindow(t: t, d: distance)
        }
        if !fix.speed.isNaN {
            speed = fix.speed
        } else {
            speed = phase == .cruise ? windowSpeed() : .nan
        }
        if phase == .cruise, !speed.isNaN, !(speed <= maxSpeed) { maxSpeed = speed }
    }

    /// Keeps the fix as a route point when it is at least the distance filter away from the last kept point.
    mutating func keepIfFarEnough(_ fix: Fix, at t: Double) {
        if anchorLat.isNaN {
            keep(fix, at: t)
            return
        }
        let d = Geodesy.distance(lat1: anchorLat, lon1: anchorLon, lat2: fix.lat, lon2: fix.lon)
        guard d >= config.distanceFilterM, d > 0 || config.distanceFilterM == 0 else { return }
        distance += d
        if d > 0 { segmentBearing = Geodesy.bearing(lat1: anchorLat, lon1: anchorLon, lat2: fix.lat, lon2: fix.lon) }
        keep(fix, at: t)
    }

    /// Starts a cruise leg where the runner is: the latest (accurate) fix becomes the first kept
    /// point, so neither the preflight position nor the walk while holding adds distance, and the
    /// stretch from the start line to the next fix is not lost.
    mutating func anchorAtCurrentPosition(_ t: Double) {
        anchorLat = .nan; anchorLon = .nan
        guard !lat.isNaN, !reducedAccuracy else { return }
        keep(Fix(t: t, lat: lat, lon: lon, alt: alt), at: t.isNaN ? now : t)
    }

    mutating func keep(_ fix: Fix, at t: Double) {
        anchorLat = fix.lat
        anchorLon = fix.lon
        route.append(lat: fix.lat, lon: fix.lon, alt: fix.alt, t: t)
    }

    mutating func applyHeartRate(_ bpm: Double) {
        hr = bpm > 0 ? bpm : .nan  // 0 bpm: no skin contact
        guard phase == .cruise, bpm > 0 else { return }
        hrSum += bpm; hrCount += 1
        if !(bpm <= hrMax) { hrMax = bpm }
    }

    mutating func applyCadence(_ spm: Double) {
        cadence = spm
        guard phase == .cruise, spm > 0 else { return }  // standing still is no cadence to average
        cadenceSum += spm; cadenceCount += 1
    }

    mutating func pushWindow(t: Double, d: Double) {
        window.append((t, d))
        while windowHead < window.count - 1, window[windowHead].t < t - config.paceWindowS { windowHead += 1 }
        if windowHead > 64 && windowHead * 2 > window.count {
            window.removeFirst(windowHead)
            windowHead = 0
        }
    }

    /// Distance over time across the pace window; NaN with fewer than two fixes in it.
    func windowSpeed() -> Double {
        guard window.count - windowHead >= 2, let last = window.last else { return .nan }
        let first = window[windowHead]
        let dt = last.t - first.t
        guard dt > 0 else { return .nan }
        return (last.d - first.d) / dt
    }

    // MARK: - Phases and time

    /// Applies a phase command at time `t` (NaN = now).
    ///
    /// - Throws: `.state` when the command is not allowed in the current phase, `.input` for a time
    ///   before the latest input.
    public mutating func command(_ command: PhaseCommand, at t: Double, wallClock: Double,
                                 events: inout [Event]) throws(RunwayError) {
        guard let next = phase.after(command) else {
            throw .state("cannot \(command.rawValue) in phase \(phase.rawValue)" +
                         (phase == .touchdown ? " (a session is one flight)" : ""))
        }
        let time = try resolveTime(t, wallClock: wallClock, what: command.rawValue, optional: true)
        if !time.isNaN { advance(to: time) }
        let from = phase
        switch command {
        case .start:
            startT = time
            cruiseSince = time
        case .pause:
            elapsedBefore = elapsed
            cruiseSince = .nan
        case .resume:
            cruiseSince = time
            window.removeAll(keepingCapacity: true); windowHead = 0
        case .stop:
            elapsedBefore = elapsed
            cruiseSince = .nan
            endT = time
            endReason = "stopped"
        }
        phase = next
        if next == .cruise { anchorAtCurrentPosition(time) }
        if time.isNaN { timePending = true }
        seq += 1
        events.append(Event(seq: seq, t: time, body: .phase(from: from, to: next)))
        appendLog(.info, "phase \(from.rawValue) -> \(next.rawValue)", &events)
        emitFlight(&events)
    }

    /// Advances the clock without a fix; emits a `tick` while cruising.
    public mutating func tick(at t: Double, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        let time = try resolveTime(t, wallClock: wallClock, what: "tick", optional: true)
        guard !time.isNaN else { return }  // replay clock before any input: nothing to advance
        advance(to: time)
        guard phase == .cruise else { return }
        seq += 1
        events.append(Event(seq: seq, t: time, body: .tick(elapsedS: elapsed, distanceM: distance, phase: phase)))
    }

    /// Records a rejected input in the log (run state is unchanged).
    public mutating func logRejection(_ error: RunwayError, events: inout [Event]) {
        let text = error.message.count > 200 ? String(error.message.prefix(200)) + "…" : error.message
        appendLog(.error, "rejected input: " + text, &events)
    }

    /// Cruise seconds so far.
    public var elapsed: Double {
        guard phase == .cruise, !cruiseSince.isNaN, !now.isNaN else { return elapsedBefore }
        return elapsedBefore + max(0, now - cruiseSince)
    }

    var timePending = false
    var pendingLog: [(LogRing.Line.Level, String)] = []

    /// The time of an input or command: its own, the wall clock (live), or the latest (replay).
    func resolveTime(_ t: Double, wallClock: Double, what: String, optional: Bool = false) throws(RunwayError) -> Double {
        if t.isNaN {
            if config.clock == .live {
                return now.isNaN ? wallClock : max(now, wallClock)
            }
            if optional { return now }
            throw .input("\(what) needs \"t\" (unix seconds) with the replay clock")
        }
        do { try Sample.checkTime(t) } catch { throw error }
        if !now.isNaN && t < now {
            throw .input("time going backwards: t \(t) is before the latest \(now)")
        }
        return t
    }

    /// Moves the clock to `t`, filling in phase times that were pending.
    mutating func advance(to t: Double) {
        now = t
        guard timePending else { return }
        timePending = false
        if phase != .preflight && startT.isNaN { startT = t }
        if phase == .cruise && cruiseSince.isNaN { cruiseSince = t }
        if phase == .touchdown && endT.isNaN { endT = t }
    }

    // MARK: - Outputs

    mutating func appendLog(_ level: LogRing.Line.Level, _ message: String, _ events: inout [Event]) {
        seq += 1
        let line = LogRing.Line(seq: seq, t: now, level: level, message: message)
        log.append(line)
        events.append(Event(seq: seq, t: now, body: .log(line)))
    }

    mutating func emitFlight(_ events: inout [Event]) {
        if !pendingLog.isEmpty {
            for (level, message) in pendingLog { appendLog(level, message, &events) }
            pendingLog.removeAll(keepingCapacity: true)
        }
        seq += 1
        flightSeq = seq
        events.append(Event(seq: seq, t: now, body: .flight(snapshot)))
    }

    /// The current FlightData.
    public var snapshot: FlightData {
        var d = FlightData()
        d.seq = flightSeq
        d.t = now
        d.phase = phase
        d.lat = lat; d.lon = lon; d.hAccM = hAcc
        d.accuracy = reducedAccuracy ? .reduced : (sawAccuracy ? .ok : .unknown)
        d.distanceM = distance
        d.points = route.count
        d.fixes = fixes
        d.speedMps = speed
        d.altitudeM = alt
        d.headingDeg = course.isNaN ? segmentBearing : course
        d.elapsedS = elapsed
        d.hrBpm = hr
        d.cadenceSpm = cadence
        return d
    }

    /// The flight record so far: times, totals, averages and (optionally) the route.
    public func writeSummary(to w: inout JSONWriter, includeRoute: Bool = true) {
        let elapsedS = elapsed
        w.beginObject()
        w.field("kind", "summary")
        w.field("phase", phase.rawValue)
        w.key("end_reason"); if let endReason { w.string(endReason) } else { w.null() }
        w.field("start_t", startT)
        w.field("end_t", endT)
        w.field("elapsed_s", elapsedS)
        w.field("distance_m", distance)
        w.field("avg_pace_min_per_km", FlightData.averagePace(elapsedS: elapsedS, distanceM: distance))
        w.field("avg_speed_mps", elapsedS > 0 ? distance / elapsedS : .nan)
        w.field("max_speed_mps", maxSpeed)
        w.field("avg_hr_bpm", hrCount > 0 ? hrSum / Double(hrCount) : .nan)
        w.field("max_hr_bpm", hrMax)
        w.field("avg_cadence_spm", cadenceCount > 0 ? cadenceSum / Double(cadenceCount) : .nan)
        w.field("fixes", fixes)
        w.field("points", route.count)
        if includeRoute {
            w.key("route")
            w.beginArray()
            for i in 0..<route.count {
                w.beginArray()
                w.number(route.latitude(i)); w.number(route.longitude(i))
                w.number(route.altitude(i)); w.number(route.time(i))
                w.endArray()
            }
            w.endArray()
        }
        w.endObject()
    }

    public func summaryJSON(includeRoute: Bool = true) -> String {
        var w = JSONWriter()
        writeSummary(to: &w, includeRoute: includeRoute)
        return w.text
    }
}
