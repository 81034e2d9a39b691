/// A simulated run: its fixes and the truth they were made from.
public struct SimRun: Sendable {
    /// The configuration actually used (``SimConfig/sanitised()`` of the one given).
    public let config: SimConfig
    public let fixes: [SimFix]
    /// Length of the true path, metres: the sum of WGS84 geodesic distances (Vincenty) between
    /// consecutive true positions at the output rate.
    ///
    /// The true path between two output instants is taken to be straight (the geodesic between
    /// them), so this sum *is* its length, not an approximation of it; it differs from the
    /// simulator's planned path only where a chord cuts a rounded corner (centimetres per
    /// corner). It is measured independently of how the positions were built (a local
    /// ellipsoidal scale round the loop's centre).
    public let truthDistanceM: Double
    /// Seconds the runner was moving (not standing), in continuous time.
    public let truthMovingS: Double
    /// Seconds from the first fix to the last.
    public let truthElapsedS: Double
    /// Total ascent and descent of the true altitude, metres: the sums of rises and of falls
    /// between consecutive fixes' true altitudes (the hill profile is smooth, so this is its
    /// total variation at any sensible rate).
    public let truthGainM: Double, truthLossM: Double

    /// The fixes as JSON Lines, one librunway fix object per line (each line ends in `\n`).
    ///
    /// Keys `t`, `lat`, `lon`, `alt`, `speed`, `course`, `h_acc`, `v_acc`; a NaN value's key is
    /// left out. With `SimConfig.altitudeSource` barometric, each fix's altitude comes instead as
    /// an `{"type":"altimeter","t":…,"alt":…}` line before it.
    /// Numbers are written in Swift's shortest round-trip form, so parsing them gives back the
    /// very same doubles. With `includeTruth`, each line also carries `true_lat`, `true_lon`,
    /// `true_d` (the fix's `trueDistanceM`), `true_path` (its `truePathM`, the distance the
    /// runner really covered, for pace) and `true_alt` (the terrain's altitude there, whatever
    /// altitude error and source), which librunway ignores.
    ///
    /// ```
    /// {"t":1700000000.0,"lat":52.36993,"lon":4.8898,"alt":21.3,"speed":0.12,"h_acc":4.1}
    /// ```
    public func jsonLines(includeTruth: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(fixes.count * (includeTruth ? 230 : 150))
        let barometric = config.altitudeSource == .barometric
        for f in fixes {
            if barometric && f.alt.isFinite { out += "{\"type\":\"altimeter\",\"t\":\(f.t),\"alt\":\(f.alt)}\n" }
            out += "{\"t\":\(f.t)"
            appendField(&out, "lat", f.lat)
            appendField(&out, "lon", f.lon)
            if !barometric { appendField(&out, "alt", f.alt) }
            appendField(&out, "speed", f.speed)
            appendField(&out, "course", f.course)
            appendField(&out, "h_acc", f.hAcc)
            appendField(&out, "v_acc", f.vAcc)
            if includeTruth {
                appendField(&out, "true_lat", f.trueLat)
                appendField(&out, "true_lon", f.trueLon)
                appendField(&out, "true_d", f.trueDistanceM)
                appendField(&out, "true_path", f.truePathM)
                appendField(&out, "true_alt", f.trueAlt)
            }
            out += "}\n"
        }
        return out
    }

    /// The truth as one JSON object (what `runway-sim` prints to stderr).
    public func truthJSON() -> String {
        "{\"truth_distance_m\":\(truthDistanceM),\"moving_s\":\(truthMovingS),\"elapsed_s\":\(truthElapsedS),"
            + "\"gain_m\":\(truthGainM),\"loss_m\":\(truthLossM),\"fixes\":\(fixes.count)}"
    }
}

/// Appends `,"key":value` unless the value is NaN or infinite (JSON has neither).
private func appendField(_ out: inout String, _ key: String, _ value: Double) {
    guard value.isFinite else { return }
    out += ",\"\(key)\":\(value)"
}
