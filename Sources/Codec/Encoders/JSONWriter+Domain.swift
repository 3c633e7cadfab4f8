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

    /// A geofence as events show it (Radar's names). Circles carry `geometryCenter` and
    /// `geometryRadius`; polygon rings are not repeated in events (they can be large).
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
    mutating func trip(_ t: TripSnapshot) {
        let plan = t.plan
        raw("{\"externalId\":")
        string(plan.externalId)
        raw(",\"status\":")
        string(t.status.name)
        raw(",\"mode\":")
        string(plan.mode.name)
        if let tag = plan.destinationGeofenceTag {
            raw(",\"destinationGeofenceTag\":")
            string(tag)
        }
        if let externalId = plan.destinationGeofenceExternalId {
            raw(",\"destinationGeofenceExternalId\":")
            string(externalId)
        }
        if let destination = plan.destinationCoordinates {
            raw(",\"destinationLocation\":")
            point(destination)
        }
        if plan.destinationRadius.isFinite {
            raw(",\"destinationRadius\":")
            double(plan.destinationRadius)
        }
        raw(",\"approachingThreshold\":")
        int(plan.approachingThreshold)
        if let scheduled = plan.scheduledArrivalAt {
            raw(",\"scheduledArrivalAt\":")
            timestamp(scheduled)
        }
        if let metadata = plan.metadata {
            raw(",\"metadata\":")
            raw(metadata)
        }
        raw(",\"startedAt\":")
        timestamp(t.startedAt)
        if let arrivedAt = t.arrivedAt {
            raw(",\"arrivedAt\":")
            timestamp(arrivedAt)
        }
        if let eta = t.eta { self.eta(eta) }
        if let delay = t.delayMinutes {
            raw(",\"delay\":{\"delayed\":true,\"scheduledArrivalTimeDelay\":")
            int(delay)
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
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "}"))
    }

    /// `,"eta":{"duration":minutes,"distance":meters}`.
    mutating func eta(_ eta: Eta) {
        raw(",\"eta\":{\"duration\":")
        minutes(seconds: Int64(eta.durationSeconds))
        raw(",\"distance\":")
        int(eta.distanceMeters)
        byte(UInt8(ascii: "}"))
    }
}
