import Codec
import CommandSupport
import Domain

/// One event as a line a dispatcher can read: what a notification service would send.
enum EventLine {
    static func render(_ event: Event) -> String {
        let time = RFC3339.string(event.createdAt).dropFirst(11).prefix(8)
        var flags = ""
        if event.replayed { flags += " (replayed)" }
        if event.late { flags += " (late)" }
        switch event.revision {
        case .original: break
        case .corrected: flags += " [corrected]"
        case .retracted: flags += " [retracted]"
        }
        let who = event.userId
        let what: String
        switch event.type {
        case .enteredGeofence: what = "entered \(place(event))"
        case .exitedGeofence:
            what = "left \(place(event)) after \(minutes(Int64(event.durationSeconds ?? 0)))"
        case .dwelledInGeofence: what = "has been at \(place(event)) for a while"
        case .startedTrip: what = "started trip \(trip(event))\(eta(event))"
        case .updatedTrip: what = "is on the way, trip \(trip(event))\(eta(event))"
        case .approachingTripDestination: what = "is approaching, trip \(trip(event))\(eta(event))"
        case .arrivedAtTripDestination: what = "arrived, trip \(trip(event))"
        case .stoppedTrip:
            let summary = event.trip?.summary
            let distance = summary.map { String(format1: Double($0.distanceMeters) / 1000) + " km" } ?? ""
            what = "\(event.trip?.status.name ?? "stopped") trip \(trip(event)) \(distance)"
        case .delayedDuringTrip: what = "is running \(event.trip?.delay?.minutes ?? 0) min late, trip \(trip(event))"
        case .arrivedAtWrongTripDestination: what = "arrived at the wrong \(place(event)), trip \(trip(event))"
        case .tripSignalLost:
            what = "lost signal \(minutes(Int64(event.durationSeconds ?? 0))) ago, trip \(trip(event))"
        case .movingAwayFromTripDestination:
            what = "is moving away (ETA rising for \(minutes(Int64(event.durationSeconds ?? 0)))), trip \(trip(event))"
        case .tripSignalRestored:
            what = "is back after \(minutes(Int64(event.durationSeconds ?? 0))) without signal, trip \(trip(event))"
        }
        return "\(time)  \(who.padded(12)) \(what)\(flags)"
    }

    private static func place(_ event: Event) -> String {
        guard let geofence = event.geofence else { return "a geofence" }
        return geofence.description.isEmpty ? "\(geofence.tag)/\(geofence.externalId)" : geofence.description
    }

    private static func trip(_ event: Event) -> String { event.trip?.plan.externalId ?? "?" }

    private static func eta(_ event: Event) -> String {
        guard let eta = event.trip?.eta else { return "" }
        return ", ETA \(minutes(Int64(eta.durationSeconds))) (\(String(format1: Double(eta.distanceMeters) / 1000)) km)"
    }

    private static func minutes(_ seconds: Int64) -> String {
        seconds < 60 ? "\(seconds) s" : "\((seconds + 30) / 60) min"
    }
}
