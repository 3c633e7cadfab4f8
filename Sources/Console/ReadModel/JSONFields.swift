import Foundation

/// Typed reads of a `JSONSerialization` object, tolerant of what the console does not need.
struct JSONFields {
    let object: [String: Any]

    init(_ object: [String: Any]) { self.object = object }

    /// Nil unless `bytes` is a JSON object.
    init?(bytes: [UInt8]) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(bytes)), let object = parsed as? [String: Any]
        else { return nil }
        self.object = object
    }

    func string(_ name: String) -> String? { object[name] as? String }

    func double(_ name: String) -> Double? {
        switch object[name] {
        case let value as Double: value.isFinite ? value : nil
        case let value as Int: Double(value)
        case let value as NSNumber: value.doubleValue.isFinite ? value.doubleValue : nil
        default: nil
        }
    }

    func bool(_ name: String) -> Bool? {
        switch object[name] {
        case let value as Bool: value
        case let value as NSNumber: value.boolValue
        default: nil
        }
    }

    func time(_ name: String) -> Int64? { string(name).flatMap(Timestamp.milliseconds) }

    func nested(_ name: String) -> JSONFields? { (object[name] as? [String: Any]).map(JSONFields.init) }

    func array(_ name: String) -> [Any]? { object[name] as? [Any] }

    /// `[longitude, latitude]` of a GeoJSON Point member, or of a plain coordinate pair.
    func point(_ name: String) -> (longitude: Double, latitude: Double)? {
        let coordinates = nested(name)?.array("coordinates") ?? array(name)
        guard let pair = coordinates.flatMap(Self.pair) else { return nil }
        return pair
    }

    static func pair(_ any: [Any]) -> (longitude: Double, latitude: Double)? {
        guard any.count >= 2, let longitude = number(any[0]), let latitude = number(any[1]),
            (-180...180).contains(longitude), (-90...90).contains(latitude)
        else { return nil }
        return (longitude, latitude)
    }

    static func number(_ any: Any) -> Double? {
        switch any {
        case let value as Double: value.isFinite ? value : nil
        case let value as Int: Double(value)
        case let value as NSNumber: value.doubleValue
        default: nil
        }
    }
}
