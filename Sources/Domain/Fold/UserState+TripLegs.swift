/// Multi-leg trips (Radar's trip legs): legs finish after their stop, commands add, reorder,
/// skip, arrive at and complete them. See `TripLeg`.
extension UserState {
    // MARK: - Commands

    /// `addLegs`, `reorderLegs` and `updateLeg`, for the open trip with `command.trip.externalId`.
    mutating func applyLegCommand(_ command: TripCommand, context: FoldContext, events: inout [Event]) -> FoldOutcome {
        guard let current = trip, current.snapshot.status.isOpen,
            current.snapshot.plan.externalId == command.trip.externalId
        else { return .unknownTrip }
        let plan = current.snapshot.plan
        guard !plan.legs.isEmpty else { return .invalidTransition }  // a trip to one destination has no legs
        let time = command.createdAt
        switch command.kind {
        case .addLegs:
            guard let legs = TripLeg.adding(command.trip.legs ?? [], to: plan.legs) else { return .invalidTransition }
            replacePlan(plan.with(legs: legs, defaultRadius: context.settings.defaultDestinationRadius), at: time,
                        context: context)
            events.append(tripEvent(.updatedTrip, at: time, context: context) { $0.combine(UInt8(3)) })
        case .reorderLegs:
            guard let legs = Self.reordered(plan.legs, to: command.trip.legIds ?? [],
                                            keepingCurrent: current.snapshot.status == .arrived)
            else { return .invalidTransition }
            replacePlan(plan.with(legs: legs, defaultRadius: context.settings.defaultDestinationRadius), at: time,
                        context: context)
            events.append(tripEvent(.updatedTrip, at: time, context: context) { $0.combine(UInt8(4)) })
        case .updateLeg:
            guard let id = command.trip.legId, let index = plan.legs.firstIndex(where: { $0.id == id }),
                plan.legs[index].status == .pending, let status = command.trip.status
            else { return .invalidTransition }
            return updateLeg(at: index, to: status, at: time, context: context, events: &events)
        default:
            return .unknownTrip
        }
        return .applied
    }

    private mutating func updateLeg(at index: Int, to status: TripStatus, at time: UnixMillis, context: FoldContext,
                                    events: inout [Event]) -> FoldOutcome
    {
        guard let progress = trip else { return .unknownTrip }
        let plan = progress.snapshot.plan
        let isCurrent = index == plan.currentLegIndex
        switch status {
        case .canceled where !isCurrent || !progress.snapshot.status.isActive:  // skipped before it was reached
            var legs = plan.legs
            legs[index].status = .canceled
            let skipped = plan.with(legs: legs, defaultRadius: context.settings.defaultDestinationRadius)
            guard skipped.currentLeg != nil else { return .invalidTransition }  // a pending trip needs a leg: cancel it instead
            replacePlan(skipped, at: time, context: context)
            events.append(tripEvent(.updatedTrip, at: time, context: context) {
                $0.combine(UInt8(5))
                $0.combine(plan.legs[index].id)
            })
        case .canceled, .completed:
            guard isCurrent, progress.snapshot.status.isActive else { return .invalidTransition }
            finishCurrentLeg(as: status, at: time, context: context, events: &events)
        case .arrived:
            guard isCurrent, progress.snapshot.status.allowsCommand(to: .arrived), progress.snapshot.status != .arrived
            else { return .invalidTransition }
            arriveByCommand(at: time, context: context, events: &events)
        default:
            return .invalidTransition
        }
        return .applied
    }

    /// Arrival set by a command (the trip's `update` or the leg's `updateLeg`), not detected.
    mutating func arriveByCommand(at time: UnixMillis, context: FoldContext, events: inout [Event]) {
        guard let box = uniqueTripBox() else { return }
        box.value.snapshot.status = .arrived
        box.value.snapshot.arrivedAt = time
        box.value.snapshot.eta = Eta(durationSeconds: 0, distanceMeters: 0)
        _ = box.value.updateDelay(at: time)
        events.append(tripEvent(.arrivedAtTripDestination, at: time, context: context))
        finishLegWithoutStop(at: time, context: context, events: &events)
    }

