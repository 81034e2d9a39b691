/// UTF-8 text built byte by byte for the text exports: plain text, XML-escaped text, and
/// decimal numbers in a fixed number of places (no Foundation, no `printf`).
struct TextBuffer {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func write(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    mutating func write(_ s: String) { bytes.append(contentsOf: s.utf8) }

    mutating func write<I: BinaryInteger>(int v: I) { bytes.append(contentsOf: String(v).utf8) }

    /// `s` as XML character data or attribute value: `& < > " '` escaped, and the characters
    /// XML 1.0 forbids (controls other than tab, LF, CR; U+FFFE, U+FFFF) left out.
    mutating func write(xml s: String) {
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x26: write("&amp;")
            case 0x3C: write("&lt;")
            case 0x3E: write("&gt;")
            case 0x22: write("&quot;")
            case 0x27: write("&apos;")
            case 0x09, 0x0A, 0x0D: bytes.append(UInt8(scalar.value))
            case 0..<0x20, 0xFFFE, 0xFFFF: continue
            default: bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }

    /// `v` rounded to `places` decimals (0…9), trailing zeros of the fraction dropped:
    /// `fixed(12.300, 2)` → `12.3`, `fixed(-0.004, 2)` → `0`. Writes nothing and returns false
    /// when `v` is not finite. Values too large for the fixed form (≥ 9e15 after scaling) are
    /// written in Swift's shortest form.
    @discardableResult
    mutating func write(fixed v: Double, _ places: Int) -> Bool {
        guard v.isFinite else { return false }
        let p = max(0, min(9, places))
        let unit = TextBuffer.powersOf10[p]
        let scaled = (v.magnitude * Double(unit)).rounded()
        guard scaled < 9e15 else { write(v.description); return true }
        let n = Int64(scaled)   // 0 ≤ scaled < 9e15: exact
        if v < 0 && n != 0 { write("-") }
        write(int: n / unit)
        writeFraction(n % unit, places: p)
        return true
    }

    /// A coordinate stored in 1e-7° units, exactly, with up to 7 decimals (`523700000` →
    /// `52.37`).
    mutating func write(degreesE7 v: Int32) {
        let m = Int64(v).magnitude   // Int64: |Int32.min| fits
        if v < 0 { write("-") }
        write(int: m / 10_000_000)
        writeFraction(Int64(m % 10_000_000), places: 7)
    }

    /// `.` and the `places` digits of `fraction` (0 ≤ fraction < 10^places), trailing zeros
    /// dropped; nothing when the fraction is 0.
    private mutating func writeFraction(_ fraction: Int64, places: Int) {
        guard places > 0, fraction > 0 else { return }
        var digits = Array(String(fraction).utf8)
        if digits.count < places { digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: places - digits.count), at: 0) }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        bytes.append(UInt8(ascii: "."))
        bytes.append(contentsOf: digits)
    }

    static let powersOf10: [Int64] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000,
                                      100_000_000, 1_000_000_000]
}
