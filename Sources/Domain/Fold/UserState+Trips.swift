/// The trip lifecycle: (pending →) started → approaching → arrived → completed; canceled; expired.
extension UserState {
    // MARK: - Commands

    mutating func apply(_ command: TripCommand, context: FoldContext, events: inout [Event]) -> FoldOutcome {
        let time = command.createdAt
        switch command.kind {
        case .start:
            if let current = trip, current.snapshot.status.isOpen {
                if current.snapshot.plan.externalId == command.trip.externalId {
                    var options = command.trip
                    if current.snapshot.status == .pending, options.status == nil {
                        options.status = .started  // a start without a status starts the pending trip
                    }
                    return update(with: options, at: time, context: context, events: &events)
                }
                stopTrip(as: .canceled, at: time, context: context, events: &events)  // replaced by the new trip
            }
            let ordinal = ordinals.next(.starts(ofTrip: command.trip.externalId), at: time)
            let plan = Self.makePlan(command.trip, base: nil, settings: context.settings)
            let pending = command.trip.status == .pending
            trip = TripProgress(snapshot: TripSnapshot(plan: plan, status: pending ? .pending : .started, startedAt: time),
                                ordinal: ordinal)
            // A pending trip is silent until an update starts it (or a stop ends it).
            if !pending { beginTracking(at: time, context: context, events: &events) }
            return .applied
        case .update:
            guard let current = trip, current.snapshot.status.isOpen,
                current.snapshot.plan.externalId == command.trip.externalId
            else { return .unknownTrip }
            return update(with: command.trip, at: time, context: context, events: &events)
        case .addLegs, .reorderLegs, .updateLeg:
            return applyLegCommand(command, context: context, events: &events)
        case .complete, .cancel:
            guard let current = trip, current.snapshot.status.isOpen,
                current.snapshot.plan.externalId == command.trip.externalId
            else { return .unknownTrip }
            stopTrip(as: command.kind == .complete ? .completed : .canceled, at: time, context: context,
                     events: &events)
            return .applied
        }
    }

    private mutating func update(with options: TripOptions, at time: UnixMillis, context: FoldContext,
                                 events: inout [Event]) -> FoldOutcome
    {
        guard var progress = trip else { return .unknownTrip }
        let status = progress.snapshot.status
        if let next = options.status, !status.allowsCommand(to: next) { return .invalidTransition }
        let before = progress.snapshot.plan
        progress.snapshot.plan = Self.makePlan(options, base: before, settings: context.settings)
        if !progress.snapshot.plan.hasDestination(of: before) {
            progress.etaMilestones = EtaMilestones()  // a new way: the old predictions were for another place
        }
        let next = options.status ?? status
        if next == .pending {
            trip = progress  // still silent
            return .applied
        }
        if status == .pending, next == .started {
            progress.snapshot.startedAt = time  // the trip starts now; so do its duration and expiry
            progress.snapshot.status = .started
            trip = progress
            beginTracking(at: time, context: context, events: &events)
            return .applied
        }
        trip = progress
        if next == .completed || next == .canceled {
            stopTrip(as: next, at: time, context: context, events: &events)
            return .applied
        }
        refreshTrip(at: time, accuracy: .infinity, context: context)
        let delayedNow = updateTripDelay(at: time)
        events.append(tripEvent(.updatedTrip, at: time, context: context) { $0.combine(UInt8(1)) })
        if let box = uniqueTripBox(), next != box.value.snapshot.status {
            // Set by the command (Radar's update-trip status), not detected from fixes.
            if next == .approaching {
                box.value.snapshot.status = .approaching
                events.append(tripEvent(.approachingTripDestination, at: time, context: context))
            } else if next == .arrived {
                if delayedNow { events.append(tripEvent(.delayedDuringTrip, at: time, context: context)) }
                arriveByCommand(at: time, context: context, events: &events)  // may finish a leg
                return .applied
            }
        }
        if delayedNow { events.append(tripEvent(.delayedDuringTrip, at: time, context: context)) }
        return .applied
    }

