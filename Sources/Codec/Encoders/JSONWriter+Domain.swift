import Domain

// MARK: - Objects shared by the event, ETA and user-state records

extension JSONWriter {
    /// `,"corrected":true` or `,"retracted":true` for a republished event; nothing for an original.
    mutating func revisionFlag(_ revision: EventRevision) {
        switch revision {
        case .original: break
        case .corrected: raw(",\"corrected\":true")
        case .retracted: raw(",\"retracted\":true")
        }
    }

    /// A geofence as events show it (Radar's names). Circles and polygons carry `geometryCenter` and
    /// `geometryRadius` (a polygon's centroid and farthest vertex, `GeometryExtent`); polygon rings
    /// are not repeated in events (they can be large).
    mutating func geofence(_ g: Geofence) {
        raw("{\"tag\":")
        string(g.tag)
        raw(",\"externalId\":")
        string(g.externalId)
        raw(",\"description\":")
        string(g.description)
        switch g.shape {
        case .circle(let center, let radius):
            raw(",\"type\":\"circle\",\"geometryCenter\":")
            point(center)
            if radius.isFinite {
                raw(",\"geometryRadius\":")
                double(radius)
            }
        case .polygon:
            raw(",\"type\":\"polygon\"")
            if let extent = g.extent {
                raw(",\"geometryCenter\":")
                point(extent.center)
                if extent.radius.isFinite {
                    raw(",\"geometryRadius\":")
                    double(extent.radius)
                }
            }
        }
        if let metadata = g.metadata {
            raw(",\"metadata\":")
            raw(metadata)
        }
        if !g.enabled { raw(",\"enabled\":false") }
        if let dwell = g.dwellThreshold {
            raw(",\"dwellThreshold\":")
            int(dwell)
        }
        byte(UInt8(ascii: "}"))
    }

    /// A trip as events and user states show it.
    /// - Note: `t` is `inout` only to be read in place (an optional's payload bound with `if let` is
    ///   a copy: a retain and a release of each reference it holds); it is not changed.
    mutating func trip(_ t: inout TripSnapshot) {
        tripOpening(t.plan)
        tripStatus(t.status)
        tripPlanFields(t.plan, geofenceCenter: t.destinationLocation)
        tripProgress(t)
    }

    // MARK: - Trip pieces

    /// `{"externalId":"…","status":` (the plan's part before the status).
    mutating func tripOpening(_ plan: TripPlan) {
        raw("{\"externalId\":")
        string(plan.externalId)
        raw(",\"status\":")
    }

    /// The status name, quoted.
    mutating func tripStatus(_ status: TripStatus) {
        switch status {
        case .started: raw("\"started\"")
        case .approaching: raw("\"approaching\"")
        case .arrived: raw("\"arrived\"")
        case .completed: raw("\"completed\"")
        case .canceled: raw("\"canceled\"")
        case .expired: raw("\"expired\"")
        case .pending: raw("\"pending\"")
        }
    }

    /// The plan's fields after the status: `,"mode":…` through `metadata`, then `,"startedAt":`.
    /// `destinationLocation` is the destination point, or a destination geofence's center (as Radar);
    /// `destinationRadius` only for a destination given as coordinates: for a geofence destination the
    /// geofence's own shape decides arrival, and the plan's radius means nothing.
    mutating func tripPlanFields(_ plan: TripPlan, geofenceCenter: Coordinate?) {
        raw(",\"mode\":")
        string(plan.mode.name)
        destinationGeofence(plan)
        if let destination = plan.destinationCoordinates {
            raw(",\"destinationLocation\":")
            point(destination)
            if plan.destinationRadius.isFinite {
                raw(",\"destinationRadius\":")
                double(plan.destinationRadius)
            }
        } else if let geofenceCenter {
            raw(",\"destinationLocation\":")
            point(geofenceCenter)
        }
        raw(",\"approachingThreshold\":")
        int(plan.approachingThreshold)
        if let scheduled = plan.scheduledArrivalAt {
            raw(",\"scheduledArrivalAt\":")
            timestamp(scheduled)
            raw(",\"delayThreshold\":")
            int(plan.delayThreshold)
        }
        if let metadata = plan.metadata {
            raw(",\"metadata\":")
            raw(metadata)
        }
        raw(",\"startedAt\":")
    }

