import HTTPServing

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
        // The read model cannot tell a trip yet to start from one that never will (or ended before the console's
        // window): it only knows that it knows none. The page keeps asking, so a trip that starts appears.
        case .unknownTrip: "this trip is unknown here: it may not have started yet"
        case .expired: "this tracking link has expired"
        }
    }
}