    /// Starts tracking a trip that just started: mileage from a fresh location, the first ETA,
    /// `user.started_trip` (and `user.delayed_during_trip` if already late).
    private mutating func beginTracking(at time: UnixMillis, context: FoldContext, events: inout [Event]) {
        let fresh = location != nil && time - locationAt <= context.settings.freshLocation
        uniqueTripBox()?.value.mileageAnchor = fresh ? location : nil
        if fresh { refreshTrip(at: time, accuracy: .infinity, context: context) }
        if let box = uniqueTripBox(), box.value.snapshot.destinationLocation == nil,
            let id = box.value.snapshot.plan.destinationGeofenceID
        {
            // No location yet to measure from: the destination's center all the same, as Radar's trip has it.
            box.value.snapshot.destinationLocation = context.geofences.geofence(id)?.extent?.center
        }
        let delayedNow = updateTripDelay(at: time)
        events.append(tripEvent(.startedTrip, at: time, context: context))
        if delayedNow { events.append(tripEvent(.delayedDuringTrip, at: time, context: context)) }
    }

    /// The plan of `options`, on top of `base` for an update. A multi-leg trip keeps its legs (its
    /// destination is its current leg's, whatever an update says); a start may bring them.
    static func makePlan(_ options: TripOptions, base: TripPlan?, settings: FoldSettings) -> TripPlan {
        let plan = makeSingleDestinationPlan(options, base: base, settings: settings)
        let legs = base.map { !$0.legs.isEmpty } == true
            ? base!.legs : options.legs.flatMap { TripLeg.adding($0, to: []) } ?? []
        return legs.isEmpty ? plan : plan.with(legs: legs, defaultRadius: settings.defaultDestinationRadius)
    }

    private static func makeSingleDestinationPlan(_ options: TripOptions, base: TripPlan?, settings: FoldSettings)
        -> TripPlan
    {
        let newDestination = options.destinationCoordinates != nil || options.destinationGeofenceTag != nil
        return TripPlan(
            externalId: options.externalId,
            destinationGeofenceTag: newDestination ? options.destinationGeofenceTag : base?.destinationGeofenceTag,
            destinationGeofenceExternalId: newDestination
                ? options.destinationGeofenceExternalId : base?.destinationGeofenceExternalId,
            destinationCoordinates: newDestination ? options.destinationCoordinates : base?.destinationCoordinates,
            destinationRadius: options.destinationRadius ?? base?.destinationRadius ?? settings.defaultDestinationRadius,
            mode: options.mode ?? base?.mode ?? .car,
            approachingThreshold: options.approachingThreshold ?? base?.approachingThreshold
                ?? settings.defaultApproachingThreshold,
            scheduledArrivalAt: options.scheduledArrivalAt ?? base?.scheduledArrivalAt,
            delayThreshold: options.delayThreshold ?? base?.delayThreshold ?? settings.defaultDelayThreshold,
            metadata: options.metadata ?? base?.metadata,
            expiry: options.expiresAfter.map { UnixMillis($0) * 60_000 } ?? base?.expiry ?? settings.tripExpiry,
            wrongDestination: options.wrongDestination ?? base?.wrongDestination ?? settings.wrongDestination)
    }

    /// Ends the active trip with `status`, with its summary, and clears it.
    mutating func stopTrip(as status: TripStatus, at time: UnixMillis, context: FoldContext, events: inout [Event]) {
        guard var progress = trip else { return }
        if !progress.snapshot.plan.legs.isEmpty {
            let plan = progress.snapshot.plan
            progress.snapshot.plan = plan.with(
                legs: Self.closingLegs(of: plan, as: status, arrivedAt: progress.snapshot.arrivedAt),
                defaultRadius: plan.destinationRadius)
        }
        progress.snapshot.status = status
        progress.snapshot.eta = nil
        let onSite = progress.snapshot.arrivedAt.map { arrived in
            Int32(clamping: ((progress.leftDestinationAt ?? time) - arrived) / 1000)
        }
        progress.snapshot.summary = TripSummary(
            distanceMeters: Int32(clamping: Int64(progress.distance.rounded())),
            durationSeconds: Int32(clamping: (time - progress.snapshot.startedAt) / 1000),
            timeOnSiteSeconds: onSite,
            etaErrors: progress.snapshot.arrivedAt.map { arrived in
                progress.etaMilestones.errors(arrivalSeconds: Int32(clamping: (arrived - progress.snapshot.startedAt) / 1000))
            } ?? EtaErrors())
        trip = progress
        events.append(tripEvent(.stoppedTrip, at: time, context: context))
        trip = nil
    }

