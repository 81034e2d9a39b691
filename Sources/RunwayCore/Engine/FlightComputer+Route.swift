/// The route points the composer keeps (a point's figures, the end of a leg) and the movement
/// credited after the runner seemed to stand.
///
///     let p = fc.point(52.0, 4.0, 1.5, at: 1_700_000_100)   // the flight's distance, speed, HR there
extension FlightComputer {
    /// Movement confirmed after a still spell: the held steps since it began go to the distance
    /// and moving time, and to the route points and pace window kept since (before `t`).
    mutating func creditMovement(_ judged: StillnessDetector.Judged, before t: Double) {
        guard let c = judged.credit else { return }
        odometer.credit(distanceM: c.distanceM, movingS: c.movingS)
        recorder.credit(stillness.creditedSteps, before: t)
        pace.credit(stillness.creditedSteps)
    }

    /// Pays out what the filter's steps left out (`owed`: start lag, a Doppler window's
    /// shortfall), no faster than the speed cap allows over `dt` on top of this step's metres.
    mutating func payOwed(over dt: Double, stepM: Double) {
        let paid = min(owed, max(0, config.speedCapMps * dt - stepM))
        guard paid > 0 else { return }
        owed -= paid
        odometer.credit(distanceM: paid)
        pace.shift(by: paid)
    }

    /// A route point at the flight's figures now.
    func point(_ lat: Double, _ lon: Double, _ alt: Double, at t: Double) -> RoutePoint {
        RoutePoint(lat: lat, lon: lon, alt: alt, t: t, distanceM: distance, speedMps: pace.groundSpeedMps,
                   hr: sensors.heartRate(at: t), cadence: sensors.cadence(at: t), power: metrics.routeValue(at: t))
    }

    /// A leg ends at the latest accepted fix when the distance filter left it out, so the route's
    /// last cumulative distance is the flight's (not on a full route).
    mutating func keepLatestPosition() {
        guard config.filters, let last = lastAccepted else { return }
        recorder.keepLast(point(last.lat, last.lon, shown.alt, at: last.t), flightDistanceM: distance)
    }
}