    /// What changes along a trip, from the `startedAt` value to the closing brace.
    mutating func tripProgress(_ t: TripSnapshot) {
        timestamp(t.startedAt)
        if let arrivedAt = t.arrivedAt {
            raw(",\"arrivedAt\":")
            timestamp(arrivedAt)
        }
        if let eta = t.eta { self.eta(eta) }
        if let delay = t.delay {
            raw(delay.delayed ? ",\"delay\":{\"delayed\":true" : ",\"delay\":{\"delayed\":false")
            raw(",\"scheduledArrivalTimeDelay\":")
            int(delay.minutes)
            byte(UInt8(ascii: "}"))
        }
        if t.etaRisingStreak > 0 {
            raw(",\"etaRising\":")
            int(Int64(t.etaRisingStreak))
        }
        if let summary = t.summary {
            raw(",\"summary\":{\"distance\":")
            int(summary.distanceMeters)
            raw(",\"duration\":")
            minutes(seconds: Int64(summary.durationSeconds))
            if let onSite = summary.timeOnSiteSeconds {
                raw(",\"timeOnSite\":")
                minutes(seconds: Int64(onSite))
            }
            tripEtaErrors(summary.etaErrors)
            byte(UInt8(ascii: "}"))
        }
        if !t.plan.legs.isEmpty { tripLegs(t) }
        byte(UInt8(ascii: "}"))
    }

    /// `,"legs":[…],"currentLegId":"…"`: Radar's leg objects. The current leg shows the trip's status
    /// and arrival (the trip's ETA is the current leg's); `currentLegId` is absent once none is left.
    private mutating func tripLegs(_ t: TripSnapshot) {
        let current = t.plan.currentLegIndex
        raw(",\"legs\":[")
        for (index, leg) in t.plan.legs.enumerated() {
            if index > 0 { byte(UInt8(ascii: ",")) }
            tripLeg(leg, status: index == current ? t.status : leg.status,
                    arrivedAt: index == current ? t.arrivedAt : leg.arrivedAt)
        }
        byte(UInt8(ascii: "]"))
        if let current {
            raw(",\"currentLegId\":")
            string(t.plan.legs[current].id)
        }
    }

    /// `[…]`: `items`, each written by `element`, comma-separated.
    mutating func array<T>(_ items: [T], _ element: (inout JSONWriter, T) -> Void) {
        byte(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { byte(UInt8(ascii: ",")) }
            element(&self, item)
        }
        byte(UInt8(ascii: "]"))
    }

    /// Radar's leg object: `{"_id", "status", "destination": {…}, "stopDuration", "metadata", "arrivedAt"}`
    /// (`_id` unless empty: a command's leg the fold has not numbered yet).
    mutating func tripLeg(_ leg: TripLeg, status: TripStatus, arrivedAt: UnixMillis?) {
        byte(UInt8(ascii: "{"))
        if !leg.id.isEmpty {
            raw("\"_id\":")
            string(leg.id)
            byte(UInt8(ascii: ","))
        }
        raw("\"status\":")
        tripStatus(status)
        raw(",\"destination\":{")
        if let tag = leg.destinationGeofenceTag, let externalId = leg.destinationGeofenceExternalId {
            raw("\"destinationGeofenceTag\":")
            string(tag)
            raw(",\"destinationGeofenceExternalId\":")
            string(externalId)
        } else if let c = leg.destinationCoordinates {
            raw("\"coordinates\":[")
            coordinateE7(c.longitudeE7)
            byte(UInt8(ascii: ","))
            coordinateE7(c.latitudeE7)
            byte(UInt8(ascii: "]"))
            if let radius = leg.arrivalRadius, radius.isFinite {
                raw(",\"arrivalRadius\":")
                double(radius)
            }
        }
        raw("},\"stopDuration\":")
        int(leg.stopDuration)
        if let metadata = leg.metadata {
            raw(",\"metadata\":")
            raw(metadata)
        }
        if let arrivedAt {
            raw(",\"arrivedAt\":")
            timestamp(arrivedAt)
        }
        byte(UInt8(ascii: "}"))
    }