    // MARK: - Fixes

    /// Mileage, arrival, ETA, approaching and delay for a fix of a user on a trip.
    mutating func advanceTrip(
        at position: Coordinate, accuracy: Double, time: UnixMillis, relocated: Bool, context: FoldContext,
        events: inout [Event]
    ) {
        guard hasActiveTrip, let box = uniqueTripBox() else { return }
        // Work on the boxed trip in place: no copies of the trip per fix.
        let wasStatus = box.value.snapshot.status
        let wasInside = box.value.insideDestination
        if relocated || box.value.mileageAnchor == nil {
            box.value.mileageAnchor = position  // a confirmed jump is not driven distance
        } else if let anchor = box.value.mileageAnchor {
            let step = Geodesy.distance(anchor, position)
            if step >= context.settings.mileageMinimumStep {
                box.value.distance += step
                box.value.mileageAnchor = position
            }
        }
        var arrivedNow = false
        // The slot through a local: reading the plan while writing into the same trip is an overlapping
        // access, which made the compiler copy the plan (retaining its strings) on every fix.
        var destinationSlot = box.value.destinationSlot
        let destination = Self.destinationDistance(of: box.value.snapshot.plan, from: position,
                                                   in: context.geofences, slot: &destinationSlot)
        if destinationSlot != box.value.destinationSlot { box.value.destinationSlot = destinationSlot }
        if let destination {
            arrivedNow = Self.refresh(&box.value, learning: &etaLearning, destination: destination, at: time,
                                      position: position, accuracy: accuracy, context: context)
        }

        let delayedNow = box.value.updateDelay(at: time)
        events.append(tripEvent(.updatedTrip, at: time, context: context) { $0.combine(UInt8(0)) })
        if arrivedNow {
            events.append(tripEvent(.arrivedAtTripDestination, at: time, context: context))
            finishLegWithoutStop(at: time, context: context, events: &events)
            return
        }
        if wasInside, !box.value.insideDestination, box.value.snapshot.status == .arrived,
            box.value.snapshot.plan.currentLegIndex != nil
        {
            // Leaving a leg's destination ends its stop, however long it was meant to be.
            finishCurrentLeg(as: .completed, at: time, context: context, events: &events)
            return
        }
        // Fields read in the box: a copy of the snapshot retains and releases its plan's strings, per fix.
        if wasStatus == .started, box.value.snapshot.status == .started, let eta = box.value.snapshot.eta,
            Int64(eta.durationSeconds) <= Int64(box.value.snapshot.plan.approachingThreshold) * 60
        {
            box.value.snapshot.status = .approaching
            events.append(tripEvent(.approachingTripDestination, at: time, context: context))
        }
        if delayedNow { events.append(tripEvent(.delayedDuringTrip, at: time, context: context)) }
        if box.value.startsMovingAway(at: time, after: context.settings.movingAwayAfter), let since = box.value.etaRisingSince {
            events.append(tripEvent(.movingAwayFromTripDestination, at: time, context: context,
                                    durationSeconds: Int32(clamping: (time - since) / 1000)) { $0.combine(since) })
        }
    }

    /// Under `WrongDestinationRule.entry` (Radar's rule): `user.arrived_at_wrong_trip_destination`
    /// for each geofence entered among `events[entries]` that has the destination's tag but another
    /// externalId, while the trip is active.
    mutating func reportWrongDestinations(entries: Range<Int>, at time: UnixMillis, context: FoldContext,
                                          events: inout [Event])
    {
        // Read in the box: copying the plan out retains all of its strings, on every fix with an entry.
        guard let box = tripBoxForReading, box.value.snapshot.plan.wrongDestination == .entry,
            box.value.snapshot.status.isActive, let tag = box.value.snapshot.plan.destinationGeofenceTag,
            let destination = box.value.snapshot.plan.destinationGeofenceExternalId
        else { return }
        for index in entries where events[index].type == .enteredGeofence {
            guard let geofence = events[index].geofence, geofence.tag == tag, geofence.externalId != destination
            else { continue }
            let entry = events[index].id  // one per visit: the entry's id names the visit
            events.append(tripEvent(.arrivedAtWrongTripDestination, at: time, context: context, geofence: geofence) {
                $0.combine(entry.high)
                $0.combine(UInt64(entry.low))
            })
        }
    }

