import Testing
import CRunwayABI
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// runway.h: `runway_replay_config`'s report_line "(its "\n" may follow; at most
/// RUNWAY_MAX_INPUT_BYTES ...)", RUNWAY_ERR_LIMIT "as runway_push_jsonl refuses such a line", and
/// runway_push_jsonl counts a line without its "\n" (review h94 of e297b25..0321d6f).
@Suite("runway_replay_config counts a report line as runway_push_jsonl does")
struct ReplayConfigLineEndTests {
    @Test func aLineOfTheLimitFollowedByItsNewlineIsTakenByBoth() throws {
        let head = #"{"type":"import_report","activity":"ride","altitude_source":null,"auto_lap_m":0"#
        let line = head + String(repeating: " ", count: JSONInput.maxInputBytes - head.utf8.count - 1) + "}"
        try #require(line.utf8.count == JSONInput.maxInputBytes)
        // The push takes the line with its newline (the terminator is not counted).
        let s = try CSession()
        #expect(s.start() == RUNWAY_OK)
        var accepted = 0, rejected = 0
        let bytes = Array((line + "\n").utf8)
        let st = bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { runway_push_jsonl_impl(s.handle, $0.baseAddress, b.count, &accepted, &rejected) }
        }
        #expect(st == RUNWAY_OK && rejected == 0, "push: \(lastError())")
        // So does runway_replay_config, without and with the newline that "may follow".
        var out: UnsafeMutablePointer<CChar>? = nil
        #expect(runway_replay_config_impl(line, nil, &out) == RUNWAY_OK, "\(lastError())")
        free(out)
        out = nil
        #expect(runway_replay_config_impl(line + "\n", nil, &out) == RUNWAY_OK, "with its newline: \(lastError())")
        free(out)
    }
}
