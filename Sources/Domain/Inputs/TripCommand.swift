/// A dispatch app's instruction about a user's trip (`tripstream.trip-commands`).
public struct TripCommand: Sendable, Equatable {
    public enum Kind: UInt8, CaseIterable, Sendable {
        case start, update, complete, cancel
        /// Multi-leg trips: append `trip.legs`, reorder the pending legs to `trip.legIds`, set the
        /// status of leg `trip.legId` (arrived, completed, or canceled: skipped).
        case addLegs, reorderLegs, updateLeg

        public var name: String {
            switch self {
            case .start: "start"
            case .update: "update"
            case .complete: "complete"
            case .cancel: "cancel"
            case .addLegs: "addLegs"
            case .reorderLegs: "reorderLegs"
            case .updateLeg: "updateLeg"
            }
        }

        public init?(name: String) {
            guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = kind
        }
    }

    public var kind: Kind
    public var userId: String
    public var createdAt: UnixMillis
    public var trip: TripOptions

    public init(kind: Kind, userId: String, createdAt: UnixMillis, trip: TripOptions) {
        self.kind = kind
        self.userId = userId
        self.createdAt = createdAt
        self.trip = trip
    }
}
