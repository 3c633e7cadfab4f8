import Domain

/// The binary format of one user's persisted timeline: the value of a state-changelog record and
/// an entry of a snapshot. Versioned, so a future layout can still read old records.
public enum TimelineCodec {
    /// 10: whether the user stopped during each visit (`Presence.stoppedInside`) and a trip's
    /// wrong-destination rule, in its plan and its commands' options; 9: the user's event ordinals per geofence and trip (`EventOrdinals`, in place of one visit
    /// count and one trip count) and a trip's ordinal day; an ETA's 10–90 % range and a trip's own
    /// pace (the learned ETA); 8: the tail as `UserTimeline` holds it (`tailBytes`, `tailAttachments`), copied rather than
    /// re-encoded input by input; 7: the geofence table's fingerprint the tail was folded with
    /// (`UserTimeline.tableVersion`); 6: presences' scheduled geofence end and the user's stop (stop
    /// detection); a trip's ETA milestones and its summary's ETA errors, its expiry, legs and
    /// destination geofence's center; commands' status, expiresAfter and legs; 5: a trip's run of
    /// rising ETAs; 4: a trip's lost signal; 3: trips' delay threshold and `trip.delay`; 3 and 2
    /// (history bounded by time: a tail and stored segments) are still read; 1 (a bounded list of
    /// inputs) is not.
    static let version: UInt8 = 10
    /// 7: states of layout 10; 6: states of layout 9; 1 to 5: states of layout `segmentVersion + 1` (versions 1 and 2, of states
    /// 2 and 3, are still read).
    static let segmentVersion: UInt8 = 7

    public static func encode(_ parts: UserTimeline.Parts) -> [UInt8] { encode(UserTimeline(parts: parts)) }

    /// A touched user's record, read from its timeline in place: a seal encodes one per user, and
    /// `parts` would copy both states and decode the tail into an array.
    public static func encode(_ timeline: borrowing UserTimeline) -> [UInt8] {
        // Read in place through its address: a borrowed timeline captured by the writer's closure, or
        // a state passed on by value, was copied first (every reference in it retained and released).
        withUnsafePointer(to: timeline) { encode($0) }
    }

    private static func encode(_ pointer: UnsafePointer<UserTimeline>) -> [UInt8] {
        BinaryWriter.bytes { w in
            w.u8(version)
            w.string(pointer.pointee.userId)
            write(pointer.pointer(to: \.current)!, &w)
            write(pointer.pointer(to: \.tailStart)!, &w)
            w.length(pointer.pointee.tailCount)
            w.blob(pointer.pointee.tailBytes)
            let attachments = pointer.pointee.tailAttachments
            w.length(attachments.count)
            for attachment in attachments { write(attachment, &w) }
            w.length(Int(pointer.pointee.storedSegments))
            w.i64(pointer.pointee.historyStart)
            w.i64(pointer.pointee.secondSegmentStart)
            w.i64(pointer.pointee.watermark)
            w.i64(pointer.pointee.lastTickTimer)
            w.i64(pointer.pointee.newestTime)
            w.u32(pointer.pointee.tableVersion)
        }
    }

    public static func decode(_ bytes: [UInt8]) throws -> UserTimeline.Parts {
        var r = BinaryReader(bytes)
        let v = try r.u8()
        guard (2...version).contains(v) else {
            throw BinaryReader.Corrupt(description: "unknown state record version \(v)")
        }
        r.layout = v
        let userId = try r.string()
        let current = try readState(&r)
        let tailStart = try readState(&r)
        let tail = v >= 8 ? try readTail(&r) : try readInputs(&r)
        let parts = UserTimeline.Parts(
            userId: userId, current: current, tailStart: tailStart, tail: tail, storedSegments: try r.length(),
            historyStart: try r.i64(), secondSegmentStart: try r.i64(), watermark: try r.i64(),
            lastTickTimer: try r.i64(), newestTime: try r.i64(), tableVersion: v >= 7 ? try r.u32() : .max)
        guard r.isAtEnd else { throw BinaryReader.Corrupt(description: "trailing bytes in state record") }
        return parts
    }