    /// `,"etaError25":…` (minutes, signed), `etaError50`, `etaError75`: each the summary has.
    private mutating func tripEtaErrors(_ errors: EtaErrors) {
        let graded: [(key: StaticString, seconds: Int32?)] = [
            (",\"etaError25\":", errors.quarter), (",\"etaError50\":", errors.half),
            (",\"etaError75\":", errors.threeQuarters),
        ]
        for (key, seconds) in graded {
            guard let seconds else { continue }
            raw(key)
            minutes(seconds: Int64(seconds))
        }
        etaInRange(errors)
    }

    /// `,"etaInRange25":true` (whether the arrival fell within that ETA's 10–90 % range), `etaInRange50`,
    /// `etaInRange75`: each the summary has. Shared by events' trip summaries and the trip-summaries record.
    mutating func etaInRange(_ errors: EtaErrors) {
        let inRange = errors.inRange
        // One by one: a loop over an array literal allocates the array on every record.
        flag(",\"etaInRange25\":", inRange.quarter)
        flag(",\"etaInRange50\":", inRange.half)
        flag(",\"etaInRange75\":", inRange.threeQuarters)
    }

    /// `key` and the flag, when there is one.
    private mutating func flag(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        raw(key)
        raw(value ? "true" : "false")
    }

    /// The ETA record's plan part before the status: `,"externalId":"…","status":`.
    mutating func etaRecordOpening(_ plan: TripPlan) {
        raw(",\"externalId\":")
        string(plan.externalId)
        raw(",\"status\":")
    }

    /// The ETA record's plan part after the ETA: destination geofence and `scheduledArrivalAt`.
    mutating func etaRecordDestination(_ plan: TripPlan) {
        destinationGeofence(plan)
        if let scheduled = plan.scheduledArrivalAt {
            raw(",\"scheduledArrivalAt\":")
            timestamp(scheduled)
        }
    }

    /// `,"destinationGeofenceTag":…,"destinationGeofenceExternalId":…`, each when present.
    mutating func destinationGeofence(_ plan: TripPlan) {
        if let tag = plan.destinationGeofenceTag {
            raw(",\"destinationGeofenceTag\":")
            string(tag)
        }
        if let externalId = plan.destinationGeofenceExternalId {
            raw(",\"destinationGeofenceExternalId\":")
            string(externalId)
        }
    }

    /// `,"type":"user.…"`.
    mutating func eventType(_ type: EventType) {
        switch type {
        case .enteredGeofence: raw(",\"type\":\"user.entered_geofence\"")
        case .exitedGeofence: raw(",\"type\":\"user.exited_geofence\"")
        case .dwelledInGeofence: raw(",\"type\":\"user.dwelled_in_geofence\"")
        case .startedTrip: raw(",\"type\":\"user.started_trip\"")
        case .updatedTrip: raw(",\"type\":\"user.updated_trip\"")
        case .approachingTripDestination: raw(",\"type\":\"user.approaching_trip_destination\"")
        case .arrivedAtTripDestination: raw(",\"type\":\"user.arrived_at_trip_destination\"")
        case .stoppedTrip: raw(",\"type\":\"user.stopped_trip\"")
        case .delayedDuringTrip: raw(",\"type\":\"user.delayed_during_trip\"")
        case .arrivedAtWrongTripDestination: raw(",\"type\":\"user.arrived_at_wrong_trip_destination\"")
        case .tripSignalLost: raw(",\"type\":\"user.trip_signal_lost\"")
        case .tripSignalRestored: raw(",\"type\":\"user.trip_signal_restored\"")
        case .movingAwayFromTripDestination: raw(",\"type\":\"user.moving_away_from_trip_destination\"")
        }
    }

    /// `,"eta":{"duration":minutes,"distance":meters,"durationLow":minutes,"durationHigh":minutes}`:
    /// the range (10th and 90th percentile) is ours, Radar's ETA has duration and distance only.
    mutating func eta(_ eta: Eta) {
        raw(",\"eta\":{\"duration\":")
        minutes(seconds: Int64(eta.durationSeconds))
        raw(",\"distance\":")
        int(eta.distanceMeters)
        raw(",\"durationLow\":")
        minutes(seconds: Int64(eta.durationLowSeconds))
        raw(",\"durationHigh\":")
        minutes(seconds: Int64(eta.durationHighSeconds))
        byte(UInt8(ascii: "}"))
    }
}
