import Codec

/// What the console reads from the output topics' records beyond plain members: times and positions.
/// Records are parsed by Codec (`JSONValue.parse`), the reader every input of the service goes through.
extension JSONValue {
    /// An RFC 3339 member as ms since 1970, read as Codec reads every timestamp; nil when absent or not one.
    func time(_ name: String) -> Int64? {
        guard let text = self[name]?.string else { return nil }
        var utf8 = text
        return utf8.withUTF8 { bytes in try? RFC3339.parse(UnsafeRawBufferPointer(bytes)).get() }
    }

    /// `[longitude, latitude]` of a GeoJSON Point member, or of a plain coordinate pair member.
    func point(_ name: String) -> (longitude: Double, latitude: Double)? {
        guard let member = self[name] else { return nil }
        return (member["coordinates"] ?? member).position
    }

    /// This value as a `[longitude, latitude, …]` position on the globe; nil otherwise.
    var position: (longitude: Double, latitude: Double)? {
        guard let pair = array, pair.count >= 2, let longitude = pair[0].double, let latitude = pair[1].double,
            (-180...180).contains(longitude), (-90...90).contains(latitude)
        else { return nil }
        return (longitude, latitude)
    }
}
