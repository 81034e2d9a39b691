/// The file formats a flight can be exported to.
///
/// ```swift
/// let format = try ExportFormat.named("gpx")
/// let bytes = Exporter.export(computer.record, as: format)   // GPX 1.1, UTF-8
/// ```
public enum ExportFormat: String, Sendable, CaseIterable {
    /// GPX 1.1 with Garmin's TrackPointExtension v2 (heart rate, cadence, speed); one `trkseg`
    /// per timer leg (a break where the flight paused, not at a GPS gap).
    case gpx
    /// Garmin Training Center XML v2: one `Lap` per lap, one `Track` in it per timer leg,
    /// trackpoints with distance, heart rate and cadence.
    case tcx
    /// A FIT activity file (binary): file_id, device_info, timer events, records, laps,
    /// session, activity.
    case fit
    /// A GeoJSON Feature: the route as a LineString (one segment) or MultiLineString (one line
    /// per route segment: gaps and jumps break it, as pauses do), the summary figures as
    /// properties.
    case geojson
    /// Comma-separated values: a header and one row per route point.
    case csv

    /// The format called `name` (as the C ABI receives it: `"gpx"`, `"tcx"`, `"fit"`,
    /// `"geojson"`, `"csv"`; case-sensitive).
    ///
    /// - Throws: `.argument` naming the formats when `name` is none of them.
    public static func named(_ name: String) throws(RunwayError) -> ExportFormat {
        guard let format = ExportFormat(rawValue: name) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            throw .argument("unknown export format \"\(name.count > 40 ? String(name.prefix(40)) + "…" : name)\"; expected one of \(known)")
        }
        return format
    }

    /// The usual file name extension, without the dot.
    public var fileExtension: String { rawValue }

    /// The media type of the exported bytes.
    public var mediaType: String {
        switch self {
        case .gpx: "application/gpx+xml"
        case .tcx: "application/vnd.garmin.tcx+xml"
        case .fit: "application/vnd.ant.fit"
        case .geojson: "application/geo+json"
        case .csv: "text/csv"
        }
    }

    /// Whether the format is text (UTF-8, no NUL bytes); FIT is binary.
    public var isText: Bool { self != .fit }
}
