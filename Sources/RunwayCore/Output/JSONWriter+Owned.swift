// Runs of writes with the buffer already the writer's own.
//
// A serialiser of many fields (`FlightData.write`) calls `reserve` once, which makes the
// buffer this writer's own, and then these, which only make room for what they store (a
// capacity check, without `reserve`'s uniqueness check, a runtime call): the writer is the
// serialiser's `inout` parameter throughout, so nothing can copy it in between.
extension JSONWriter {
    /// The longest text `putNumber` stores: `description`'s longest ("-2.2250738585072014e-308").
    static let maxNumberBytes = 24

    /// Makes room for `n` more bytes in a buffer that is already this writer's own.
    @inline(__always)
    mutating func room(_ n: Int) { if _slowPath(count &+ n > capacity) { regrow(count &+ n) } }

    /// `"name":number` (`null` when not finite).
    @inline(__always)
    mutating func ownedField(_ k: StaticString, _ v: Double) {
        room(k.utf8CodeUnitCount &+ 4 &+ JSONWriter.maxNumberBytes)
        putKey(k); putNumber(v)
    }

    /// `"name":integer`.
    @inline(__always)
    mutating func ownedField(_ k: StaticString, _ v: Int) {
        room(k.utf8CodeUnitCount &+ 25)
        putKey(k); putInteger(v)
    }

    /// `"name":integer`.
    @inline(__always)
    mutating func ownedField(_ k: StaticString, _ v: UInt64) {
        room(k.utf8CodeUnitCount &+ 25)
        putKey(k); putInteger(v)
    }

    /// `"name":"text"` for a text that needs no escaping (an enum's JSON name).
    @inline(__always)
    mutating func ownedField(_ k: StaticString, plain text: StaticString) {
        room(k.utf8CodeUnitCount &+ text.utf8CodeUnitCount &+ 6)
        putKey(k)
        put(UInt8(ascii: "\""))
        putSmall(text.utf8Start, text.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
        needsComma = true
    }

    /// `"name":`.
    @inline(__always)
    mutating func ownedKey(_ k: StaticString) {
        room(k.utf8CodeUnitCount &+ 4)
        putKey(k)
    }

    @inline(__always)
    mutating func ownedBeginObject() { room(2); putSeparator(); put(UInt8(ascii: "{")); needsComma = false }

    @inline(__always)
    mutating func ownedEndObject() { room(1); put(UInt8(ascii: "}")); needsComma = true }

    @inline(__always)
    mutating func ownedNull() { room(5); putSeparator(); appendNull(); needsComma = true }

    /// A string of at most `maxBytes` bytes of ASCII that needs no escaping, stored by `body`
    /// (the PFD's texts).
    @inline(__always)
    mutating func ownedPlainString(maxBytes: Int, _ body: (inout JSONWriter) -> Void) {
        room(maxBytes &+ 3)
        putSeparator()
        put(UInt8(ascii: "\""))
        body(&self)
        put(UInt8(ascii: "\""))
        needsComma = true
    }
}