    /// The user is stopped (`isStopped`) at `time`; `confirmedNow` when this fix is the first to
    /// find the stop `stopDuration` long. Every visit is marked as stopped in. Under
    /// `WrongDestinationRule.stop`, one stop yields at most one `user.arrived_at_wrong_trip_destination`,
    /// when it is confirmed: for the visit, not stopped in before, of a geofence with the destination's
    /// tag but another externalId that the user is deepest inside (stores or drop-offs overlap at a
    /// station). Not while the trip has arrived or the user is inside its destination, and not for a
    /// visit that began by the trip's start (where it starts: a pickup, a depot). A drive-through, or
    /// a wait at a light shorter than `stopDuration`, never yields one.
    mutating func noteStopInside(at time: UnixMillis, confirmedNow: Bool, context: FoldContext, events: inout [Event]) {
        var wrong: (index: Int, depth: Double, geofence: Geofence)?
        if confirmedNow, let box = tripBoxForReading, box.value.snapshot.plan.wrongDestination == .stop,
            box.value.snapshot.status.isOnTheWay, !box.value.insideDestination, let location,
            let tag = box.value.snapshot.plan.destinationGeofenceTag,
            let destination = box.value.snapshot.plan.destinationGeofenceExternalId
        {
            let startedAt = box.value.snapshot.startedAt
            for (index, presence) in presences.enumerated()
            where !presence.stoppedInside && presence.enteredAt > startedAt {
                var hint = presence.slotHint
                guard let geofence = context.geofences.geofence(presence.geofenceID, hint: &hint),
                    geofence.tag == tag, geofence.externalId != destination,
                    let depth = context.geofences.signedDistance(slot: hint, id: presence.geofenceID, to: location)?
                        .distance
                else { continue }
                if wrong.map({ depth < $0.depth }) ?? true { wrong = (index, depth, geofence) }
            }
        }
        if let wrong {
            let visit = presences[wrong.index]  // one per visit: the visit names it
            events.append(tripEvent(.arrivedAtWrongTripDestination, at: time, context: context,
                                    geofence: wrong.geofence) { visit.combineVisit(into: &$0) })
        }
        for index in presences.indices where !presences[index].stoppedInside { presences[index].stoppedInside = true }
    }

    /// `TripProgress.updateDelay` on the trip in place.
    private mutating func updateTripDelay(at time: UnixMillis) -> Bool {
        uniqueTripBox()?.value.updateDelay(at: time) ?? false
    }

    /// Recomputes destination presence and ETA from the current location.
    /// - Returns: whether the trip arrived just now.
    @discardableResult
    mutating func refreshTrip(at time: UnixMillis, accuracy: Double, context: FoldContext) -> Bool {
        guard let location, hasActiveTrip, let plan = tripBoxForReading?.value.snapshot.plan,
            let destination = Self.destinationDistance(of: plan, from: location, in: context.geofences)
        else { return false }
        let box = uniqueTripBox()!
        return Self.refresh(&box.value, learning: &etaLearning, destination: destination, at: time,
                            position: location, accuracy: accuracy, context: context)
    }

