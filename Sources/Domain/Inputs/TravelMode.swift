/// How the user travels on a trip (RadarTripOptions `mode`).
public enum TravelMode: UInt8, CaseIterable, Sendable {
    case car, truck, bike, foot, motorbike

    public var name: String {
        switch self {
        case .car: "car"
        case .truck: "truck"
        case .bike: "bike"
        case .foot: "foot"
        case .motorbike: "motorbike"
        }
    }

    public init?(name: String) {
        guard let mode = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = mode
    }
}
