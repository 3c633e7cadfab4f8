import Domain

/// The binary format of one user's persisted timeline: the value of a state-changelog record and
/// an entry of a snapshot. Versioned, so a future layout can still read old records.
public enum TimelineCodec {
    static let version: UInt8 = 1

    public static func encode(_ parts: UserTimeline.Parts) -> [UInt8] {
        var w = BinaryWriter()
        w.u8(version)
        w.string(parts.userId)
        write(parts.base, &w)
        w.optional(parts.middle) { w, s in write(s, &w) }
        w.length(parts.middleIndex)
        w.length(parts.history.count)
        for input in parts.history { write(input, &w) }
        w.i64(parts.baseTime)
        w.i64(parts.watermark)
        w.i64(parts.lastTickTimer)
        w.i64(parts.newestTime)
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws -> UserTimeline.Parts {
        var r = BinaryReader(bytes)
        let v = try r.u8()
        guard v == version else { throw BinaryReader.Corrupt(description: "unknown state record version \(v)") }
        let userId = try r.string()
        let base = try readState(&r)
        let middle = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readState(&r) }
        let middleIndex = try r.length()
        let count = try r.length()
        var history: [TimelineInput] = []
        history.reserveCapacity(count)
        for _ in 0..<count { history.append(try readInput(&r)) }
        guard middleIndex <= history.count else {
            throw BinaryReader.Corrupt(description: "checkpoint index \(middleIndex) beyond history of \(count)")
        }
        let parts = UserTimeline.Parts(
            userId: userId, base: base, middle: middle, middleIndex: middleIndex, history: history, baseTime: try r.i64(),
            watermark: try r.i64(), lastTickTimer: try r.i64(), newestTime: try r.i64())
        guard r.isAtEnd else { throw BinaryReader.Corrupt(description: "trailing bytes in state record") }
        return parts
    }

    // MARK: - Values

    static func write(_ c: Coordinate, _ w: inout BinaryWriter) {
        w.i32(c.latitudeE7)
        w.i32(c.longitudeE7)
    }