    /// `refreshTrip` on a trip borrowed in place.
    private static func refresh(_ progress: inout TripProgress, learning etaLearning: inout EtaLearning,
                                destination: (signed: Double, radius: Double, center: Coordinate?), at time: UnixMillis,
                                position: Coordinate, accuracy: Double, context: FoldContext) -> Bool
    {
        let settings = context.settings
        progress.snapshot.destinationLocation = destination.center
        var arrivedNow = false
        if accuracy.isFinite {
            if !progress.insideDestination {
                if Self.entersArea(signedDistance: destination.signed, accuracy: accuracy, radius: destination.radius,
                                   settings: settings)
                {
                    progress.insideDestination = true
                    if progress.snapshot.status != .arrived {
                        progress.snapshot.status = .arrived
                        progress.snapshot.arrivedAt = time
                        progress.snapshot.eta = Eta(durationSeconds: 0, distanceMeters: 0)
                        EtaModel.learn(from: progress, arrival: time, into: &etaLearning)
                        context.etaLearner?.learn(progress.etaSamples, arrival: time)
                        arrivedNow = true
                    }
                }
            } else if Self.leavesArea(signedDistance: destination.signed, accuracy: accuracy,
                                      radius: destination.radius, settings: settings)
            {
                progress.insideDestination = false
                if progress.snapshot.status == .arrived, progress.leftDestinationAt == nil {
                    progress.leftDestinationAt = time
                }
            }
        }
        if progress.snapshot.status != .arrived {
            let centerDistance = destination.signed + destination.radius
            let edgeDistance = max(destination.signed, 0)
            if settings.eta.hasFleetModel || context.etaLearner != nil {
                let speed = progress.pace.advance(to: position, centerDistance: centerDistance,
                                                  edgeDistance: edgeDistance, at: time)
                if let learner = context.etaLearner {
                    EtaModel.learnStep(speed, at: position, time: time, trip: &progress, edgeDistance: edgeDistance,
                                       learner: learner)
                }
            }
            let eta = EtaModel.estimateWithRange(
                centerDistance: centerDistance, edgeDistance: edgeDistance, position: position,
                destination: destination.center ?? progress.snapshot.plan.destinationCoordinates, time: time,
                elapsedSeconds: Double(time - progress.snapshot.startedAt) / 1000, pace: progress.pace,
                mode: progress.snapshot.plan.mode, learning: etaLearning, settings: settings.eta)
            if let previous = progress.snapshot.eta {
                // Rising by more than a rounding wobble while the user should be closing in.
                progress.snapshot.etaRisingStreak =
                    eta.durationSeconds > previous.durationSeconds + 5 ? progress.snapshot.etaRisingStreak &+ 1 : 0
            }
            if progress.snapshot.etaRisingStreak == 0 {
                progress.etaRisingSince = nil
                progress.movingAwayNotified = false
            } else if progress.etaRisingSince == nil {
                progress.etaRisingSince = time
            }
            progress.snapshot.eta = eta
            progress.etaMilestones.record(
                centerDistance: centerDistance, eta: eta,
                elapsedSeconds: Int32(clamping: (time - progress.snapshot.startedAt) / 1000))
            EtaModel.recordCheckpoint(centerDistance: centerDistance, at: time, trip: &progress, settings: settings.eta)
        }
        return arrivedNow
    }

    /// Signed distance from `point` to the destination's edge, and the destination's radius.
    static func destinationDistance(of plan: TripPlan, from point: Coordinate, in geofences: GeofenceTable)
        -> (signed: Double, radius: Double, center: Coordinate?)?
    {
        var slot: Int32 = -1
        return destinationDistance(of: plan, from: point, in: geofences, slot: &slot)
    }

    /// As above, remembering the destination's table slot to skip the lookup by id next time.
    /// The center is a destination geofence's (nil for coordinates: the plan has them).
    static func destinationDistance(of plan: TripPlan, from point: Coordinate, in geofences: GeofenceTable,
                                    slot: inout Int32) -> (signed: Double, radius: Double, center: Coordinate?)?
    {
        if let center = plan.destinationCoordinates {
            return (Geodesy.distance(center, point) - plan.destinationRadius, plan.destinationRadius, nil)
        }
        guard let id = plan.destinationGeofenceID, let geofence = geofences.geofence(id, hint: &slot) else {
            return nil
        }
        return (geofence.geometry.signedDistance(to: point), geofence.geometry.characteristicRadius,
                geofence.extent?.center)
    }

    func tripEvent(_ type: EventType, at time: UnixMillis, context: FoldContext, geofence: Geofence? = nil,
                   durationSeconds: Int32? = nil, extra: (inout StableHasher) -> Void = { _ in }) -> Event
    {
        guard let box = tripBoxForReading else { preconditionFailure("trip events need a trip") }
        var hasher = box.idHasher(for: type, userIdHasher: context.userIdHasher)
        if type == .updatedTrip { hasher.combine(time) }
        extra(&hasher)
        // The snapshot given to `makeEvent`, not set on the event it returns: that would copy the event.
        return makeEvent(type, at: time, context: context, geofence: geofence, durationSeconds: durationSeconds,
                         trip: box.value.snapshot, hashed: hasher)
    }
}
