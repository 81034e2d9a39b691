/// The library's version; keep in step with RUNWAY_VERSION_STRING in include/runway.h.
enum RunwayVersion {
    static let string: StaticString = "0.1.0"
}