    /// A stored history segment: its start state and its inputs, delta-encoded.
    public static func encode(_ segment: HistorySegment) -> [UInt8] {
        BinaryWriter.bytes { w in
            w.u8(segmentVersion)
            w.u32(segment.tableVersion)
            withUnsafePointer(to: segment.start) { write($0, &w) }
            writeInputs(segment.inputs, &w)
        }
    }

    public static func decodeSegment(_ bytes: [UInt8]) throws -> HistorySegment {
        var r = BinaryReader(bytes)
        let v = try r.u8()
        guard (1...segmentVersion).contains(v) else {
            throw BinaryReader.Corrupt(description: "unknown segment version \(v)")
        }
        r.layout = v >= 7 ? 10 : v >= 6 ? 9 : v + 1
        let tableVersion = try r.u32()
        let start = try readState(&r)
        let inputs = try readInputs(&r)
        guard !inputs.isEmpty else { throw BinaryReader.Corrupt(description: "empty history segment") }
        guard r.isAtEnd else { throw BinaryReader.Corrupt(description: "trailing bytes in history segment") }
        return HistorySegment(start: start, inputs: inputs, tableVersion: tableVersion)
    }

    // MARK: - Inputs, delta-encoded

    // Flags of an input: bit 0 replayed, bits 1-2 its kind, bit 3 accuracy present, bit 4 speed present.
    private static let plainFix: UInt8 = 0, fixWithExtras: UInt8 = 1, fixWithPreviousExtras: UInt8 = 2,
        command: UInt8 = 3

