/// The outcome of a library call, mirroring `runway_status` in `include/runway.h`.
public enum RunwayStatus: UInt32, Sendable {
    case ok = 0
    case argument = 1
    case json = 2
    case input = 3
    case state = 4
    case notFound = 5
    case store = 6
    case `internal` = 7
    case limit = 8

    /// Fixed text per status, as `sqlite3_errstr` gives.
    public var text: StaticString {
        switch self {
        case .ok: return "ok"
        case .argument: return "invalid argument (NULL pointer, bad config or options)"
        case .json: return "not JSON, or not a JSON object"
        case .input: return "invalid input"
        case .state: return "not allowed in the current flight phase"
        case .notFound: return "not found"
        case .store: return "storage failure"
        case .internal: return "internal error"
        case .limit: return "a documented limit was reached"
        }
    }
}

/// A failed call: a status for programs and a message for humans.
public struct RunwayError: Error, Sendable, Equatable {
    public let status: RunwayStatus
    public let message: String

    public init(_ status: RunwayStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    static func argument(_ m: String) -> RunwayError { RunwayError(.argument, m) }
    static func json(_ m: String) -> RunwayError { RunwayError(.json, m) }
    static func input(_ m: String) -> RunwayError { RunwayError(.input, m) }
    static func state(_ m: String) -> RunwayError { RunwayError(.state, m) }
    static func limit(_ m: String) -> RunwayError { RunwayError(.limit, m) }
}
