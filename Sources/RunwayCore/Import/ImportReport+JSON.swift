/// The report as its JSON line, bounded so that the line always fits what `runway_push_jsonl`
/// takes (`JSONInput.maxInputBytes`) whatever the file: a GPX of 30 000 one-point `trk`s wrote
/// a 1.63 MB line, which the importer's own output could not push back.
extension ImportReport {
    /// The tracks listed in `tracks` (the rest are counted in `more_tracks`).
    public static let maxListedTracks = 100
    /// The warnings listed in `warnings` (the rest are counted in `more_warnings`).
    public static let maxListedWarnings = 50
    /// The device laps listed in `device.laps` (the rest are counted in `device.more_laps`).
    public static let maxListedLaps = 1000
    /// The Unicode scalars kept of a text the file names (`sport`, a track's `name`) and of a
    /// warning; a longer one is cut there and ends in `…`.
    public static let maxTextScalars = 200

    /// `text` cut to `maxTextScalars` Unicode scalars, the last of them `…`, when it is longer.
    static func bounded(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > maxTextScalars else { return text }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars.prefix(maxTextScalars - 1))
        kept.append("…")
        return String(kept)
    }

    /// Writes the report as one JSON object (the contract's `import_report` line): the first
    /// `maxListedTracks` tracks, `maxListedWarnings` warnings and `maxListedLaps` device laps,
    /// each list followed by the count of those left out (`more_tracks`, `more_warnings`,
    /// `more_laps`) when any are, and texts cut to `maxTextScalars` (at most 6 bytes a scalar
    /// written, a control character escaped): the line is under 600 KB whatever the file
    /// (tracks 130 KB, warnings 60 KB, laps 400 KB at most).
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("type", "import_report")
        w.field("format", format.rawValue)
        w.key("sport"); if let sport { w.string(Self.bounded(sport)) } else { w.null() }
        w.key("activity"); if let activity { w.string(activity.rawValue) } else { w.null() }
        w.key("altitude_source"); if let altitudeSource { w.string(altitudeSource.rawValue) } else { w.null() }
        w.key("auto_lap_m"); if let autoLapM { w.integer(autoLapM) } else { w.null() }
        w.field("inputs", inputs)
        w.field("untimed", untimed)
        w.field("no_position", noPosition)
        w.field("unreadable", unreadable)
        w.field("pauses", pauses)
        w.field("laps", laps)
        w.key("tracks")
        w.beginArray()
        for track in tracks.prefix(Self.maxListedTracks) {
            w.beginObject()
            w.field("index", track.index)
            w.key("name"); if let name = track.name { w.string(Self.bounded(name)) } else { w.null() }
            w.field("points", track.points)
            w.field("untimed", track.untimed)
            w.endObject()
        }
        w.endArray()
        if tracks.count > Self.maxListedTracks { w.field("more_tracks", tracks.count - Self.maxListedTracks) }
        w.key("warnings")
        w.beginArray()
        for warning in warnings.prefix(Self.maxListedWarnings) { w.string(Self.bounded(warning)) }
        w.endArray()
        if warnings.count > Self.maxListedWarnings { w.field("more_warnings", warnings.count - Self.maxListedWarnings) }
        w.key("device")
        if let d = device { write(d, to: &w) } else { w.null() }
        w.endObject()
    }

    private func write(_ d: DeviceTotals, to w: inout JSONWriter) {
        w.beginObject()
        optional(&w, "distance_m", d.distanceM)
        optional(&w, "timer_s", d.timerS)
        optional(&w, "elapsed_s", d.elapsedS)
        optional(&w, "ascent_m", d.ascentM)
        optional(&w, "descent_m", d.descentM)
        optional(&w, "calories_kcal", d.caloriesKcal)
        optional(&w, "avg_power_w", d.avgPowerW)
        optional(&w, "max_power_w", d.maxPowerW)
        optional(&w, "normalized_power_w", d.normalizedPowerW)
        if !d.laps.isEmpty {
            w.key("laps")
            w.beginArray()
            for lap in d.laps.prefix(Self.maxListedLaps) {
                w.beginObject()
                optional(&w, "start_t", lap.startT)
                optional(&w, "distance_m", lap.distanceM)
                optional(&w, "timer_s", lap.timerS)
                optional(&w, "elapsed_s", lap.elapsedS)
                optional(&w, "ascent_m", lap.ascentM)
                optional(&w, "avg_power_w", lap.avgPowerW)
                optional(&w, "max_power_w", lap.maxPowerW)
                optional(&w, "normalized_power_w", lap.normalizedPowerW)
                if let trigger = lap.trigger { w.field("trigger", trigger.rawValue) }
                w.endObject()
            }
            w.endArray()
            if d.laps.count > Self.maxListedLaps { w.field("more_laps", d.laps.count - Self.maxListedLaps) }
        }
        w.endObject()
    }

    private func optional(_ w: inout JSONWriter, _ key: StaticString, _ v: Double) {
        if v.isFinite { w.field(key, v) }
    }
}