    /// A tail as `UserTimeline` holds it (state version 8), checked input by input.
    static func readTail(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> [TimelineInput] {
        let count = try r.length()
        let bytes = try r.blob()
        let attachmentCount = try r.length()
        guard attachmentCount <= count else { throw BinaryReader.Corrupt(description: "more tail attachments than inputs") }
        var attachments: [TimelineInput.Attachment] = []
        for _ in 0..<attachmentCount { attachments.append(try readAttachment(&r)) }
        do {
            return try UserTimeline.tailInputs(persisted: bytes, count: count, attachments: attachments)
        } catch {
            throw BinaryReader.Corrupt(description: "\(error)")
        }
    }

    private static let extrasAttachment: UInt8 = 1, commandAttachment: UInt8 = 2

    static func write(_ attachment: TimelineInput.Attachment, _ w: inout BinaryWriter) {
        switch attachment {
        case .none: w.u8(0)  // a tail never keeps one; read back as corrupt
        case let .fixExtras(x):
            w.u8(extrasAttachment)
            write(x, &w)
        case let .command(box):
            w.u8(commandAttachment)
            w.i64(box.command.createdAt)
            write(box.command, &w)
        }
    }

    static func readAttachment(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TimelineInput.Attachment {
        switch try r.u8() {
        case extrasAttachment: return .fixExtras(try readExtras(&r))
        case commandAttachment:
            let createdAt = try r.i64()
            return .command(CommandBox(try readCommand(&r, createdAt: createdAt)))
        case let kind: throw BinaryReader.Corrupt(description: "bad tail attachment kind \(kind)")
        }
    }

    /// A fix's device id and metadata.
    static func write(_ extras: FixExtras, _ w: inout BinaryWriter) {
        w.optional(extras.deviceId) { w, v in w.string(v) }
        write(extras.metadata, &w)
    }

    static func readExtras(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> FixExtras {
        FixExtras(deviceId: try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string() },
                  metadata: try readJSON(&r))
    }

    /// A trip command but its time (the input's).
    static func write(_ command: TripCommand, _ w: inout BinaryWriter) {
        w.u8(command.kind.rawValue)
        w.string(command.userId)
        write(command.trip, &w)
    }

    static func readCommand(_ r: inout BinaryReader, createdAt: UnixMillis) throws(BinaryReader.Corrupt) -> TripCommand {
        let kindRaw = try r.u8()
        guard let kind = TripCommand.Kind(rawValue: kindRaw) else {
            throw BinaryReader.Corrupt(description: "bad command kind \(kindRaw)")
        }
        let userId = try r.string()
        return TripCommand(kind: kind, userId: userId, createdAt: createdAt, trip: try readOptions(&r))
    }

    /// Inputs in order, each as differences from the one before: about 10 bytes for a fix.
    static func writeInputs(_ inputs: [TimelineInput], _ w: inout BinaryWriter) {
        w.length(inputs.count)
        var time: Int64 = 0
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        var extras: FixExtras?
        for input in inputs {
            var kind = plainFix
            switch input.attachment {
            case .none: break
            case let .fixExtras(x): kind = x == extras ? fixWithPreviousExtras : fixWithExtras
            case .command: kind = command
            }
            var flags = (input.replayed ? 1 : 0) | kind << 1
            if input.accuracyDecimeters != .max { flags |= 8 }
            if input.speedCentimeters != .max { flags |= 16 }
            w.u8(flags)
            w.zigzag(input.time &- time)
            time = input.time
            switch input.attachment {
            case let .command(box):
                write(box.command, &w)
                continue
            case let .fixExtras(x) where kind == fixWithExtras:
                write(x, &w)
                extras = x
            default: break
            }
            w.zigzag(Int64(input.position.latitudeE7) - latitude)
            w.zigzag(Int64(input.position.longitudeE7) - longitude)
            latitude = Int64(input.position.latitudeE7)
            longitude = Int64(input.position.longitudeE7)
            if flags & 8 != 0 { w.varint(UInt64(input.accuracyDecimeters)) }
            if flags & 16 != 0 { w.varint(UInt64(input.speedCentimeters)) }
        }
    }

    static func readInputs(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> [TimelineInput] {
        let count = try r.length()
        var inputs: [TimelineInput] = []
        inputs.reserveCapacity(count)
        var time: Int64 = 0
        var latitude: Int64 = 0
        var longitude: Int64 = 0
        var extras: FixExtras?
        for _ in 0..<count {
            let flags = try r.u8()
            guard flags < 32 else { throw BinaryReader.Corrupt(description: "bad input flags \(flags)") }
            let delta = try r.zigzag()
            // A forward delta that wraps past Int64.max would put the input before the previous one.
            let (next, wrapped) = time.addingReportingOverflow(delta)
            guard inputs.isEmpty || (delta >= 0 && !wrapped) else {
                throw BinaryReader.Corrupt(description: "inputs out of event-time order")
            }
            time = next
            let kind = (flags >> 1) & 3
            if kind == command {
                inputs.append(TimelineInput(command: try readCommand(&r, createdAt: time)))
                continue
            }
            var attached: FixExtras?
            if kind == fixWithExtras {
                extras = try readExtras(&r)
                attached = extras
            } else if kind == fixWithPreviousExtras {
                guard let previous = extras else {
                    throw BinaryReader.Corrupt(description: "input repeats extras that were never given")
                }
                attached = previous
            }
            // A corrupt delta can be any Int64: adding it must not trap.
            let (newLatitude, latitudeOverflow) = latitude.addingReportingOverflow(try r.zigzag())
            let (newLongitude, longitudeOverflow) = longitude.addingReportingOverflow(try r.zigzag())
            guard !latitudeOverflow, !longitudeOverflow, let latitudeE7 = Int32(exactly: newLatitude),
                let longitudeE7 = Int32(exactly: newLongitude)
            else {
                throw BinaryReader.Corrupt(description: "coordinate out of range")
            }
            (latitude, longitude) = (newLatitude, newLongitude)
            let fix = Fix(userId: "", createdAt: time, position: Coordinate(latitudeE7: latitudeE7, longitudeE7: longitudeE7),
                          accuracy: .nan, speed: .nan, replayed: flags & 1 != 0)
            var input = TimelineInput(fix: fix, extras: attached)
            if flags & 8 != 0 { input.accuracyDecimeters = try quantity(&r) }
            if flags & 16 != 0 { input.speedCentimeters = try quantity(&r) }
            inputs.append(input)
        }
        return inputs
    }

    private static func quantity(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> UInt16 {
        let raw = try r.varint()
        guard raw < UInt64(UInt16.max) else { throw BinaryReader.Corrupt(description: "quantity \(raw) out of range") }
        return UInt16(raw)
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

    /// From the state's address: passed by value from the timeline being encoded, it was copied first.
    static func write(_ s: UnsafePointer<UserState>, _ w: inout BinaryWriter) {
        w.optional(s.pointee.location) { w, c in write(c, &w) }
        w.i64(s.pointee.locationAt)
        w.f32(s.pointee.accuracy)
        w.f32(s.pointee.speed)
        w.optional(s.pointee.extras) { w, x in write(x, &w) }
        w.optional(s.pointee.suspect) { w, c in write(c, &w) }
        w.i64(s.pointee.suspectAt)
        w.u8(s.pointee.suspectCount)
        w.length(s.pointee.presences.count)
        for p in s.pointee.presences {
            w.u64(p.geofenceID.rawValue)
            w.i64(p.enteredAt)
            w.u32(p.visitOrdinal)
            w.i64(p.dwellDue)
            w.i64(p.endsAt)
            w.bool(p.stoppedInside)
        }
        w.i64(s.pointee.stoppedSince)
        w.length(s.pointee.ordinals.counts.count)
        for count in s.pointee.ordinals.counts {
            w.u64(count.key.rawValue)
            w.i32(count.day)
            w.u32(count.count)
        }
        // Lent in place (`trip` would copy it out of its box), written as `optional` writes it.
        let wroteTrip: Void? = s.pointee.withTrip { trip in
            w.u8(1)
            write(trip, &w)
        }
        if wroteTrip == nil { w.u8(0) }
        w.f32(s.pointee.etaLearning.logScaleSum)
        w.u32(s.pointee.etaLearning.observations)
    }

    static func readState(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> UserState {
        var s = UserState()
        s.location = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readCoordinate(&r) }
        s.locationAt = try r.i64()
        s.accuracy = try r.f32()
        s.speed = try r.f32()
        s.extras = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readExtras(&r) }
        s.suspect = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readCoordinate(&r) }
        s.suspectAt = try r.i64()
        s.suspectCount = try r.u8()
        let presences = try r.length()
        for _ in 0..<presences {
            let id = GeofenceID(rawValue: try r.u64())
            let enteredAt = try r.i64()
            let ordinal = try r.u32()
            let dwellDue = try r.i64()
            let endsAt = r.layout >= 6 ? try r.i64() : .max
            let stoppedInside = r.layout >= 10 ? try r.bool() : false
            s.presences.append(Presence(geofenceID: id, enteredAt: enteredAt, dwellDue: dwellDue,
                                        visitOrdinal: ordinal, endsAt: endsAt, stoppedInside: stoppedInside))
        }
        if r.layout >= 6 { s.stoppedSince = try r.i64() }
        if r.layout >= 9 {
            var counts: [EventOrdinals.Count] = []
            for _ in 0..<(try r.length()) {
                counts.append(EventOrdinals.Count(key: .init(rawValue: try r.u64()), day: try r.i32(), count: try r.u32()))
            }
            s.ordinals = EventOrdinals(counts: counts)
        } else {
            _ = try r.u32()  // the user-wide visit count of layouts before 9: today's counts start empty
        }
        s.trip = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readTrip(&r) }
        if r.layout < 9 { _ = try r.u32() }  // the user-wide trip count
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
        w.length(plan.delayThreshold)
        write(plan.metadata, &w)
        w.i64(plan.expiry)
        writeLegs(plan.legs, &w)
        w.u8(plan.wrongDestination.rawValue)
    }

    static func writeLegs(_ legs: [TripLeg], _ w: inout BinaryWriter) {
        w.length(legs.count)
        for leg in legs {
            w.string(leg.id)
            w.optional(leg.destinationGeofenceTag) { w, v in w.string(v) }
            w.optional(leg.destinationGeofenceExternalId) { w, v in w.string(v) }
            w.optional(leg.destinationCoordinates) { w, c in write(c, &w) }
            w.optional(leg.arrivalRadius) { w, v in w.f64(v) }
            w.length(leg.stopDuration)
            write(leg.metadata, &w)
            w.u8(leg.status.rawValue)
            w.optional(leg.arrivedAt) { w, v in w.i64(v) }
        }
    }

    static func readLegs(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> [TripLeg] {
        let count = try r.length()
        guard count <= 10_000 else { throw BinaryReader.Corrupt(description: "\(count) trip legs") }
        var legs: [TripLeg] = []
        for _ in 0..<count {
            var leg = TripLeg(id: try r.string())
            leg.destinationGeofenceTag = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                try r.string()
            }
            leg.destinationGeofenceExternalId = try r.optional {
                (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string()
            }
            leg.destinationCoordinates = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                try readCoordinate(&r)
            }
            leg.arrivalRadius = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.f64() }
            leg.stopDuration = try r.length()
            leg.metadata = try readJSON(&r)
            leg.status = try readCase(&r, "leg status")
            leg.arrivedAt = try readOptionalI64(&r)
            legs.append(leg)
        }
        return legs
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
        let approaching = try r.length()
        let scheduled = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        let delayThreshold = r.layout >= 3 ? try r.length() : 0
        let metadata = try readJSON(&r)
        let expiry: UnixMillis = r.layout >= 6 ? try r.i64() : 24 * 3_600_000
        let legs = r.layout >= 6 ? try readLegs(&r) : []
        // Plans of layouts before 10 were Radar's entry rule's; they take today's default, the stop.
        let wrongDestination: WrongDestinationRule = r.layout >= 10 ? try readCase(&r, "wrong-destination rule") : .stop
        return TripPlan(
            externalId: externalId, destinationGeofenceTag: tag, destinationGeofenceExternalId: geofence,
            destinationCoordinates: coordinates, destinationRadius: radius, mode: mode,
            approachingThreshold: approaching, scheduledArrivalAt: scheduled, delayThreshold: delayThreshold,
            metadata: metadata, expiry: expiry, legs: legs, wrongDestination: wrongDestination)
    }

    static func write(_ t: borrowing TripProgress, _ w: inout BinaryWriter) {
        let s = t.snapshot
        write(s.plan, &w)
        w.u8(s.status.rawValue)
        w.i64(s.startedAt)
        w.optional(s.eta) { w, e in
            w.i32(e.durationSeconds)
            w.i32(e.distanceMeters)
        }
        w.optional(s.delay) { w, v in
            w.bool(v.delayed)
            w.i32(v.minutes)
        }
        w.u32(UInt32(s.etaRisingStreak))
        w.optional(s.arrivedAt) { w, v in w.i64(v) }
        w.optional(s.summary) { w, v in
            w.i32(v.distanceMeters)
            w.i32(v.durationSeconds)
            w.optional(v.timeOnSiteSeconds) { w, x in w.i32(x) }
            // One by one: a loop over an array literal allocates the array on every record.
            w.optional(v.etaErrors.quarter) { w, x in w.i32(x) }
            w.optional(v.etaErrors.half) { w, x in w.i32(x) }
            w.optional(v.etaErrors.threeQuarters) { w, x in w.i32(x) }
        }
        w.u32(t.ordinal.count)
        w.i32(t.ordinal.day)
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
        w.bool(t.delayNotified)
        w.optional(t.signalLostSince) { w, v in w.i64(v) }
        w.optional(t.etaRisingSince) { w, v in w.i64(v) }
        w.bool(t.movingAwayNotified)
        w.optional(s.destinationLocation) { w, c in write(c, &w) }
        w.f32(t.etaMilestones.wayMeters)
        w.optional(t.etaMilestones.quarter) { w, v in w.i32(v) }
        w.optional(t.etaMilestones.half) { w, v in w.i32(v) }
        w.optional(t.etaMilestones.threeQuarters) { w, v in w.i32(v) }
        w.optional(s.eta) { w, e in
            w.i32(e.durationLowSeconds)
            w.i32(e.durationHighSeconds)
        }
        let pace = t.pace, stored = pace.stored
        w.f32(pace.recentSpeed)
        w.f32(pace.closingRate)
        w.f32(pace.initialEdgeDistance)
        w.f32(stored.lastDistance)
        write(stored.lastPosition, &w)
        w.i64(stored.lastTime)
        for margin in t.etaMilestones.rangeMargins {
            w.u32(UInt32(margin.below) << 16 | UInt32(margin.above))
        }
        w.u8(s.summary?.etaErrors.rangeFlags ?? 0)
        w.length(t.etaSamples.count)
        w.i64(t.etaSamples.nextDue)
        w.i64(t.etaSamples.interval)
        for sample in t.etaSamples {
            w.i64(sample.time)
            for value in sample.storedValues { w.f64(value) }
        }
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
        if r.layout >= 3 {
            snapshot.delay = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                TripDelay(delayed: try r.bool(), minutes: try r.i32())
            }
        } else {  // layout 2 kept only the minutes of a delay once detected
            snapshot.delay = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                TripDelay(delayed: true, minutes: try r.i32())
            }
        }
        snapshot.etaRisingStreak = UInt16(truncatingIfNeeded: try r.u32())
        snapshot.arrivedAt = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        snapshot.summary = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            var summary = TripSummary(
                distanceMeters: try r.i32(), durationSeconds: try r.i32(),
                timeOnSiteSeconds: try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                    try r.i32()
                })
            if r.layout >= 6 {
                summary.etaErrors.quarter = try readGradedSeconds(&r)
                summary.etaErrors.half = try readGradedSeconds(&r)
                summary.etaErrors.threeQuarters = try readGradedSeconds(&r)
            }
            return summary
        }
        let ordinalCount = try r.u32()
        // Before layout 9 a trip's number was the user's; its day, the start's, names it from now on.
        let day = r.layout >= 9 ? try r.i32() : EventOrdinal.day(of: snapshot.startedAt)
        var t = TripProgress(snapshot: snapshot, ordinal: EventOrdinal(day: day, count: ordinalCount))
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
        t.delayNotified = r.layout >= 3 ? try r.bool() : snapshot.delay != nil
        if r.layout >= 4 {
            t.signalLostSince = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        }
        if r.layout >= 5 {
            t.etaRisingSince = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
            t.movingAwayNotified = try r.bool()
        }
        if r.layout >= 6 {
            t.snapshot.destinationLocation = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                try readCoordinate(&r)
            }
            t.etaMilestones.wayMeters = try r.f32()
            t.etaMilestones.quarter = try readGradedSeconds(&r)
            t.etaMilestones.half = try readGradedSeconds(&r)
            t.etaMilestones.threeQuarters = try readGradedSeconds(&r)
        }
        if r.layout >= 9 {
            let range = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
                (low: try r.i32(), high: try r.i32())
            }
            if let range, t.snapshot.eta != nil {
                t.snapshot.eta!.durationLowSeconds = range.low
                t.snapshot.eta!.durationHighSeconds = range.high
            }
            t.pace = TripPace(recentSpeed: try r.f32(), closingRate: try r.f32(), initialEdgeDistance: try r.f32(),
                              lastDistance: try r.f32(), lastPosition: try readCoordinate(&r), lastTime: try r.i64())
            var margins: [(below: UInt16, above: UInt16)] = []
            for _ in 0..<3 {
                let packed = try r.u32()
                margins.append((UInt16(packed >> 16), UInt16(packed & 0xFFFF)))
            }
            t.etaMilestones.rangeMargins = margins
            let flags = try r.u8()
            if let errors = t.snapshot.summary?.etaErrors {
                t.snapshot.summary!.etaErrors = EtaErrors(quarter: errors.quarter, half: errors.half,
                                                          threeQuarters: errors.threeQuarters, rangeFlags: flags)
            }
            let count = try r.length()
            guard count < EtaSampleList.capacity else {
                throw BinaryReader.Corrupt(description: "\(count) ETA learning samples, fewer than \(EtaSampleList.capacity)")
            }
            let nextDue = try r.i64(), interval = try r.i64()
            var samples: [EtaSampleList.Sample] = []
            for _ in 0..<count {
                let time = try r.i64()
                var values: [Double] = []
                for _ in 0..<EtaSampleList.Sample.storedCount { values.append(try r.f64()) }
                guard let sample = EtaSampleList.Sample(time: time, storedValues: values) else {
                    throw BinaryReader.Corrupt(description: "ETA learning sample out of bounds")
                }
                samples.append(sample)
            }
            guard let list = EtaSampleList(samples: samples, nextDue: nextDue, interval: interval) else {
                throw BinaryReader.Corrupt(description: "ETA learning samples out of bounds")
            }
            t.etaSamples = list
        }
        return t
    }

    /// A one-byte enum case; an unknown byte is corrupt.
    private static func readCase<T: RawRepresentable>(_ r: inout BinaryReader, _ what: String)
        throws(BinaryReader.Corrupt) -> T where T.RawValue == UInt8
    {
        let raw = try r.u8()
        guard let value = T(rawValue: raw) else { throw BinaryReader.Corrupt(description: "bad \(what) \(raw)") }
        return value
    }

    /// An ETA milestone or error, seconds; `Int32.min` is how memory says "none", so never a value.
    private static func readGradedSeconds(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> Int32? {
        try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            let seconds = try r.i32()
            guard seconds != Int32.min else { throw BinaryReader.Corrupt(description: "ETA seconds out of range") }
            return seconds
        }
    }

    private static func readOptionalI64(_ r: inout BinaryReader) throws(BinaryReader.Corrupt) -> Int64? {
        try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
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
        w.optional(o.delayThreshold) { w, v in w.length(v) }
        write(o.metadata, &w)
        w.optional(o.expiresAfter) { w, v in w.length(v) }
        w.optional(o.status) { w, v in w.u8(v.rawValue) }
        w.optional(o.legs) { w, v in writeLegs(v, &w) }
        w.optional(o.legId) { w, v in w.string(v) }
        w.optional(o.legIds) { w, ids in
            w.length(ids.count)
            for id in ids { w.string(id) }
        }
        w.optional(o.wrongDestination) { w, v in w.u8(v.rawValue) }
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
            try readCase(&r, "travel mode")
        }
        o.approachingThreshold = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in
            try r.length()
        }
        o.scheduledArrivalAt = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.i64() }
        if r.layout >= 3 {
            o.delayThreshold = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.length() }
        }
        o.metadata = try readJSON(&r)
        if r.layout >= 6 {
            o.expiresAfter = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.length() }
            o.status = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) -> TripStatus in
                try readCase(&r, "trip status")
            }
            o.legs = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try readLegs(&r) }
            o.legId = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) in try r.string() }
            o.legIds = try r.optional { (r: inout BinaryReader) throws(BinaryReader.Corrupt) -> [String] in
                let count = try r.length()
                guard count <= 10_000 else { throw BinaryReader.Corrupt(description: "\(count) leg ids") }
                var ids: [String] = []
                for _ in 0..<count { ids.append(try r.string()) }
                return ids
            }
        }
        if r.layout >= 10 {
            o.wrongDestination = try r.optional {
                (r: inout BinaryReader) throws(BinaryReader.Corrupt) -> WrongDestinationRule in
                try readCase(&r, "wrong-destination rule")
            }
        }
        return o
    }
}
