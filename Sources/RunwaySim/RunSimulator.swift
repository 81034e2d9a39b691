#if canImport(Glibc)
import Glibc
#endif

/// Random streams, one per concern, so turning one concern on or off leaves the others' numbers
/// as they were (a spike or a missing speed field never changes another fix's position).
enum SimStream: UInt64 {
    case geometry = 1, pace, position, altitude, doppler, course, accuracy, altitudeDrift
    /// Spikes use `spikeBase + index`, so each spike's direction depends only on its index.
    static let spikeBase: UInt64 = 0x5350_494B_0000_0000
}

/// Simulates a run round a closed loop with realistic GPS error, and keeps the truth.
///
/// The loop is built in local east/north metres round the centre (a polygon with rounded
/// corners, its shape drawn from the seed) and placed on the WGS84 ellipsoid with the local
/// radii of curvature; longitudes are normalised, so a loop may straddle the antimeridian. The
/// runner stands for `standStillBeforeS`, runs `laps` times round at the target pace (slow
/// random variation, slower round corners, never accelerating harder than 1.5 m/s²), stands at
/// each stop, and stands for `standStillAfterS` at the end. Every `1/hz` seconds the receiver
/// reports the true position displaced by its error — per axis (east, north) a first-order
/// Gauss–Markov process plus white noise, applied in metres at the point's latitude — and,
/// when included, altitude, Doppler speed (the magnitude of the true velocity plus noise per
/// axis, its own σ while standing when configured, times 1 + the scale error), course and
/// accuracy. Spikes then replace the
/// positions of the given fixes.
///
/// The truth distance is measured independently of the construction: the sum of Vincenty
/// geodesics between consecutive true positions (see ``SimRun/truthDistanceM``).
///
/// The same configuration always gives the same run, bit for bit.
///
/// - Parameter config: the run to simulate; out-of-range values are clamped
///   (``SimConfig/sanitised()``).
/// - Returns: the fixes and the truth.
///
/// ```swift
/// var config = SimConfig()
/// config.stops = [SimStop(atDistanceM: 2000, durationS: 120)]
/// let run = simulate(config)
/// print(run.truthDistanceM, run.fixes.count)
/// ```
public func simulate(_ config: SimConfig) -> SimRun {
    let c = config.sanitised()
    var geometryRng = SimRandom(seed: c.seed, stream: SimStream.geometry.rawValue)
    let path = LoopPath(length: c.loopLengthM, rng: &geometryRng)
    let hills = HillProfile(amplitude: c.altitudeAmplitudeM, loopLength: path.length, shape: c.hillShape, rng: &geometryRng)
    let total = path.length * c.laps
    let steadySpeed = 1000 / (c.paceMinPerKm * 60)

    // The start, the stops along the way, and the end, in order of distance.
    var stops = [RunnerMotion.Stop(at: 0, duration: c.standStillBeforeS)]
    let along = c.stops.filter { $0.atDistanceM <= total }.sorted { $0.atDistanceM < $1.atDistanceM }
    stops += along.map { RunnerMotion.Stop(at: $0.atDistanceM, duration: $0.durationS) }
    stops.append(RunnerMotion.Stop(at: total, duration: c.standStillAfterS))
    var motion = RunnerMotion(path: path, steadySpeed: steadySpeed, stops: stops,
                              paceVariation: c.paceVariation,
                              rng: SimRandom(seed: c.seed, stream: SimStream.pace.rawValue))

    var positionRng = SimRandom(seed: c.seed, stream: SimStream.position.rawValue)
    var altitudeRng = SimRandom(seed: c.seed, stream: SimStream.altitude.rawValue)
    var dopplerRng = SimRandom(seed: c.seed, stream: SimStream.doppler.rawValue)
    var courseRng = SimRandom(seed: c.seed, stream: SimStream.course.rawValue)
    var accuracyRng = SimRandom(seed: c.seed, stream: SimStream.accuracy.rawValue)
    var driftRng = SimRandom(seed: c.seed, stream: SimStream.altitudeDrift.rawValue)
    var drift = 0.0
    let driftPerStep = c.altitudeDriftMPerSqrtH * (1 / c.hz / 3600).squareRoot()
    let sigmaV = (c.altitudeGmSigmaM * c.altitudeGmSigmaM + c.altitudeWhiteSigmaM * c.altitudeWhiteSigmaM).squareRoot()
    var errorEast = GaussMarkov(sigma: c.gmSigmaM, tau: c.gmTauS, rng: &positionRng)
    var errorNorth = GaussMarkov(sigma: c.gmSigmaM, tau: c.gmTauS, rng: &positionRng)
    var errorUp = GaussMarkov(sigma: c.altitudeGmSigmaM, tau: c.altitudeGmTauS, rng: &altitudeRng)
    var accuracyWander = GaussMarkov(sigma: c.accuracyVariation, tau: 30, rng: &accuracyRng)
    let sigmaH = (c.gmSigmaM * c.gmSigmaM + c.whiteSigmaM * c.whiteSigmaM).squareRoot()

    let interval = 1 / c.hz
    let substeps = max(1, Int((interval / 0.1).rounded(.up)))     // hz is clamped: 1 ... 100
    let substep = interval / Double(substeps)
    let stoodS = stops.reduce(0) { $0 + $1.duration }
    let expected = (stoodS + total / steadySpeed * 1.1 + 60) * c.hz
    var fixes: [SimFix] = []
    fixes.reserveCapacity(min(c.maxFixes, expected.isFinite ? Int(min(max(expected, 1), 1e7)) : 1))

    var trueDistance = 0.0, gain = 0.0, loss = 0.0
    var index = 0
    while true {
        if index > 0 {
            for _ in 0..<substeps { motion.advance(by: substep) }
            errorEast.step(dt: interval, rng: &positionRng)
            errorNorth.step(dt: interval, rng: &positionRng)
            errorUp.step(dt: interval, rng: &altitudeRng)
            accuracyWander.step(dt: interval, rng: &accuracyRng)
            if driftPerStep > 0 { drift += driftPerStep * driftRng.gaussian() }
        }
        let t = c.startT + Double(index) * interval

        // Truth.
        var u = fmod(motion.s, path.length)
        if u < 0 { u += path.length }
        let p = path.point(at: u)
        let truePos = WGS84.offset(lat: c.centerLat, lon: c.centerLon, east: p.east, north: p.north)
        let trueAlt = hills.altitude(at: u)
        if let previous = fixes.last {
            trueDistance += WGS84.distance(lat1: previous.trueLat, lon1: previous.trueLon,
                                           lat2: truePos.lat, lon2: truePos.lon)
            let rise = trueAlt - previous.trueAlt
            if rise > 0 { gain += rise } else { loss -= rise }
        }

        // What the receiver reports. Every stream draws the same numbers whatever is included.
        let east = errorEast.value + c.whiteSigmaM * positionRng.gaussian()
        let north = errorNorth.value + c.whiteSigmaM * positionRng.gaussian()
        let measured = WGS84.offset(lat: truePos.lat, lon: truePos.lon, east: east, north: north)
        let alt = trueAlt + errorUp.value + c.altitudeWhiteSigmaM * altitudeRng.gaussian() + drift
        let dopplerSigma = motion.v == 0 && !c.standingDopplerSigmaMps.isNaN ? c.standingDopplerSigmaMps : c.dopplerSigmaMps
        let ve = motion.v * cos(p.heading) + dopplerSigma * dopplerRng.gaussian()
        let vn = motion.v * sin(p.heading) + dopplerSigma * dopplerRng.gaussian()
        let speed = (ve * ve + vn * vn).squareRoot()
        var course = atan2(ve, vn) * 180 / Double.pi + c.courseSigmaDeg * courseRng.gaussian()
        course = fmod(course, 360)
        if course < 0 { course += 360 }
        if course >= 360 { course -= 360 }
        let hAcc = sigmaH * exp(accuracyWander.value)

        fixes.append(SimFix(
            t: t, lat: measured.lat, lon: measured.lon,
            alt: c.includeAltitude ? alt : .nan,
            speed: c.includeSpeed ? speed * c.dopplerScale : .nan,
            course: c.includeCourse && (speed >= 0.5 || c.courseWhenSlow) ? course : .nan,
            hAcc: c.includeAccuracy ? hAcc : .nan,
            vAcc: c.includeVerticalAccuracy && c.includeAltitude ? sigmaV : .nan,
            trueLat: truePos.lat, trueLon: truePos.lon, trueAlt: trueAlt,
            trueDistanceM: trueDistance, truePathM: motion.s,
            trueSpeedMps: motion.v, isMoving: motion.isMoving))

        if motion.isFinished || fixes.count >= c.maxFixes { break }
        index += 1
    }

    for spike in c.spikes where spike.atIndex >= 0 && spike.atIndex < fixes.count {
        let i = spike.atIndex
        switch spike.kind {
        case .nullIsland:
            fixes[i].lat = 0
            fixes[i].lon = 0
        case .offsetM(let metres):
            guard metres.isFinite else { continue }
            var rng = SimRandom(seed: c.seed, stream: SimStream.spikeBase &+ UInt64(i))
            let direction = rng.uniform() * 2 * Double.pi
            let moved = WGS84.offset(lat: fixes[i].trueLat, lon: fixes[i].trueLon,
                                     east: metres * sin(direction), north: metres * cos(direction))
            fixes[i].lat = moved.lat
            fixes[i].lon = moved.lon
        }
    }

    let first = fixes.first?.t ?? c.startT
    let last = fixes.last?.t ?? c.startT
    return SimRun(config: c, fixes: fixes, truthDistanceM: trueDistance, truthMovingS: motion.movingTime,
                  truthElapsedS: last - first, truthGainM: gain, truthLossM: loss)
}
