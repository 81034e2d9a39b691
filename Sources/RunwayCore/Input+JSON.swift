/// Inputs as JSON: the one encoder of the shape `InputDecoder` reads, used by the importer's
/// JSON Lines and the store's journal.
extension Input {
    /// Writes one input as a JSON object in the shape `InputDecoder` reads; unknown (NaN) values
    /// are left out.
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        switch self {
        case .fix(let f):
            w.field("lat", f.lat)
            w.field("lon", f.lon)
            Input.optional(&w, "t", f.t)
            Input.optional(&w, "alt", f.alt)
            Input.optional(&w, "speed", f.speed)
            Input.optional(&w, "course", f.course)
            Input.optional(&w, "h_acc", f.hAcc)
            Input.optional(&w, "v_acc", f.vAcc)
            Input.optional(&w, "hr", f.hr)
            Input.optional(&w, "cadence", f.cadence)
            Input.optional(&w, "power", f.power)
        case .sample(.heartRate(let bpm, let t)):
            w.field("type", "hr")
            w.field("bpm", bpm)
            Input.optional(&w, "t", t)
        case .sample(.cadence(let spm, let t)):
            w.field("type", "cadence")
            w.field("spm", spm)
            Input.optional(&w, "t", t)
        case .sample(.altimeter(let alt, let t)):
            w.field("type", "altimeter")
            w.field("alt", alt)
            Input.optional(&w, "t", t)
        case .sample(.power(let watts, let t)):
            w.field("type", "power")
            w.field("watts", watts)
            Input.optional(&w, "t", t)
        case .sample(.speed(let mps, let t)):
            w.field("type", "speed")
            w.field("speed", mps)
            Input.optional(&w, "t", t)
        }
        w.endObject()
    }

    static func optional(_ w: inout JSONWriter, _ key: StaticString, _ v: Double) {
        if !v.isNaN { w.field(key, v) }
    }
}
