import ConsoleHTTP

/// Why a tracking link shows nothing.
enum TrackingRefusal: Error, Equatable {
    case disabled, malformed, badSignature, unknownTrip, expired

    var status: HTTPStatus {
        switch self {
        case .disabled, .unknownTrip: .notFound
        case .malformed: .badRequest
        case .badSignature: .forbidden
        case .expired: .gone
        }
    }

    var message: String {
        switch self {
        case .disabled: "tracking links are not enabled on this console"
        case .malformed: "this is not a tracking link"
        case .badSignature: "this tracking link is not valid"
        case .unknownTrip: "this trip has not started yet"
        case .expired: "this tracking link has expired"
        }
    }
}
