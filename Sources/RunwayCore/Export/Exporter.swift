/// Writes a flight in an interchange format, so other tools (Garmin Connect, Strava, GIS
/// software, spreadsheets) can open it.
///
/// Every format carries the route's *kept* points (those the distance filter stored; with
/// `distance_filter_m` 0, every accepted fix while cruising), in route order, split where the
/// route is split (gaps, jumps, pauses). Unknown values (altitude, speed, heart rate, cadence)
/// are left out of the point, never written as 0. The exporters never fail: a flight with no
/// points gives a valid, empty file of the format.
public enum Exporter {
    /// The flight in `format`; text formats are UTF-8 bytes (no NUL), FIT is binary.
    public static func export(_ record: FlightRecord, as format: ExportFormat) -> [UInt8] {
        switch format {
        case .gpx: GPXExporter.export(record)
        case .tcx: TCXExporter.export(record)
        case .fit: FITExporter.export(record)
        case .geojson: GeoJSONExporter.export(record)
        case .csv: CSVExporter.export(record)
        }
    }
}
