import Codec
import Domain

/// Hand-built Domain values: one event of every type the encoder can produce.
enum Fixtures {
    static let t0: UnixMillis = 1_778_596_200_000  // 2026-05-12T14:30:00Z
    static let processedAt: UnixMillis = 1_778_596_201_234

    static let shift = Geofence(
        tag: "shift", externalId: "shift_12345", description: "123 Main St - Water Heater Repair",
        shape: .circle(center: Coordinate(latitude: 40.7342, longitude: -73.9911), radius: 100),
        metadata: RawJSON(#"{"shiftId":"shift_12345","customerId":"customer_abc"}"#), dwellThreshold: 15)

    static let shiftNextDoor = Geofence(
        tag: "shift", externalId: "shift_12346", description: "125 Main St",
        shape: .circle(center: Coordinate(latitude: 40.7344, longitude: -73.9911), radius: 30))

    static let yard = Geofence(
        tag: "yard", externalId: "north \"yard\"", description: "",
        shape: .polygon(rings: [
            [
                Coordinate(latitude: 41.0, longitude: -8.0), Coordinate(latitude: 41.0, longitude: -7.9),
                Coordinate(latitude: 41.1, longitude: -7.9), Coordinate(latitude: 41.0, longitude: -8.0),
            ]
        ]), enabled: false)

    static let plan = TripPlan(
        externalId: "trip_shift_12345", destinationGeofenceTag: "shift", destinationGeofenceExternalId: "shift_12345",
        destinationCoordinates: nil, destinationRadius: 100, mode: .car, approachingThreshold: 5,
        scheduledArrivalAt: t0 + 15 * 60_000, delayThreshold: 2, metadata: RawJSON(#"{"shiftId":"shift_12345","proName":"John Doe"}"#))

    static let pointPlan = TripPlan(
        externalId: "trip-2", destinationGeofenceTag: nil, destinationGeofenceExternalId: nil,
        destinationCoordinates: Coordinate(latitudeE7: 411_407_460, longitudeE7: -86_102_910), destinationRadius: 55.5,
        mode: .motorbike, approachingThreshold: 1, scheduledArrivalAt: nil, metadata: nil)

    static let userMetadata = RawJSON(#"{"companyId":"company_abc123","name":"John Doe"}"#)

    static func event(
        _ type: EventType, _ n: UInt32, geofence: Geofence? = nil, duration: Int32? = nil, trip: TripSnapshot? = nil,
        replayed: Bool = false, late: Bool = false, revision: EventRevision = .original, accuracy: Float = 5
    ) -> Event {
        Event(
            id: EventID(high: 0x0123_4567_89ab_cdef, low: n), type: type, userId: "pro_user_456",
            createdAt: t0 + Int64(n) * 1000, replayed: replayed, late: late, revision: revision,
            location: Coordinate(latitude: 40.7342, longitude: -73.9911), locationAccuracy: accuracy,
            deviceId: n % 2 == 0 ? "device-1" : nil, userMetadata: n % 3 == 0 ? nil : userMetadata,
            geofence: geofence, durationSeconds: duration, trip: trip)
    }

    /// Every event type, with every optional part present somewhere.
    static var allEvents: [Event] {
        let started = TripSnapshot(
            plan: plan, status: .started, startedAt: t0, delay: TripDelay(delayed: false, minutes: 0))
        var updated = started
        updated.eta = Eta(durationSeconds: 480, distanceMeters: 3200)
        updated.destinationLocation = Coordinate(latitude: 40.7342, longitude: -73.9911)  // the shift's center
        var rising = updated
        rising.eta = Eta(durationSeconds: 500, distanceMeters: 3300)
        rising.etaRisingStreak = 3
        var approaching = updated
        approaching.status = .approaching
        approaching.eta = Eta(durationSeconds: 270, distanceMeters: 1500)
        var arrived = approaching
        arrived.status = .arrived
        arrived.arrivedAt = t0 + 900_000
        arrived.eta = Eta(durationSeconds: 0, distanceMeters: 0)
        var delayed = updated
        delayed.delay = TripDelay(delayed: true, minutes: 4)
        delayed.eta = Eta(durationSeconds: 1_170, distanceMeters: 9_000)
        var completed = arrived
        completed.status = .completed
        completed.summary = TripSummary(distanceMeters: 7440, durationSeconds: 2_710, timeOnSiteSeconds: 510,
                                        etaErrors: EtaErrors(quarter: 95, half: -40, inRange: (true, false, nil)))
        let canceled = TripSnapshot(
            plan: pointPlan, status: .canceled, startedAt: t0, eta: Eta(durationSeconds: 61, distanceMeters: 300),
            summary: TripSummary(distanceMeters: 12, durationSeconds: 30, timeOnSiteSeconds: nil))
        let expired = TripSnapshot(plan: pointPlan, status: .expired, startedAt: t0)
        var noLocation = event(.startedTrip, 11, trip: TripSnapshot(plan: pointPlan, status: .started, startedAt: t0))
        noLocation.location = nil
        noLocation.locationAccuracy = .nan
        var entered = event(.enteredGeofence, 1, geofence: shift)
        entered.confidence = .medium
        var exited = event(.exitedGeofence, 2, geofence: shift, duration: 6300)
        exited.confidence = .high
        var yardDeleted = event(.exitedGeofence, 3, geofence: yard, duration: 500, accuracy: 4.7)
        yardDeleted.confidence = .high
        yardDeleted.exitReason = .geofenceDeleted
        var atSecondLeg = arrived
        atSecondLeg.plan = plan.with(legs: legs, defaultRadius: 100)
        atSecondLeg.destinationLocation = nil  // its current leg is a point: the plan's
        return [
            entered,
            exited,
            yardDeleted,
            event(.dwelledInGeofence, 4, geofence: shift),
            event(.startedTrip, 5, trip: started),
            event(.updatedTrip, 6, trip: updated),
            event(.updatedTrip, 7, trip: rising, replayed: true, late: true),
            event(.approachingTripDestination, 8, trip: approaching),
            event(.arrivedAtTripDestination, 9, trip: arrived),
            event(.stoppedTrip, 10, trip: completed),
            noLocation,
            event(.stoppedTrip, 12, trip: canceled, revision: .corrected),
            event(.stoppedTrip, 13, trip: expired),
            event(.delayedDuringTrip, 14, trip: delayed),
            event(.enteredGeofence, 15, geofence: shift, revision: .retracted),
            event(.arrivedAtWrongTripDestination, 16, geofence: shiftNextDoor, trip: updated),
            event(.tripSignalLost, 17, duration: 600, trip: updated),
            event(.tripSignalRestored, 18, duration: 1_290, trip: updated, replayed: true),
            event(.movingAwayFromTripDestination, 19, duration: 330, trip: rising),
            event(.arrivedAtTripDestination, 20, trip: atSecondLeg),
        ]
    }

    /// A three-leg delivery: the first leg done, the user at the second, the third ahead.
    static let legs = [
        TripLeg(id: "pickup", destinationGeofenceTag: "shift", destinationGeofenceExternalId: "shift_12345",
                stopDuration: 5, status: .completed, arrivedAt: t0 - 1_200_000),
        TripLeg(id: "leg-2", destinationCoordinates: Coordinate(latitudeE7: 407_342_000, longitudeE7: -739_911_000),
                arrivalRadius: 40.5, stopDuration: 0, metadata: RawJSON(#"{"parcel":"p-1"}"#)),
        TripLeg(id: "leg-3", destinationGeofenceTag: "yard", destinationGeofenceExternalId: "yard_1", stopDuration: 10),
    ]

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
}