    static func readCoordinate(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> Coordinate {
        Coordinate(latitudeE7: try r.i32(), longitudeE7: try r.i32())
    }

    static func write(_ json: RawJSON?, _ w: inout BinaryWriter) { w.optional(json) { w, j in w.blob(j.bytes) } }

    static func readJSON(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> RawJSON? {
        try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in RawJSON(bytes: try r.blob()) }
    }

    static func write(_ s: UserState, _ w: inout BinaryWriter) {
        w.optional(s.location) { w, c in write(c, &w) }
        w.i64(s.locationAt)
        w.f32(s.accuracy)
        w.f32(s.speed)
        w.optional(s.extras) { w, x in
            w.optional(x.deviceId) { w, d in w.string(d) }
            write(x.metadata, &w)
        }
        w.optional(s.suspect) { w, c in write(c, &w) }
        w.i64(s.suspectAt)
        w.u8(s.suspectCount)
        w.length(s.presences.count)
        for p in s.presences {
            w.u64(p.geofenceID.rawValue)
            w.i64(p.enteredAt)
            w.u32(p.visitOrdinal)
            w.i64(p.dwellDue)
        }
        w.u32(s.visitCount)
        w.optional(s.trip) { w, t in write(t, &w) }
        w.u32(s.tripCount)
        w.f32(s.etaLearning.logScaleSum)
        w.u32(s.etaLearning.observations)
    }

    static func readState(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> UserState {
        var s = UserState()
        s.location = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readCoordinate(&r) }
        s.locationAt = try r.i64()
        s.accuracy = try r.f32()
        s.speed = try r.f32()
        s.extras = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            FixExtras(
                deviceId: try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string() },
                metadata: try readJSON(&r))
        }
        s.suspect = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readCoordinate(&r) }
        s.suspectAt = try r.i64()
        s.suspectCount = try r.u8()
        let presences = try r.length()
        for _ in 0..<presences {
            let id = GeofenceID(rawValue: try r.u64())
            let enteredAt = try r.i64()
            let ordinal = try r.u32()
            s.presences.append(Presence(geofenceID: id, enteredAt: enteredAt, dwellDue: try r.i64(),
                                        visitOrdinal: ordinal))
        }
        s.visitCount = try r.u32()
        s.trip = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readTrip(&r) }
        s.tripCount = try r.u32()
        s.etaLearning.logScaleSum = try r.f32()
        s.etaLearning.observations = try r.u32()
        return s
    }

    static func write(_ plan: TripPlan, _ w: inout BinaryWriter) {
        w.string(plan.externalId)
        w.optional(plan.destinationGeofenceTag) { w, v in w.string(v) }
        w.optional(plan.destinationGeofenceExternalId) { w, v in w.string(v) }
        w.optional(plan.destinationCoordinates) { w, c in write(c, &w) }
        w.f64(plan.destinationRadius)
        w.u8(plan.mode.rawValue)
        w.length(plan.approachingThreshold)
        w.optional(plan.scheduledArrivalAt) { w, v in w.i64(v) }
        write(plan.metadata, &w)
    }

    static func readPlan(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TripPlan {
        let externalId = try r.string()
        let tag = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string() }
        let geofence = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string() }
        let coordinates = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try readCoordinate(&r)
        }
        let radius = try r.f64()
        let modeRaw = try r.u8()
        guard let mode = TravelMode(rawValue: modeRaw) else {
            throw BinaryReader.Corrupt(description: "bad travel mode \(modeRaw)")
        }
        return TripPlan(
            externalId: externalId, destinationGeofenceTag: tag, destinationGeofenceExternalId: geofence,
            destinationCoordinates: coordinates, destinationRadius: radius, mode: mode,
            approachingThreshold: try r.length(),
            scheduledArrivalAt: try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() },
            metadata: try readJSON(&r))
    }

    static func write(_ t: TripProgress, _ w: inout BinaryWriter) {
        let s = t.snapshot
        write(s.plan, &w)
        w.u8(s.status.rawValue)
        w.i64(s.startedAt)
        w.optional(s.eta) { w, e in
            w.i32(e.durationSeconds)
            w.i32(e.distanceMeters)
        }
        w.optional(s.delayMinutes) { w, v in w.i32(v) }
        w.u32(UInt32(s.etaRisingStreak))
        w.optional(s.arrivedAt) { w, v in w.i64(v) }
        w.optional(s.summary) { w, v in
            w.i32(v.distanceMeters)
            w.i32(v.durationSeconds)
            w.optional(v.timeOnSiteSeconds) { w, x in w.i32(x) }
        }
        w.u32(t.ordinal)
        w.f64(t.distance)
        w.optional(t.mileageAnchor) { w, c in write(c, &w) }
        w.bool(t.insideDestination)
        w.optional(t.leftDestinationAt) { w, v in w.i64(v) }
        w.length(t.checkpoints.count)
        for c in t.checkpoints {
            w.i32(c.elapsedSeconds)
            w.f32(c.halfLogDistance)
        }
        w.i64(t.nextCheckpointAt)
        w.i64(t.checkpointInterval)
    }

    static func readTrip(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TripProgress {
        let plan = try readPlan(&r)
        let statusRaw = try r.u8()
        guard let status = TripStatus(rawValue: statusRaw) else {
            throw BinaryReader.Corrupt(description: "bad trip status \(statusRaw)")
        }
        var snapshot = TripSnapshot(plan: plan, status: status, startedAt: try r.i64())
        snapshot.eta = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            Eta(durationSeconds: try r.i32(), distanceMeters: try r.i32())
        }
        snapshot.delayMinutes = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i32() }
        snapshot.etaRisingStreak = UInt16(truncatingIfNeeded: try r.u32())
        snapshot.arrivedAt = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        snapshot.summary = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            TripSummary(
                distanceMeters: try r.i32(), durationSeconds: try r.i32(),
                timeOnSiteSeconds: try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                    try r.i32()
                })
        }
        var t = TripProgress(snapshot: snapshot, ordinal: try r.u32())
        t.distance = try r.f64()
        t.mileageAnchor = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try readCoordinate(&r)
        }
        t.insideDestination = try r.bool()
        t.leftDestinationAt = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        let count = try r.length()
        guard count <= CheckpointList.capacity else {
            throw BinaryReader.Corrupt(description: "\(count) ETA checkpoints, at most \(CheckpointList.capacity)")
        }
        for _ in 0..<count {
            t.checkpoints.append(TripProgress.Checkpoint(elapsedSeconds: try r.i32(), halfLogDistance: try r.f32()))
        }
        t.nextCheckpointAt = try r.i64()
        t.checkpointInterval = try r.i64()
        return t
    }

    static func write(_ o: TripOptions, _ w: inout BinaryWriter) {
        w.string(o.externalId)
        w.optional(o.destinationGeofenceTag) { w, v in w.string(v) }
        w.optional(o.destinationGeofenceExternalId) { w, v in w.string(v) }
        w.optional(o.destinationCoordinates) { w, c in write(c, &w) }
        w.optional(o.destinationRadius) { w, v in w.f64(v) }
        w.optional(o.mode) { w, v in w.u8(v.rawValue) }
        w.optional(o.approachingThreshold) { w, v in w.length(v) }
        w.optional(o.scheduledArrivalAt) { w, v in w.i64(v) }
        write(o.metadata, &w)
    }

    static func readOptions(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TripOptions {
        var o = TripOptions(externalId: try r.string())
        o.destinationGeofenceTag = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try r.string()
        }
        o.destinationGeofenceExternalId = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try r.string()
        }
        o.destinationCoordinates = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try readCoordinate(&r)
        }
        o.destinationRadius = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.f64() }
        o.mode = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TravelMode in
            let raw = try r.u8()
            guard let mode = TravelMode(rawValue: raw) else {
                throw BinaryReader.Corrupt(description: "bad travel mode \(raw)")
            }
            return mode
        }
        o.approachingThreshold = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try r.length()
        }
        o.scheduledArrivalAt = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        o.metadata = try readJSON(&r)
        return o
    }

    static func write(_ input: TimelineInput, _ w: inout BinaryWriter) {
        w.i64(input.time)
        write(input.position, &w)
        w.f32(input.accuracy)
        w.f32(input.speed)
        w.bool(input.replayed)
        switch input.attachment {
        case .none:
            w.u8(0)
        case let .fixExtras(extras):
            w.u8(1)
            w.optional(extras.deviceId) { w, v in w.string(v) }
            write(extras.metadata, &w)
        case let .command(box):
            w.u8(2)
            let c = box.command
            w.u8(c.kind.rawValue)
            w.string(c.userId)
            w.i64(c.createdAt)
            write(c.trip, &w)
        }
    }

    static func readInput(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TimelineInput {
        let time = try r.i64()
        let position = try readCoordinate(&r)
        let accuracy = try r.f32()
        let speed = try r.f32()
        let replayed = try r.bool()
        switch try r.u8() {
        case 0, 1:
            let hasExtras = r.bytes[r.offset - 1] == 1
            var extras: FixExtras?
            if hasExtras {
                let deviceId = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string() }
                extras = FixExtras(deviceId: deviceId, metadata: try readJSON(&r))
            }
            let fix = Fix(userId: "", createdAt: time, position: position, accuracy: accuracy, speed: speed,
                          replayed: replayed)
            return TimelineInput(fix: fix, extras: extras)
        case 2:
            let kindRaw = try r.u8()
            guard let kind = TripCommand.Kind(rawValue: kindRaw) else {
                throw BinaryReader.Corrupt(description: "bad command kind \(kindRaw)")
            }
            let command = TripCommand(kind: kind, userId: try r.string(), createdAt: try r.i64(),
                                      trip: try readOptions(&r))
            return TimelineInput(command: command)
        case let tag:
            throw BinaryReader.Corrupt(description: "bad input tag \(tag)")
        }
    }
}
