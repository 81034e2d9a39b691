/// A tiny reader for the simulator's own output: one flat JSON object of numbers per line.
///
/// Just enough JSON to check `SimRun.jsonLines` without Foundation: `{"key":number,...}` with
/// no whitespace, escapes or nesting. Returns nil for anything else.
func parseFlatNumberObject(_ line: Substring) -> [(key: String, value: Double)]? {
    var chars = Array(line.utf8)[...]
    func take(_ c: UInt8) -> Bool {
        guard chars.first == c else { return false }
        chars = chars.dropFirst()
        return true
    }
    guard take(UInt8(ascii: "{")) else { return nil }
    var fields: [(key: String, value: Double)] = []
    if take(UInt8(ascii: "}")) { return chars.isEmpty ? fields : nil }
    repeat {
        guard take(UInt8(ascii: "\"")) else { return nil }
        guard let close = chars.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let key = String(decoding: chars[chars.startIndex..<close], as: UTF8.self)
        chars = chars[(close + 1)...]
        guard take(UInt8(ascii: ":")) else { return nil }
        let numberChars = chars.prefix { "-+.0123456789eE".utf8.contains($0) }
        guard let value = Double(String(decoding: numberChars, as: UTF8.self)) else { return nil }
        chars = chars.dropFirst(numberChars.count)
        fields.append((key, value))
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")), chars.isEmpty else { return nil }
    return fields
}