    /// `plan` instead of the trip's plan; heading for its current leg if that changed.
    private mutating func replacePlan(_ plan: TripPlan, at time: UnixMillis, context: FoldContext) {
        guard let box = uniqueTripBox() else { return }
        let before = box.value.snapshot.plan
        if box.value.snapshot.status.isActive, plan.currentLeg?.id != before.currentLeg?.id {
            box.value.headTo(plan, at: time)
            refreshTrip(at: time, accuracy: .infinity, context: context)
        } else {
            box.value.snapshot.plan = plan
        }
    }

    /// `legs` with the pending ones in the order of `ids` (which must name each exactly once), after
    /// the finished ones; nil if `ids` does not, or moves the current leg while the user is at it.
    static func reordered(_ legs: [TripLeg], to ids: [String], keepingCurrent: Bool) -> [TripLeg]? {
        let pending = legs.filter { $0.status == .pending }
        guard ids.count == pending.count, Set(ids).count == ids.count else { return nil }
        var reordered = legs.filter { $0.status != .pending }
        for id in ids {
            guard let leg = pending.first(where: { $0.id == id }) else { return nil }
            reordered.append(leg)
        }
        if keepingCurrent, ids.first != pending.first?.id { return nil }
        return reordered
    }

    // MARK: - Finishing legs

    /// The current leg is done (`completed`, or `canceled`: skipped): on to the next pending leg, or,
    /// after the last, the trip completes.
    mutating func finishCurrentLeg(as status: TripStatus, at time: UnixMillis, context: FoldContext,
                                   events: inout [Event])
    {
        guard let box = uniqueTripBox(), let index = box.value.snapshot.plan.currentLegIndex else { return }
        let plan = box.value.snapshot.plan
        var legs = plan.legs
        legs[index].status = status
        legs[index].arrivedAt = box.value.snapshot.arrivedAt
        let next = plan.with(legs: legs, defaultRadius: context.settings.defaultDestinationRadius)
        guard next.currentLeg != nil else {
            box.value.snapshot.plan = next
            stopTrip(as: .completed, at: time, context: context, events: &events)
            return
        }
        box.value.headTo(next, at: time)
        refreshTrip(at: time, accuracy: .infinity, context: context)
        _ = box.value.updateDelay(at: time)
        events.append(tripEvent(.updatedTrip, at: time, context: context) {
            $0.combine(UInt8(2))
            $0.combine(plan.legs[index].id)
        })
    }

    /// A leg with no stop (`stopDuration` 0) is done as soon as the user arrives.
    mutating func finishLegWithoutStop(at time: UnixMillis, context: FoldContext, events: inout [Event]) {
        guard let leg = tripBoxForReading?.value.snapshot.plan.currentLeg, leg.stopDuration == 0 else { return }
        finishCurrentLeg(as: .completed, at: time, context: context, events: &events)
    }

    /// When the current leg's stop is over: `stopDuration` after arriving (a stream-time timer).
    var legStopDue: UnixMillis? { tripBoxForReading?.legStopDue }

    /// Finishes the current leg if its stop is what is due at `due`.
    mutating func fireLegStop(due: UnixMillis, context: FoldContext, events: inout [Event]) -> Bool {
        guard legStopDue == due else { return false }
        finishCurrentLeg(as: .completed, at: due, context: context, events: &events)
        return true
    }

    /// The legs of a trip that stops with `status`: the current leg completes if the user is there
    /// and the trip completes; every other pending leg is canceled (expired, with an expired trip).
    static func closingLegs(of plan: TripPlan, as status: TripStatus, arrivedAt: UnixMillis?) -> [TripLeg] {
        var legs = plan.legs
        for index in legs.indices where legs[index].status == .pending {
            if index == plan.currentLegIndex, status == .completed, let arrivedAt {
                legs[index].status = .completed
                legs[index].arrivedAt = arrivedAt
            } else {
                legs[index].status = status == .expired ? .expired : .canceled
            }
        }
        return legs
    }
}

extension TripBox {
    /// `UserState.legStopDue`, read from the box alone: per fix, on a state read in place.
    var legStopDue: UnixMillis? {
        guard value.snapshot.status == .arrived, let leg = value.snapshot.plan.currentLeg,
            let arrivedAt = value.snapshot.arrivedAt
        else { return nil }
        return arrivedAt + UnixMillis(leg.stopDuration) * 60_000
    }
}
